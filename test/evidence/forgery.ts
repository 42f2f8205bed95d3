// The tools of a user who wants to fake a result: copy a real run and edit its files the way a
// text editor or `sed` would (never through the harness), keeping what they touch consistent.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { sha256Hex } from "../../src/core/digest.ts";
import { PINNED_FILES, PINNED_MODEL } from "../../src/model/pins.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import type { LabProblemCode } from "../../src/verdicts/labProblems.ts";
import { assertProblem } from "./labProblemAssert.ts";

export type Record_ = {
  event_id: number;
  t_ms: number;
  proposal: number | null;
  type: string;
  data: Record<string, unknown>;
} & Record<string, unknown>;

export function copyRun(source: string, target: string): string {
  cpSync(source, target, { recursive: true });
  return target;
}

export function readRecords(run: string): Record_[] {
  return readFileSync(join(run, "audit.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record_);
}

/** Rewrites audit.jsonl as the recorder writes it; `renumber` makes event ids 1..n and times non-decreasing again. */
export function writeRecords(run: string, records: readonly Record_[], renumber = false): void {
  const lines = records.map((record, index) =>
    JSON.stringify(renumber ? { ...record, event_id: index + 1, t_ms: index + 1 } : record),
  );
  writeFileSync(join(run, "audit.jsonl"), `${lines.join("\n")}\n`);
}

export function editRecords(run: string, edit: (records: Record_[]) => Record_[] | void, renumber = false): void {
  const records = readRecords(run);
  writeRecords(run, edit(records) ?? records, renumber);
}

export function observationOf(record: Record_): Record<string, unknown> {
  return record.data.observation as Record<string, unknown>;
}

export function editJson(run: string, name: string, edit: (value: Record<string, unknown>) => void): void {
  const path = join(run, name);
  const value = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  edit(value);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** `sed -i s/from/to/g` on the given files of the run. */
export function sed(run: string, names: readonly string[], from: string, to: string): void {
  for (const name of names) {
    const path = join(run, name);
    writeFileSync(path, readFileSync(path, "utf8").split(from).join(to));
  }
}

/**
 * The one-line forgery: write a new workspace/toy_math.py and replace the old digest by the new
 * one everywhere in audit.jsonl and final.json, so every recorded digest agrees with the file.
 */
export function swapFinalSource(run: string, source: string): void {
  const path = join(run, "workspace", "toy_math.py");
  const oldDigest = sha256Hex(readFileSync(path));
  writeFileSync(path, source);
  sed(run, ["audit.jsonl", "final.json"], oldDigest, sha256Hex(source));
}

/**
 * No consumer may show success: the verdict, the report headline, and submission.md (which refuses).
 * `code`: the problem the verdict must name (printed matching `mentions`, when given).
 */
export function assertNoSuccess(run: string, code?: LabProblemCode, mentions?: RegExp): void {
  const verdict = deriveRunVerdict(run);
  assert.equal(verdict.kind, "evidence_invalid", `expected EVIDENCE INVALID, got ${verdict.kind}`);
  if (code !== undefined) assertProblem(verdict.problems, code, mentions);
  const report = readLabReport(run, { includeRequests: false });
  assert.equal(report.verdict.tone, "invalid");
  assert.ok(!report.verdict.headline.endsWith("VERIFIED SUCCESS"), report.verdict.headline);
  const built = buildSubmission({
    baselineDirectory: run,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.equal(built.ok ? "written" : built.error, "run_evidence_invalid");
}

const PINNED_LABELS = {
  kind: "model_trial",
  scripted: false,
  synthetic_pipeline_check: false,
  model_invoked_expected: true,
};

/**
 * Relabels a run as a model trial of the pinned model everywhere a label is written (the labels,
 * run_kind, every record's source, the manifest's model section with the pinned name and digests),
 * pointing at `modelDirectory`. A run without a model section gets `template`'s, edited.
 */
export function relabelAsModelTrial(run: string, modelDirectory: string, template: string): void {
  const recorded = (deriveRunVerdict(run).manifest?.model_trial ?? deriveRunVerdict(template).manifest?.model_trial) as
    Record<string, unknown> | undefined;
  editRecords(run, (records) => {
    for (const record of records) {
      record.source = "model";
      if (record.type === "run_started") {
        record.data.run_kind = "model_trial";
        record.data.labels = PINNED_LABELS;
      }
    }
  });
  for (const name of ["manifest.json", "final.json"])
    editJson(run, name, (value) => {
      value.labels = PINNED_LABELS;
    });
  editJson(run, "manifest.json", (manifest) => {
    manifest.proposal_source = { label: "model", model_directory: modelDirectory, synthetic: false };
    manifest.model_trial = {
      ...(recorded ?? {}),
      model_directory: modelDirectory,
      model_manifest: join(modelDirectory, "manifest.json"),
      model_name: PINNED_MODEL.repository,
      synthetic: false,
      synthetic_note: null,
      checkpoint_labels: undefined,
      verified_file_sha256: Object.fromEntries(
        PINNED_FILES.files.map((file) => [file.name, file.sha256 ?? "0".repeat(64)]),
      ),
      trial_role: "trial",
      trial_ordinal: 1,
    };
  });
}
