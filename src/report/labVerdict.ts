// The headline of a Lab run's report (Part 9). The verdict itself is the evidence room's
// deriveRunVerdict: re-derived from the artifacts (the final file re-evaluated, the audit's
// decision chain replayed), every summary file compared with it; this module only words it. Termination and final correctness are shown
// separately; "success" appears only when the audit proves it and every summary file agrees, and
// any disagreement is EVIDENCE INVALID, never a softer headline.
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES } from "../constants/labConstants.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { NOT_REDERIVED, RUN_VERDICT_HEADLINES, type RunVerdict } from "../verdicts/runVerdict.ts";
import { isModelResult, labelledVerdict, resultLabel, type ResultSourceKind } from "../core/resultLabel.ts";
import { objectField, stringField, type JsonObject } from "./evidenceFiles.ts";
import type { KindLabel, Verdict } from "./reportDocument.ts";

export const VERIFIED_SUCCESS_HEADLINE = RUN_VERDICT_HEADLINES.verified_success;
export const NOT_VERIFIED_HEADLINE = RUN_VERDICT_HEADLINES.not_verified;
export const INCOMPLETE_HEADLINE = RUN_VERDICT_HEADLINES.incomplete;
export const EVIDENCE_INVALID_HEADLINE = RUN_VERDICT_HEADLINES.evidence_invalid;

function counts(passed: number | null, total: number): string {
  return `${passed ?? "?"}/${total}`;
}

/** The words of a verdict: every fact comes from the audit, never from final.json alone. */
export function labVerdict(verdict: RunVerdict): Verdict {
  const facts = verdict.facts;
  // The source first, on the verdict's own line: a rehearsal never reads as a result at a glance.
  const headline = labelledVerdict(verdict.source, RUN_VERDICT_HEADLINES[verdict.kind]);
  const kindNote = verdict.kindNote === null ? [] : [verdict.kindNote];
  if (verdict.kind === "evidence_invalid") {
    return {
      headline,
      tone: "invalid",
      details: [
        "The evidence files are damaged or disagree with the audit: nothing in this report is verified.",
        ...verdict.problems.map(formatProblem),
      ],
    };
  }
  if (verdict.kind === "incomplete") {
    return {
      headline,
      tone: "incomplete",
      details: [
        "final.json is missing: the run did not finish, so nothing was verified.",
        `stop reason in the audit: ${facts.stopReason ?? "none recorded"}`,
        ...kindNote,
      ],
    };
  }
  const evaluation = facts.evaluation;
  const snapshot = evaluation?.snapshot ?? null;
  const at = snapshot === null ? "" : ` at version ${snapshot.version}`;
  const publicCount = counts(evaluation?.publicPassed ?? null, PUBLIC_FIXTURES.length);
  const heldOutCount = counts(evaluation?.heldOutPassed ?? null, HELD_OUT_FIXTURES.length);
  const details = [
    `stop reason: ${facts.stopReason ?? "not recorded"}`,
    `final evaluation: ${evaluation?.status ?? "not recorded"}${at}; public ${publicCount}, held-out ${heldOutCount}`,
    facts.finish === null ? "no finish was accepted" : `finish accepted at version ${facts.finish.version}`,
    recomputedLine(verdict),
    ...(verdict.modelTrial === null ? [] : [`model: ${verdict.modelTrial.message}`]),
    ...(verdict.harness === null ? [] : [`harness: ${verdict.harness.message}`]),
    ...kindNote,
    `recorded, not re-derived: ${NOT_REDERIVED.join("; ")}`,
  ];
  if (verdict.kind === "verified_success") return { headline, tone: "success", details };
  const why =
    facts.finish === null
      ? "not verified: the run stopped without an accepted finish"
      : evaluation?.status !== "completed"
        ? "not verified: a finish was accepted but final evaluation did not complete"
        : "not verified: a finish was accepted but final evaluation did not pass every case";
  return { headline, tone: "failure", details: [why, ...details] };
}

/** What the verdict recomputed itself: the final file re-evaluated and the decision chain replayed. */
function recomputedLine(verdict: RunVerdict): string {
  const { finalSource, replay } = verdict.recomputed;
  const source =
    finalSource === null
      ? "the final toy_math.py could not be read"
      : finalSource.grammar !== "valid"
        ? `the final toy_math.py is outside the grammar (${finalSource.grammar})`
        : `the final toy_math.py re-evaluated: public ${finalSource.publicPassed}/${PUBLIC_FIXTURES.length}, ` +
          `held-out ${finalSource.heldOutPassed}/${HELD_OUT_FIXTURES.length}`;
  const chain = `${replay.proposalsUsed} proposals, ${replay.invalidProposals} invalid, final version ${replay.finalVersion.version}`;
  return `re-derived: ${source}; the decision chain replayed from the spec's initial file (${chain})`;
}

/** What each re-derived source is, in the report's kind box under its title. */
const SOURCE_EXPLANATIONS: Readonly<Record<ResultSourceKind, string>> = {
  scripted_baseline: "Fixed scripted proposals, no model: this run checks the harness, not a model.",
  negative_check: "A scripted run that provokes one failure on purpose: it checks a refusal of the harness.",
  negative_checks: "Every negative check, each a scripted run: they check the harness's refusals, not a model.",
  model_trial: "Proposals generated by the model named in the manifest.",
  extension:
    "A further model trial after the first one in the model directory's ledger, with its own declared change (manifest.json, model_trial.declared_change). It is not the Lab's trial.",
  pipeline_check:
    "Synthetic pipeline check: output of a random-weight or stand-in model that exercises the pipeline end to end. It is NOT a model result.",
  rehearsal:
    "Rehearsal model: a model trained in-project on scripted transcripts. It proves the model path and says nothing about any real model's ability. It is NOT a model result.",
  benchmark_run: "A benchmark run.",
  unlabelled: "The manifest carries no known run kind; treat this run with care.",
};
const STAND_IN_TOKENIZER_SENTENCE = " Tokenizer: a stand-in for Qwen2.5's (same behaviour, not the pinned files).";

function labelsOf(object: JsonObject | null): JsonObject | null {
  return objectField(object, "labels");
}

/**
 * The report's kind box, from the verdict's re-derived source (never the labels alone): its title
 * is the label the headline carries first; a model trial whose directory this reading did not
 * verify says so in the title and names why.
 */
export function labKindLabel(verdict: Pick<RunVerdict, "source" | "modelTrial" | "manifest" | "final">): KindLabel {
  const { source, manifest, final } = verdict;
  const kind = stringField(labelsOf(manifest), "kind") ?? stringField(labelsOf(final), "kind") ?? "unlabelled";
  const pipelineCheck =
    !isModelResult(source) &&
    source.kind !== "scripted_baseline" &&
    source.kind !== "negative_check" &&
    source.kind !== "unlabelled";
  const standIn =
    pipelineCheck && [labelsOf(manifest), labelsOf(final)].some((labels) => labels?.stand_in_tokenizer === true)
      ? STAND_IN_TOKENIZER_SENTENCE
      : "";
  const why =
    isModelResult(source) && !source.modelVerified && verdict.modelTrial !== null
      ? ` ${verdict.modelTrial.message}.`
      : "";
  return {
    kind,
    title: resultLabel(source),
    explanation: SOURCE_EXPLANATIONS[source.kind] + standIn + why,
    pipelineCheck,
  };
}

/** Scripted proposals are the script's fixed text, never a model's: their label must not say "model". */
export const SCRIPTED_TEXT_LABEL = "SCRIPTED TEXT (a fixed proposal of the script; no model)";
export const MODEL_TEXT_LABEL = "raw model text, exactly as generated";

/**
 * The label of each proposal's text in the report, from the run's own labels: scripted (the
 * baseline, a negative check, or any run labelled scripted) or generated by a model (a trial, an
 * extension, a synthetic or rehearsal checkpoint, whose kind label says what the model is).
 */
export function proposalTextLabel(manifest: JsonObject | null, final: JsonObject | null, label: KindLabel): string {
  if (label.pipelineCheck) return MODEL_TEXT_LABEL;
  const scripted = [labelsOf(manifest), labelsOf(final)].some((labels) => labels?.scripted === true);
  if (scripted || label.kind === "scripted_baseline" || label.kind === "negative_check") return SCRIPTED_TEXT_LABEL;
  if (label.kind === "model_trial" || label.kind === "extension") return MODEL_TEXT_LABEL;
  return "proposal text, exactly as recorded";
}
