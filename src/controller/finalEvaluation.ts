// Independent final evaluation (Part 6 and 9): after every terminal condition, capture an
// integrity-checked snapshot and evaluate it on all twelve cases, but only while the harness is
// healthy and the deadline permits; recheck the digest afterwards before any success claim.
import {
  HELD_OUT_FIXTURES,
  PUBLIC_FIXTURES,
  type Fixture,
  type FunctionName,
  type StopReason,
} from "../constants/labConstants.ts";
import { evaluateFixtures } from "../expr/index.ts";
import type { MonotonicClock } from "../core/clock.ts";
import type { ControllerWorkspace } from "./controllerWorkspace.ts";

export const FINAL_EVALUATION_STATUSES = [
  /** all twelve cases were evaluated on the snapshot and the digest held afterwards */
  "completed",
  /** the deadline had already passed: evaluation was never started */
  "not_started_deadline",
  /** the deadline expired while cases were being evaluated */
  "interrupted",
  /** the snapshot failed its integrity check, or the source changed during evaluation */
  "workspace_conflict",
  /** the harness hit an unexpected exception: nothing it would report can be trusted */
  "not_run_harness_error",
] as const;
export type FinalEvaluationStatus = (typeof FINAL_EVALUATION_STATUSES)[number];

export interface CaseOutcome {
  readonly set: "public" | "held_out";
  readonly function: FunctionName;
  readonly inputs: readonly number[];
  readonly expected: number;
  readonly actual: number | null;
  readonly error: string | null;
  readonly passed: boolean;
}

export interface FinalEvaluation {
  readonly status: FinalEvaluationStatus;
  readonly snapshot: { readonly version: number; readonly sha256: string } | null;
  readonly publicPassed: number;
  readonly publicTotal: number;
  readonly heldOutPassed: number;
  readonly heldOutTotal: number;
  /** Evaluated cases (held-out included): stored outside model context only. */
  readonly cases: readonly CaseOutcome[];
  readonly verifiedSuccess: boolean;
  readonly elapsedMs: number;
}

export interface FinalEvaluationInput {
  readonly workspace: ControllerWorkspace;
  readonly clock: MonotonicClock;
  readonly overallDeadlineMs: number;
  readonly stopReason: StopReason;
  readonly acceptedFinish: { readonly version: number; readonly sha256: string } | null;
  /** Checks use this to change files between finish and final evaluation. */
  readonly beforeEvaluation?: () => Promise<void> | void;
}

const ALL_CASES: readonly { readonly set: CaseOutcome["set"]; readonly fixture: Fixture }[] = [
  ...PUBLIC_FIXTURES.map((fixture) => ({ set: "public" as const, fixture })),
  ...HELD_OUT_FIXTURES.map((fixture) => ({ set: "held_out" as const, fixture })),
];

export async function runFinalEvaluation(input: FinalEvaluationInput): Promise<FinalEvaluation> {
  const { clock, workspace } = input;
  const started = clock.now();
  const result = (
    status: FinalEvaluationStatus,
    snapshot: FinalEvaluation["snapshot"],
    cases: readonly CaseOutcome[],
  ): FinalEvaluation => {
    const count = (set: CaseOutcome["set"]): number => cases.filter((c) => c.set === set && c.passed).length;
    const publicPassed = count("public");
    const heldOutPassed = count("held_out");
    const verifiedSuccess =
      input.stopReason === "finish_accepted" &&
      status === "completed" &&
      snapshot !== null &&
      input.acceptedFinish !== null &&
      input.acceptedFinish.version === snapshot.version &&
      input.acceptedFinish.sha256 === snapshot.sha256 &&
      publicPassed === PUBLIC_FIXTURES.length &&
      heldOutPassed === HELD_OUT_FIXTURES.length;
    return {
      status,
      snapshot,
      publicPassed,
      publicTotal: PUBLIC_FIXTURES.length,
      heldOutPassed,
      heldOutTotal: HELD_OUT_FIXTURES.length,
      cases,
      verifiedSuccess,
      elapsedMs: clock.now() - started,
    };
  };

  await input.beforeEvaluation?.();
  // The integrity-checked snapshot is captured and recorded after every terminal condition;
  // only the evaluation of cases is skipped when it is unsafe or too late.
  const snapshot = await workspace.snapshot();
  if (!snapshot.ok)
    return result(input.stopReason === "harness_error" ? "not_run_harness_error" : "workspace_conflict", null, []);
  const captured = { version: snapshot.value.version, sha256: snapshot.value.sha256 };
  if (input.stopReason === "harness_error") return result("not_run_harness_error", captured, []);
  if (clock.now() >= input.overallDeadlineMs) return result("not_started_deadline", captured, []);

  const cases: CaseOutcome[] = [];
  for (const { set, fixture } of ALL_CASES) {
    if (clock.now() >= input.overallDeadlineMs) return result("interrupted", captured, cases);
    const evaluated = evaluateFixtures(snapshot.value.source, [fixture]);
    const record = evaluated.ok ? evaluated.value[0] : undefined;
    if (record === undefined) throw new Error("a trusted fixture could not be evaluated");
    cases.push({
      set,
      function: record.function,
      inputs: record.inputs,
      expected: record.expected,
      actual: record.actual,
      error: record.error?.code ?? null,
      passed: record.passed,
    });
  }

  // The bytes must still be the ones evaluated before anything is claimed about them.
  const after = await workspace.integrityCheck();
  const stillSame = after.ok && workspace.state().sourceSha256 === captured.sha256;
  return result(stillSame ? "completed" : "workspace_conflict", captured, cases);
}
