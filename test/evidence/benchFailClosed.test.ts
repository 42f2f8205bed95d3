// A bench run's evidence edited or built to crash the readers: each attack on a copy of a REAL
// run (mini data set, scripted server, real sandbox) must be EVIDENCE INVALID with the reason
// named, never a crash, never a success on any page; the writers never write through a link; a
// model server's over-deep reply is a model error for its task while the run goes on.
import { after, before } from "node:test";
// Every test here reads the honest run that the hook makes in the sandbox.
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  appendFileSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import { readManifest, readTaskResults, writeManifest, writeResults } from "../../src/bench/runs/runDirectory.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup } from "../bench/benchFixtures.ts";
import { realBenchRun } from "./regradeRunFixture.ts";
import { assertBenchEvidenceInvalid, copyRun } from "./benchEvidenceAttack.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-fail-closed-"));
let honest = "";
before(async () => {
  if (sandboxPackages().skip !== false) return;
  honest = await realBenchRun(root, "honest");
});
after(() => rmSync(root, { recursive: true, force: true }));

const copyOf = (name: string): string => copyRun(honest, root, name);
/** EVIDENCE INVALID in the verdict and on the page (which still builds), with the reason named. */
const assertInvalid = assertBenchEvidenceInvalid;

const deep = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
const traceOf = (dir: string, taskId: string): string => join(dir, "traces", `${taskId}.ndjson`);

test("the honest run is complete", () => {
  assert.deepEqual(deriveBenchVerdict(honest).problems, []);
  assert.equal(deriveBenchVerdict(honest).kind, "complete");
});

test("run.json deleted, its synthetic label removed, its model label changed: EVIDENCE INVALID", () => {
  const deleted = copyOf("no-manifest");
  rmSync(join(deleted, "run.json"));
  assertInvalid(deleted, /run\.json: not_found/);

  const unlabeled = copyOf("synthetic-removed");
  const manifest = JSON.parse(readFileSync(join(unlabeled, "run.json"), "utf8")) as { model: Record<string, unknown> };
  delete manifest.model.synthetic;
  writeFileSync(join(unlabeled, "run.json"), JSON.stringify(manifest));
  assertInvalid(unlabeled, /task_start says pipeline check true, run\.json false/);

  const relabeled = copyOf("label-changed");
  const other = JSON.parse(readFileSync(join(relabeled, "run.json"), "utf8")) as { model: Record<string, unknown> };
  other.model.label = "gpt-5";
  writeFileSync(join(relabeled, "run.json"), JSON.stringify(other));
  assertInvalid(relabeled, /task_start names the model "scripted", run\.json "gpt-5"/);
});

test("a run cut to part of its tasks with complete: true is not complete; with run.json's plan cut too, the traces disagree", () => {
  const cut = copyOf("cut-run");
  const tasks = readTaskResults(cut);
  const manifest = readManifest(cut);
  assert.ok(tasks.ok && manifest.ok);
  const kept = tasks.value.filter((task) => task.program !== "pascal");
  writeFileSync(join(cut, "tasks.ndjson"), kept.map((task) => JSON.stringify(task) + "\n").join(""));
  writeResults(cut, manifest.value, kept, kept.length);
  assertInvalid(cut, /results\.json: tasksExpected is 2, run\.json's plan has 3/);

  const planCut = copyOf("cut-plan");
  writeFileSync(join(planCut, "tasks.ndjson"), kept.map((task) => JSON.stringify(task) + "\n").join(""));
  const smaller = { ...manifest.value, programs: manifest.value.programs.filter((name) => name !== "pascal") };
  writeManifest(planCut, smaller);
  writeResults(planCut, smaller, kept, kept.length);
  assertInvalid(planCut, /task_start was planned with programs run\.json does not list/);
});

test("a trace line cut in half and a trace stripped to its grade: EVIDENCE INVALID, never dropped", () => {
  const torn = copyOf("torn-trace-line");
  const lines = readFileSync(traceOf(torn, "A-gcd"), "utf8").split("\n");
  lines[1] = lines[1]!.slice(0, Math.floor(lines[1]!.length / 2));
  writeFileSync(traceOf(torn, "A-gcd"), lines.join("\n"));
  assertInvalid(torn, /traces\/A-gcd\.ndjson:2: the line is not JSON/, "not_json");

  const stripped = copyOf("stripped-trace");
  const events = readFileSync(traceOf(stripped, "A-gcd"), "utf8")
    .split("\n")
    .filter((line) => /"type":"(grade|diff|task_end)"/.test(line));
  writeFileSync(traceOf(stripped, "A-gcd"), events.join("\n") + "\n");
  assertInvalid(stripped, /traces\/A-gcd\.ndjson: does not start with task_start/);
});

test("JSON nested 2,000 deep in a trace event, in tasks.ndjson and in run.json: refused as json_too_deep, no RangeError", () => {
  const inTrace = copyOf("deep-trace");
  const lines = readFileSync(traceOf(inTrace, "A-gcd"), "utf8").split("\n");
  lines.splice(1, 0, lines[1]!.replace(/"data":.*\}$/, `"data":{"x":${deep(2000)}}}`));
  writeFileSync(traceOf(inTrace, "A-gcd"), lines.join("\n"));
  assertInvalid(inTrace, /traces\/A-gcd\.ndjson:2: .*deeper than 128 levels/, "json_too_deep");

  const inLog = copyOf("deep-log");
  appendFileSync(join(inLog, "tasks.ndjson"), `{"taskId":"A-gcd","x":${deep(100_000)}}\n`);
  assertInvalid(inLog, /tasks\.ndjson:\d+: json_too_deep/, "json_too_deep");

  const inManifest = copyOf("deep-manifest");
  writeFileSync(join(inManifest, "run.json"), `{"kind":"quixbugs-run","x":${deep(5000)}}`);
  assertInvalid(inManifest, /run\.json: json_too_deep/, "json_too_deep");
});

test("a hard-linked tasks.ndjson and a hard-linked trace are refused as hard_link_refused", () => {
  const log = copyOf("hard-linked-log");
  linkSync(join(log, "tasks.ndjson"), join(root, "second-name-of-log"));
  assertInvalid(log, /tasks\.ndjson: hard_link_refused/);

  const trace = copyOf("hard-linked-trace");
  linkSync(traceOf(trace, "A-gcd"), join(root, "second-name-of-trace"));
  assertInvalid(trace, /traces\/A-gcd\.ndjson: hard_link_refused/);
});

test("--resume on a symlinked tasks.ndjson refuses before writing: the link's target keeps every byte", async () => {
  const dir = copyOf("linked-log-resume");
  const outside = join(root, "outside-tasks.ndjson");
  renameSync(join(dir, "tasks.ndjson"), outside);
  appendFileSync(outside, '{"taskId":"torn');
  const bytes = readFileSync(outside);
  symlinkSync(outside, join(dir, "tasks.ndjson"));
  const { sandbox, dataset } = benchSetup();
  const backend = new OpenAiCompatibleClient({ endpoint: "http://127.0.0.1:9/v1", model: "scripted" });
  const result = await runBenchmark({
    dataset,
    sandbox,
    backend,
    modelDescription: { label: "scripted", synthetic: true },
    modelName: "scripted",
    conditions: ["A"],
    programs: ["gcd"],
    outDir: dir,
    jobs: 1,
    resume: true,
    testTimeoutMs: 60_000,
    includeSlow: false,
    environment: {},
  });
  assert.ok(!result.ok);
  assert.equal(result.error, "results_invalid");
  assert.match(result.message, /symlink_refused/);
  assert.deepEqual(readFileSync(outside), bytes);
});

test("--resume never writes through a planted results.json link, and refuses a diffs/ that is a link", async () => {
  const { sandbox, dataset } = benchSetup();
  const backend = new OpenAiCompatibleClient({ endpoint: "http://127.0.0.1:9/v1", model: "scripted" });
  const options = (outDir: string): Parameters<typeof runBenchmark>[0] => ({
    dataset,
    sandbox,
    backend,
    modelDescription: { label: "scripted", synthetic: true },
    modelName: "scripted",
    conditions: ["A"],
    programs: ["gcd"],
    outDir,
    jobs: 1,
    resume: true,
    testTimeoutMs: 60_000,
    includeSlow: false,
    environment: {},
  });
  const dir = copyOf("linked-results-resume");
  const outside = join(root, "outside-results.json");
  renameSync(join(dir, "results.json"), outside);
  const bytes = readFileSync(outside);
  symlinkSync(outside, join(dir, "results.json"));
  const resumed = await runBenchmark(options(dir));
  assert.ok(resumed.ok, resumed.ok ? "" : resumed.message);
  assert.deepEqual(readFileSync(outside), bytes, "the link's target keeps every byte");
  assert.ok(lstatSync(join(dir, "results.json")).isFile(), "the link was replaced by the run's own file");

  const linkedDiffs = copyOf("linked-diffs-resume");
  renameSync(join(linkedDiffs, "diffs"), join(root, "outside-diffs"));
  symlinkSync(join(root, "outside-diffs"), join(linkedDiffs, "diffs"));
  const refused = await runBenchmark(options(linkedDiffs));
  assert.ok(!refused.ok);
  assert.equal(refused.error, "run_dir_invalid");
  assert.match(refused.message, /diffs in .* is a symbolic link/);
});

test("a server answering one task with a 100,000-deep field: a model error for that task, the run goes on and stays valid", async () => {
  const reply = (content: string): string =>
    JSON.stringify({
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 5 },
    });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      if (body.includes("python_programs/gcd.py"))
        res.end(
          `{"choices":[{"message":{"role":"assistant","content":"x","extra":${deep(100_000)}},"finish_reason":"stop"}]}`,
        );
      else res.end(reply("I cannot fix this."));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const out = join(root, "deep-server-run");
  try {
    const { sandbox, dataset } = benchSetup();
    const backend = new OpenAiCompatibleClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      model: "scripted",
    });
    const result = await runBenchmark({
      dataset,
      sandbox,
      backend,
      modelDescription: { label: "scripted", synthetic: true },
      modelName: "scripted",
      conditions: ["A"],
      programs: ["gcd", "pascal"],
      outDir: out,
      jobs: 1,
      resume: false,
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: {},
    });
    assert.ok(result.ok);
    const byProgram = new Map(result.value.results.map((task) => [task.program, task]));
    assert.equal(byProgram.get("gcd")?.outcome, "model_error");
    assert.equal(byProgram.get("pascal")?.outcome, "no_change");
    assert.match(readFileSync(traceOf(out, "A-gcd"), "utf8"), /nests deeper than 64 levels/);
    assert.deepEqual(deriveBenchVerdict(out).problems, []);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("results.json swapped for a forged one, again and again, while pages are built: every page is the honest one or EVIDENCE INVALID", async () => {
  const dir = copyOf("swapped-during-report");
  const honestResults = readFileSync(join(dir, "results.json"), "utf8");
  const forged = JSON.parse(honestResults) as { tasks: Record<string, unknown>[]; summary: Record<string, unknown>[] };
  for (const task of forged.tasks) task.outcome = "fixed";
  for (const row of forged.summary) row.fixed = row.tasks;
  writeFileSync(join(root, "forged-results.json"), JSON.stringify(forged));
  writeFileSync(join(root, "honest-results.json"), honestResults);
  // A second process swaps the file atomically (rename) in a loop until it is stopped.
  const swapper = spawn(
    process.execPath,
    [
      "-e",
      `
    const { copyFileSync, renameSync } = require("node:fs");
    const [forged, honest, target] = process.argv.slice(1);
    for (let i = 0; ; i++) { copyFileSync(i % 2 ? honest : forged, target + ".swap"); renameSync(target + ".swap", target); }
  `,
      join(root, "forged-results.json"),
      join(root, "honest-results.json"),
      join(dir, "results.json"),
    ],
    { stdio: "ignore" },
  );
  try {
    const seen = new Set<string>();
    // Until the forged file has been read at least once (the swap really happened), at most 500 pages.
    const invalid = (): boolean => [...seen].some((headline) => headline.endsWith(" · EVIDENCE INVALID"));
    for (let i = 0; i < 500 && !(invalid() && i >= 30); i++) {
      const built = buildReport(dir);
      assert.ok(built.ok && built.value.document.kind === "bench");
      const { headline } = built.value.document.bench.verdict;
      seen.add(headline);
      assert.ok(/^[A-Z ]+ · (EVIDENCE INVALID|1 OF 3 TASKS FIXED)/.test(headline), headline);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(invalid(), "the forged file was read at least once");
    assert.ok(![...seen].some((headline) => headline.includes(" · 3 OF 3 TASKS FIXED")), [...seen].join(" | "));
  } finally {
    swapper.kill();
  }
});
