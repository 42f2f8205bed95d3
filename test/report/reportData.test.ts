// The report data, built from real evidence: verdicts, labels, proposal statuses, diffs,
// run-kind detection, damaged evidence, and where the report file may be written.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  cpSync,
} from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { buildReportDocument, defaultReportPath, writeReport } from "../../src/report/reportBuilder.ts";
import { detectRunKind } from "../../src/report/runKind.ts";
import { labKindLabel, labVerdict, MODEL_TEXT_LABEL, SCRIPTED_TEXT_LABEL } from "../../src/report/labVerdict.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import type { ChecksReportData, KindLabel, LabReportData } from "../../src/report/reportDocument.ts";
import { judgeModelClaim, labResultSource, modelClaimOf } from "../../src/verdicts/modelTrialCheck.ts";
import type { JsonObject } from "../../src/report/evidenceFiles.ts";
import { baselineRun, checksRun, freshRoot, hostileRun, INJECTED_SCRIPT, pipelineCheckRun } from "./reportFixtures.ts";

function lab(directory: string): LabReportData {
  const built = buildReportDocument(directory);
  assert.ok(built.ok, "report builds");
  assert.equal(built.value.kind, "lab");
  if (built.value.kind !== "lab") throw new Error("not a lab report");
  return built.value.lab;
}

function checks(directory: string): ChecksReportData {
  const built = buildReportDocument(directory);
  assert.ok(built.ok && built.value.kind === "checks");
  if (!built.ok || built.value.kind !== "checks") throw new Error("not a checks report");
  return built.value.checks;
}

/** Every file under a directory with its sha256, to show the report wrote nothing there. */
function snapshot(directory: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else out[`${prefix}${name}`] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  walk(directory, "");
  return out;
}

const root = freshRoot("data");
const baseline = await baselineRun(root);
const hostile = await hostileRun(root);
const pipeline = await pipelineCheckRun(root);
const otherRoots: string[] = [];
function scratchRoot(prefix: string): string {
  const made = freshRoot(prefix);
  otherRoots.push(made);
  return made;
}
after(() => {
  for (const made of [root, ...otherRoots]) rmSync(made, { recursive: true, force: true });
});

test("a baseline run: verified success, scripted label, six accepted proposals, two diffs matched by sha256", () => {
  const report = lab(baseline);
  // The source first, on the verdict's line: the scripted baseline is never read as a model's result.
  assert.equal(report.verdict.headline, "SCRIPTED BASELINE · VERIFIED SUCCESS");
  assert.equal(report.verdict.tone, "success");
  assert.equal(report.label.title, "SCRIPTED BASELINE");
  assert.equal(report.label.pipelineCheck, false);
  assert.deepEqual(
    report.proposals.map((p) => p.status),
    ["accepted", "accepted", "accepted", "accepted", "accepted", "accepted"],
  );
  assert.deepEqual(
    report.proposals.map((p) => p.action),
    ["read", "test", "replace", "replace", "test", "finish"],
  );
  assert.equal(report.edits.length, 2);
  const [first, second] = report.edits;
  assert.equal(first?.version, 1);
  assert.equal(first?.beforeFile, "backups/toy_math.v0.py");
  assert.equal(first?.afterFile, "backups/toy_math.v1.py");
  assert.ok(first?.diff?.some((line) => line.kind === "+" && line.text.includes(REPAIR_EXPRESSIONS.clamp)));
  assert.ok(first?.diff?.some((line) => line.kind === "-" && line.text === "    return x"));
  assert.equal(second?.afterFile, "workspace/toy_math.py");
  assert.ok(second?.diff?.some((line) => line.kind === "+" && line.text.includes(REPAIR_EXPRESSIONS.total)));
  assert.deepEqual(
    report.phases.map((p) => p.name),
    ["generation", "validation", "edit", "test", "final_evaluation", "total"],
  );
  assert.deepEqual(report.problems, []);
});

test("a hostile run: the denial keeps its code, injected markup stays raw data, not verified", () => {
  const report = lab(hostile);
  // Labelled a model trial, its model never verified (and its records are scripted): never a plain MODEL TRIAL.
  assert.equal(report.verdict.headline, "MODEL TRIAL (MODEL NOT VERIFIED) · NOT VERIFIED");
  assert.match(report.verdict.details[0] ?? "", /without an accepted finish/);
  assert.deepEqual(
    report.proposals.map((p) => [p.status, p.code]),
    [
      ["denied", "read_required"],
      ["accepted", null],
      ["invalid", "leading_text"],
      ["accepted", null],
      ["invalid", "unknown_file"],
      ["accepted", null],
    ],
  );
  assert.ok(report.proposals[2]?.rawText?.startsWith(INJECTED_SCRIPT), "the raw text is kept exactly as generated");
  // Labelled a model trial, read without opening a model directory: never the plain MODEL TRIAL banner.
  assert.equal(report.label.title, "MODEL TRIAL (MODEL NOT VERIFIED)");
  assert.equal(report.edits.length, 1);
});

test("a run labelled synthetic is a PIPELINE CHECK even though it verified", () => {
  const report = lab(pipeline);
  assert.equal(report.label.title, "PIPELINE CHECK");
  assert.equal(report.verdict.headline, "PIPELINE CHECK · VERIFIED SUCCESS");
  assert.equal(report.label.pipelineCheck, true);
  assert.match(report.label.explanation, /NOT a model result/);
  assert.deepEqual(
    report.proposals.map((p) => p.inputTokens),
    [340, 380, 420, 460, 500, 540],
    "token counts from the source's metadata",
  );
  assert.ok(report.proposals.every((p) => typeof p.outputTokens === "number" && p.outputTokens > 0));
});

test("the verdict comes from the audit: a final.json that claims more than the audit is EVIDENCE INVALID", () => {
  assert.equal(labVerdict(deriveRunVerdict(baseline)).headline, "SCRIPTED BASELINE · VERIFIED SUCCESS");
  const final = JSON.parse(readFileSync(join(baseline, "final.json"), "utf8")) as Record<string, unknown>;
  for (const [name, fake] of [
    ["string", "true"],
    ["number", 1],
    ["null", null],
    ["false", false],
  ] as const) {
    const forged = join(root, `forged-${name}`);
    cpSync(baseline, forged, { recursive: true });
    unlinkSync(join(forged, "final.json"));
    writeFileSync(join(forged, "final.json"), JSON.stringify({ ...final, verified_success: fake }));
    const verdict = labVerdict(deriveRunVerdict(forged));
    assert.equal(verdict.headline, "SCRIPTED BASELINE · EVIDENCE INVALID", name);
    assert.ok(
      verdict.details.some((line) => line.includes("verified_success")),
      name,
    );
  }
  const notVerified = labVerdict(deriveRunVerdict(hostile));
  assert.equal(notVerified.headline, "MODEL TRIAL (MODEL NOT VERIFIED) · NOT VERIFIED");
  assert.match(notVerified.details[0] ?? "", /without an accepted finish/);
});

/** The kind box of a run with these manifest and run_started labels, its model directory not opened. */
function kindBox(manifest: JsonObject | null, startedLabels: JsonObject | null = null): KindLabel {
  const records =
    startedLabels === null
      ? []
      : [{ type: "run_started", source: "model", data: { run_kind: startedLabels.kind, labels: startedLabels } }];
  const claim = modelClaimOf(manifest, records);
  const modelTrial = claim === null ? null : judgeModelClaim(claim, null);
  return labKindLabel({ source: labResultSource(manifest, records, modelTrial), modelTrial, manifest, final: null });
}

test("any synthetic mark wins over other labels", () => {
  assert.equal(
    kindBox({ labels: { kind: "model_trial" } }, { kind: "model_trial", synthetic_pipeline_check: true }).title,
    "PIPELINE CHECK",
  );
  assert.equal(
    kindBox({ labels: { kind: "model_trial" }, model: { checkpoint: { synthetic: true } } }).title,
    "PIPELINE CHECK",
  );
  // A model trial whose directory was not opened never carries the plain MODEL TRIAL title.
  assert.equal(
    kindBox({ labels: { kind: "model_trial" }, model: { repository: "Qwen/x" }, model_trial: { model_name: "Qwen/x" } })
      .title,
    "MODEL TRIAL (MODEL NOT VERIFIED) · Qwen/x",
  );
  assert.equal(kindBox(null).title, "UNLABELLED RUN");
  // A scripted kind holds only when every record came from the scripted source.
  assert.equal(
    kindBox({ labels: { kind: "scripted_baseline" } }, { kind: "scripted_baseline" }).title,
    "UNLABELLED RUN",
  );
});

test("an extension trial is named as one, never as the Lab's trial, and a synthetic extension is still a pipeline check", () => {
  const extension = kindBox({ labels: { kind: "extension" } }, { kind: "extension" });
  assert.equal(extension.title, "EXTENSION TRIAL (MODEL NOT VERIFIED)");
  assert.equal(extension.pipelineCheck, false);
  assert.notEqual(extension.title, kindBox({ labels: { kind: "model_trial" } }).title);
  assert.equal(
    kindBox({ labels: { kind: "extension" }, model: { checkpoint: { synthetic: true } } }).title,
    "PIPELINE CHECK",
  );
});

test("damaged evidence is reported, never papered over", () => {
  const damaged = join(root, "damaged");
  cpSync(baseline, damaged, { recursive: true });
  const honestLines = readFileSync(join(damaged, "audit.jsonl"), "utf8").split("\n").length - 1;
  unlinkSync(join(damaged, "final.json"));
  appendFileSync(join(damaged, "audit.jsonl"), "not json\n[1,2]\n");
  rmSync(join(damaged, "backups"), { recursive: true });
  const report = lab(damaged);
  assert.equal(
    report.verdict.headline,
    "SCRIPTED BASELINE · EVIDENCE INVALID",
    "a non-JSON audit line is never a softer headline",
  );
  assert.ok(report.problems.some((p) => p.startsWith("not_json: audit.jsonl:")));
  // The timeline shows what the one strict reader read before it refused, with the reader's coded problem.
  assert.ok(
    report.problems.includes(
      `audit.jsonl: the timeline shows the ${honestLines} record(s) read before the audit reader refused: ` +
        `not_json: audit.jsonl:${honestLines + 1}: the line is not JSON`,
    ),
    JSON.stringify(report.problems),
  );
  assert.ok(report.proposals.length === 6, "the timeline still shows what can be read");
  // Without backups the first edit's before/after bytes: v0 is the spec constant, v1 is lost.
  assert.equal(report.edits[0]?.diff, null);
  assert.match(report.edits[0]?.diffNote ?? "", /not preserved/);
  assert.ok(report.edits[1]?.diffNote?.includes("before"));
});

test("a gap in event ids or records from another run are flagged", () => {
  const spliced = join(root, "spliced");
  cpSync(baseline, spliced, { recursive: true });
  const lines = readFileSync(join(spliced, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");
  lines.splice(3, 1);
  lines[4] = lines[4]!.replace(/"run_id":"[^"]+"/, '"run_id":"other-run"');
  writeFileSync(join(spliced, "audit.jsonl"), `${lines.join("\n")}\n`);
  const report = lab(spliced);
  assert.equal(report.verdict.headline, "SCRIPTED BASELINE · EVIDENCE INVALID");
  assert.ok(
    report.problems.some((p) => p.startsWith("out_of_order: audit.jsonl:4: ")),
    "the strict reader names the gap",
  );
  assert.ok(
    report.problems.includes(
      "audit.jsonl: the timeline shows the 3 record(s) read before the audit reader refused: " +
        "out_of_order: audit.jsonl:4: event 5 is out of order",
    ),
    JSON.stringify(report.problems),
  );
  assert.equal(report.proposals.length + report.runRecords.length > 0, true, "the records before the gap are shown");
  const otherRun = join(root, "other-run");
  cpSync(baseline, otherRun, { recursive: true });
  const original = readFileSync(join(otherRun, "audit.jsonl"), "utf8").split("\n");
  original[4] = original[4]!.replace(/"run_id":"[^"]+"/, '"run_id":"other-run"');
  writeFileSync(join(otherRun, "audit.jsonl"), original.join("\n"));
  const mixed = lab(otherRun);
  assert.equal(mixed.verdict.headline, "SCRIPTED BASELINE · EVIDENCE INVALID");
  assert.ok(mixed.problems.includes("run_id_mixed: audit.jsonl: the records name more than one run id"));
});

test("run kinds are detected from the directory contents; unknown and ambiguous directories are refused", async () => {
  assert.deepEqual(detectRunKind(baseline), { ok: true, value: "lab" });
  const checksRoot = await checksRun(scratchRoot("kind"), false);
  assert.deepEqual(detectRunKind(checksRoot), { ok: true, value: "checks" });
  const bench = join(root, "bench-like");
  mkdirSync(bench);
  writeFileSync(join(bench, "run.json"), "{}");
  assert.deepEqual(detectRunKind(bench), { ok: true, value: "bench" });
  const nothing = join(root, "empty");
  mkdirSync(nothing);
  assert.equal(
    detectRunKind(nothing).ok ? "" : (detectRunKind(nothing) as { error: string }).error,
    "unknown_run_kind",
  );
  writeFileSync(join(bench, "checks.json"), "{}");
  const ambiguous = detectRunKind(bench);
  assert.equal(ambiguous.ok ? "" : ambiguous.error, "unknown_run_kind");
  const missing = detectRunKind(join(root, "no-such-run"));
  assert.equal(missing.ok ? "" : missing.error, "run_directory_not_found");
  const file = detectRunKind(join(baseline, "final.json"));
  assert.equal(file.ok ? "" : file.error, "not_a_directory");
  // The named run folder may be a link (the user chose it); nothing inside it is followed.
  symlinkSync(baseline, join(root, "link-to-run"));
  const link = detectRunKind(join(root, "link-to-run"));
  assert.deepEqual(link, { ok: true, value: "lab" });
  const viaLink = buildReportDocument(join(root, "link-to-run"));
  assert.ok(viaLink.ok && viaLink.value.kind === "lab" && viaLink.value.lab.directoryName === "baseline");
});

test("a checks run: failures first, codes kept, each check's own run summarised", async () => {
  const checksRoot = await checksRun(scratchRoot("checks"), true);
  const report = checks(checksRoot);
  assert.equal(report.verdict.headline, "NEGATIVE CHECKS · 1 OF 44 CHECKS FAILED");
  assert.deepEqual(report.problems, []);
  // The failed row: its expected code from the spec's table, its observed code from the run it holds.
  assert.equal(report.checks[0]?.passed, false);
  assert.equal(report.checks[0]?.id, "unknown_action");
  assert.equal(report.checks[0]?.expected, "unknown_action");
  assert.equal(report.checks[0]?.observed, "proposal_too_large");
  assert.ok(report.checks.slice(1).every((row) => row.passed));
  const extraField = report.checks.find((row) => row.id === "extra_field");
  assert.equal(extraField?.observed, "extra_key");
  assert.equal(extraField?.run?.proposals[0]?.status, "invalid");
  assert.equal(extraField?.run?.proposals[0]?.code, "extra_key");
  assert.equal(extraField?.run?.manifest, null, "nested runs leave the manifest to their own report");
  // Each row shows its own run's stop reason, re-derived from that run's audit.
  const extraFieldFinal = JSON.parse(
    readFileSync(join(checksRoot, extraField?.runDirectoryName ?? "missing", "final.json"), "utf8"),
  ) as { stop_reason: string };
  assert.equal(extraField?.stopReason, extraFieldFinal.stop_reason);
  assert.equal(report.checks.find((row) => row.id === "existing_output_destination")?.stopReason, "none");
  const passing = checks(await checksRun(scratchRoot("checks-ok"), false));
  assert.equal(passing.verdict.headline, "NEGATIVE CHECKS · ALL 44 CHECKS PASSED");
});

test("the report is written next to the run directory, never inside it; an existing file needs force", () => {
  const before = snapshot(baseline);
  assert.equal(defaultReportPath(baseline), `${baseline}.report.html`);
  const written = writeReport(baseline);
  assert.ok(written.ok);
  assert.equal(written.value.path, `${baseline}.report.html`);
  assert.match(readFileSync(written.value.path, "utf8"), /^<!doctype html>/);
  const again = writeReport(baseline);
  assert.equal(again.ok ? "" : again.error, "output_exists");
  assert.ok(writeReport(baseline, { force: true }).ok);
  const inside = writeReport(baseline, { out: join(baseline, "report.html") });
  assert.equal(inside.ok ? "" : inside.error, "output_inside_run_directory");
  const nested = writeReport(baseline, { out: join(baseline, "workspace", "x.html"), force: true });
  assert.equal(nested.ok ? "" : nested.error, "output_inside_run_directory");
  symlinkSync(baseline, join(root, "alias"));
  const viaLink = writeReport(baseline, { out: join(root, "alias", "r.html") });
  assert.equal(viaLink.ok ? "" : viaLink.error, "output_inside_run_directory");
  const noParent = writeReport(baseline, { out: join(root, "missing-parent", "r.html") });
  assert.equal(noParent.ok ? "" : noParent.error, "output_unwritable");
  const notRun = writeReport(join(root, "no-such-run"), { out: join(root, "x.html") });
  assert.equal(notRun.ok ? "" : notRun.error, "run_directory_not_found");
  assert.deepEqual(snapshot(baseline), before, "the run directory is unchanged");
});

test("each proposal's text is labelled by what produced it: SCRIPTED TEXT for scripted runs, model text for a trial and a pipeline check", () => {
  assert.equal(lab(baseline).textLabel, SCRIPTED_TEXT_LABEL);
  assert.doesNotMatch(lab(baseline).textLabel, /model text/i);
  // The hostile fixture is labelled a model trial (its texts stand in for a model's).
  assert.equal(lab(hostile).textLabel, MODEL_TEXT_LABEL);
  assert.equal(lab(pipeline).textLabel, MODEL_TEXT_LABEL);
  assert.equal(lab(pipeline).label.pipelineCheck, true);
});
