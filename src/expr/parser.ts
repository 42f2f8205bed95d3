// Hand-written parser for exactly the subset, with Python's precedence and associativity:
//   expression  := disjunction ("if" disjunction "else" expression)?      (right-associative)
//   disjunction := comparison                 ("and"/"or"/"not" are named and rejected)
//   comparison  := sum (compop sum)?          (a second comparator is a chained comparison)
//   sum         := term (("+"|"-") term)*     (left-associative)
//   term        := factor ("*" factor)*       (left-associative)
//   factor      := ("+"|"-")* power
//   power       := primary                    ("**" is named and rejected)
//   primary     := atom                       (call, attribute, subscript are named and rejected)
//   atom        := INTEGER | NAME | "(" expression ")"
// Every token that could start any other Python construct is rejected by construction with
// a code naming it. Loops replace recursion everywhere except parenthesized atoms, whose
// depth the lexical nesting check (<= 16) already bounded before parsing started.
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import type { Token } from "./lexer.ts";
import type { CompareOperator, ExprNode, UnaryOperator } from "./syntaxTree.ts";

const PYTHON_KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

const COMPARE_OPERATORS: ReadonlySet<string> = new Set(["<", "<=", ">", ">=", "==", "!="]);
const BITWISE_OPERATORS: ReadonlySet<string> = new Set(["|", "^", "&", "<<", ">>"]);

/** A parse failure carried as an exception inside this module only; parseTokens turns it into a Result. */
class Rejection {
  constructor(
    readonly code: ExprErrorCode,
    readonly message: string,
  ) {}
}

function reject(code: ExprErrorCode, message: string): never {
  throw new Rejection(code, message);
}

class Parser {
  private index = 0;
  /** Whether any "for" token exists at all; most texts have none, so bracket scans are skipped. */
  private readonly hasFor: boolean;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly parameters: readonly string[],
  ) {
    this.hasFor = tokens.some((token) => token.type === "name" && token.text === "for");
  }

  private peek(offset = 0): Token {
    const position = this.index + offset;
    // The stream always ends with an "end" token; reading past it keeps returning that token.
    const token = this.tokens[position < this.tokens.length ? position : this.tokens.length - 1];
    if (token === undefined) reject("syntax_error", "empty token stream");
    return token;
  }

  private isOp(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === "op" && token.text === text;
  }

  private isKeyword(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === "name" && token.text === text;
  }

  parseWhole(): ExprNode {
    if (this.peek().type === "end") reject("syntax_error", "empty expression");
    const node = this.parseExpression();
    const next = this.peek();
    if (next.type === "end") return node;
    if (next.text === ",") reject("forbidden_container", "a tuple (comma-separated values) is not allowed");
    if (next.text === "=" || /^[-+*/%@&|^<>]+=$|^\*\*=$|^\/\/=$/.test(next.text)) {
      reject("forbidden_assignment", "assignment is not allowed");
    }
    if (next.text === ":=") reject("forbidden_walrus", "assignment expression (walrus) is not allowed");
    this.rejectTrailingOperator(next);
    return reject("syntax_error", `unexpected ${JSON.stringify(next.text)} at column ${next.position + 1}`);
  }

  /** Operators that Python would have consumed at some level we skipped: name them. */
  private rejectTrailingOperator(token: Token): void {
    if (token.type === "string") reject("forbidden_string", "string literal is not allowed");
    if (token.type === "name") {
      if (token.text === "and" || token.text === "or")
        reject("forbidden_boolean_operator", `boolean operator "${token.text}" is not allowed`);
      if (token.text === "in") reject("forbidden_membership_test", 'membership test "in" is not allowed');
      if (token.text === "not" && this.isKeyword("in", 1))
        reject("forbidden_membership_test", 'membership test "not in" is not allowed');
      if (token.text === "is") reject("forbidden_identity_test", 'identity test "is" is not allowed');
      if (token.text === "for" || token.text === "async")
        reject("forbidden_comprehension", "comprehension is not allowed");
    }
    if (token.type !== "op") return;
    if (COMPARE_OPERATORS.has(token.text)) reject("forbidden_chained_comparison", "chained comparison is not allowed");
    if (BITWISE_OPERATORS.has(token.text))
      reject("forbidden_bitwise", `bitwise operator "${token.text}" is not allowed`);
    if (token.text === "**") reject("forbidden_power", 'power operator "**" is not allowed');
    if (token.text === "/") reject("forbidden_division", 'division "/" is not allowed');
    if (token.text === "//") reject("forbidden_floor_division", 'floor division "//" is not allowed');
    if (token.text === "%") reject("forbidden_modulo", 'modulo "%" is not allowed');
    if (token.text === "@") reject("forbidden_matrix_multiplication", 'matrix multiplication "@" is not allowed');
    if (token.text === "(") reject("forbidden_call", "function call is not allowed");
    if (token.text === ".") reject("forbidden_attribute", "attribute access is not allowed");
    if (token.text === "[") reject("forbidden_subscript", "subscript is not allowed");
  }

  private parseExpression(): ExprNode {
    // a if c else b if d else e == a if c else (b if d else e): collect, then fold from the right.
    const pending: { body: ExprNode; test: ExprNode }[] = [];
    let current = this.parseDisjunction();
    while (this.isKeyword("if")) {
      this.index++;
      const test = this.parseDisjunction();
      if (!this.isKeyword("else")) reject("syntax_error", 'conditional expression is missing "else"');
      this.index++;
      pending.push({ body: current, test });
      current = this.parseDisjunction();
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const { body, test } = pending[i] as { body: ExprNode; test: ExprNode };
      current = { kind: "conditional", test, body, orelse: current };
    }
    return current;
  }

  private parseDisjunction(): ExprNode {
    if (this.isKeyword("lambda")) reject("forbidden_lambda", "lambda is not allowed");
    if (this.isKeyword("not")) reject("forbidden_not", '"not" is not allowed');
    const node = this.parseComparison();
    if (this.isKeyword("and") || this.isKeyword("or")) {
      reject("forbidden_boolean_operator", `boolean operator "${this.peek().text}" is not allowed`);
    }
    return node;
  }

  private parseComparison(): ExprNode {
    const left = this.parseBitwiseLevel();
    const token = this.peek();
    this.rejectMembershipOrIdentity();
    if (token.type !== "op" || !COMPARE_OPERATORS.has(token.text)) return left;
    this.index++;
    const right = this.parseBitwiseLevel();
    const after = this.peek();
    if (
      (after.type === "op" && COMPARE_OPERATORS.has(after.text)) ||
      ["in", "is"].includes(after.text) ||
      (after.text === "not" && this.isKeyword("in", 1))
    ) {
      reject("forbidden_chained_comparison", "chained comparison is not allowed (one comparator only)");
    }
    return { kind: "compare", op: token.text as CompareOperator, left, right };
  }

  private rejectMembershipOrIdentity(): void {
    if (this.isKeyword("in") || (this.isKeyword("not") && this.isKeyword("in", 1))) {
      reject("forbidden_membership_test", "membership test is not allowed");
    }
    if (this.isKeyword("is")) reject("forbidden_identity_test", 'identity test "is" is not allowed');
  }

  private parseBitwiseLevel(): ExprNode {
    const node = this.parseSum();
    const token = this.peek();
    if (token.type === "op" && BITWISE_OPERATORS.has(token.text)) {
      reject("forbidden_bitwise", `bitwise operator "${token.text}" is not allowed`);
    }
    return node;
  }

  private parseSum(): ExprNode {
    let left = this.parseTerm();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.peek().text as "+" | "-";
      this.index++;
      const right = this.parseTerm();
      left = { kind: "binary", op, left, right };
    }
    return left;
  }

  private parseTerm(): ExprNode {
    let left = this.parseFactor();
    for (;;) {
      if (this.isOp("*")) {
        this.index++;
        const right = this.parseFactor();
        left = { kind: "binary", op: "*", left, right };
        continue;
      }
      if (this.isOp("/")) reject("forbidden_division", 'division "/" is not allowed');
      if (this.isOp("//")) reject("forbidden_floor_division", 'floor division "//" is not allowed');
      if (this.isOp("%")) reject("forbidden_modulo", 'modulo "%" is not allowed');
      if (this.isOp("@")) reject("forbidden_matrix_multiplication", 'matrix multiplication "@" is not allowed');
      return left;
    }
  }

  private parseFactor(): ExprNode {
    const signs: UnaryOperator[] = [];
    for (;;) {
      if (this.isOp("+") || this.isOp("-")) {
        signs.push(this.peek().text as UnaryOperator);
        this.index++;
        continue;
      }
      if (this.isOp("~")) reject("forbidden_bitwise", 'bitwise inversion "~" is not allowed');
      break;
    }
    let node = this.parsePower();
    for (let i = signs.length - 1; i >= 0; i--) {
      node = { kind: "unary", op: signs[i] as UnaryOperator, operand: node };
    }
    return node;
  }

  private parsePower(): ExprNode {
    if (this.isKeyword("await")) reject("forbidden_keyword", '"await" is not allowed');
    const node = this.parseAtom();
    if (this.isOp("(")) reject("forbidden_call", "function call is not allowed");
    if (this.isOp(".")) reject("forbidden_attribute", "attribute access is not allowed");
    if (this.isOp("[")) reject("forbidden_subscript", "subscript is not allowed");
    if (this.isOp("**")) reject("forbidden_power", 'power operator "**" is not allowed');
    return node;
  }

  private parseAtom(): ExprNode {
    const token = this.peek();
    if (token.type === "number") {
      this.index++;
      return { kind: "constant", value: Number.parseInt(token.text, 10) };
    }
    if (token.type === "name") return this.parseName(token.text);
    if (token.type === "string") return reject("forbidden_string", "string literal is not allowed");
    if (token.type === "op") {
      switch (token.text) {
        case "(":
          return this.parseParenthesized();
        case "[":
        case "{":
          return reject(
            this.bracketHoldsFor() ? "forbidden_comprehension" : "forbidden_container",
            this.bracketHoldsFor() ? "comprehension is not allowed" : "list, set or dict display is not allowed",
          );
        case "...":
          return reject("forbidden_ellipsis", "Ellipsis is not allowed");
        case "*":
        case "**":
          return reject("forbidden_starred", "starred expression is not allowed");
        case "~":
          return reject("forbidden_bitwise", 'bitwise inversion "~" is not allowed');
      }
    }
    return reject(
      "syntax_error",
      token.type === "end"
        ? "expression ended where an operand was expected"
        : `unexpected ${JSON.stringify(token.text)} at column ${token.position + 1}`,
    );
  }

  private parseName(name: string): ExprNode {
    if (name === "True" || name === "False" || name === "None")
      reject("forbidden_keyword_constant", `${name} is not allowed`);
    if (name === "lambda") reject("forbidden_lambda", "lambda is not allowed");
    if (name === "not") reject("forbidden_not", '"not" is not allowed');
    if (name === "yield" || name === "await") reject("forbidden_keyword", `"${name}" is not allowed`);
    if (PYTHON_KEYWORDS.has(name)) reject("syntax_error", `unexpected keyword "${name}"`);
    if (this.peek(1).type === "string" && /^[rRbBuUfF]{1,2}$/.test(name))
      reject("forbidden_string", "string literal is not allowed");
    if (this.isOp("(", 1)) reject("forbidden_call", "function call is not allowed");
    if (this.isOp(".", 1)) reject("forbidden_attribute", "attribute access is not allowed");
    if (this.isOp("[", 1)) reject("forbidden_subscript", "subscript is not allowed");
    if (this.isOp(":=", 1)) reject("forbidden_walrus", "assignment expression (walrus) is not allowed");
    if (name.includes("_")) {
      reject(
        "underscore_name",
        /^__.*__$/.test(name) ? `dunder name ${name} is not allowed` : `name ${name} contains an underscore`,
      );
    }
    const parameterIndex = this.parameters.indexOf(name);
    if (parameterIndex < 0) reject("unknown_name", `unknown name ${name} (allowed: ${this.parameters.join(", ")})`);
    this.index++;
    return { kind: "name", name, parameterIndex };
  }

  private parseParenthesized(): ExprNode {
    if (this.bracketHoldsFor())
      reject("forbidden_comprehension", "generator expression (comprehension) is not allowed");
    this.index++;
    if (this.isOp(")")) reject("forbidden_container", "empty tuple is not allowed");
    if (this.isKeyword("yield")) reject("forbidden_keyword", '"yield" is not allowed');
    if (this.isOp("*")) reject("forbidden_starred", "starred expression is not allowed");
    const inner = this.parseExpression();
    if (this.isOp(",")) reject("forbidden_container", "a tuple is not allowed");
    if (this.isKeyword("for") || this.isKeyword("async"))
      reject("forbidden_comprehension", "generator expression (comprehension) is not allowed");
    if (this.isOp(":=")) reject("forbidden_walrus", "assignment expression (walrus) is not allowed");
    if (!this.isOp(")")) {
      this.rejectTrailingOperator(this.peek());
      reject("syntax_error", "missing closing parenthesis");
    }
    this.index++;
    return inner;
  }

  /** Whether a "[" or "{" display holds a top-level "for" (a comprehension rather than a container). */
  private bracketHoldsFor(): boolean {
    if (!this.hasFor) return false;
    let depth = 0;
    for (let i = this.index; i < this.tokens.length; i++) {
      const token = this.tokens[i] as Token;
      if (token.type === "op" && "([{".includes(token.text)) depth++;
      else if (token.type === "op" && ")]}".includes(token.text)) {
        depth--;
        if (depth === 0) return false;
      } else if (depth === 1 && token.type === "name" && token.text === "for") return true;
    }
    return false;
  }
}

export function parseTokens(tokens: readonly Token[], parameters: readonly string[]): Result<ExprNode, ExprErrorCode> {
  try {
    return ok(new Parser(tokens, parameters).parseWhole());
  } catch (error) {
    if (error instanceof Rejection) return err(error.code, error.message);
    throw error;
  }
}
