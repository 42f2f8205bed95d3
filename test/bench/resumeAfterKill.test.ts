// Resume that survives being killed anywhere: a scheduler preempts, requeues and time-limits a
// shard with SIGKILL at any moment (Slurm, Kubernetes). A small run (A and D on gcd and pascal,
// one task at a time) is stopped at 20+ steps spread over its whole life — during a model call,
// during grading, half way through a line of tasks.ndjson or of a trace, half way through
// run.json, results.json, results.md or a diff — with no timing involved, then resumed with
// resume on. Each resumed run must equal an uninterrupted one: no task lost, none counted twice,
// no torn or partial file left, the same tables.
//
// Where the kill must be real, it is: a write or a line half done is left only by a process that
// dies in the middle of it, so a child (crashRunChild.mjs, on the compiled build) blocks there and
// is SIGKILLed. A model call or a grading run is an await point of this process: the step hook
// never returns and the run's cancel signal ends what it had in flight, which leaves on disk
// exactly what a kill there leaves (every write of a run is synchronous and already done), so
// those points, the uninterrupted run and every resume run in this process.
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBenchmark, type BenchRunStep } from "../../src/bench/benchmarkRun.ts";
import type { StepHook } from "../../src/core/stepHook.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { benchSetup, referenceFix } from "./benchFixtures.ts";
import { startRoutedServer, type ScriptedTurn } from "./scriptedChatServer.ts";

const CHILD = new URL("./crashRunChild.mjs", import.meta.url).pathname;

/** The steps that are await points of the run (the hook's promise is awaited there). */
const IN_PROCESS_STEPS: ReadonlySet<string> = new Set<BenchRunStep>(["modelCall", "grading"]);

/** gcd fixed (one-shot, or written, tested, done); pascal given a wrong edit, so D refuses its stop until the turn budget. */
function model(fixedGcd: string, buggyPascal: string): (body: Record<string, unknown>) => ScriptedTurn {
  return (body) => {
    const messages = body.messages as { role: string; content: string | null }[];
    const text = messages.map((m) => m.content ?? "").join("\n");
    const program = text.includes("python_programs/gcd.py")
      ? "gcd"
      : text.includes("python_programs/pascal.py")
        ? "pascal"
        : null;
    if (program === null) return { content: "OK" };
    const answer = program === "gcd" ? fixedGcd : `${buggyPascal}\n# an edit that fixes nothing\n`;
    if (!body.tools) return { content: "```python\n" + answer + "```" };
    const turn = messages.filter((m) => m.role === "assistant").length;
    if (turn === 0)
      return {
        toolCalls: [{ name: "write_file", arguments: { path: `python_programs/${program}.py`, content: answer } }],
      };
    if (turn === 1) return { toolCalls: [{ name: "run_tests", arguments: {} }] };
    return { content: "Done." };
  };
}

interface ChildEnd {
  readonly code: number | null;
  readonly signal: string | null;
  readonly lines: string[];
}

/** Runs the child to its step and SIGKILLs it the moment it reports that it reached it. */
function killChildAt(args: readonly string[]): Promise<ChildEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (/^ready:/m.test(out)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0 && signal !== "SIGKILL")
        reject(new Error(`child ${args.join(" ")} exited ${code}: ${err.slice(-800)}`));
      else resolve({ code, signal, lines: out.split("\n").filter((l) => l !== "") });
    });
  });
}

interface Record_ {
  readonly taskId: string;
  readonly repeat?: number;
  readonly [k: string]: unknown;
}

function taskLines(dir: string): Record_[] {
  return readFileSync(join(dir, "tasks.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record_);
}

/** What a task came to, without what legitimately differs between processes (times, attempt numbers, paths, the held-out seed). */
function essence(r: Record_): unknown {
  const grade = r.grade as Record<string, unknown>;
  return {
    outcome: r.outcome,
    stopReason: r.stopReason,
    claimedFixed: r.claimedFixed,
    falseFixed: r.falseFixed,
    changed: r.changed,
    finalSha256: r.finalSha256,
    turns: r.turns,
    tokens: r.tokens,
    guardrails: r.guardrails,
    grade: {
      outcome: grade.outcome,
      counts: grade.counts,
      fixedPublic: grade.fixedPublic,
      fixedWithHeldOut: grade.fixedWithHeldOut,
    },
  };
}

function summaryWithoutTimes(dir: string): unknown {
  const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as {
    complete: boolean;
    tasksDone: number;
    summary: Record<string, unknown>[];
  };
  return {
    complete: results.complete,
    tasksDone: results.tasksDone,
    summary: results.summary.map(({ timeMedianSeconds: _t, ...rest }) => rest),
  };
}

/** Every file of the run folder: no partial replacement left, every NDJSON line whole and parseable. */
function assertNoTornFiles(dir: string, where: string): void {
  for (const folder of ["", "traces", "diffs"]) {
    for (const name of readdirSync(join(dir, folder))) {
      assert.ok(!name.endsWith(".partial"), `${where}: a partial file was left: ${folder}/${name}`);
      if (!name.endsWith(".ndjson")) continue;
      const text = readFileSync(join(dir, folder, name), "utf8");
      assert.ok(text === "" || text.endsWith("\n"), `${where}: ${folder}/${name} ends in a torn line`);
      for (const line of text.split("\n").filter((l) => l !== ""))
        assert.doesNotThrow(() => JSON.parse(line), `${where}: ${folder}/${name} has a line that is not JSON`);
    }
  }
  JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
}

sandboxTest(
  "a run killed (SIGKILL) at 20+ steps over its life and resumed equals an uninterrupted run: no task lost or doubled, no torn file, the same tables",
  { timeout: 900_000 },
  async () => {
    const { sandbox, dataset } = benchSetup();
    const server = await startRoutedServer(
      model(referenceFix(dataset, "gcd"), readFileSync(join(dataset.root, "python_programs", "pascal.py"), "utf8")),
    );
    const base = mkdtempSync(join(tmpdir(), "tca-kill-"));
    try {
      const backend = (): OpenAiCompatibleClient =>
        new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted" });
      // Everything of the run but its folder, backend and hook: the same for every run here and
      // for the child, which gets it (the sandbox's seccomp filter as base64) in one file.
      const options = {
        modelDescription: { ...(await backend().describe(AbortSignal.timeout(5000))), label: "scripted" },
        modelName: "scripted",
        conditions: ["A", "D"] as const,
        programs: ["gcd", "pascal"],
        jobs: 1,
        testTimeoutMs: 60_000,
        includeSlow: false,
        environment: { note: "kill-anywhere test" },
      };
      const runFile = join(base, "run-options.json");
      writeFileSync(
        runFile,
        JSON.stringify({
          options,
          dataset,
          sandbox: { ...sandbox, seccomp: sandbox.seccomp === undefined ? null : sandbox.seccomp.toString("base64") },
        }),
      );
      const run = (
        outDir: string,
        resume: boolean,
        extra: { hook?: StepHook<BenchRunStep>; signal?: AbortSignal } = {},
      ): ReturnType<typeof runBenchmark> =>
        runBenchmark({
          ...options,
          conditions: [...options.conditions],
          dataset,
          sandbox,
          backend: backend(),
          outDir,
          resume,
          ...extra,
        });

      // The uninterrupted run, which also counts every step, so the kills can be spread over it.
      const reference = join(base, "reference");
      const steps: { point: string; detail: string }[] = [];
      const counted = await run(reference, false, { hook: (point, detail) => void steps.push({ point, detail }) });
      assert.ok(counted.ok, counted.ok ? "" : counted.message);
      const referenceTasks = taskLines(reference);
      assert.deepEqual(deriveBenchVerdict(reference).problems, []);
      assert.deepEqual(referenceTasks.map((r) => [r.taskId, r.outcome]).sort(), [
        ["A-gcd", "fixed"],
        ["A-pascal", "wrong_fix"],
        ["D-gcd", "fixed"],
        ["D-pascal", "out_of_budget"],
      ]);

      // The kill points: for each step its first, middle and last occurrence (trace lines also the
      // quartiles), and for file writes
      // the first and last write of each kind of file (run.json, results.json, results.md, a diff).
      const occurrences = (point: string): number => steps.filter((s) => s.point === point).length;
      const points = new Set<string>();
      for (const point of ["modelCall", "grading", "taskAppend", "traceWrite"]) {
        const n = occurrences(point);
        assert.ok(n >= 3, `${point} came only ${n} times`);
        const at =
          point === "traceWrite"
            ? [1, Math.ceil(n / 4), Math.ceil(n / 2), Math.ceil((3 * n) / 4), n]
            : [1, Math.ceil(n / 2), n];
        for (const k of at) points.add(`${point}:${k}`);
      }
      const writes = steps.filter((s) => s.point === "fileWrite");
      for (const kind of ["run.json", "results.json", "results.md", ".diff"]) {
        const at = writes.flatMap((w, i) => (w.detail.endsWith(kind) ? [i + 1] : []));
        assert.ok(at.length >= 1, `no write of ${kind}`);
        points.add(`fileWrite:${at[0]}`);
        points.add(`fileWrite:${at[at.length - 1]}`);
      }
      assert.ok(points.size >= 20, `only ${points.size} kill points`);

      /** Stops a run at its step's n-th occurrence; what stopped it and the step it reported reaching. */
      const stopAt = async (dir: string, step: string, n: number): Promise<{ stopped: string; ready: string[] }> => {
        if (!IN_PROCESS_STEPS.has(step)) {
          const killed = await killChildAt([runFile, dir, server.endpoint, step, String(n)]);
          return {
            stopped: killed.signal ?? `exit ${killed.code}: ${killed.lines.at(-1) ?? "printed nothing"}`,
            ready: killed.lines,
          };
        }
        let hits = 0;
        let reached: (line: string) => void = () => undefined;
        const atStep = new Promise<string>((resolve) => (reached = resolve));
        const cancel = new AbortController();
        const hook: StepHook<BenchRunStep> = (point, detail) => {
          if (point !== step || ++hits !== n) return;
          reached(`ready:${point}:${hits}:${detail}`);
          return new Promise<void>(() => undefined);
        };
        const ended = run(dir, false, { hook, signal: cancel.signal }).then((r) =>
          r.ok ? "the run finished" : `the run failed: ${r.error}`,
        );
        const first = await Promise.race([atStep, ended]);
        // What the run had in flight (the model's reply, the grading sandbox) ends as a kill ends it;
        // the hook never returns, so nothing after the step runs.
        cancel.abort();
        return first.startsWith("ready:") ? { stopped: "SIGKILL", ready: [first] } : { stopped: first, ready: [] };
      };

      for (const point of points) {
        const [step, n] = point.split(":") as [string, string];
        const dir = join(base, `killed-${step}-${n}`);
        const killed = await stopAt(dir, step, Number(n));
        assert.equal(killed.stopped, "SIGKILL", `${point}: the run was not killed at its step (${killed.stopped})`);
        assert.ok(
          killed.ready.some((l) => l.startsWith(`ready:${step}:`)),
          point,
        );
        const resumed = await run(dir, true);
        assert.ok(resumed.ok, `${point}: the resume failed: ${resumed.ok ? "" : resumed.message}`);

        const lines = taskLines(dir);
        const keys = lines.map((r) => r.taskId);
        assert.equal(new Set(keys).size, keys.length, `${point}: a task was counted twice: ${keys.join(", ")}`);
        assert.deepEqual(
          Object.fromEntries(lines.map((r) => [r.taskId, essence(r)])),
          Object.fromEntries(referenceTasks.map((r) => [r.taskId, essence(r)])),
          `${point}: the tasks differ from the uninterrupted run`,
        );
        assert.deepEqual(summaryWithoutTimes(dir), summaryWithoutTimes(reference), `${point}: the tables differ`);
        for (const r of lines) {
          if (typeof r.diffPath !== "string") continue;
          const own = readFileSync(join(dir, r.diffPath), "utf8");
          const ref = referenceTasks.find((x) => x.taskId === r.taskId);
          assert.equal(
            own,
            readFileSync(join(reference, String(ref?.diffPath)), "utf8"),
            `${point}: ${r.taskId}'s diff differs`,
          );
        }
        assertNoTornFiles(dir, point);
        // The resumed run is evidence like any other: the bench verdict finds nothing wrong with it
        // (the killed attempt's trace, cut to its last whole line, is an earlier attempt, not a result).
        const verdict = deriveBenchVerdict(dir);
        assert.deepEqual([verdict.kind, verdict.problems], ["complete", []], `${point}: the resumed run's verdict`);
      }
    } finally {
      await server.close();
      rmSync(base, { recursive: true, force: true });
    }
  },
);
