// The bench replay attacked as a person who wants a better result than their run earned would:
// every forgery is made on a copy of a REAL run of A-D (benchReplayRun.ts: the bench's own
// runBenchmark, the real sandbox, a scripted agent), consistent with itself (tasks.ndjson, the
// trace's task_end, grade and diff events, diffs/, results.json rewritten together, the counts
// recounted with the project's own functions), and must be refused by the verdict every consumer
// uses, on the report's page and by verify-run (and compare, for one). The honest run of every
// condition replays with no problem.
import { after, before } from "node:test";
// Every test here reads the honest run that the hook makes in the sandbox.
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../../src/core/digest.ts";
import { readManifest, readTaskResults, writeManifest, writeResults } from "../../src/bench/runs/runDirectory.ts";
import { analyzeClaim } from "../../src/bench/results/claimAnalysis.ts";
import { guardrailsFromTrace } from "../../src/bench/agent/guardrailCounts.ts";
import { classifyTask, type TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { unifiedDiff } from "../../src/bench/results/unifiedDiff.ts";
import {
  boundObservation,
  buildModelRequest,
  messageSha256,
  requestSha256,
  testObservation,
  toolMessage,
} from "../../src/bench/agent/harnessDecisions.ts";
import { AGENT_BUDGET, CONDITIONS } from "../../src/bench/agent/conditions.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { loadDataset } from "../../src/bench/dataset/dataset.ts";
import { MINI_DATASET_DIR, referenceFix } from "../bench/benchFixtures.ts";
import { assertBenchEvidenceInvalid, copyRun } from "./benchEvidenceAttack.ts";
import { REPLAY_PROGRAM, replayBenchRun } from "./benchReplayRun.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tca-bench-replay-"));
let honest = "";
before(async () => {
  if (sandboxPackages().skip !== false) return;
  honest = await replayBenchRun(root);
});
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * A trace record in the flat form the forgeries edit: its data's fields beside `event` (its type),
 * `turn` (its proposal) and `envelope` (the rest of the v2 envelope), as a forger reading the file would.
 */
type Event = Record<string, unknown>;

function flatEvent(record: Event): Event {
  const { type, proposal, data, ...envelope } = record;
  return { ...(data as Event), event: type, ...(proposal === null ? {} : { turn: proposal }), envelope };
}

/** The v2 record of a flat event; event ids renumbered in order, as a forger rewriting the file would. */
function envelopeRecord(event: Event, index: number, first: Event): Event {
  const { event: type, turn, envelope, ...data } = event;
  return { ...((envelope ?? first.envelope) as Event), event_id: index + 1, type, proposal: turn ?? null, data };
}

/** The events in the form the claim analysis and the guardrail counters read. */
const asRecords = (events: readonly Event[]): { type: string; data: unknown }[] =>
  events.map((event) => {
    const { event: type, turn: _turn, envelope: _envelope, ...data } = event;
    return { type: type as string, data };
  });

/** Where a test run's tool message sits in the conversation: after the messages of the request before it, its reply and the calls before it. */
function toolMessageIndex(events: readonly Event[], run: Event): number {
  const request = events.find((event) => event.event === "model_request" && event.turn === run.turn)!;
  const response = events.find((event) => event.event === "model_response" && event.turn === run.turn)!;
  const calls = response.toolCalls as { id: string }[];
  return (request.messages as number) + 1 + calls.findIndex((call) => call.id === run.id);
}

function tca(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TCA, ...args], { timeout: 300_000 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, out, err });
    });
  });
}

const verifyRun = (dir: string): ReturnType<typeof tca> =>
  tca(["bench", "quixbugs", "verify-run", dir, "--dataset", MINI_DATASET_DIR, "--jobs", "2"]);

const tasksOf = (dir: string): TaskResult[] => {
  const tasks = readTaskResults(dir);
  assert.ok(tasks.ok);
  return tasks.value;
};
const taskOf = (dir: string, taskId: string): TaskResult => tasksOf(dir).find((task) => task.taskId === taskId)!;
const traceOf = (dir: string, task: TaskResult): Event[] =>
  readFileSync(join(dir, task.tracePath!), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => flatEvent(JSON.parse(line) as Event));
const writeTrace = (dir: string, path: string, events: readonly Event[]): void =>
  writeFileSync(
    join(dir, path),
    events.map((event, index) => JSON.stringify(envelopeRecord(event, index, events[0]!)) + "\n").join(""),
  );

/**
 * Writes the forged record of a task everywhere a record of it lives: tasks.ndjson, the trace's
 * task_end (with the diff it names), diffs/ and results.json, so that the files agree.
 */
function writeRecord(dir: string, forged: TaskResult, events: Event[], diff: string): void {
  const { tracePath: _t, diffPath: _d, ...inTrace } = forged;
  const rewritten = events.map((event) => (event.event === "task_end" ? { ...event, result: inTrace, diff } : event));
  writeTrace(dir, forged.tracePath!, rewritten);
  if (forged.diffPath !== undefined) writeFileSync(join(dir, forged.diffPath), diff);
  const all = tasksOf(dir).map((task) => (task.taskId === forged.taskId ? forged : task));
  writeFileSync(join(dir, "tasks.ndjson"), all.map((task) => JSON.stringify(task) + "\n").join(""));
  const manifest = readManifest(dir);
  assert.ok(manifest.ok);
  writeResults(dir, manifest.value, all, all.length);
}

/** The agent's part of a trace recounted with the project's own counters and claim analysis. */
function recounted(task: TaskResult, events: readonly Event[]): TaskResult {
  const claim = analyzeClaim(asRecords(events));
  return {
    ...task,
    guardrails: guardrailsFromTrace(asRecords(events)),
    ...(task.claim !== undefined ? { claim } : {}),
  };
}

function assertRefused(dir: string, mentions: RegExp): void {
  assertBenchEvidenceInvalid(dir, mentions);
}

async function assertVerifyRefuses(dir: string, mentions: RegExp): Promise<void> {
  const run = await verifyRun(dir);
  assert.equal(run.code, 1, run.out);
  assert.match(run.err, /evidence_invalid/);
  assert.match(run.err, mentions);
  assert.doesNotMatch(run.out, /identical/);
}

test("the honest run of A-D replays with no problem: every task replayed, and again against the data set", async () => {
  const verdict = deriveBenchVerdict(honest);
  assert.deepEqual(verdict.problems, []);
  assert.equal(verdict.kind, "complete");
  assert.equal(verdict.replay.replayed, 4);
  assert.equal(verdict.replay.predatesReplay, 0);
  const dataset = loadDataset(MINI_DATASET_DIR);
  assert.ok(dataset.ok);
  assert.deepEqual(deriveBenchVerdict(honest, { dataset: dataset.value }).problems, []);
  // What the scripted agent did, as the harness decided it (the run is not trivially empty).
  const byId = new Map(tasksOf(honest).map((task) => [task.taskId, task]));
  assert.equal(byId.get("A-gcd")?.outcome, "fixed");
  assert.equal(byId.get("B-gcd")?.guardrails.blockedReads, 2);
  assert.equal(byId.get("C-gcd")?.claim?.kind, "after_failing_run");
  assert.equal(byId.get("D-gcd")?.guardrails.refusedStopAttempts, 2);
  assert.equal(byId.get("D-gcd")?.claim?.kind, "verified");
  const run = await verifyRun(copyRun(honest, root, "honest-verified"));
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^verify-run: PIPELINE CHECK · re-graded 4\/4 tasks: identical/m);
});

test("the final file unbound: C's diff, final SHA-256, grade and task end set to the reference fix while its write_file wrote the wrong fix: refused", async () => {
  const dir = copyRun(honest, root, "final-unbound");
  const victim = taskOf(dir, "C-gcd");
  const fixed = taskOf(dir, "D-gcd"); // a fresh, real grade of the reference fix
  const dataset = loadDataset(MINI_DATASET_DIR);
  assert.ok(dataset.ok);
  const events = traceOf(dir, victim);
  const original = events[0]!.original as string;
  const fix = referenceFix(dataset.value, REPLAY_PROGRAM);
  const diff = unifiedDiff(`python_programs/${REPLAY_PROGRAM}.py`, original, fix);
  const { outcome, falseFixed, falseFixedHeldOut } = classifyTask(
    fixed.grade,
    "agent_done",
    true,
    true,
    victim.fixedMeans,
  );
  const forged: TaskResult = {
    ...victim,
    outcome,
    falseFixed,
    ...(victim.falseFixedHeldOut !== undefined ? { falseFixedHeldOut } : {}),
    grade: fixed.grade,
    finalSha256: sha256Hex(fix),
  };
  assert.equal(forged.outcome, "fixed");
  const rewritten = events.map((event) =>
    event.event === "grade" ? { ...event, ...fixed.grade } : event.event === "diff" ? { ...event, diff } : event,
  );
  writeRecord(dir, forged, rewritten, diff);
  assertRefused(dir, /replay_final_differs: traces\/C-gcd\.ndjson/);
  assertRefused(dir, /replay_diff_differs: traces\/C-gcd\.ndjson/);
  await assertVerifyRefuses(dir, /replay_final_differs/);
  const compare = await tca(["bench", "quixbugs", "compare", dir]);
  assert.equal(compare.code, 1);
  assert.match(compare.err, /evidence_invalid.*replay_/);
});

test("C and D exchanged (ids, conditions, traces, records): the D task's accepted stop after a failing run and the C task's refusals are refused", async () => {
  const dir = copyRun(honest, root, "c-d-swap");
  const c = taskOf(dir, "C-gcd");
  const d = taskOf(dir, "D-gcd");
  const relabel = (task: TaskResult, as: "C" | "D", from: TaskResult): TaskResult => ({
    ...task,
    taskId: `${as}-gcd`,
    condition: as,
    tracePath: from.tracePath,
    ...(from.diffPath !== undefined ? { diffPath: from.diffPath } : {}),
  });
  const newD = relabel(c, "D", d);
  const newC = relabel(d, "C", c);
  const retag = (events: Event[], as: "C" | "D"): Event[] =>
    events.map((event) => (event.event === "task_start" ? { ...event, taskId: `${as}-gcd`, condition: as } : event));
  const cEvents = retag(traceOf(dir, c), "D");
  const dEvents = retag(traceOf(dir, d), "C");
  const cDiff = readFileSync(join(dir, c.diffPath!), "utf8");
  const dDiff = readFileSync(join(dir, d.diffPath!), "utf8");
  writeRecord(dir, newD, cEvents, cDiff);
  writeRecord(dir, newC, dEvents, dDiff);
  assertRefused(dir, /replay_event_differs: traces\/D-gcd\.ndjson:\d+ \(stop_attempt\)/);
  assertRefused(dir, /replay_event_differs: traces\/C-gcd\.ndjson:\d+ \(stop_attempt\)/);
  await assertVerifyRefuses(dir, /replay_event_differs/);
});

test("a stop accepted right after a failing test run in D (the refusal flipped, the rest of the agent's turns cut, the record recounted): refused", async () => {
  const dir = copyRun(honest, root, "d-early-stop");
  const d = taskOf(dir, "D-gcd");
  const c = taskOf(dir, "C-gcd"); // the same wrong fix, really graded
  const events = traceOf(dir, d);
  const first = events.findIndex((event) => event.event === "stop_attempt");
  const grade = events.findIndex((event) => event.event === "grade");
  const cut = [
    ...events.slice(0, first),
    { ...events[first], refusal: undefined, accepted: true },
    ...events.slice(grade).map((event) => (event.event === "grade" ? { ...event, ...c.grade } : event)),
  ].map((event) => JSON.parse(JSON.stringify(event)) as Event);
  const cDiff = readFileSync(join(dir, c.diffPath!), "utf8");
  const rewritten = cut.map((event) => (event.event === "diff" ? { ...event, diff: cDiff } : event));
  const forged = recounted(
    {
      ...d,
      ...classifyTask(c.grade, "agent_done", true, true, d.fixedMeans),
      grade: c.grade,
      finalSha256: c.finalSha256,
      turns: 3,
    },
    rewritten,
  );
  assert.equal(forged.guardrails.refusedStopAttempts, 0);
  writeRecord(dir, forged, rewritten, cDiff);
  assertRefused(
    dir,
    /replay_event_differs: traces\/D-gcd\.ndjson:\d+ \(stop_attempt\): the recorded stop_attempt is not the harness's decision/,
  );
  await assertVerifyRefuses(dir, /replay_event_differs/);
});

test("the held-out seed changed (a task re-graded with seed 12345): refused, also when task_start's seed is changed with it", async () => {
  const dir = copyRun(honest, root, "seed");
  const victim = taskOf(dir, "A-gcd");
  assert.ok(victim.grade.heldOut, "gcd has held-out cases");
  const grade = { ...victim.grade, heldOut: { ...victim.grade.heldOut, seed: 12345 } };
  const events = traceOf(dir, victim).map((event) => (event.event === "grade" ? { ...event, ...grade } : event));
  writeRecord(dir, { ...victim, grade }, events, readFileSync(join(dir, victim.diffPath!), "utf8"));
  assertRefused(dir, /replay_held_out_seed_differs: traces\/A-gcd\.ndjson:1 \(task_start\): the grade's held-out seed/);
  await assertVerifyRefuses(dir, /replay_held_out_seed_differs/);

  const both = copyRun(dir, root, "seed-and-start");
  const restarted = traceOf(both, victim).map((event) =>
    event.event === "task_start" ? { ...event, heldOutSeed: 12345 } : event,
  );
  writeTrace(both, victim.tracePath!, restarted);
  assertRefused(
    both,
    /replay_held_out_seed_differs: traces\/A-gcd\.ndjson:1 \(task_start\): the task's held-out seed is not run\.json's/,
  );
});

test("every refused tool call deleted (the call and its refusal) and the counts recounted: refused, the model's reply still holds the calls", async () => {
  const dir = copyRun(honest, root, "refusals-deleted");
  const b = taskOf(dir, "B-gcd");
  const events = traceOf(dir, b);
  const refusedIds = new Set(events.filter((event) => event.event === "tool_refused").map((event) => event.id));
  assert.ok(refusedIds.size >= 2);
  const kept = events.filter(
    (event) => !((event.event === "tool_refused" || event.event === "tool_call") && refusedIds.has(event.id)),
  );
  const forged = recounted(b, kept);
  assert.equal(forged.guardrails.blockedReads, 0);
  writeRecord(dir, forged, kept, readFileSync(join(dir, b.diffPath!), "utf8"));
  assertRefused(dir, /replay_event_(missing|differs): traces\/B-gcd\.ndjson/);
  await assertVerifyRefuses(dir, /replay_event_/);
});

test("the refused calls deleted from the model's reply too (a changed model response): every later request digest disagrees", () => {
  const dir = copyRun(honest, root, "refusals-deleted-from-reply");
  const b = taskOf(dir, "B-gcd");
  const events = traceOf(dir, b);
  const refusedIds = new Set(events.filter((event) => event.event === "tool_refused").map((event) => event.id));
  const kept = events
    .filter((event) => !((event.event === "tool_refused" || event.event === "tool_call") && refusedIds.has(event.id)))
    .map((event) =>
      event.event === "model_response"
        ? { ...event, toolCalls: (event.toolCalls as { id: string }[]).filter((call) => !refusedIds.has(call.id)) }
        : event,
    );
  writeRecord(dir, recounted(b, kept), kept, readFileSync(join(dir, b.diffPath!), "utf8"));
  assertRefused(
    dir,
    /replay_request_differs: traces\/B-gcd\.ndjson:\d+ \(model_request\): turn 2's request is not the conversation replayed so far/,
  );
});

test("C's failing test run rewritten as passing (outcome, counts, exit code, the claim, and the next request's digests recomputed with the harness's own functions): the replay cannot see it, verify-run's re-run does", async () => {
  const dir = copyRun(honest, root, "test-run-passed");
  const c = taskOf(dir, "C-gcd");
  const events = traceOf(dir, c);
  const run = events.find((event) => event.event === "test_run")!;
  const counts = run.counts as { passed: number; failed: number };
  const passing = {
    ...run,
    outcome: "passed",
    exitCode: 0,
    counts: { ...counts, passed: counts.passed + counts.failed, failed: 0 },
  };
  const call = { id: run.id as string, name: "run_tests", argumentsText: "{}" };
  const observation = boundObservation(
    testObservation(
      { outcome: "passed", output: run.output as string, summary: run.summary as string },
      run.timeoutMs as number,
    ),
  );
  const index = events.indexOf(run);
  const forgedEvents = events.map((event, at) => {
    if (at === index) return passing;
    if (event.event !== "model_request" || (event.turn as number) <= (run.turn as number)) return event;
    const digests = [...(event.messageSha256s as string[])];
    digests[toolMessageIndex(events, run)] = messageSha256(toolMessage(call, observation));
    const request = buildModelRequest(CONDITIONS.C, [], AGENT_BUDGET, undefined);
    return { ...event, messageSha256s: digests, requestSha256: requestSha256(digests, request) };
  });
  const forged = recounted(c, forgedEvents);
  assert.equal(forged.claim?.kind, "verified");
  writeRecord(dir, forged, forgedEvents, readFileSync(join(dir, c.diffPath!), "utf8"));
  // The model's feedback is recorded, not recomputed: the verdict alone accepts it...
  assert.deepEqual(deriveBenchVerdict(dir).problems, []);
  // ...and verify-run runs the test again on the replayed version.
  const verify = await verifyRun(dir);
  assert.equal(verify.code, 1);
  assert.match(verify.out, /C-gcd: test_run [^ ]+\.outcome: recorded "passed", re-graded "failed"/);
});

test("a run relabelled as made before the replay (traceReplay removed from run.json): its own traces' binding refuses it", () => {
  const dir = copyRun(honest, root, "predates");
  const manifest = readManifest(dir);
  assert.ok(manifest.ok);
  const { traceReplay: _replay, ...fingerprint } = manifest.value.fingerprint;
  writeManifest(dir, { ...manifest.value, fingerprint });
  const verdict = deriveBenchVerdict(dir);
  assert.equal(verdict.replay.predatesReplay, 4);
  assertRefused(dir, /task_start was made under another fingerprint than run\.json's/);
});

test("a trace whose recorded original file is edited (the replay's start): refused, never a crash", () => {
  const dir = copyRun(honest, root, "original-edited");
  const a = taskOf(dir, "A-gcd");
  const events = traceOf(dir, a).map((event) =>
    event.event === "task_start" ? { ...event, original: `${event.original as string}# edited\n` } : event,
  );
  writeTrace(dir, a.tracePath!, events);
  assertRefused(dir, /replay_original_invalid: traces\/A-gcd\.ndjson:1 \(task_start\)/);
  const moved = copyRun(honest, root, "original-removed");
  const stripped = traceOf(moved, a).map((event) => {
    if (event.event !== "task_start") return event;
    const { original: _o, ...rest } = event;
    return rest;
  });
  writeTrace(moved, a.tracePath!, stripped);
  // The catalog requires it: the reader refuses the record before the replay reads it.
  assertRefused(moved, /missing_field: traces\/A-gcd\.ndjson:1 \(task_start\): data lacks "original"/);
  renameSync(join(moved, a.tracePath!), join(moved, `${a.tracePath!}.gone`));
  assert.equal(deriveBenchVerdict(moved).kind, "evidence_invalid");
});
