// The parts of submission.md that say WHAT a model run was: the trial and its extensions in
// ledger order (Part 10), the kind of manifest behind it, whether the harness was verified before
// loading, and the label that every row of a pipeline check or rehearsal carries.
import { table } from "./markdownText.ts";
import type { TrialEntry } from "./modelEvidence.ts";
import { record, runKind, type RunEvidence } from "./runEvidence.ts";

/**
 * The label a run that is NOT a model result carries on every row: a synthetic pipeline check, or
 * a rehearsal on a checkpoint trained in this project. null for a real model trial.
 */
export function pipelineLabel(run: RunEvidence): string | null {
  const labels = record(run.manifest["labels"]);
  if (runKind(run).includes("rehearsal") || labels["rehearsal"] === true) return "REHEARSAL";
  if (runKind(run) === "synthetic_pipeline_check" || labels["synthetic_pipeline_check"] === true)
    return "PIPELINE CHECK";
  return null;
}

export function labelled(label: string | null, cell: string): string {
  return label === null ? cell : `**[${label}, not a model result]** ${cell}`;
}

/** The "verified model manifest" row: what kind of manifest it is, then where. */
export function manifestKindCell(run: RunEvidence): string {
  const trial = record(run.manifest["model_trial"]);
  const path = typeof trial["model_manifest"] === "string" ? trial["model_manifest"] : null;
  if (path === null) return "none (no verified model directory was used)";
  const label = pipelineLabel(run);
  if (label === "PIPELINE CHECK")
    return `synthetic checkpoint manifest (a random-weight checkpoint generated here, NOT a verified download of the pinned model): ${path}`;
  if (label !== null)
    return `${label.toLowerCase()} checkpoint manifest (a checkpoint made in this project, NOT a verified download of the pinned model): ${path}`;
  return `verified download manifest of the pinned model files: ${path}`;
}

/** Whether a verified baseline and checks run of this harness version existed before loading. */
export function harnessVerificationCell(run: RunEvidence): string {
  const verification = record(record(run.manifest["model_trial"])["harness_verification"]);
  if (typeof verification["verified_before_loading"] !== "boolean") return `not recorded [${run.name} manifest.json]`;
  const baseline = record(verification["baseline"]);
  const checks = record(verification["checks"]);
  const sha = String(verification["current_harness_sha256"] ?? "").slice(0, 12);
  const parts =
    `baseline ${String(baseline["status"])}${typeof baseline["directory"] === "string" ? ` (${baseline["directory"]})` : ""}, ` +
    `checks ${String(checks["status"])}${typeof checks["directory"] === "string" ? ` (${checks["directory"]})` : ""}`;
  return verification["verified_before_loading"] === true
    ? `yes, for harness ${sha}…: ${parts} [${run.name} manifest.json]`
    : `NO: ${parts}; harness ${sha}… [${run.name} manifest.json]`;
}

/** Every trial of the ledger in order: the first is the trial, the rest are extensions. */
export function trialsSection(trials: readonly TrialEntry[]): string[] {
  if (trials.length === 0) return [];
  const rows = trials.map((entry) => {
    const final = entry.run.final;
    return [
      String(entry.ordinal),
      entry.role === "trial" ? "trial" : "extension",
      entry.declaredChange ?? (entry.role === "trial" ? "(the trial: no change)" : "(none recorded)"),
      entry.startedAt ?? "?",
      entry.run.directory,
      `\`${String(final["stop_reason"])}\``,
      `${final["verified_success"] === true ? "true" : "false"} [${entry.run.name} final.json]`,
    ];
  });
  const extensions = trials.length - 1;
  return [
    "## Trials of this model directory",
    "",
    `The acquisition ledger records ${trials.length} trial(s): the first is the Lab's ` +
      `trial${extensions > 0 ? `; the other ${extensions} are separately labelled extensions, each with its declared change` : ""}. ` +
      `No trial is left out. The sections below analyse the trial.`,
    "",
    table(["#", "role", "declared change", "started", "run", "stop reason", "verified_success"], rows),
    "",
  ];
}
