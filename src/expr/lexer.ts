// Hand-written tokenizer for expression text that already passed the lexical pre-parse checks.
// It knows every Python operator spelling so that the parser can name a forbidden construct
// instead of reporting a generic character error. Hand-written on purpose: the trusted core
// must not depend on a general-purpose Python parser.
import { err, ok, type Result } from "../lab/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";

export type Token =
  | { readonly type: "number"; readonly text: string; readonly position: number }
  | { readonly type: "name"; readonly text: string; readonly position: number }
  | { readonly type: "op"; readonly text: string; readonly position: number }
  | { readonly type: "string"; readonly text: string; readonly position: number }
  | { readonly type: "end"; readonly text: ""; readonly position: number };

// Longest spellings first so that "//=" wins over "//" and "/".
const OPERATORS = [
  "**=", "//=", ">>=", "<<=", "...",
  "**", "//", "<<", ">>", "<=", ">=", "==", "!=", ":=", "->",
  "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=",
  "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
  "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
] as const;

function isNameChar(ch: string | undefined): boolean {
  return ch !== undefined && /[A-Za-z0-9_]/.test(ch);
}

export function tokenize(text: string): Result<readonly Token[], ExprErrorCode> {
  const tokens: Token[] = [];
  if (text.startsWith(" ")) {
    // CPython's eval mode reports "unexpected indent" for leading whitespace.
    return err("syntax_error", "expression must not start with whitespace");
  }
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === " ") {
      i++;
      continue;
    }
    if (ch === "'" || ch === '"') {
      // Kept as one token so the parser can name the construct around it (a call, say).
      const quote = text.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const closing = text.indexOf(quote, i + quote.length);
      const end = closing < 0 ? text.length : closing + quote.length;
      tokens.push({ type: "string", text: text.slice(i, end), position: i });
      i = end;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const start = i;
      while (i < text.length && /[0-9]/.test(text[i] as string)) i++;
      tokens.push({ type: "number", text: text.slice(start, i), position: start });
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const start = i;
      while (isNameChar(text[i])) i++;
      tokens.push({ type: "name", text: text.slice(start, i), position: start });
      continue;
    }
    const spelling = OPERATORS.find((op) => text.startsWith(op, i));
    if (spelling === undefined) {
      return err("syntax_error", `unexpected character ${JSON.stringify(ch)} at column ${i + 1}`);
    }
    tokens.push({ type: "op", text: spelling, position: i });
    i += spelling.length;
  }
  tokens.push({ type: "end", text: "", position: text.length });
  return ok(tokens);
}
