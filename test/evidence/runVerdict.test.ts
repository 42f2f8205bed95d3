// The one verdict, derived from the audit: every piece of hostile or damaged evidence below is
// built by the test from a real run (runLab), and each must give EVIDENCE INVALID (never a
// success) with the problem named, while honest runs keep their verdicts.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  chmodSync,
  cpSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab, type ProposalSourceLoader } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { deriveRunVerdict, type RunVerdict } from "../../src/verdicts/runVerdict.ts";
import { err } from "../../src/core/result.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import type { LabProblemCode } from "../../src/verdicts/labProblems.ts";
import { assertProblem } from "./labProblemAssert.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";

const root = freshRoot("verdict");

async function run(
  name: string,
  source: ConstructorParameters<typeof ScriptedSource>[0] | ProposalSourceLoader,
): Promise<string> {
  const result = await runLab({
    runDirectory: join(root, name),
    source: Array.isArray(source) ? new ScriptedSource(source) : (source as ProposalSourceLoader),
    kind: "negative_check",
  });
  assert.ok(result.ok);
  return result.value.runDirectory;
}

const failingLoader: ProposalSourceLoader = {
  label: "model",
  load: () => Promise.resolve(err("model_error", "the model could not be loaded")),
  describePending: () => ({ model: "stand-in" }),
};

const baseline = await run("baseline", BASELINE_PROPOSALS);
const modelError = await run("model-error", failingLoader);

/** A copy of a run to damage (the originals stay honest for the next test). */
function copyOf(source: string, name: string): string {
  const target = join(root, name);
  cpSync(source, target, { recursive: true });
  return target;
}

function assertInvalid(verdict: RunVerdict, code: LabProblemCode, mentions?: RegExp): void {
  assert.equal(verdict.kind, "evidence_invalid");
  assertProblem(verdict.problems, code, mentions);
}

test("honest runs keep their verdicts: a verified baseline, a model_error run not verified", () => {
  const good = deriveRunVerdict(baseline);
  assert.equal(good.kind, "verified_success");
  assert.deepEqual(good.problems, []);
  assert.equal(good.facts.stopReason, "finish_accepted");
  const failed = deriveRunVerdict(modelError);
  assert.equal(failed.kind, "not_verified");
  assert.equal(failed.facts.stopReason, "model_error");
});

test("a planted final.json claiming success beside a model_error audit is EVIDENCE INVALID", () => {
  const planted = copyOf(modelError, "planted-final");
  unlinkSync(join(planted, "final.json"));
  writeFileSync(join(planted, "final.json"), JSON.stringify({ schema: "tca.final/1", verified_success: true }));
  const verdict = deriveRunVerdict(planted);
  assertInvalid(verdict, "schema_mismatch", /final\.json: does not match its schema/);
  assertInvalid(verdict, "final_field_differs", /verified_success is true, recomputed false/);
  assertInvalid(verdict, "final_field_differs", /stop_reason is missing, the audit says "model_error"/);
});

test("a schema-valid forged final.json (success copied from another run) is EVIDENCE INVALID", () => {
  const forged = copyOf(modelError, "forged-final");
  unlinkSync(join(forged, "final.json"));
  cpSync(join(baseline, "final.json"), join(forged, "final.json"));
  const verdict = deriveRunVerdict(forged);
  assertInvalid(verdict, "final_field_differs", /final\.json: run_id/);
  assertInvalid(verdict, "final_field_differs", /final\.json: verified_success is true, recomputed false/);
});

test("a forged audit claim of success that its own counts contradict is EVIDENCE INVALID", () => {
  const forged = copyOf(baseline, "forged-audit");
  const lines = readFileSync(join(forged, "audit.jsonl"), "utf8").split("\n");
  const index = lines.findIndex((line) => line.includes('"type":"final_evaluation"'));
  lines[index] = lines[index]!.replace('"held_out_passed":8', '"held_out_passed":7');
  writeFileSync(join(forged, "audit.jsonl"), lines.join("\n"));
  assertInvalid(
    deriveRunVerdict(forged),
    "audit_claim_differs",
    /final_evaluation says verified_success true, but its own records say false/,
  );
});

test("an empty, truncated, non-JSON or invalid UTF-8 audit is EVIDENCE INVALID", () => {
  const empty = copyOf(baseline, "empty-audit");
  truncateSync(join(empty, "audit.jsonl"), 0);
  assertInvalid(deriveRunVerdict(empty), "audit_empty", /audit is empty/);

  const truncated = copyOf(baseline, "truncated-audit");
  const bytes = readFileSync(join(truncated, "audit.jsonl"));
  truncateSync(join(truncated, "audit.jsonl"), bytes.length - 40);
  assertInvalid(deriveRunVerdict(truncated), "truncated_audit", /last line is incomplete/);

  const cutAtLine = copyOf(baseline, "cut-audit");
  const lines = readFileSync(join(cutAtLine, "audit.jsonl"), "utf8").split("\n");
  writeFileSync(join(cutAtLine, "audit.jsonl"), `${lines.slice(0, 20).join("\n")}\n`);
  assertInvalid(deriveRunVerdict(cutAtLine), "record_missing", /no run_finished record, although final\.json exists/);

  const notJson = copyOf(baseline, "not-json-audit");
  appendFileSync(join(notJson, "audit.jsonl"), "this is not json\n");
  assertInvalid(deriveRunVerdict(notJson), "not_json", /^not_json: audit\.jsonl:\d+: the line is not JSON$/);

  const badUtf8 = copyOf(baseline, "bad-utf8-audit");
  const text = readFileSync(join(badUtf8, "audit.jsonl"));
  const at = text.indexOf("run_started");
  assert.ok(at > 0);
  text[at] = 0xff;
  writeFileSync(join(badUtf8, "audit.jsonl"), text);
  assertInvalid(deriveRunVerdict(badUtf8), "not_utf8", /not valid UTF-8/);
});

test("a record that breaks its schema, a second stop, or another run's manifest is EVIDENCE INVALID", () => {
  const badRecord = copyOf(baseline, "bad-record");
  const lines = readFileSync(join(badRecord, "audit.jsonl"), "utf8").split("\n");
  const stopIndex = lines.findIndex((line) => line.includes('"type":"stop"'));
  lines[stopIndex] = lines[stopIndex]!.replace('"stop_reason":"finish_accepted"', '"stop_reason":"because_i_said_so"');
  writeFileSync(join(badRecord, "audit.jsonl"), lines.join("\n"));
  assertInvalid(
    deriveRunVerdict(badRecord),
    "wrong_type",
    /^wrong_type: audit\.jsonl:\d+ \(stop\): data\.stop_reason /,
  );

  const twoStops = copyOf(modelError, "two-stops");
  const records = readFileSync(join(twoStops, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const stop = JSON.parse(records.find((line) => line.includes('"type":"stop"'))!) as Record<string, unknown>;
  const finished = records.pop()!;
  const finishedRecord = JSON.parse(finished) as Record<string, unknown>;
  const extraStop = { ...stop, event_id: records.length + 1, t_ms: finishedRecord.t_ms };
  const renumbered = { ...finishedRecord, event_id: records.length + 2 };
  writeFileSync(
    join(twoStops, "audit.jsonl"),
    [...records, JSON.stringify(extraStop), JSON.stringify(renumbered), ""].join("\n"),
  );
  assertInvalid(deriveRunVerdict(twoStops), "record_duplicated", /2 stop records; a run has exactly one/);

  const otherManifest = copyOf(baseline, "other-manifest");
  unlinkSync(join(otherManifest, "manifest.json"));
  cpSync(join(modelError, "manifest.json"), join(otherManifest, "manifest.json"));
  assertInvalid(deriveRunVerdict(otherManifest), "manifest_field_differs", /manifest\.json: run_id/);
});

test("a final source whose digest is not the final snapshot's is EVIDENCE INVALID", () => {
  const edited = copyOf(baseline, "edited-source");
  chmodSync(join(edited, "workspace", "toy_math.py"), 0o600);
  appendFileSync(join(edited, "workspace", "toy_math.py"), "# edited after the run\n");
  assertInvalid(
    deriveRunVerdict(edited),
    "final_source_differs",
    /workspace\/toy_math\.py: its digest differs from the final snapshot's/,
  );
});

test("final.json missing: INCOMPLETE before run_finished, EVIDENCE INVALID after it", () => {
  const crashed = copyOf(baseline, "crashed");
  unlinkSync(join(crashed, "final.json"));
  const lines = readFileSync(join(crashed, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");
  writeFileSync(join(crashed, "audit.jsonl"), `${lines.slice(0, -1).join("\n")}\n`);
  assert.equal(deriveRunVerdict(crashed).kind, "incomplete");
  const removed = copyOf(baseline, "final-removed");
  unlinkSync(join(removed, "final.json"));
  assertInvalid(
    deriveRunVerdict(removed),
    "file_missing",
    /final\.json: missing, although the audit records that the run finished/,
  );
});

test("evidence files that are links are never followed: the verdict is EVIDENCE INVALID", () => {
  const linkedAudit = copyOf(baseline, "linked-audit");
  renameSync(join(linkedAudit, "audit.jsonl"), join(root, "outside-audit.jsonl"));
  symlinkSync(join(root, "outside-audit.jsonl"), join(linkedAudit, "audit.jsonl"));
  assertInvalid(deriveRunVerdict(linkedAudit), "file_unreadable", /audit\.jsonl: symlink_refused/);

  const linkedWorkspace = copyOf(baseline, "linked-workspace");
  renameSync(join(linkedWorkspace, "workspace"), join(root, "outside-workspace"));
  symlinkSync(join(root, "outside-workspace"), join(linkedWorkspace, "workspace"));
  assertInvalid(deriveRunVerdict(linkedWorkspace), "file_unreadable", /workspace\/toy_math\.py: symlink_refused/);
});

test("a FIFO in place of audit.jsonl is refused at once, never waited on", () => {
  const fifo = copyOf(baseline, "fifo-audit");
  rmSync(join(fifo, "audit.jsonl"));
  execFileSync("mkfifo", [join(fifo, "audit.jsonl")]);
  // No writer ever opens the FIFO: a blocking open would hang this test until the runner's timeout.
  assertInvalid(deriveRunVerdict(fifo), "file_unreadable", /audit\.jsonl: not_regular_file/);
});

test("tca lab submission refuses a run whose evidence is invalid, naming the problem", () => {
  const planted = copyOf(modelError, "submission-planted");
  unlinkSync(join(planted, "final.json"));
  cpSync(join(baseline, "final.json"), join(planted, "final.json"));
  const built = buildSubmission({
    baselineDirectory: planted,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: "test",
  });
  assert.equal(built.ok ? "written" : built.error, "run_evidence_invalid");
  assert.match(built.ok ? "" : built.message, /^baseline run: EVIDENCE INVALID: /);
  const missing = copyOf(baseline, "submission-missing");
  rmSync(join(missing, "audit.jsonl"));
  const refused = buildSubmission({
    baselineDirectory: missing,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: "test",
  });
  assert.equal(refused.ok ? "written" : refused.error, "run_evidence_missing");
});
