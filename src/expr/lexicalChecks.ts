// The lexical pre-parse checks of Part 4, run on raw text before any tokenizing for the parser,
// in the order: parenthesis nesting, numeric-token form, then comments and line
// continuations. Each pass is a plain linear scan so that no parser ever sees text that
// fails one of them. (Encoding and byte length are checked by the callers first.)
import { EXPR_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";

/** "(", "[" and "{" open; ")", "]" and "}" close. Brackets of every kind nest lexically (as in Python's tokenizer); unbalanced text is the parser's problem. */
export function checkParenNesting(text: string): Result<number, ExprErrorCode> {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x28 || code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (depth > EXPR_LIMITS.parenNestingMax) {
        return err("paren_nesting_too_deep", `parenthesis nesting exceeds ${EXPR_LIMITS.parenNestingMax}`);
      }
    } else if ((code === 0x29 || code === 0x5d || code === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return ok(deepest);
}

function isIdentifierStart(ch: string | undefined): boolean {
  return ch !== undefined && ((ch >= "a" && ch <= "z") || (ch >= "A" && ch <= "Z") || ch === "_");
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

function isNumberTail(ch: string | undefined): boolean {
  return ch !== undefined && (isDigit(ch) || isIdentifierStart(ch) || ch === ".");
}

function isPlainDigits(token: string): boolean {
  for (let i = 0; i < token.length; i++) if (!isDigit(token[i])) return false;
  return true;
}

/** Why a numeric token is not a plain decimal integer, or null when it is one. */
function describeNonDecimal(token: string): string | null {
  if (/^[0-9]+$/.test(token)) {
    // Python rejects leading zeros except in an all-zero token ("00" is the integer 0).
    if (token.length > 1 && token.startsWith("0") && !/^0+$/.test(token)) return "leading zero";
    return null;
  }
  if (/^0[xXoObB]/.test(token)) return "non-decimal base";
  if (token.includes("_")) return "underscore in number";
  if (/[eE]/.test(token) && /^[0-9.]+[eE]/.test(token)) return "exponent";
  if (token.includes(".")) return "float literal";
  if (/[jJ]$/.test(token)) return "imaginary literal";
  return "malformed number";
}

/**
 * Numeric tokens are found the way Python's tokenizer starts them (a digit, or a dot followed
 * by a digit, not inside an identifier) and extended over every letter, digit, dot, underscore
 * and exponent sign that follows, so "1e+5", "0x1F", "1_0" and "7if" are each one token here.
 * Only plain decimal digits pass, at most 7 of them.
 */
export function checkNumericTokens(text: string): Result<null, ExprErrorCode> {
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (isIdentifierStart(ch)) {
      while (i < text.length && (isIdentifierStart(text[i]) || isDigit(text[i]))) i++;
      continue;
    }
    if (isDigit(ch) || (ch === "." && isDigit(text[i + 1]))) {
      const start = i;
      while (i < text.length) {
        const c = text[i];
        if (isNumberTail(c)) {
          i++;
        } else if (
          (c === "+" || c === "-") &&
          /[eE]$/.test(text.slice(start, i)) &&
          /^[0-9.]/.test(text.slice(start, i)) &&
          isDigit(text[i + 1])
        ) {
          i++;
        } else {
          break;
        }
      }
      const token = text.slice(start, i);
      const problem =
        isPlainDigits(token) && (token.length === 1 || token[0] !== "0") ? null : describeNonDecimal(token);
      if (problem !== null) {
        return err("numeric_token_not_decimal", `numeric token is not a decimal integer (${problem})`);
      }
      if (token.length > EXPR_LIMITS.integerTokenMaxDigits) {
        return err("integer_token_too_long", `integer token has more than ${EXPR_LIMITS.integerTokenMaxDigits} digits`);
      }
      continue;
    }
    i++;
  }
  return ok(null);
}

export function checkCommentsAndContinuations(text: string): Result<null, ExprErrorCode> {
  if (text.includes("#")) return err("comment_not_allowed", "comments are not allowed");
  if (text.includes("\\"))
    return err("line_continuation_not_allowed", "line continuations (backslashes) are not allowed");
  return ok(null);
}

/** All three lexical checks in the order; the first failure wins. */
export function runLexicalChecks(text: string): Result<null, ExprErrorCode> {
  const nesting = checkParenNesting(text);
  if (!nesting.ok) return nesting;
  const numbers = checkNumericTokens(text);
  if (!numbers.ok) return numbers;
  return checkCommentsAndContinuations(text);
}
