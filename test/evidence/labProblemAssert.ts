// The Lab verdict's problems are asserted by their code (the verdicts decide by it), and where a test
// names which of a code's checks fired, by a pattern over the printed form (formatProblem).
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { LabProblem, LabProblemCode } from "../../src/verdicts/labProblems.ts";

/** One problem of `code` among `problems`, whose printed form matches `mentions` when given. */
export function assertProblem(
  problems: readonly LabProblem[],
  code: LabProblemCode,
  mentions?: RegExp,
  message?: string,
): void {
  const printed = problems.map(formatProblem);
  if (process.env.TCA_DISCOVER_CODES !== undefined) return discover(problems, printed, code, mentions);
  assert.ok(
    problems.some((problem, index) => problem.code === code && (mentions?.test(printed[index]!) ?? true)),
    `${message === undefined ? "" : `${message}: `}expected ${code}${mentions === undefined ? "" : ` matching ${mentions}`}; ` +
      `got ${JSON.stringify(printed)}`,
  );
}

function discover(problems: readonly LabProblem[], printed: string[], code: unknown, mentions?: RegExp): void {
  const pattern = code instanceof RegExp ? code : mentions;
  const frames = (new Error().stack ?? "").split("\n").filter((line) => line.includes("/test/"));
  const caller = frames.find((line) => !/at (assert|discover)\w*/.test(line) && !line.includes("labProblemAssert"));
  const codes = problems.filter((_, index) => pattern?.test(printed[index]!) ?? true).map((problem) => problem.code);
  appendFileSync(
    process.env.TCA_DISCOVER_CODES!,
    `${JSON.stringify({ caller: caller?.trim(), codes: [...new Set(codes)], pattern: String(pattern) })}\n`,
  );
}
