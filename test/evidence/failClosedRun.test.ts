// Runs fail closed: a planted evidence file, a swapped audit, a chmod mid-run. Each ends as a
// recorded outcome (harness_error or workspace_conflict) with no exception, never a success,
// and the verdict over the folder is never VERIFIED SUCCESS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab, type LabRunOptions } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { readAuditFile } from "../../src/recording/auditLog.ts";
import { assertProblem } from "./labProblemAssert.ts";
import { freshRoot, type AuditLine } from "../lab/labRunTestSupport.ts";

const root = freshRoot("fail-closed");
const PLANTED = JSON.stringify({ schema: "tca.final/1", verified_success: true });

async function baseline(name: string, extra: Partial<Omit<LabRunOptions, "runDirectory" | "source" | "kind">> = {}) {
  const result = await runLab({
    runDirectory: join(root, name),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "negative_check",
    ...extra,
  });
  assert.ok(result.ok, "the run ends with a result, not an exception");
  return result.value;
}

function recordsOf(path: string): AuditLine[] {
  const read = readAuditFile(path);
  assert.ok(read.ok, "the audit the recorder wrote is readable");
  return read.log.records.map((record): AuditLine => record);
}

test("final.json planted before the controller writes it: recorded harness_error, planted file untouched, verdict invalid", async () => {
  const run = await baseline("planted-final", {
    beforeFinalEvaluation: (workspace) => writeFileSync(join(workspace.paths.run, "final.json"), PLANTED),
  });
  assert.equal(run.final.stop_reason, "harness_error");
  assert.equal(run.final.verified_success, false);
  assert.equal(
    readFileSync(join(run.runDirectory, "final.json"), "utf8"),
    PLANTED,
    "the planted file is left as evidence",
  );
  const records = recordsOf(join(run.runDirectory, "audit.jsonl"));
  const fault = records.find((record) => record.type === "harness_error");
  assert.equal(fault?.data.at, "final");
  assert.equal(fault?.data.error, "evidence_file_exists");
  assert.ok(!JSON.stringify(fault?.data).includes(root), "no host path in the record");
  assert.deepEqual(records.at(-1)?.data, { stop_reason: "harness_error", verified_success: false });
  const verdict = deriveRunVerdict(run.runDirectory);
  assert.equal(verdict.kind, "evidence_invalid");
});

test("manifest.json planted before the manifest is written: no proposal runs, harness_error, verdict invalid", async () => {
  const run = await baseline("planted-manifest", {
    beforeLoad: (runDirectory) =>
      writeFileSync(
        join(runDirectory, "manifest.json"),
        JSON.stringify({ schema: "tca.manifest/1", run_id: "someone-else" }),
      ),
  });
  assert.equal(run.final.stop_reason, "harness_error");
  assert.equal(run.final.proposals_used, 0);
  assert.equal(run.final.verified_success, false);
  const records = recordsOf(join(run.runDirectory, "audit.jsonl"));
  assert.ok(
    records.some(
      (record) =>
        record.type === "harness_error" &&
        record.data.at === "manifest" &&
        record.data.error === "evidence_file_exists",
    ),
  );
  assert.ok(!records.some((record) => record.type === "generation"), "no proposal was requested");
  const verdict = deriveRunVerdict(run.runDirectory);
  assert.equal(verdict.kind, "evidence_invalid");
  // The planted manifest is the one read: another run's id, and nothing of this run's.
  assertProblem(
    verdict.problems,
    "manifest_field_differs",
    /^manifest_field_differs: manifest\.json: run_id is "someone-else"/,
  );
  assertProblem(verdict.problems, "schema_mismatch", /^schema_mismatch: manifest\.json: /);
});

test("audit.jsonl swapped for an empty file mid-run: noticed at the next event, harness_error, recorded in the recorder's own file", async () => {
  const run = await baseline("audit-swap", {
    controllerHooks: {
      afterObservation: (n) => {
        if (n !== 2) return;
        const dir = join(root, "audit-swap");
        renameSync(join(dir, "audit.jsonl"), join(dir, "audit.renamed"));
        writeFileSync(join(dir, "audit.jsonl"), "", { mode: 0o600 });
      },
    },
  });
  assert.equal(run.final.stop_reason, "harness_error");
  assert.equal(run.final.verified_success, false);
  const kept = recordsOf(join(run.runDirectory, "audit.renamed"));
  assert.ok(
    !kept.some((record) => record.type === "dispatch" && (record.proposal ?? 0) > 2),
    "no proposal after the swap was dispatched",
  );
  assert.ok(kept.some((record) => record.type === "harness_error" && record.data.error === "audit_replaced"));
  assert.equal(kept.filter((record) => record.type === "stop").length, 1);
  assert.equal(readFileSync(join(run.runDirectory, "audit.jsonl"), "utf8"), "", "nothing went into the replacement");
  assert.equal(deriveRunVerdict(run.runDirectory).kind, "evidence_invalid");
});

test("chmod of audit.jsonl or manifest.json mid-run: harness_error, never a success", async () => {
  const audit = await baseline("chmod-audit", {
    controllerHooks: {
      afterObservation: (n) => (n === 3 ? chmodSync(join(root, "chmod-audit", "audit.jsonl"), 0o644) : undefined),
    },
  });
  assert.equal(audit.final.stop_reason, "harness_error");
  assert.equal(audit.final.verified_success, false);
  assert.match(String((audit.final.diagnostic ?? {}).error_message), /audit\.jsonl is not owner-only|mode is 644/);

  const manifest = await baseline("chmod-manifest", {
    beforeFinalEvaluation: (workspace) => chmodSync(join(workspace.paths.run, "manifest.json"), 0o666),
  });
  assert.equal(manifest.final.stop_reason, "harness_error");
  assert.equal(manifest.final.verified_success, false);
  assert.match(
    String((manifest.final.diagnostic ?? {}).evidence_problem),
    /manifest\.json is not owner-only \(mode 666\)/,
  );
  assert.equal(deriveRunVerdict(manifest.runDirectory).kind, "evidence_invalid");
});

test("chmod 777 of the run folder, 000 of toy_math.py, or 755 of the workspace mid-run: workspace_conflict at the next check", async () => {
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    ["chmod-run", (dir) => chmodSync(dir, 0o777), /the run folder is not owner-only \(mode 777/],
    [
      "chmod-source",
      (dir) => chmodSync(join(dir, "workspace", "toy_math.py"), 0o000),
      /toy_math\.py is not owner-only \(mode 000/,
    ],
    [
      "chmod-workspace",
      (dir) => chmodSync(join(dir, "workspace"), 0o755),
      /the workspace directory is not owner-only \(mode 755/,
    ],
  ];
  for (const [name, change, message] of cases) {
    const run = await baseline(name, {
      controllerHooks: { afterObservation: (n) => (n === 1 ? change(join(root, name)) : undefined) },
    });
    assert.equal(run.final.stop_reason, "workspace_conflict", name);
    assert.equal(run.final.verified_success, false, name);
    const records = recordsOf(join(run.runDirectory, "audit.jsonl"));
    const failed = records.find((record) => record.type === "integrity_check" && record.data.ok === false);
    assert.match(JSON.stringify(failed?.data), message, name);
    assert.notEqual(deriveRunVerdict(run.runDirectory).kind, "verified_success", name);
  }
});
