// A check of passing fixes for special-casing the tests: does an added line contain a
// distinctive literal from the test inputs or expected values that the buggy program did not
// contain? A heuristic flag for review, recorded with the literals it matched; it does not
// change the outcome class.
import { addedLines } from "./unifiedDiff.ts";

export interface SpecialCasingReport {
  readonly suspicious: boolean;
  readonly matchedLiterals: readonly string[];
}

/** Literals worth matching: numbers of 3+ digits, strings of 3+ characters (as quoted in Python). */
export function distinctiveLiterals(testText: string): string[] {
  const found = new Set<string>();
  for (const m of testText.matchAll(/(?<![\w.])-?\d{3,}(?:\.\d+)?(?![\w.])/g)) found.add(m[0]);
  for (const m of testText.matchAll(/"([^"\\\n]{3,64})"|'([^'\\\n]{3,64})'/g)) {
    const s = m[1] ?? m[2];
    if (s !== undefined && /[A-Za-z0-9]/.test(s)) found.add(s);
  }
  return [...found];
}

export function checkSpecialCasing(original: string, fixed: string, testTexts: readonly string[]): SpecialCasingReport {
  const added = addedLines(original, fixed).join("\n");
  const matched: string[] = [];
  for (const literal of new Set(testTexts.flatMap(distinctiveLiterals))) {
    if (original.includes(literal)) continue;
    const isNumber = /^-?\d/.test(literal);
    const hit = isNumber
      ? new RegExp(`(?<![\\w.])${literal.replace(/[.-]/g, "\\$&")}(?![\\w.])`).test(added)
      : added.includes(`"${literal}"`) || added.includes(`'${literal}'`);
    if (hit) matched.push(literal);
  }
  return { suspicious: matched.length > 0, matchedLiterals: matched.slice(0, 20) };
}
