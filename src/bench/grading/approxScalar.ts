// pytest.approx for one number, replayed on exact values (issue #34). sqrt's test asserts
// `sqrt(*input_data) == pytest.approx(expected, abs=input_data[-1])`, and pytest 9's
// ApproxScalar.__eq__ does Python arithmetic on the returned value, whose result depends on the
// value's class: `float - Decimal` raises TypeError, `int - Decimal` rounds in the decimal
// context, `float - Fraction` goes through float(Fraction), `float - int` through float(int),
// and complex values are compared by their modulus. The runner writes the returned value with
// its class and exact value (trusted_runner.typed_number); this module decides as that code
// would, step by step, in exact rationals (BigInt) wherever Python is exact and in doubles
// exactly where Python computes in doubles; never through a conversion Python does not make.

/** A number as trusted_runner.typed_number writes it (anything else is "other"). */
export type TypedNumber =
  | { readonly kind: "int"; readonly value: bigint; readonly bool: boolean }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "fraction"; readonly value: Rational }
  | { readonly kind: "decimal"; readonly value: DecimalValue; readonly defaultContext: boolean }
  | { readonly kind: "complex"; readonly re: number; readonly im: number }
  | { readonly kind: "other"; readonly name: string };

/** num/den in lowest terms is not required; den > 0. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** A finite Decimal: coefficient × 10^exponent (the coefficient carries the sign), or a special value. */
export type DecimalValue =
  | { readonly special: null; readonly coefficient: bigint; readonly exponent: number; readonly negative: boolean }
  | { readonly special: "nan" | "snan" | "inf" | "-inf" };

const DECIMAL_DIGITS_MAX = 4000; // trusted_runner.DECIMAL_MAX_EXPONENT
const INT_TEXT = /^-?[0-9]{1,4400}$/;

function floatOf(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  if (text === "inf") return Infinity;
  if (text === "-inf") return -Infinity;
  if (text === "nan") return NaN;
  if (!/^-?[0-9.]+(e[-+]?[0-9]+)?$/.test(text)) return undefined;
  const v = Number(text);
  return Number.isNaN(v) ? undefined : v;
}

/** The typed number in a canonical text, or undefined when the text is not one (untrusted: anything goes). */
export function parseTypedNumber(text: string): TypedNumber | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || typeof v[0] !== "string") return undefined;
  const [kind, a, b, c, d, e] = v as unknown[];
  if ((kind === "int" || kind === "bool") && v.length === 2 && typeof a === "string" && INT_TEXT.test(a))
    return { kind: "int", value: BigInt(a), bool: kind === "bool" };
  if (kind === "float" && v.length === 2) {
    const x = floatOf(a);
    return x === undefined ? undefined : { kind: "float", value: x };
  }
  if (kind === "complex" && v.length === 3) {
    const re = floatOf(a);
    const im = floatOf(b);
    return re === undefined || im === undefined ? undefined : { kind: "complex", re, im };
  }
  if (kind === "fraction" && v.length === 3 && typeof a === "string" && typeof b === "string") {
    if (!INT_TEXT.test(a) || !/^[1-9][0-9]{0,4400}$/.test(b)) return undefined;
    return { kind: "fraction", value: { num: BigInt(a), den: BigInt(b) } };
  }
  if (kind === "decimal" && typeof b === "boolean") {
    if (v.length === 3 && (a === "nan" || a === "snan" || a === "inf" || a === "-inf"))
      return { kind: "decimal", value: { special: a }, defaultContext: b };
    if (
      v.length === 6 &&
      a === "finite" &&
      (c === "" || c === "-") &&
      typeof d === "string" &&
      /^[0-9]{1,4000}$/.test(d) &&
      typeof e === "string" &&
      /^-?[0-9]{1,7}$/.test(e) &&
      d.length + Math.abs(Number(e)) <= DECIMAL_DIGITS_MAX
    ) {
      const magnitude = BigInt(d);
      return {
        kind: "decimal",
        value: {
          special: null,
          coefficient: c === "-" ? -magnitude : magnitude,
          exponent: Number(e),
          negative: c === "-",
        },
        defaultContext: b,
      };
    }
    return undefined;
  }
  if (kind === "other" && v.length === 2 && typeof a === "string") return { kind: "other", name: a };
  return undefined;
}

// ---- exact arithmetic ----

const abs = (x: bigint): bigint => (x < 0n ? -x : x);
const pow10 = (k: number): bigint => 10n ** BigInt(k);

/** The exact value of a finite double, in lowest terms. */
export function rationalOfDouble(x: number): Rational {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return { num: (negative ? -mantissa : mantissa) << BigInt(exponent), den: 1n };
  // Lowest terms: the denominator is a power of two, so only twos cancel.
  let m = mantissa;
  let e = -exponent;
  while (e > 0 && m > 0n && (m & 1n) === 0n) {
    m >>= 1n;
    e--;
  }
  return { num: negative ? -m : m, den: 1n << BigInt(e) };
}

/** a <= b for exact rationals (den > 0). */
const atMost = (a: Rational, b: Rational): boolean => a.num * b.den <= b.num * a.den;
const sameValue = (a: Rational, b: Rational): boolean => a.num * b.den === b.num * a.den;

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** 2^k as a double, for any k (in steps, so that no step overflows or underflows early). */
function scaleByPowerOfTwo(x: number, k: number): number {
  let v = x;
  let left = k;
  while (left > 1000) {
    v *= 2 ** 1000;
    left -= 1000;
  }
  while (left < -1000) {
    v *= 2 ** -1000;
    left += 1000;
  }
  return v * 2 ** left;
}

/**
 * num/den correctly rounded to a double (round half to even), as Python's int / int true
 * division is; Infinity where Python raises OverflowError. (In the subnormal range, below
 * 2.2e-308, the last step may round twice: a difference of at most one subnormal unit.)
 */
export function doubleOfRational(r: Rational): number {
  if (r.num === 0n) return 0;
  const negative = r.num < 0n;
  const a = abs(r.num);
  // A quotient of 66 or 67 bits with a sticky low bit: Number() rounds it once, correctly.
  const shift = 66 - (bitLength(a) - bitLength(r.den));
  const num = shift >= 0 ? a << BigInt(shift) : a;
  const den = shift >= 0 ? r.den : r.den << BigInt(-shift);
  let q = num / den;
  if (num % den !== 0n) q |= 1n;
  const v = scaleByPowerOfTwo(Number(q), -shift);
  return negative ? -v : v;
}

/** An int converted to a double as Python's float(int) does (Infinity where it raises OverflowError). */
const doubleOfInt = (x: bigint): number => Number(x);

/**
 * `int - Decimal` in Python's default decimal context: the exact difference, rounded to 28
 * significant digits, half to even (the int converts exactly; the subtraction rounds).
 */
function decimalDifference(e: bigint, d: { coefficient: bigint; exponent: number }): Rational {
  let coefficient: bigint;
  let exponent: number;
  if (d.exponent >= 0) {
    coefficient = e - d.coefficient * pow10(d.exponent);
    exponent = 0;
  } else {
    coefficient = e * pow10(-d.exponent) - d.coefficient;
    exponent = d.exponent;
  }
  const magnitude = abs(coefficient);
  const digits = magnitude.toString().length;
  if (digits > 28) {
    const k = digits - 28;
    const unit = pow10(k);
    let kept = magnitude / unit;
    const rest = magnitude % unit;
    const half = 5n * pow10(k - 1);
    if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
    coefficient = coefficient < 0n ? -kept : kept;
    exponent += k;
  }
  return exponent >= 0 ? { num: coefficient * pow10(exponent), den: 1n } : { num: coefficient, den: pow10(-exponent) };
}

/** The exact real value of a number, where it has one (complex only with a zero imaginary part). */
function exactReal(x: TypedNumber): Rational | "inf" | "-inf" | null {
  const ofDouble = (v: number): Rational | "inf" | "-inf" | null =>
    Number.isNaN(v) ? null : v === Infinity ? "inf" : v === -Infinity ? "-inf" : rationalOfDouble(v);
  if (x.kind === "int") return { num: x.value, den: 1n };
  if (x.kind === "float") return ofDouble(x.value);
  if (x.kind === "fraction") return x.value;
  if (x.kind === "complex") return x.im === 0 ? ofDouble(x.re) : null;
  if (x.kind === "decimal") {
    const d = x.value;
    if (d.special === null)
      return d.exponent >= 0
        ? { num: d.coefficient * pow10(d.exponent), den: 1n }
        : { num: d.coefficient, den: pow10(-d.exponent) };
    return d.special === "inf" ? "inf" : d.special === "-inf" ? "-inf" : null;
  }
  return null;
}

/** Python's `actual == expected` across the numeric tower (exact; NaN equals nothing). */
function numericallyEqual(a: TypedNumber, e: TypedNumber): boolean {
  const x = exactReal(a);
  const y = exactReal(e);
  if (x === null || y === null) return false;
  if (typeof x === "string" || typeof y === "string") return x === y;
  return sameValue(x, y);
}

/**
 * `actual == pytest.approx(expected, abs=tolerance)` (no rel, nan_ok False), as pytest 9.0.3's
 * ApproxScalar.__eq__ decides it; a step that raises in Python (TypeError, OverflowError,
 * decimal's InvalidOperation) fails, as the assert does. `expected` is the test's number (an
 * int or a float); any other kind fails closed. A Decimal in a decimal context other than
 * Python's default is refused (the rounding of `int - Decimal` depends on it).
 */
export function approxEqual(actual: TypedNumber, expected: TypedNumber, tolerance: number): boolean {
  if (expected.kind !== "int" && expected.kind !== "float") return false;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) return false;
  // "Short-circuit exact equality, except for bool": an expected bool equals only a bool.
  if (expected.kind === "int" && expected.bool)
    return actual.kind === "int" && actual.bool && actual.value === expected.value;
  // A signalling NaN raises on ==.
  if (actual.kind === "decimal" && actual.value.special === "snan") return false;
  if (numericallyEqual(actual, expected)) return true;
  // "If either type is non-numeric, fall back to strict equality."
  if (actual.kind === "other") return false;
  if (expected.kind === "float" && !Number.isFinite(expected.value)) return false;
  const tol = rationalOfDouble(tolerance);
  // abs(expected - actual) <= tolerance, with Python's arithmetic for the two classes.
  if (actual.kind === "decimal") {
    // float - Decimal raises TypeError; int - Decimal is decimal arithmetic.
    if (expected.kind === "float" || !actual.defaultContext) return false;
    const d = actual.value;
    if (d.special !== null) return false; // |e - ±inf| = inf; NaN: <= raises InvalidOperation
    const diff = decimalDifference(expected.value, d);
    return atMost({ num: abs(diff.num), den: diff.den }, tol);
  }
  if (expected.kind === "int" && actual.kind === "int") {
    return atMost({ num: abs(expected.value - actual.value), den: 1n }, tol);
  }
  if (expected.kind === "int" && actual.kind === "fraction") {
    const f = actual.value;
    return atMost({ num: abs(expected.value * f.den - f.num), den: f.den }, tol);
  }
  // The rest is done in doubles: each operand as Python converts it (float(int) and
  // float(Fraction) correctly rounded, raising OverflowError past the double range).
  const e = expected.kind === "int" ? doubleOfInt(expected.value) : expected.value;
  if (!Number.isFinite(e)) return false;
  if (actual.kind === "complex") {
    // complex(e) - actual, then abs(): hypot of the two parts.
    const dr = e - actual.re;
    const di = -actual.im;
    if (!Number.isFinite(dr) || !Number.isFinite(di)) return false; // inf or nan: never <= tol
    if (di === 0) return Math.abs(dr) <= tolerance;
    // libm's hypot, correctly rounded; compared exactly here (|d|^2 <= tol^2): the two can
    // differ only for a modulus within half a unit in the last place above the tolerance.
    const r = rationalOfDouble(dr);
    const i = rationalOfDouble(di);
    const square = {
      num: r.num * r.num * i.den * i.den + i.num * i.num * r.den * r.den,
      den: r.den * r.den * i.den * i.den,
    };
    return atMost(square, { num: tol.num * tol.num, den: tol.den * tol.den });
  }
  const a =
    actual.kind === "int"
      ? doubleOfInt(actual.value)
      : actual.kind === "fraction"
        ? doubleOfRational(actual.value)
        : actual.value;
  if (!Number.isFinite(a) && actual.kind !== "float") return false; // OverflowError
  return Math.abs(e - a) <= tolerance;
}
