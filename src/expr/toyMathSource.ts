// The outer source boundary: toy_math.py must be exactly the two synchronous functions
// clamp(x, lo, hi) and total(unit, qty, fee), each with a single `return EXPR` line. This is a
// line-oriented recognizer for that one shape, not a Python parser: anything else is rejected
// with a code naming what was found. Hand-written on purpose (trusted core, no Python).
import { EXPR_LIMITS, FUNCTION_NAMES, FUNCTIONS, type FunctionName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { compileExpression, type ValidatedExpression } from "./compileExpression.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { runLexicalChecks } from "./lexicalChecks.ts";

export interface ToyMathSource {
  readonly expressions: { readonly clamp: string; readonly total: string };
  readonly compiled: { readonly clamp: ValidatedExpression; readonly total: ValidatedExpression };
}

const STATEMENT_KEYWORDS =
  /^(class|import|from|if|elif|else|for|while|with|try|except|finally|global|nonlocal|del|pass|return|raise|assert|break|continue|yield|match|case|type)\b/;
const ASSIGNMENT = /(^|[^=!<>])=($|[^=])/;
const STRING_START = /^([rRbBuUfF]{0,2})["']/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Byte length first (Part 4's order), then UTF-8 validity; the result is the decoded text. */
function decodeSource(source: string | Uint8Array): Result<string, ExprErrorCode> {
  if (typeof source === "string") {
    if (Buffer.byteLength(source, "utf8") > EXPR_LIMITS.sourceMaxBytes) {
      return err("source_too_long", `source exceeds ${EXPR_LIMITS.sourceMaxBytes} bytes`);
    }
    // A lone surrogate has no UTF-8 encoding.
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(source)) {
      return err("source_not_utf8", "source is not valid UTF-8");
    }
    return ok(source);
  }
  if (!(source instanceof Uint8Array)) return err("source_not_utf8", "source must be text or bytes");
  if (source.byteLength > EXPR_LIMITS.sourceMaxBytes) {
    return err("source_too_long", `source exceeds ${EXPR_LIMITS.sourceMaxBytes} bytes`);
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(source));
  } catch {
    return err("source_not_utf8", "source is not valid UTF-8");
  }
}

interface OpenFunction {
  readonly name: FunctionName;
  indent: number | null;
  expression: string | null;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

/** Parses one `def NAME(PARAMS):` header line. */
function parseHeader(line: string, seen: ReadonlySet<string>): Result<FunctionName, ExprErrorCode> {
  const match = /^def +([A-Za-z_][A-Za-z0-9_]*) *(.*)$/.exec(line);
  if (match === null) return err("syntax_error", "malformed function definition");
  const name = match[1] as string;
  const rest = match[2] as string;
  if (!Object.hasOwn(FUNCTIONS, name))
    return err("extra_definition", `unexpected function ${name}; only clamp and total are allowed`);
  if (seen.has(name)) return err("extra_definition", `function ${name} is defined twice`);
  if (rest.startsWith("[")) return err("type_parameters_not_allowed", "type parameters are not allowed");
  if (!rest.startsWith("(")) return err("syntax_error", "malformed function definition");
  let depth = 0;
  let close = -1;
  for (let i = 0; i < rest.length && close < 0; i++) {
    if (rest[i] === "(") depth++;
    else if (rest[i] === ")" && --depth === 0) close = i;
  }
  if (close < 0) return err("syntax_error", "unclosed parameter list");
  const parts = splitTopLevel(rest.slice(1, close));
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const names: string[] = [];
  for (const part of parts) {
    if (part.startsWith("*") || part === "/") {
      return err(
        "variadic_parameter_not_allowed",
        "*args, **kwargs, keyword-only and positional-only markers are not allowed",
      );
    }
    if (part.includes(":")) return err("annotation_not_allowed", "parameter annotations are not allowed");
    if (part.includes("=")) return err("default_not_allowed", "parameter defaults are not allowed");
    if (!IDENTIFIER.test(part)) return err("signature_mismatch", `malformed parameter list of ${name}`);
    names.push(part);
  }
  const after = rest.slice(close + 1).trimStart();
  if (after.startsWith("->")) return err("annotation_not_allowed", "return annotations are not allowed");
  const expected: readonly string[] = FUNCTIONS[name as FunctionName].params;
  if (names.length !== expected.length || names.some((p, i) => p !== expected[i])) {
    return err("signature_mismatch", `${name} must take exactly (${expected.join(", ")})`);
  }
  if (after.startsWith(":") && after.slice(1).trim() !== "") {
    return err("function_body_invalid", "the body must be a return statement on its own line");
  }
  if (after.trimEnd() !== ":") return err("syntax_error", "malformed function definition");
  return ok(name as FunctionName);
}

function bodyLine(open: OpenFunction, content: string): Result<null, ExprErrorCode> {
  if (open.expression !== null)
    return err("statement_not_allowed", `${open.name} must contain only one return statement`);
  if (STRING_START.test(content)) return err("docstring_not_allowed", "docstrings are not allowed");
  if (content === "return" || content.trimEnd() === "return")
    return err("function_body_invalid", "return needs an expression");
  if (!content.startsWith("return "))
    return err("statement_not_allowed", `${open.name} must contain only a single return statement`);
  open.expression = content.slice("return ".length);
  return ok(null);
}

function moduleLine(content: string): ExprErrorCode {
  if (content.startsWith("@")) return "decorator_not_allowed";
  if (/^async\b/.test(content)) return "async_not_allowed";
  if (STATEMENT_KEYWORDS.test(content) || ASSIGNMENT.test(content) || content.trimEnd().endsWith(":"))
    return "statement_not_allowed";
  return "module_expression_not_allowed";
}

const MODULE_LINE_MESSAGES: Partial<Record<ExprErrorCode, string>> = {
  decorator_not_allowed: "decorators are not allowed",
  async_not_allowed: "async functions are not allowed",
  statement_not_allowed: "only the two function definitions are allowed at module level",
  module_expression_not_allowed: "module-level expressions (including docstrings) are not allowed",
};

export function parseToyMathSource(source: string | Uint8Array): Result<ToyMathSource, ExprErrorCode> {
  const decoded = decodeSource(source);
  if (!decoded.ok) return decoded;
  const text = decoded.value;
  if (!/^[\x20-\x7e\n]*$/.test(text)) {
    return err("source_not_printable_ascii", "source must be printable ASCII lines separated by LF");
  }
  const lexical = runLexicalChecks(text);
  if (!lexical.ok) return lexical;

  const found = new Map<FunctionName, string>();
  let open: OpenFunction | null = null;
  const close = (): Result<null, ExprErrorCode> => {
    if (open === null) return ok(null);
    if (open.expression === null) return err("function_body_invalid", `${open.name} has no return statement`);
    found.set(open.name, open.expression);
    open = null;
    return ok(null);
  };
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    if (/^ *$/.test(line)) continue;
    const content = line.trimStart();
    const indent = line.length - content.length;
    if (indent > 0) {
      const current: OpenFunction | null = open;
      if (current === null) return err("unexpected_indentation", "indented line outside a function");
      if (current.indent === null) current.indent = indent;
      else if (current.indent !== indent) return err("unexpected_indentation", "inconsistent indentation");
      const body = bodyLine(current, content);
      if (!body.ok) return body;
      continue;
    }
    const closed = close();
    if (!closed.ok) return closed;
    if (!/^def\b/.test(content)) {
      const code = moduleLine(content);
      return err(code, MODULE_LINE_MESSAGES[code] ?? "unexpected module-level line");
    }
    const header = parseHeader(content, new Set(found.keys()));
    if (!header.ok) return header;
    open = { name: header.value, indent: null, expression: null };
  }
  const closed = close();
  if (!closed.ok) return closed;
  for (const name of FUNCTION_NAMES) {
    if (!found.has(name)) return err("missing_function", `function ${name} is missing`);
  }
  const clampText = found.get("clamp") as string;
  const totalText = found.get("total") as string;
  const clamp = compileExpression("clamp", clampText);
  if (!clamp.ok) return err(clamp.error, `clamp: ${clamp.message}`);
  const total = compileExpression("total", totalText);
  if (!total.ok) return err(total.error, `total: ${total.message}`);
  return ok({
    expressions: { clamp: clampText, total: totalText },
    compiled: { clamp: clamp.value, total: total.value },
  });
}
