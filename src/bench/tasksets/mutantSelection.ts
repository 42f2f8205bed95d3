// One mutant per program: the candidates from the reference fix, tried in the seed's order, each
// graded in the sandbox by the trusted grader (the same public and held-out cases as a benchmark
// grade); the first valid one is kept. Valid: it fails at least one public case (a time-out
// counts as failing, as in QuixBugs) and it can be imported and run (a file that cannot even be
// imported is not a QuixBugs-shaped bug). Passing every held-out case is allowed but marked
// "public-only". A mutant equal to QuixBugs' own buggy program is kept only if no other
// candidate is valid. Programs are independent, so their order of completion never matters.
import { mapWithConcurrency } from "../../core/concurrency.ts";
import { ok, type Err, type Result } from "../../core/result.ts";
import { buggySource, referenceFixSource, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { heldOutCases } from "../grading/heldOutCases.ts";
import { failureCheckCaseCpuSeconds, gradeProgram, type TrustedGrade } from "../grading/trustedGrader.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import {
  applyCandidate,
  mutationCandidates,
  type MutationCandidate,
  type MutationOperator,
} from "./mutationCandidates.ts";
import { seededTryOrder } from "./seededOrder.ts";

/** Held-out inputs of the validation grades: fixed, so the recorded counts depend on the task-set seed alone. */
export const TASKSET_HELD_OUT_SEED = 25_025;
/** Candidates graded per program at most (bounds the time on programs whose mutants all pass). */
export const MAX_TRIES_PER_PROGRAM = 40;

export interface ChosenMutant {
  readonly program: string;
  readonly operator: MutationOperator;
  readonly line: number;
  readonly before: string;
  readonly after: string;
  readonly outcome: TrustedGrade["outcome"];
  readonly publicCases: { readonly failing: number; readonly total: number };
  /** null: the program has no held-out generator. */
  readonly heldOutCases: { readonly failing: number; readonly total: number } | null;
  /** Fails public cases only (every held-out case passes, or there are none). */
  readonly publicOnly: boolean;
  /** The same program as QuixBugs' own buggy one (kept only when no other candidate was valid). */
  readonly sameAsQuixBugs: boolean;
  readonly candidates: number;
  readonly tried: number;
  /**
   * The per-case CPU budget of its validation grade (failureCheckCaseCpuSeconds, or the grading
   * budget where the reference gave none). Measured on this machine, so never in the manifest.
   */
  readonly caseCpuSeconds: number;
  readonly source: Buffer;
}

export interface SkippedProgram {
  readonly program: string;
  readonly reason: string;
  readonly candidates: number;
  readonly tried: number;
}

export type ProgramSelection =
  | { readonly kind: "mutant"; readonly mutant: ChosenMutant }
  | { readonly kind: "skipped"; readonly skipped: SkippedProgram };

export interface SelectionOptions {
  readonly seed: number;
  readonly jobs: number;
  readonly maxTries?: number;
  readonly onProgram?: (selection: ProgramSelection, done: number, total: number) => void;
}

/** Lines compared without any whitespace, so `a+b` and `a + b` count as the same bug. */
function sameProgram(a: Buffer, b: Buffer): boolean {
  const squash = (x: Buffer): string =>
    x
      .toString("utf8")
      .split("\n")
      .map((l) => l.replace(/\s+/g, ""))
      .filter((l) => l !== "")
      .join("\n");
  return squash(a) === squash(b);
}

function failing(total: number, passed: number): number {
  return total - passed;
}

async function selectOne(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  options: SelectionOptions,
): Promise<Result<ProgramSelection, BenchErrorCode>> {
  const reference = referenceFixSource(dataset, program.name);
  const found = await mutationCandidates(config, program.name, reference);
  if (!found.ok) return found;
  const candidates = found.value;
  const quixBugs = buggySource(dataset, program.name);
  const heldOut = await heldOutCases(config, dataset, program, TASKSET_HELD_OUT_SEED);
  // Validation asks only "does this mutant fail", so its cases have the data set check's budget
  // (failureCheckCaseCpuSeconds: a multiple of the reference fix's slowest case, measured in the
  // reference's own passing grade, made before the first candidate's), not the 15 CPU-s of
  // grading a candidate: a looping mutant costs about a CPU-second instead of fifteen.
  let caseCpuSeconds: number | undefined | null = null;
  const validationBudget = async (): Promise<number | undefined> => {
    if (caseCpuSeconds === null)
      caseCpuSeconds = failureCheckCaseCpuSeconds(await gradeProgram(config, dataset, program, reference, { heldOut }));
    return caseCpuSeconds;
  };
  const order = seededTryOrder(options.seed, program.name, candidates).slice(
    0,
    options.maxTries ?? MAX_TRIES_PER_PROGRAM,
  );
  let fallback: ChosenMutant | null = null;
  let tried = 0;
  const rejected = { passed: 0, unrunnable: 0 };
  for (const candidate of order) {
    const source = applyCandidate(reference, candidate);
    if (source === null) continue;
    const same = sameProgram(source, quixBugs);
    if (same && fallback !== null) continue;
    tried += 1;
    const budget = await validationBudget();
    const grade = await gradeProgram(config, dataset, program, source, {
      heldOut,
      ...(budget !== undefined ? { caseCpuSeconds: budget } : {}),
    });
    const chosen = judge(
      program.name,
      candidate,
      source,
      grade,
      same,
      candidates.length,
      budget ?? config.limits.caseCpuSeconds,
    );
    if (chosen === "passed") rejected.passed += 1;
    else if (chosen === "unrunnable") rejected.unrunnable += 1;
    else if (!same) return ok({ kind: "mutant", mutant: { ...chosen, tried } });
    else fallback = chosen;
  }
  if (fallback !== null) return ok({ kind: "mutant", mutant: { ...fallback, tried } });
  const reason =
    candidates.length === 0
      ? "the operators found no one-line mutation site"
      : `no valid mutant among ${tried} tried of ${candidates.length} candidates (${rejected.passed} passed every public case, ${rejected.unrunnable} could not be imported or run)`;
  return ok({ kind: "skipped", skipped: { program: program.name, reason, candidates: candidates.length, tried } });
}

function judge(
  program: string,
  candidate: MutationCandidate,
  source: Buffer,
  grade: TrustedGrade,
  same: boolean,
  candidates: number,
  caseCpuSeconds: number,
): ChosenMutant | "passed" | "unrunnable" {
  if (grade.outcome === "passed" || grade.public.passed === grade.public.total) return "passed";
  if (grade.outcome === "error") return "unrunnable";
  const held = grade.heldOut
    ? { failing: failing(grade.heldOut.total, grade.heldOut.passed), total: grade.heldOut.total }
    : null;
  return {
    program,
    operator: candidate.op,
    line: candidate.line,
    before: candidate.before,
    after: candidate.after,
    outcome: grade.outcome,
    publicCases: { failing: failing(grade.public.total, grade.public.passed), total: grade.public.total },
    heldOutCases: held,
    publicOnly: held === null || held.failing === 0,
    sameAsQuixBugs: same,
    candidates,
    tried: 0,
    caseCpuSeconds,
    source,
  };
}

/** One selection per program of the data set, in the data set's order. */
export async function selectMutants(
  config: SandboxConfig,
  dataset: QuixDataset,
  options: SelectionOptions,
): Promise<Result<ProgramSelection[], BenchErrorCode>> {
  let done = 0;
  let failure: Err<BenchErrorCode> | null = null;
  const results = await mapWithConcurrency(dataset.programs, options.jobs, async (program) => {
    if (failure !== null) return null;
    const one = await selectOne(config, dataset, program, options);
    if (!one.ok) {
      failure ??= one;
      return null;
    }
    done += 1;
    options.onProgram?.(one.value, done, dataset.programs.length);
    return one.value;
  });
  if (failure !== null) return failure;
  return ok(results.filter((r): r is ProgramSelection => r !== null));
}
