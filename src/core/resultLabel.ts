// The one wording of what made a result, put BEFORE the verdict on the same line everywhere a
// result is shown (CLI result lines, report headlines, results.md, submission.md), so a rehearsal
// or a pipeline check can never be read as a model result at a glance:
//   "REHEARSAL · VERIFIED SUCCESS", "PIPELINE CHECK · 19 OF 20 TASKS FIXED",
//   "MODEL TRIAL · Qwen/Qwen2.5-Coder-0.5B-Instruct · VERIFIED SUCCESS".
// Which source a run had is decided elsewhere, from evidence (the Lab verdict's re-derived kind,
// the bench run's verified model description); this module only words it.

/** What made a run's proposals, as its verdict re-derived it. */
export type ResultSourceKind =
  | "scripted_baseline"
  | "negative_check"
  /** A `tca lab checks` root: every negative check, each a scripted run. */
  | "negative_checks"
  | "rehearsal"
  | "pipeline_check"
  | "model_trial"
  | "extension"
  | "benchmark_run"
  | "unlabelled";

export interface ResultSource {
  readonly kind: ResultSourceKind;
  /** The model's name, for a model trial, an extension or a benchmark run on a real model. */
  readonly model: string | null;
  /** False when the run says a real model made its proposals and this reading did not verify it. */
  readonly modelVerified: boolean;
}

export const RESULT_SOURCE_TITLES: Readonly<Record<ResultSourceKind, string>> = {
  scripted_baseline: "SCRIPTED BASELINE",
  negative_check: "NEGATIVE CHECK",
  negative_checks: "NEGATIVE CHECKS",
  rehearsal: "REHEARSAL",
  pipeline_check: "PIPELINE CHECK",
  model_trial: "MODEL TRIAL",
  extension: "EXTENSION TRIAL",
  benchmark_run: "BENCHMARK RUN",
  unlabelled: "UNLABELLED RUN",
};

/** The separator between the label's parts and the verdict. */
export const LABEL_SEPARATOR = " · ";

/** A checks root: scripted by construction (src/lab/checkRunner.ts), each row re-derived from its run. */
export const NEGATIVE_CHECKS_SOURCE: ResultSource = { kind: "negative_checks", model: null, modelVerified: true };

/** Sources whose numbers are a model's result (every other source says nothing about any real model). */
export function isModelResult(source: ResultSource): boolean {
  return source.kind === "model_trial" || source.kind === "extension" || source.kind === "benchmark_run";
}

/** "REHEARSAL", "MODEL TRIAL · Qwen/… ", "MODEL TRIAL (MODEL NOT VERIFIED) · Qwen/…". */
export function resultLabel(source: ResultSource): string {
  const title = RESULT_SOURCE_TITLES[source.kind];
  if (!isModelResult(source)) return title;
  const checked = source.modelVerified ? title : `${title} (MODEL NOT VERIFIED)`;
  return source.model === null ? checked : `${checked}${LABEL_SEPARATOR}${source.model}`;
}

/** The verdict with its source named first, on the same line. */
export function labelledVerdict(source: ResultSource, verdict: string): string {
  return `${resultLabel(source)}${LABEL_SEPARATOR}${verdict}`;
}
