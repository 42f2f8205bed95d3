// The short human summary of a run: the honest verdict first, then where the evidence is.
import type { FinalReport } from "./labRun.ts";
import { deriveRunVerdict, RUN_VERDICT_HEADLINES, type RunVerdict } from "../verdicts/runVerdict.ts";
import { MAX_COLUMNS, wrapLine } from "../core/textWidth.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { labelledVerdict, type ResultSourceKind } from "../core/resultLabel.ts";
import type { ModelCheck } from "../verdicts/modelTrialCheck.ts";

/** One next step: what it gives, then the command on a line of its own (a command cannot be wrapped). */
export interface NextStep {
  readonly what: string;
  readonly command: string;
}

/** The summary's "run:" line for each re-derived source (src/core/resultLabel.ts words the label). */
const RUN_DESCRIPTIONS: Readonly<Record<ResultSourceKind, string>> = {
  scripted_baseline: "scripted baseline (harness check; no model was invoked)",
  negative_check: "negative check (a scripted run that provokes one failure on purpose)",
  negative_checks: "negative checks",
  rehearsal:
    "REHEARSAL: a model trained in-project on scripted transcripts; it proves the model path and says nothing about any real model's ability",
  pipeline_check: "PIPELINE CHECK on a synthetic random-weight checkpoint (not a model result)",
  model_trial: "model trial (the first trial of this model directory)",
  extension: "EXTENSION trial (a further trial after the first; its declared change is in manifest.json)",
  benchmark_run: "benchmark run",
  unlabelled: "unlabelled run (no known run kind)",
};

export interface RunSummaryOptions {
  /** The run's model directory as opened now (the CLI does it after a model run); absent: not checked. */
  readonly modelCheck?: ModelCheck;
  /** The summary's end: the user's next commands, written by the CLI for where the user is. */
  readonly nextSteps?: readonly NextStep[];
  /** The run's verdict when the caller has derived it already (for its exit status): not derived twice. */
  readonly verdict?: RunVerdict;
}

export function formatRunSummary(final: FinalReport, runDirectory: string, options: RunSummaryOptions = {}): string {
  const evaluation = final.final_evaluation;
  // The verdict is re-derived from the artifacts (src/verdicts/runVerdict.ts), and so is what
  // made the proposals; the final.json figures below are shown for reading, never as the verdict.
  const verdict =
    options.verdict ??
    deriveRunVerdict(runDirectory, options.modelCheck === undefined ? {} : { modelCheck: options.modelCheck });
  const standIn = final.labels["stand_in_tokenizer"] === true ? " (stand-in tokenizer)" : "";
  const label = RUN_DESCRIPTIONS[verdict.source.kind] + (verdict.source.kind === "rehearsal" ? standIn : "");
  return [
    // The longest label ("MODEL TRIAL (MODEL NOT VERIFIED) · Qwen/…") wraps under itself too.
    ...wrapLine(
      `verdict:           ${labelledVerdict(verdict.source, RUN_VERDICT_HEADLINES[verdict.kind])}`,
      MAX_COLUMNS,
      " ".repeat(19),
    ),
    ...verdict.problems.map((problem) => `  evidence problem: ${formatProblem(problem)}`),
    // A long label (the rehearsal's) wraps under itself: the summary fits 100 columns.
    ...wrapLine(`run:               ${label}`, MAX_COLUMNS, " ".repeat(19)),
    `stop reason:       ${final.stop_reason}`,
    `proposals used:    ${final.proposals_used} (invalid or denied: ${final.invalid_proposals})`,
    `final evaluation:  ${String(evaluation["status"])} at version ${String(evaluation["version"])}`,
    `public cases:      ${String(evaluation["public_passed"])}/${String(evaluation["public_total"])}`,
    `held-out cases:    ${String(evaluation["held_out_passed"])}/${String(evaluation["held_out_total"])}`,
    `verified_success:  ${final.verified_success}`,
    `evidence:          ${runDirectory} (audit.jsonl, manifest.json, final.json, backups/)`,
    ...(options.nextSteps ?? []).flatMap((step, index) => [
      `${(index === 0 ? "next step:" : "then:").padEnd(19)}${step.what}`,
      `  ${step.command}`,
    ]),
    "",
  ].join("\n");
}
