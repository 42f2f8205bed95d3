// sqrt's comparison against pytest itself (issue #34): pytest.approx is the oracle. A Python
// script (CPython with the real pytest, outside any sandbox, seeing only values this test
// generates) writes, for each generated row, the value as trusted_runner.typed_number writes it
// and pytest's own verdict on `actual == pytest.approx(expected, abs=tol)` (an exception
// counting as a failed assert); the Node side must reach the same verdict from the typed text
// alone. Rows sit on the boundaries where a double-based comparison goes wrong: Decimal (which
// raises against a float expected, and rounds to 28 digits against an int one), Fraction
// (through float()), huge ints (OverflowError), complex, bool, non-numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  approxEqual,
  doubleOfRational,
  parseTypedNumber,
  rationalOfDouble,
} from "../../src/bench/grading/approxScalar.ts";
import { sandboxPackages } from "../support/systemPackages.ts";

const GRADING = fileURLToPath(new URL("../../src/bench/grading/", import.meta.url));

const ORACLE = String.raw`
import json, random, sys
from decimal import Decimal, getcontext, localcontext
from fractions import Fraction
import pytest
sys.path.insert(0, sys.argv[1])
import trusted_runner as tr

rng = random.Random(int(sys.argv[2]))
rows = []

def verdict(actual, expected, tol):
    try:
        return bool(actual == pytest.approx(expected, abs=tol))
    except Exception:
        return False

def add(actual, expected, tol, note):
    try:
        typed = tr.typed_number(actual)
    except tr.TooLarge:
        return
    rows.append({"actual": json.dumps(typed, separators=(",", ":")),
                 "expected": json.dumps(tr.typed_number(expected), separators=(",", ":")),
                 "tol": repr(tol), "pytest": verdict(actual, expected, tol), "note": note})

TOLS = [0.5, 0.3, 0.2, 0.05, 0.01, 1e-6]
for _ in range(400):
    expected = rng.choice([float(rng.randint(1, 200)) / rng.choice([1, 3, 7]), rng.randint(1, 200)])
    tol = rng.choice(TOLS)
    off = rng.choice([-1, 1]) * tol * rng.choice([0.5, 0.999999, 1.0, 1.000001, 2.0])
    fe = float(expected)
    add(fe + off, expected, tol, "float")
    add(Fraction(fe) + Fraction(off), expected, tol, "fraction")
    add(Fraction(expected) + Fraction(tol) + Fraction(rng.choice([-1, 1]), 10 ** rng.randint(15, 40)), expected, tol, "fraction at the edge")
    add(Decimal(fe) + Decimal(off), expected, tol, "decimal")
    add(Decimal(expected) + Decimal(tol) + Decimal(rng.choice(["1e-25", "-1e-25", "1e-29", "-1e-29", "4e-29"])), expected, tol, "decimal at the edge")
    add(round(fe + off), expected, tol, "int")
    add(complex(fe + off, rng.choice([0.0, tol / 2, tol, tol * 0.8])), expected, tol, "complex")
# Fixed rows: the issue's attack and the classes pytest refuses or raises on.
add(Decimal(2).sqrt() + Decimal(0.01) + Decimal("1e-25"), 1.4166666666666665, 0.01, "the issue's sqrt attack")
add(Decimal(4).sqrt() + Decimal(0.2) + Decimal("1e-25"), 2, 0.2, "the issue's sqrt attack, int expected")
add(Decimal("2.50000000000000000000000000004"), 2, 0.5, "int - Decimal rounds to 28 digits onto the tolerance")
add(Decimal("2.5000000000000000000000000004"), 2, 0.5, "28 digits: just past")
add(Decimal(2), 2, 0.5, "Decimal equal to an int")
add(Decimal("1.5"), 1.5, 0.5, "Decimal equal to a float")
add(Decimal("NaN"), 2, 0.5, "Decimal NaN")
add(Decimal("sNaN"), 2, 0.5, "Decimal sNaN")
add(Decimal("Infinity"), 2, 0.5, "Decimal infinity")
add(True, 1.2, 0.5, "bool")
add(False, 0, 0.5, "bool equal")
add(10 ** 400, 1.5, 0.5, "int past the double range")
add(Fraction(10 ** 400, 3), 1.5, 0.5, "Fraction past the double range")
add(Fraction(10 ** 400 + 1, 10 ** 400), 1, 0.0, "Fraction a hair above 1, tolerance 0, int expected")
add(Fraction(10 ** 400 + 1, 10 ** 400), 1.0, 0.0, "the same, float expected (float() rounds it to 1.0)")
add(float("nan"), 1.5, 0.5, "nan")
add(float("inf"), 1.5, 0.5, "inf")
add("1.5", 1.5, 0.5, "str")
add([1.5], 1.5, 0.5, "list")
add(None, 1.5, 0.5, "None")
add(complex(1.5, 0.0), 1.5, 0.5, "complex with no imaginary part")
add(2 ** 53 + 1, 2 ** 53, 0.5, "ints compared exactly")
add(2 ** 53 + 1, float(2 ** 53), 0.5, "int against a float: float(int) rounds")
print(json.dumps(rows))

# A decimal context other than Python's default: refused by the grade (the rounding of
# int - Decimal depends on it); pytest's verdict is printed to show the refusal is never a pass.
getcontext().prec = 5
print(json.dumps([{"actual": json.dumps(tr.typed_number(Decimal("2.4000001")), separators=(",", ":")),
                   "pytest": verdict(Decimal("2.4000001"), 2, 0.5)}]))
`;

interface Row {
  readonly actual: string;
  readonly expected: string;
  readonly tol: string;
  readonly pytest: boolean;
  readonly note: string;
}

test(
  "sqrt's approx comparison reaches pytest.approx's own verdict on every generated row (Decimal, Fraction, int, complex, bool, non-numbers)",
  { skip: sandboxPackages().skip },
  () => {
    for (const seed of [1, 2]) {
      const out = spawnSync("python3", ["-c", ORACLE, GRADING, String(seed)], { encoding: "utf8", timeout: 60_000 });
      assert.equal(out.status, 0, out.stderr);
      const [rowsText, contextText] = out.stdout.trim().split("\n");
      const rows = JSON.parse(rowsText ?? "[]") as Row[];
      assert.ok(rows.length > 2500, `${rows.length} rows`);
      const wrong = rows.filter((r) => {
        const a = parseTypedNumber(r.actual);
        const e = parseTypedNumber(r.expected);
        assert.ok(a && e, `${r.actual} / ${r.expected} parse`);
        return approxEqual(a, e, Number(r.tol)) !== r.pytest;
      });
      assert.deepEqual(wrong, []);
      // Both verdicts occur in each kind, so no kind agrees by always saying one thing.
      for (const note of ["float", "fraction", "fraction at the edge", "decimal at the edge", "int", "complex"]) {
        const kind = rows.filter((r) => r.note === note);
        assert.ok(kind.some((r) => r.pytest) && kind.some((r) => !r.pytest), note);
      }
      const fixed = new Map(rows.map((r) => [r.note, r.pytest]));
      assert.equal(fixed.get("the issue's sqrt attack"), false);
      assert.equal(fixed.get("int - Decimal rounds to 28 digits onto the tolerance"), true);
      assert.equal(fixed.get("28 digits: just past"), false);
      // The changed decimal context: refused, whatever pytest says.
      const [context] = JSON.parse(contextText ?? "[]") as { actual: string; pytest: boolean }[];
      const typed = parseTypedNumber(context?.actual ?? "");
      assert.ok(typed?.kind === "decimal" && !typed.defaultContext);
      assert.equal(approxEqual(typed, { kind: "int", value: 2n, bool: false }, 0.5), false);
      assert.equal(context?.pytest, true, "pytest passes it: the refusal is stricter, never more lenient");
    }
  },
);

test("exact doubles: rationalOfDouble is exact and doubleOfRational rounds half to even", () => {
  for (const x of [0.1, 1.5, -2.25, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2]) {
    const r = rationalOfDouble(x);
    assert.equal(doubleOfRational(r), x, String(x));
  }
  assert.deepEqual(rationalOfDouble(0.5), { num: 1n, den: 2n });
  assert.deepEqual(rationalOfDouble(-3), { num: -3n, den: 1n });
  // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2: to even, 2^53.
  assert.equal(doubleOfRational({ num: 2n ** 53n + 1n, den: 1n }), 2 ** 53);
  // 2^53 + 3: halfway between 2^53 + 2 and 2^53 + 4: to even, 2^53 + 4.
  assert.equal(doubleOfRational({ num: 2n ** 53n + 3n, den: 1n }), 2 ** 53 + 4);
  // Just above halfway rounds up (the sticky bit).
  assert.equal(doubleOfRational({ num: (2n ** 54n + 2n) * 10n ** 30n + 1n, den: 2n * 10n ** 30n }), 2 ** 53 + 2);
  assert.equal(doubleOfRational({ num: 1n, den: 3n }), 1 / 3);
  assert.equal(doubleOfRational({ num: 10n ** 400n, den: 3n }), Infinity);
  assert.equal(doubleOfRational({ num: -7n, den: 2n }), -3.5);
});

test("typed-number texts a candidate's process may forge: anything malformed is no number, so never a pass", () => {
  for (const text of [
    "",
    "null",
    '["int"]',
    '["int","1.5"]',
    '["float","0x10"]',
    '["fraction","1","0"]',
    '["fraction","1","-3"]',
    '["decimal","finite",true,"+","1","0"]',
    '["decimal","finite",true,"","1","99999999"]',
    '["decimal","finite","yes","","1","0"]',
    '["decimal","nan"]',
    '["complex","1"]',
    '{"kind":"int"}',
  ])
    assert.equal(parseTypedNumber(text), undefined, text);
  const e = parseTypedNumber('["float","1.5"]');
  assert.ok(e);
  const other = parseTypedNumber('["other","MyFloat"]');
  assert.ok(other);
  assert.equal(approxEqual(other, e, 10), false);
  // An expected value that is not an int or a float: fails closed.
  assert.equal(approxEqual(e, other, 10), false);
});
