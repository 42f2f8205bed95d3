// The skip rule's guard (issue #35, item 0): a test that needs bubblewrap or Chromium must go
// through test/support/systemPackages.ts (sandboxTest / browserTest, or `{ skip: sandboxPackages().skip }`
// and its kin), so that a machine without the apt packages reports it as skipped with the
// install command instead of failing. Read from the source text with TypeScript's parser: for
// every test(...) and hook, whether its body reaches a sandbox or browser entry point (directly,
// through a function of the same file, or through a helper module of test/ it imports), and if
// so whether it is gated by the matching helper. A test that names the CLI's sandboxed
// commands without reaching the sandbox (refused before it, or only argv spelled out) says so
// with a `// skip-rule: needs no sandbox: <why>` comment in its body.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";

export type SystemNeed = "sandbox" | "browser";

/** Functions (from src/, training/ and test/ helpers) that prepare or use the sandbox or the browser. */
const ENTRY_NAMES: ReadonlyMap<string, SystemNeed> = new Map(
  Object.entries({
    createSandboxConfig: "sandbox",
    prepareBenchEnvironment: "sandbox",
    sandboxSelfTest: "sandbox",
    runInSandbox: "sandbox",
    runBenchmark: "sandbox",
    benchSetup: "sandbox",
    generateBenchTranscripts: "sandbox",
    startBrowser: "browser",
  } satisfies Record<string, SystemNeed>),
);

/** `tca bench quixbugs <one of these>` prepares the sandbox before it runs anything. */
const SANDBOXED_SUBCOMMANDS = new Set(["run", "make-taskset", "verify-dataset", "verify-run"]);

/** Helpers that gate a test on a package: what each one covers. */
const GATES: ReadonlyMap<string, readonly SystemNeed[]> = new Map(
  Object.entries({
    sandboxTest: ["sandbox"],
    browserTest: ["browser"],
    sandboxPackages: ["sandbox"],
    chromiumPackage: ["browser"],
    chromiumAndSandbox: ["sandbox", "browser"],
  } satisfies Record<string, readonly SystemNeed[]>),
);

const OPT_OUT = /\/\/ skip-rule: needs no sandbox: \S/;
const TEST_CALLEES = new Set(["test", "it", "describe", "suite"]);
const HOOKS = new Set(["before", "after", "beforeEach", "afterEach"]);
/** The hooks that prepare what tests use (an after hook closing what may not exist is harmless). */
const SETUP_HOOKS = new Set(["before", "beforeEach"]);

export interface SkipRuleViolation {
  readonly file: string;
  readonly line: number;
  readonly what: string;
  readonly needs: SystemNeed;
}

function entryOf(node: ts.Node): SystemNeed | undefined {
  if (ts.isIdentifier(node)) {
    // `{ benchSetup: … }` names a key, not the function
    if (ts.isPropertyAssignment(node.parent) && node.parent.name === node) return undefined;
    return ENTRY_NAMES.get(node.text);
  }
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    if (node.moduleSpecifier.text === "playwright-core") return "browser";
  }
  if (ts.isArrayLiteralExpression(node)) {
    const strings = node.elements.map((e) => (ts.isStringLiteralLike(e) ? e.text : undefined));
    for (let i = 0; i + 1 < strings.length; i++) {
      const next = strings[i + 1];
      if (strings[i] === "quixbugs" && next !== undefined && SANDBOXED_SUBCOMMANDS.has(next)) return "sandbox";
    }
  }
  return undefined;
}

/** Every need a subtree reaches, through `local` (names of this file's functions and what they reach). */
function needsOf(root: ts.Node, local: ReadonlyMap<string, ReadonlySet<SystemNeed>>): Set<SystemNeed> {
  const found = new Set<SystemNeed>();
  const visit = (node: ts.Node): void => {
    const entry = entryOf(node);
    if (entry) found.add(entry);
    if (ts.isIdentifier(node)) for (const need of local.get(node.text) ?? []) found.add(need);
    ts.forEachChild(node, visit);
  };
  visit(root);
  return found;
}

/** The gates a subtree names: a helper of systemPackages.ts, or a const of the file set from one. */
function gatesOf(root: ts.Node, aliases: ReadonlyMap<string, string | readonly SystemNeed[]>): Set<SystemNeed> {
  const found = new Set<SystemNeed>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const alias = aliases.get(node.text) ?? node.text;
      for (const need of typeof alias === "string" ? (GATES.get(alias) ?? []) : alias) found.add(need);
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return found;
}

interface FileFacts {
  /** Top-level functions and consts of the file: the needs each reaches. */
  readonly functions: Map<string, Set<SystemNeed>>;
  readonly source: ts.SourceFile;
  /**
   * Local name -> imported name, for imports from test/support/systemPackages.ts; or -> the
   * gates a top-level const's value was computed from (`const browserPresent = chromiumPackage().skip === false`).
   */
  readonly aliases: Map<string, string | readonly SystemNeed[]>;
}

const factsCache = new Map<string, FileFacts>();

/** The helper modules of test/ a file imports: local name -> the needs of the exported function. */
function importedNeeds(file: string, source: ts.SourceFile, testRoot: string): Map<string, Set<SystemNeed>> {
  const needs = new Map<string, Set<SystemNeed>>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith(".")) continue;
    const target = resolve(dirname(file), specifier);
    if (relative(testRoot, target).startsWith("..") || target.endsWith("systemPackages.ts")) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const facts = fileFacts(target, testRoot);
    for (const element of bindings.elements) {
      const exported = (element.propertyName ?? element.name).text;
      const reached = facts.functions.get(exported);
      if (reached && reached.size > 0) needs.set(element.name.text, reached);
    }
  }
  return needs;
}

function fileFacts(file: string, testRoot: string, text?: string): FileFacts {
  const cached = text === undefined ? factsCache.get(file) : undefined;
  if (cached) return cached;
  const source = ts.createSourceFile(file, text ?? readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const aliases = new Map<string, string | readonly SystemNeed[]>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.endsWith("systemPackages.ts")) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const e of bindings.elements) aliases.set(e.name.text, (e.propertyName ?? e.name).text);
  }
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || !d.initializer) continue;
      if (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)) continue;
      const gates = gatesOf(d.initializer, aliases);
      if (gates.size > 0) aliases.set(d.name.text, [...gates]);
    }
  }
  const functions = importedNeeds(file, source, testRoot);
  const bodies = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && statement.body)
      bodies.set(statement.name.text, statement.body);
    if (ts.isVariableStatement(statement))
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) bodies.set(d.name.text, d.initializer);
  }
  // What a hook stores for the tests (`before(async () => { honest = await realBenchRun(…) })`):
  // the variable reaches what the stored value reaches, unless the value is gated where it is made.
  const hookAssignments: [string, ts.Expression][] = [];
  const collect = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      if (ts.isIdentifier(node.left)) hookAssignments.push([node.left.text, node.right]);
    ts.forEachChild(node, collect);
  };
  for (const statement of source.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
    const name = calleeName(statement.expression);
    if (name !== undefined && HOOKS.has(name)) statement.expression.arguments.forEach(collect);
  }
  // Fixpoint: a function reaches what its body reaches, including through other local functions.
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, value] of hookAssignments) {
      const gates = gatesOf(value, aliases);
      const reached = [...needsOf(value, functions)].filter((n) => !gates.has(n));
      const known = functions.get(name) ?? new Set<SystemNeed>();
      if (reached.some((n) => !known.has(n))) {
        functions.set(name, new Set([...known, ...reached]));
        changed = true;
      }
    }
    for (const [name, body] of bodies) {
      const reached = needsOf(body, functions);
      const known = functions.get(name) ?? new Set<SystemNeed>();
      if ([...reached].some((n) => !known.has(n))) {
        functions.set(name, new Set([...known, ...reached]));
        changed = true;
      }
    }
  }
  const facts = { functions, source, aliases };
  if (text === undefined) factsCache.set(file, facts);
  return facts;
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  // test.skip(...), test.only(...): the base name
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) return callee.expression.text;
  return undefined;
}

/**
 * The tests and hooks of one test file that reach a sandbox or browser entry point without the
 * matching gate. `text` replaces the file's content (for the planted violations).
 */
export function skipRuleViolations(file: string, testRoot: string, text?: string): SkipRuleViolation[] {
  const facts = fileFacts(file, testRoot, text);
  const { source, aliases, functions } = facts;
  const violations: SkipRuleViolation[] = [];
  const rel = relative(resolve(testRoot, ".."), file);
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const check = (call: ts.CallExpression, body: ts.Node, what: string, gated: Set<SystemNeed>): void => {
    if (OPT_OUT.test(body.getFullText())) return;
    for (const need of needsOf(body, functions))
      if (!gated.has(need)) violations.push({ file: rel, line: lineOf(call), what, needs: need });
  };
  const visit = (node: ts.Node, inTest: boolean): void => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const alias = name === undefined ? undefined : (aliases.get(name) ?? name);
      const resolved = typeof alias === "string" ? alias : undefined;
      if (resolved !== undefined && (TEST_CALLEES.has(resolved) || HOOKS.has(resolved) || GATES.has(resolved))) {
        const gated = gatesOf(node.expression, aliases);
        for (const argument of node.arguments.slice(0, -1)) for (const g of gatesOf(argument, aliases)) gated.add(g);
        const body = node.arguments[node.arguments.length - 1];
        // A body that checks a gate itself (`if (sandboxPackages().skip) return`) is gated.
        if (body) for (const g of gatesOf(body, aliases)) gated.add(g);
        const title = node.arguments[0];
        const what = `${resolved}(${title && ts.isStringLiteralLike(title) ? JSON.stringify(title.text) : "…"})`;
        if ((resolved === "describe" || resolved === "suite") && gated.size === 0) {
          ts.forEachChild(node, (child) => visit(child, inTest));
          return;
        }
        if (body && !inTest && !(HOOKS.has(resolved) && !SETUP_HOOKS.has(resolved))) check(node, body, what, gated);
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, inTest));
  };
  for (const statement of source.statements) {
    // Module-level code outside any test or function (a top-level benchSetup() call) runs on import.
    if (ts.isExpressionStatement(statement) || ts.isVariableStatement(statement)) {
      if (ts.isVariableStatement(statement) && isFunctionDeclarationLike(statement)) continue;
      const direct = topLevelDirect(statement, functions);
      if (direct.size > 0 && !containsTestCall(statement, aliases))
        for (const need of direct) {
          if (!gatesOf(statement, aliases).has(need))
            violations.push({ file: rel, line: lineOf(statement), what: "module-level code", needs: need });
        }
    }
    visit(statement, false);
  }
  return violations;
}

function isFunctionDeclarationLike(statement: ts.VariableStatement): boolean {
  return statement.declarationList.declarations.every(
    (d) => d.initializer !== undefined && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)),
  );
}

/** What a module-level statement reaches by calling, not by defining functions or listing arguments. */
function topLevelDirect(
  statement: ts.Statement,
  functions: ReadonlyMap<string, ReadonlySet<SystemNeed>>,
): Set<SystemNeed> {
  const found = new Set<SystemNeed>();
  const visit = (node: ts.Node): void => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      const entry = ENTRY_NAMES.get(name);
      if (entry) found.add(entry);
      for (const need of functions.get(name) ?? []) found.add(need);
    }
    ts.forEachChild(node, visit);
  };
  visit(statement);
  return found;
}

function containsTestCall(
  statement: ts.Statement,
  aliases: ReadonlyMap<string, string | readonly SystemNeed[]>,
): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      if (name !== undefined && isTestCall(name, aliases)) found = true;
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(statement);
  return found;
}

function isTestCall(name: string, aliases: ReadonlyMap<string, string | readonly SystemNeed[]>): boolean {
  const alias = aliases.get(name) ?? name;
  return typeof alias === "string" && (TEST_CALLEES.has(alias) || HOOKS.has(alias) || GATES.has(alias));
}
