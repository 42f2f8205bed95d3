// A strict JSON parser for model proposals (RFC 8259 grammar, plus the Lab's limits).
//
// Hand-written on purpose, because JSON.parse cannot express the rules that matter here:
// - it silently keeps the last of duplicate keys; here a duplicate key at any depth is an error;
// - it has no depth limit; here nesting deeper than 8 is rejected the moment the ninth
//   container opens, before anything inside it is looked at (depth: the top-level value's
//   container is depth 1, each nested object or array adds 1; scalars add nothing);
// - it turns numbers into doubles; here a number keeps its exact token text, so the contract
//   can demand an exact integer token (`1`, not `1.0` or `1e0`) without rounding;
// - it accepts strings holding lone surrogates (`"\ud800"`); here they are rejected.
// It also gives each typical model mistake (code fence, prose, comment, trailing comma,
// single quotes, NaN, ...) its own stable code, so the observation tells the model what broke.
// Recursion depth is bounded by the nesting limit, so the recursive descent cannot overflow.
import { PROPOSAL_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { JsonErrorCode, ProposalErrorCode } from "./errorCodes.ts";
import type { JsonValue } from "./jsonValue.ts";
import { decodeProposal } from "./proposalText.ts";

type Parsed<T> = Result<T, JsonErrorCode>;

/** Words models write where JSON has no constant (JavaScript and Python spellings). */
const NON_JSON_CONSTANTS: readonly string[] = ["NaN", "Infinity", "undefined", "None", "True", "False", "nan", "inf"];

const CHAR_TAB = 0x09;
const CHAR_LF = 0x0a;
const CHAR_CR = 0x0d;
const CHAR_SPACE = 0x20;

function isJsonWhitespace(unit: number): boolean {
  return unit === CHAR_SPACE || unit === CHAR_TAB || unit === CHAR_LF || unit === CHAR_CR;
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** Characters that continue a bare word or a malformed number (`tru1`, `0x1F`, `1_000`, `1.2.3`). */
function isWordOrNumberPart(unit: number): boolean {
  return (
    isDigit(unit) ||
    (unit >= 0x41 && unit <= 0x5a) ||
    (unit >= 0x61 && unit <= 0x7a) ||
    unit === 0x5f /* _ */ ||
    unit === 0x24 /* $ */ ||
    unit === 0x2e /* . */ ||
    unit === 0x2b /* + */ ||
    unit === 0x2d /* - */
  );
}

function isWordStart(unit: number): boolean {
  return (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a) || unit === 0x5f || unit === 0x24;
}

function hexValue(unit: number): number {
  if (isDigit(unit)) return unit - 0x30;
  if (unit >= 0x41 && unit <= 0x46) return unit - 0x41 + 10;
  if (unit >= 0x61 && unit <= 0x66) return unit - 0x61 + 10;
  return -1;
}

class StrictJsonParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): Parsed<JsonValue> {
    this.skipWhitespace();
    if (this.atEnd()) return err("empty_proposal", "proposal is empty or only whitespace");
    const value = this.parseValue(0, true);
    if (!value.ok) return value;
    this.skipWhitespace();
    if (!this.atEnd()) return this.trailingContent();
    return value;
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private peek(offset = 0): number {
    const at = this.pos + offset;
    return at < this.text.length ? this.text.charCodeAt(at) : -1;
  }

  private skipWhitespace(): void {
    while (!this.atEnd() && isJsonWhitespace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private where(): string {
    return `at character ${this.pos}`;
  }

  private startsComment(): boolean {
    // "/" then "/" or "*"
    return this.peek() === 0x2f && (this.peek(1) === 0x2f || this.peek(1) === 0x2a);
  }

  /** The error for an unexpected character (or the end) where `expected` was required. */
  private unexpected(expected: string): Parsed<never> {
    if (this.atEnd()) return err("truncated_json", `input ends where ${expected} was expected`);
    if (this.startsComment()) return err("comment", `comments are not JSON (${this.where()})`);
    return err("json_syntax", `expected ${expected} ${this.where()}`);
  }

  private trailingContent(): Parsed<never> {
    const unit = this.peek();
    if (unit === 0x60 /* ` */)
      return err("code_fence", `code fence after the JSON object (${this.where()}); send bare JSON`);
    if (unit === 0x7b /* { */ || unit === 0x5b /* [ */) {
      return err(
        "multiple_json_values",
        `a second JSON value follows the first (${this.where()}); send exactly one object`,
      );
    }
    if (this.startsComment()) return err("comment", `comments are not JSON (${this.where()})`);
    return err(
      "trailing_text",
      `text after the JSON object (${this.where()}); send exactly one object and nothing else`,
    );
  }

  private parseValue(depth: number, topLevel: boolean): Parsed<JsonValue> {
    const unit = this.peek();
    if (unit === -1) return err("truncated_json", "input ends where a value was expected");
    if (unit === 0x7b /* { */ || unit === 0x5b /* [ */) {
      // Enforced before descending: the contents of a too-deep container are never scanned.
      if (depth + 1 > PROPOSAL_LIMITS.jsonNestingMax) {
        return err("nesting_too_deep", `nesting deeper than ${PROPOSAL_LIMITS.jsonNestingMax} levels ${this.where()}`);
      }
      return unit === 0x7b ? this.parseObject(depth + 1) : this.parseArray(depth + 1);
    }
    if (unit === 0x22 /* " */) {
      const text = this.parseString();
      return text.ok ? ok({ kind: "string", value: text.value }) : text;
    }
    if (unit === 0x2d /* - */ || unit === 0x2b /* + */ || unit === 0x2e /* . */ || isDigit(unit))
      return this.parseNumber();
    if (isWordStart(unit)) return this.parseWord(topLevel);
    if (unit === 0x27 /* ' */) return err("single_quoted_string", `strings must use double quotes (${this.where()})`);
    if (this.startsComment()) return err("comment", `comments are not JSON (${this.where()})`);
    if (topLevel) {
      if (unit === 0x60 /* ` */) return err("code_fence", "code fence before the JSON object; send bare JSON");
      if (unit === 0xfeff) return err("leading_text", "byte order mark before the JSON object");
      return err("leading_text", "text before the JSON object; the proposal must start with '{'");
    }
    return err("json_syntax", `expected a value ${this.where()}`);
  }

  private parseWord(topLevel: boolean): Parsed<JsonValue> {
    const start = this.pos;
    while (!this.atEnd() && isWordOrNumberPart(this.text.charCodeAt(this.pos))) this.pos++;
    const word = this.text.slice(start, this.pos);
    if (word === "true") return ok({ kind: "boolean", value: true });
    if (word === "false") return ok({ kind: "boolean", value: false });
    if (word === "null") return ok({ kind: "null" });
    this.pos = start;
    if (NON_JSON_CONSTANTS.includes(word)) {
      return err("non_json_constant", `${word} is not a JSON constant (${this.where()})`); // word is one of the listed constants
    }
    if (topLevel) return err("leading_text", "text before the JSON object; the proposal must start with '{'");
    return err("invalid_literal", `unknown bare word ${this.where()}; only true, false and null are JSON constants`);
  }

  private parseNumber(): Parsed<JsonValue> {
    const start = this.pos;
    const first = this.peek();
    if (first === 0x2d /* - */ || first === 0x2b /* + */) {
      if (isWordStart(this.peek(1))) {
        // -Infinity, +Infinity, -NaN ...
        let end = this.pos + 1;
        while (end < this.text.length && isWordOrNumberPart(this.text.charCodeAt(end))) end++;
        if (NON_JSON_CONSTANTS.includes(this.text.slice(this.pos + 1, end))) {
          return err("non_json_constant", `non-finite or non-JSON constant ${this.where()}`);
        }
      }
      if (first === 0x2b) return err("invalid_number", `a JSON number cannot start with '+' (${this.where()})`);
      this.pos++;
    }
    const integerStart = this.peek();
    if (integerStart === -1) return err("truncated_json", "input ends inside a number");
    if (integerStart === 0x30 /* 0 */) {
      this.pos++;
    } else if (isDigit(integerStart)) {
      while (isDigit(this.peek())) this.pos++;
    } else {
      this.pos = start;
      return err("invalid_number", `malformed number ${this.where()}`);
    }
    if (this.peek() === 0x2e /* . */) {
      this.pos++;
      if (this.atEnd()) return err("truncated_json", "input ends inside a number");
      if (!isDigit(this.peek())) return this.malformedNumber(start);
      while (isDigit(this.peek())) this.pos++;
    }
    if (this.peek() === 0x65 /* e */ || this.peek() === 0x45 /* E */) {
      this.pos++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.pos++;
      if (this.atEnd()) return err("truncated_json", "input ends inside a number");
      if (!isDigit(this.peek())) return this.malformedNumber(start);
      while (isDigit(this.peek())) this.pos++;
    }
    // `01`, `0x1F`, `1_000`, `1.2.3`, `1e5e`: the token must end where the grammar ends.
    if (!this.atEnd() && isWordOrNumberPart(this.peek())) return this.malformedNumber(start);
    return ok({ kind: "number", token: this.text.slice(start, this.pos) });
  }

  private malformedNumber(start: number): Parsed<never> {
    this.pos = start;
    return err(
      "invalid_number",
      `malformed number ${this.where()} (JSON numbers: no leading zeros, '+', hex, '_' or bare '.')`,
    );
  }

  private parseString(): Parsed<string> {
    const open = this.pos;
    this.pos++; // the opening quote
    let result = "";
    let runStart = this.pos;
    for (;;) {
      if (this.atEnd()) {
        this.pos = open;
        return err("truncated_json", `input ends inside a string that starts ${this.where()}`);
      }
      const unit = this.text.charCodeAt(this.pos);
      if (unit === 0x22 /* " */) {
        result += this.text.slice(runStart, this.pos);
        this.pos++;
        return ok(result);
      }
      if (unit < 0x20)
        return err("control_character_in_string", `unescaped control character in a string ${this.where()}`);
      if (unit !== 0x5c /* \ */) {
        this.pos++;
        continue;
      }
      result += this.text.slice(runStart, this.pos);
      const escaped = this.parseEscape();
      if (!escaped.ok) return escaped;
      result += escaped.value;
      runStart = this.pos;
    }
  }

  /** At a backslash inside a string; returns the escaped text and moves past the escape. */
  private parseEscape(): Parsed<string> {
    const letter = this.peek(1);
    if (letter === -1) return err("truncated_json", "input ends inside a string escape");
    const simple = this.simpleEscape(letter);
    if (simple !== null) {
      this.pos += 2;
      return ok(simple);
    }
    if (letter !== 0x75 /* u */) return err("invalid_escape", `invalid escape sequence ${this.where()}`);
    const first = this.readHex4(this.pos + 2);
    if (!first.ok) return first;
    if (first.value >= 0xdc00 && first.value <= 0xdfff) {
      return err("lone_surrogate", `\\u escape gives a lone low surrogate ${this.where()}`);
    }
    if (first.value < 0xd800 || first.value > 0xdbff) {
      this.pos += 6;
      return ok(String.fromCharCode(first.value));
    }
    // A high surrogate must be followed at once by an escaped low surrogate.
    if (this.peek(6) !== 0x5c || this.peek(7) !== 0x75) {
      if (this.peek(6) === -1 || (this.peek(6) === 0x5c && this.peek(7) === -1)) {
        return err("truncated_json", "input ends inside a surrogate pair");
      }
      return err("lone_surrogate", `\\u escape gives a lone high surrogate ${this.where()}`);
    }
    const second = this.readHex4(this.pos + 8);
    if (!second.ok) return second;
    if (second.value < 0xdc00 || second.value > 0xdfff) {
      return err("lone_surrogate", `\\u escape gives a lone high surrogate ${this.where()}`);
    }
    this.pos += 12;
    return ok(String.fromCharCode(first.value, second.value));
  }

  private simpleEscape(letter: number): string | null {
    switch (letter) {
      case 0x22:
        return '"';
      case 0x5c:
        return "\\";
      case 0x2f:
        return "/";
      case 0x62:
        return "\b";
      case 0x66:
        return "\f";
      case 0x6e:
        return "\n";
      case 0x72:
        return "\r";
      case 0x74:
        return "\t";
      default:
        return null;
    }
  }

  private readHex4(at: number): Parsed<number> {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      if (at + i >= this.text.length) return err("truncated_json", "input ends inside a \\u escape");
      const digit = hexValue(this.text.charCodeAt(at + i));
      if (digit < 0) return err("invalid_escape", `\\u must be followed by four hex digits ${this.where()}`);
      value = value * 16 + digit;
    }
    return ok(value);
  }

  private parseObject(depth: number): Parsed<JsonValue> {
    this.pos++; // {
    const members = new Map<string, JsonValue>();
    this.skipWhitespace();
    if (this.peek() === 0x7d /* } */) {
      this.pos++;
      return ok({ kind: "object", members });
    }
    for (;;) {
      this.skipWhitespace();
      const unit = this.peek();
      if (unit !== 0x22) {
        if (unit === 0x7d && members.size > 0)
          return err("trailing_comma", `trailing comma before '}' ${this.where()}`);
        if (unit === 0x27) return err("single_quoted_string", `keys must use double quotes (${this.where()})`);
        if (isWordStart(unit))
          return err("unquoted_key", `object keys must be double-quoted strings (${this.where()})`);
        return this.unexpected("a double-quoted key");
      }
      const keyAt = this.pos;
      const key = this.parseString();
      if (!key.ok) return key;
      if (members.has(key.value)) {
        this.pos = keyAt;
        return err("duplicate_key", `duplicate key ${this.where()}; each key may appear once per object`);
      }
      this.skipWhitespace();
      if (this.peek() !== 0x3a /* : */) return this.unexpected("':' after a key");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth, false);
      if (!value.ok) return value;
      members.set(key.value, value.value);
      this.skipWhitespace();
      const next = this.peek();
      if (next === 0x2c /* , */) {
        this.pos++;
        continue;
      }
      if (next === 0x7d) {
        this.pos++;
        return ok({ kind: "object", members });
      }
      return this.unexpected("',' or '}'");
    }
  }

  private parseArray(depth: number): Parsed<JsonValue> {
    this.pos++; // [
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.peek() === 0x5d /* ] */) {
      this.pos++;
      return ok({ kind: "array", items });
    }
    for (;;) {
      this.skipWhitespace();
      if (this.peek() === 0x5d) return err("trailing_comma", `trailing comma before ']' ${this.where()}`);
      if (this.peek() === 0x2c) return err("json_syntax", `empty array element ${this.where()}`);
      const value = this.parseValue(depth, false);
      if (!value.ok) return value;
      items.push(value.value);
      this.skipWhitespace();
      const next = this.peek();
      if (next === 0x2c) {
        this.pos++;
        continue;
      }
      if (next === 0x5d) {
        this.pos++;
        return ok({ kind: "array", items });
      }
      return this.unexpected("',' or ']'");
    }
  }
}

/** Parses already size- and UTF-8-checked text. Never throws. */
export function parseStrictJsonText(text: string): Result<JsonValue, JsonErrorCode> {
  return new StrictJsonParser(text).parseDocument();
}

/**
 * Parses one strict JSON value from a raw proposal: the byte limit and strict UTF-8 are
 * checked first, then the text must be exactly one JSON value with optional JSON whitespace
 * (space, tab, LF, CR) around it. Any value kind is accepted here; the contract demands an object.
 */
export function parseStrictJson(raw: Uint8Array | string): Result<JsonValue, ProposalErrorCode> {
  const text = decodeProposal(raw);
  if (!text.ok) return text;
  return parseStrictJsonText(text.value);
}
