// The benchmark's floors, checked on the source text (test/support/importGraph.ts). src/bench is
// built in rooms, each of which may import only the rooms below it:
//
//   errorCodes.ts        the room's closed error-code union; imports nothing
//   dataset/             the data set on disk, its fetch and manifest, task folders
//   sandbox/             bubblewrap, cgroups, limits, seccomp, the self-test, the Python runtime
//   grading/             the trusted grader (public and held-out cases), verify-dataset
//   tasksets/            make-taskset: seeded one-line mutants of the reference fixes, validated
//                        by the grader (beside the agent: neither imports the other)
//   agent/               the agent loop, its tools and their policy, prompts, conditions, trace
//   endpoint/            the served model before a run: the preflight, a served checkpoint
//                        recognised, the thinking mode (read by what starts a run, never by the loop)
//   results/             outcomes, tables, statistics, diffs, special-casing
//   runs/                run directories, the task plan and shards, merge, compare, progress
//   (top)                what starts a run: the environment, the run, one task
//
// The rules follow from that order: the sandbox imports nothing of the agent, the grader
// or the tables; the grader nothing of the agent or the tables; the agent nothing of the grader
// or the tables; nothing below the tables imports them. The sandbox and the grader, the trusted
// rooms, reach nothing outside src/bench but src/core; so does the task-set generator.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { findCycle, GRAPH, SRC, underSrc } from "../support/importGraph.ts";

const ROOMS = [
  "errorCodes",
  "dataset",
  "sandbox",
  "grading",
  "tasksets",
  "agent",
  "endpoint",
  "results",
  "runs",
  "top",
] as const;
type BenchRoom = (typeof ROOMS)[number];

/** What each room may import inside src/bench, besides itself. */
const MAY_IMPORT: Readonly<Record<BenchRoom, readonly BenchRoom[]>> = {
  errorCodes: [],
  dataset: ["errorCodes"],
  sandbox: ["errorCodes"],
  grading: ["errorCodes", "dataset", "sandbox"],
  tasksets: ["errorCodes", "dataset", "sandbox", "grading"],
  agent: ["errorCodes", "dataset", "sandbox"],
  endpoint: ["errorCodes", "agent"],
  results: ["errorCodes", "dataset", "sandbox", "grading", "agent"],
  runs: ["errorCodes", "dataset", "sandbox", "grading", "agent", "results"],
  top: ["errorCodes", "dataset", "sandbox", "grading", "tasksets", "agent", "endpoint", "results", "runs"],
};

/** Rooms whose imports outside src/bench are limited to src/core. */
const CORE_ONLY: readonly BenchRoom[] = ["errorCodes", "sandbox", "grading", "tasksets"];

const SUB_ROOMS: readonly BenchRoom[] = [
  "dataset",
  "sandbox",
  "grading",
  "tasksets",
  "agent",
  "endpoint",
  "results",
  "runs",
];

/** The bench room of a path under src/ (`bench/agent/x.ts` → agent), "unknown", or null outside src/bench. */
function benchRoom(pathUnderSrc: string): BenchRoom | "unknown" | null {
  const parts = pathUnderSrc.split("/");
  if (parts[0] !== "bench") return null;
  if (parts.length === 2) return parts[1] === "errorCodes.ts" ? "errorCodes" : "top";
  return SUB_ROOMS.find((r) => r === parts[1]) ?? "unknown";
}

/** Every import that breaks the floors, as `from → to (why)`. */
function floorViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = benchRoom(underSrc(file));
    if (from === null) continue;
    if (from === "unknown") {
      found.push(`${underSrc(file)} is in no known room of src/bench`);
      continue;
    }
    for (const target of imports) {
      const path = underSrc(target);
      const to = benchRoom(path);
      if (to === null) {
        if (CORE_ONLY.includes(from) && !path.startsWith("core/"))
          found.push(`${underSrc(file)} → ${path} (${from} reaches outside src/bench and src/core)`);
        continue;
      }
      if (to !== from && (to === "unknown" || !MAY_IMPORT[from].includes(to)))
        found.push(`${underSrc(file)} → ${path} (${from} may not import ${to})`);
    }
  }
  return found;
}

const benchFiles = [...GRAPH.keys()].filter((f) => benchRoom(underSrc(f)) !== null);

test("the bench's graph is read from the real tree: every room has files and imports (guards the checks below against an empty scan)", () => {
  for (const room of ROOMS) {
    const files = benchFiles.filter((f) => benchRoom(underSrc(f)) === room);
    assert.ok(files.length >= 1, `no files in ${room}`);
  }
  const imports = benchFiles.reduce((n, f) => n + (GRAPH.get(f)?.length ?? 0), 0);
  assert.ok(imports > 100, `only ${imports} imports read`);
});

test("every file of src/bench sits in a known room, and each room imports only the rooms below it", () => {
  assert.deepEqual(floorViolations(GRAPH), []);
});

test("the floor check finds a planted violation of each rule of the issue (it can fail)", () => {
  const at = (p: string): string => resolve(SRC, p);
  const planted = new Map<string, readonly string[]>([
    [
      at("bench/sandbox/sandbox.ts"),
      [
        at("bench/agent/agentLoop.ts"),
        at("bench/grading/trustedGrader.ts"),
        at("bench/results/resultsSummary.ts"),
        at("sources/openaiCompatibleChat.ts"),
      ],
    ],
    [at("bench/grading/trustedGrader.ts"), [at("bench/agent/testRunner.ts"), at("bench/results/taskOutcome.ts")]],
    [
      at("bench/agent/agentLoop.ts"),
      [at("bench/grading/trustedGrader.ts"), at("bench/results/unifiedDiff.ts"), at("bench/runs/runDirectory.ts")],
    ],
    [at("bench/results/taskOutcome.ts"), [at("bench/runs/runDirectory.ts"), at("bench/taskRunner.ts")]],
    [at("bench/errorCodes.ts"), [at("bench/dataset/dataset.ts")]],
    [
      at("bench/tasksets/makeTaskset.ts"),
      [at("bench/agent/agentLoop.ts"), at("bench/results/taskOutcome.ts"), at("sources/openaiCompatibleChat.ts")],
    ],
    [at("bench/misc/helper.ts"), []],
  ]);
  const found = floorViolations(planted);
  assert.equal(found.length, 16, found.join("\n"));
  assert.ok(found.includes("bench/tasksets/makeTaskset.ts → bench/agent/agentLoop.ts (tasksets may not import agent)"));
  assert.ok(found.some((v) => v.startsWith("bench/sandbox/sandbox.ts → sources/")));
  assert.ok(found.some((v) => v.includes("is in no known room")));
});

test("no module of src/bench imports itself through a chain of imports", () => {
  const found = findCycle(GRAPH, (f) => underSrc(f).startsWith("bench/"));
  assert.equal(found, null, `import cycle: ${(found ?? []).map(underSrc).join(" → ")}`);
  const planted = new Map([
    [resolve(SRC, "bench/a.ts"), [resolve(SRC, "bench/b.ts")]],
    [resolve(SRC, "bench/b.ts"), [resolve(SRC, "bench/a.ts")]],
  ]);
  assert.deepEqual(findCycle(planted, () => true)?.map(underSrc), ["bench/a.ts", "bench/b.ts", "bench/a.ts"]);
});

test("rooms a reader can take in: at most 6 modules directly in src/bench, at most 14 in any room", () => {
  const counts = new Map<string, number>();
  for (const f of benchFiles) {
    const parts = underSrc(f).split("/");
    const key = parts.length === 2 ? "src/bench" : `src/bench/${parts[1]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [room, n] of counts) assert.ok(n <= (room === "src/bench" ? 6 : 14), `${room} holds ${n} modules`);
});
