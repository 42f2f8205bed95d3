// The two steps every attack on a bench run folder takes, shared by the tests that forge one
// (benchVerdict, benchFailClosed, benchRecount): copy the honest run, edit the copy, then expect
// EVIDENCE INVALID with the reason named, in the verdict and (where asked) on the page.
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { BenchProblem, BenchProblemCode } from "../../src/verdicts/benchProblems.ts";

/** A copy of the run `honest` at `root/name`, for one attack. */
export function copyRun(honest: string, root: string, name: string): string {
  const target = join(root, name);
  cpSync(honest, target, { recursive: true });
  return target;
}

/**
 * The verdict is EVIDENCE INVALID and one of its problems, as printed (formatProblem), matches
 * `mentions`; with `code`, that problem has this code (what the CLI and the report decide by).
 */
export function assertVerdictInvalid(dir: string, mentions: RegExp, code?: BenchProblemCode): BenchProblem {
  const verdict = deriveBenchVerdict(dir);
  assert.equal(verdict.kind, "evidence_invalid");
  const found = verdict.problems.find(
    (problem) => mentions.test(formatProblem(problem)) && (code === undefined || problem.code === code),
  );
  assert.ok(found !== undefined, `expected ${code ?? ""} ${mentions}; got ${JSON.stringify(verdict.problems)}`);
  return found;
}

/** As assertVerdictInvalid, and the page still builds with EVIDENCE INVALID as its headline. */
export function assertBenchEvidenceInvalid(dir: string, mentions: RegExp, code?: BenchProblemCode): void {
  const problem = assertVerdictInvalid(dir, mentions, code);
  const built = buildReport(dir);
  assert.ok(built.ok, "the page is still built");
  assert.ok(
    built.value.document.kind === "bench" &&
      built.value.document.bench.verdict.headline.endsWith(" · EVIDENCE INVALID"),
  );
  // The page lists the problem as the verdict found it, printed the one way (formatProblem).
  assert.ok(
    built.value.document.bench.verdict.details.includes(formatProblem(problem)),
    `the report lists ${formatProblem(problem)}`,
  );
}
