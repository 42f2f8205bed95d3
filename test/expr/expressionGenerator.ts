// fast-check arbitraries for the differential tests: random trees inside the subset, rendered
// with Python's precedence (minimal parentheses, plus optional redundant ones and compact
// spacing), and mutations that push a rendered tree just outside the grammar.
import fc from "fast-check";
import { FUNCTIONS, type FunctionName } from "../../src/constants/labConstants.ts";

export type GenNode =
  | { readonly kind: "constant"; readonly value: number; readonly paren: boolean }
  | { readonly kind: "name"; readonly index: number; readonly paren: boolean }
  | { readonly kind: "unary"; readonly op: "+" | "-"; readonly operand: GenNode; readonly paren: boolean }
  | {
      readonly kind: "binary";
      readonly op: "+" | "-" | "*";
      readonly left: GenNode;
      readonly right: GenNode;
      readonly paren: boolean;
    }
  | {
      readonly kind: "conditional";
      readonly test: GenCompare;
      readonly body: GenNode;
      readonly orelse: GenNode;
      readonly paren: boolean;
    };

export interface GenCompare {
  readonly kind: "compare";
  readonly op: "<" | "<=" | ">" | ">=" | "==" | "!=";
  readonly left: GenNode;
  readonly right: GenNode;
}

const paren = fc.integer({ min: 0, max: 9 }).map((n) => n === 0);
const literal = fc.oneof(
  fc.integer({ min: 0, max: 9 }),
  fc.integer({ min: 0, max: 1000 }),
  fc.constantFrom(0, 1, 999, 1000, 999999, 1000000),
);

export function treeArbitrary(maxDepth: number): fc.Arbitrary<GenNode> {
  const { node } = fc.letrec<{ node: GenNode; compare: GenCompare }>((tie) => ({
    node: fc.oneof(
      { maxDepth, depthIdentifier: "tree", withCrossShrink: true },
      fc.oneof(
        fc.record({ kind: fc.constant("constant" as const), value: literal, paren }),
        fc.record({ kind: fc.constant("name" as const), index: fc.integer({ min: 0, max: 2 }), paren }),
      ),
      fc.record({
        kind: fc.constant("unary" as const),
        op: fc.constantFrom("+" as const, "-" as const),
        operand: tie("node"),
        paren,
      }),
      fc.record({
        kind: fc.constant("binary" as const),
        op: fc.constantFrom("+" as const, "-" as const, "*" as const),
        left: tie("node"),
        right: tie("node"),
        paren,
      }),
      fc.record({
        kind: fc.constant("conditional" as const),
        test: tie("compare"),
        body: tie("node"),
        orelse: tie("node"),
        paren,
      }),
    ),
    compare: fc.record({
      kind: fc.constant("compare" as const),
      op: fc.constantFrom("<" as const, "<=" as const, ">" as const, ">=" as const, "==" as const, "!=" as const),
      left: tie("node"),
      right: tie("node"),
    }),
  }));
  return node;
}

// Python precedence levels used for minimal parenthesization.
const CONDITIONAL = 1;
const COMPARISON = 5;
const SUM = 10;
const TERM = 11;
const FACTOR = 12;
const ATOM = 14;

export interface RenderOptions {
  readonly functionName: FunctionName;
  readonly compact: boolean;
  /** Called for every integer node in pre-order; may replace its rendering. */
  readonly override?: (index: number, rendered: string) => string | null;
}

export function renderTree(root: GenNode, options: RenderOptions): string {
  const params = FUNCTIONS[options.functionName].params;
  const space = options.compact ? "" : " ";
  let counter = 0;
  const wrap = (text: string, prec: number, needed: number): string => (prec < needed ? `(${text})` : text);
  const renderCompare = (node: GenCompare): [string, number] => {
    const left = render(node.left);
    const right = render(node.right);
    return [`${wrap(left[0], left[1], SUM)}${space}${node.op}${space}${wrap(right[0], right[1], SUM)}`, COMPARISON];
  };
  const render = (node: GenNode): [string, number] => {
    const index = counter++;
    let result: [string, number];
    switch (node.kind) {
      case "constant":
        result = [String(node.value), ATOM];
        break;
      case "name":
        result = [params[node.index] as string, ATOM];
        break;
      case "unary": {
        const operand = render(node.operand);
        result = [`${node.op}${wrap(operand[0], operand[1], FACTOR)}`, FACTOR];
        break;
      }
      case "binary": {
        const prec = node.op === "*" ? TERM : SUM;
        const left = render(node.left);
        const right = render(node.right);
        result = [
          `${wrap(left[0], left[1], prec)}${space}${node.op}${space}${wrap(right[0], right[1], prec + 1)}`,
          prec,
        ];
        break;
      }
      case "conditional": {
        const body = render(node.body);
        const test = renderCompare(node.test);
        const orelse = render(node.orelse);
        result = [
          `${wrap(body[0], body[1], COMPARISON)} if ${test[0]} else ${wrap(orelse[0], orelse[1], CONDITIONAL)}`,
          CONDITIONAL,
        ];
        break;
      }
    }
    if (node.paren) result = [`(${result[0]})`, ATOM];
    const replaced = options.override?.(index, result[0]);
    if (replaced === null || replaced === undefined) return result;
    // The root is replaced verbatim (so leading spaces and trailing comments stay top-level).
    return index === 0 ? [replaced, CONDITIONAL] : [`(${replaced})`, ATOM];
  };
  return render(root)[0];
}

/** Count of integer nodes (the positions a mutation can target). */
export function integerNodeCount(root: GenNode): number {
  let count = 0;
  const stack: GenNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    count++;
    if (node.kind === "unary") stack.push(node.operand);
    if (node.kind === "binary") stack.push(node.left, node.right);
    if (node.kind === "conditional") stack.push(node.test.left, node.test.right, node.body, node.orelse);
  }
  return count;
}

/** Replacements for one integer subexpression `s`; each yields text just outside (or at the edge of) the subset. */
export const MUTATIONS: readonly ((s: string, fn: FunctionName) => string)[] = [
  (s) => `f(${s})`,
  (s) => `${s}.real`,
  (s) => `${s}[0]`,
  () => `'s'`,
  () => `b'x'`,
  (s) => `[${s}]`,
  (s) => `{${s}}`,
  (s) => `${s}, 1`,
  () => `()`,
  () => `True`,
  () => `False`,
  () => `None`,
  () => `...`,
  (s) => `${s} ** 2`,
  (s) => `${s} / 2`,
  (s) => `${s} // 2`,
  (s) => `${s} % 2`,
  (s) => `${s} @ 2`,
  (s) => `${s} & 1`,
  (s) => `${s} | 1`,
  (s) => `${s} ^ 1`,
  (s) => `${s} << 1`,
  (s) => `${s} >> 1`,
  (s) => `~${s}`,
  (s) => `not ${s}`,
  (s) => `${s} and 1`,
  (s) => `${s} or 1`,
  () => `lambda: 1`,
  () => `y := 1`,
  (_s, fn) => `[${FUNCTIONS[fn].params[0]} for ${FUNCTIONS[fn].params[0]} in ()]`,
  (s) => `${s} for a in b`,
  (s) => `${s} < 1 < 2`,
  (s) => `1 if ${s} < 1 < 2 else 0`,
  (s) => `${s} in ()`,
  (s) => `${s} is 1`,
  (s) => `1 if ${s} else 0`,
  (s) => `${s} < 1`,
  (s) => `(${s} < 1) + 1`,
  () => `_x`,
  () => `__x__`,
  () => `_`,
  () => `z`,
  (_s, fn) => (fn === "clamp" ? "unit" : "x"),
  () => `10000000`,
  () => `1000001`,
  () => `1000000`,
  () => `0000000`,
  () => `0x10`,
  () => `1e3`,
  () => `1_000`,
  () => `01`,
  () => `00`,
  () => `1.5`,
  () => `1j`,
  (s) => `${s} # c`,
  (s) => `${s} \\`,
  (s) => `${"(".repeat(15)}${s}${")".repeat(15)}`,
  (s) => `${"(".repeat(16)}${s}${")".repeat(16)}`,
  (s) => `${"-".repeat(6)}${s}`,
  (s) => `${"-".repeat(14)}${s}`,
  (s) => `${s} +`,
  (s) => `(${s}`,
  (s) => `${s})`,
  (s) => `${s} if`,
  (s) => `${s} = 1`,
  (s) => `${s}; 1`,
  (s) => `-${s}`,
  (s) => `+${s}`,
  (s) => `await ${s}`,
  (s) => `*${s}`,
  (s) => ` ${s}`,
  (s) => `${s} `,
];

/** Joins small trees into a balanced binary tree: many nodes at moderate depth, to probe the 128-node limit. */
export function wideTreeArbitrary(): fc.Arbitrary<GenNode> {
  const ops = fc.constantFrom("+" as const, "-" as const, "*" as const);
  return fc.array(fc.tuple(treeArbitrary(3), ops), { minLength: 6, maxLength: 18 }).map((parts) => {
    let level: GenNode[] = parts.map(([tree]) => tree);
    let opIndex = 0;
    while (level.length > 1) {
      const next: GenNode[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) {
        const op = (parts[opIndex++ % parts.length] as [GenNode, "+" | "-" | "*"])[1];
        next.push({ kind: "binary", op, left: level[i] as GenNode, right: level[i + 1] as GenNode, paren: false });
      }
      if (level.length % 2 === 1) next.push(level[level.length - 1] as GenNode);
      level = next;
    }
    return level[0] as GenNode;
  });
}
