// The grade's own vocabulary: what a grade says (its outcome and case counts) and the record a
// task result keeps of it. It lives here, beside the grader, so that grading depends on nothing
// of the agent (whose run_tests feedback has a pytest vocabulary of its own) or of the tables.

/** passed only when every required case passed; error: the program could not be imported or run. */
export type GradeOutcome = "passed" | "failed" | "timeout" | "error";

export interface GradeCounts {
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly skipped: number;
}

export interface GradeRecord {
  readonly outcome: GradeOutcome;
  readonly counts: GradeCounts;
  readonly seconds: number;
  readonly summary: string;
  /** The trusted grader's details (trustedGrader.ts); absent in runs graded by pytest. */
  readonly grader?: string;
  readonly reason?: string | null;
  readonly fixedPublic?: boolean;
  /** null: the program has no held-out generation. */
  readonly fixedWithHeldOut?: boolean | null;
  readonly heldOut?: {
    readonly seed: number;
    readonly passed: number;
    readonly total: number;
    readonly dropped: number;
  } | null;
  readonly excluded?: readonly string[];
}
