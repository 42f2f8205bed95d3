// Hand-written tokenizer for expression text that already passed the lexical pre-parse checks.
// It knows every Python operator spelling so that the parser can name a forbidden construct
// instead of reporting a generic character error. Hand-written on purpose: the trusted core
// must not depend on a general-purpose Python parser.
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";

export type Token =
  | { readonly type: "number"; readonly text: string; readonly position: number }
  | { readonly type: "name"; readonly text: string; readonly position: number }
  | { readonly type: "op"; readonly text: string; readonly position: number }
  | { readonly type: "string"; readonly text: string; readonly position: number }
  | { readonly type: "end"; readonly text: ""; readonly position: number };

// Longest spellings first so that "//=" wins over "//" and "/".
const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "**",
  "//",
  "<<",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  ":=",
  "->",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "@=",
  "&=",
  "|=",
  "^=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "@",
  "&",
  "|",
  "^",
  "~",
  "<",
  ">",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ".",
  ";",
  "=",
] as const;

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);

// Character classes by code unit: plain comparisons keep the lexer fast (see bench/expr.bench.ts).
function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNameStartCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

export function tokenize(text: string): Result<readonly Token[], ExprErrorCode> {
  const tokens: Token[] = [];
  if (text.startsWith(" ")) {
    // CPython's eval mode reports "unexpected indent" for leading whitespace.
    return err("syntax_error", "expression must not start with whitespace");
  }
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x20) {
      i++;
      continue;
    }
    if (code === 0x27 || code === 0x22) {
      // Kept as one token so the parser can name the construct around it (a call, say).
      const ch = text[i] as string;
      const quote = text.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const closing = text.indexOf(quote, i + quote.length);
      const end = closing < 0 ? text.length : closing + quote.length;
      tokens.push({ type: "string", text: text.slice(i, end), position: i });
      i = end;
      continue;
    }
    if (isDigitCode(code)) {
      const start = i;
      while (i < text.length && isDigitCode(text.charCodeAt(i))) i++;
      tokens.push({ type: "number", text: text.slice(start, i), position: start });
      continue;
    }
    if (isNameStartCode(code)) {
      const start = i;
      while (i < text.length && (isNameStartCode(text.charCodeAt(i)) || isDigitCode(text.charCodeAt(i)))) i++;
      tokens.push({ type: "name", text: text.slice(start, i), position: start });
      continue;
    }
    let spelling: string | null = null;
    // Brackets and commas never start a longer operator: skip the longest-match search.
    if (code === 0x28 || code === 0x29 || code === 0x2c) spelling = text[i] as string;
    for (let length = 3; length >= 1 && spelling === null; length--) {
      const candidate = text.slice(i, i + length);
      if (candidate.length === length && OPERATOR_SET.has(candidate)) spelling = candidate;
    }
    if (spelling === null) {
      return err("syntax_error", `unexpected character ${JSON.stringify(text[i])} at column ${i + 1}`);
    }
    tokens.push({ type: "op", text: spelling, position: i });
    i += spelling.length;
  }
  tokens.push({ type: "end", text: "", position: text.length });
  return ok(tokens);
}
