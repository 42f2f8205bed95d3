// Start-up through the compiled lib/ (scripts/compile.mjs, the `prepare` step): bin/tca.js runs it
// only while it is a build of exactly the current src/ and compile script, and its answers are
// the same as src/ through tsx. Everything runs in a compiled temporary copy of the checkout.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { BUNDLED_PACKAGES, installedPackageJson, listFiles, sha256Hex, STAMP_NAME } from "../../bin/compiledBuild.js";
import { makeTinyCheckpoint } from "../engine/tinyCheckpoint.ts";
import {
  BIN_ALONE_TRACE,
  COMPILED_TRACE,
  compileCheckout,
  copyCheckout,
  REPO_ROOT,
  removeCheckout,
  runNode,
  runTca,
  tsxTrace,
} from "../support/compiledCheckout.ts";

let root = "";
before(() => {
  root = copyCheckout();
  const compiled = compileCheckout(root);
  assert.equal(compiled.code, 0, compiled.stderr);
  assert.match(compiled.stdout, /^tca compile: \d+ modules compiled and \d+ files copied into lib\/ in \d+\.\d\d s\n$/);
});
after(() => removeCheckout(root));

const EXPR_OK = ["expr", "eval", "--function", "total", "--expr", "unit * qty + fee", "--args", "2,3,1"];
const EXPR_ERROR = ["expr", "eval", "--function", "total", "--expr", "unit +", "--args", "2,3,1"];

/** Runs the same command through the build and through tsx; both must agree and each must have taken its path. */
async function bothPaths(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [compiled, source] = await Promise.all([runTca(root, args), runTca(root, args, { TCA_NO_COMPILED: "1" })]);
  assert.ok(compiled.stderr.startsWith(COMPILED_TRACE), compiled.stderr);
  assert.ok(source.stderr.startsWith(tsxTrace("TCA_NO_COMPILED=1")), source.stderr);
  assert.equal(compiled.code, source.code);
  assert.equal(compiled.stdout, source.stdout);
  assert.equal(compiled.stderr.slice(COMPILED_TRACE.length), source.stderr.slice(tsxTrace("TCA_NO_COMPILED=1").length));
  return { code: compiled.code, stdout: compiled.stdout, stderr: compiled.stderr.slice(COMPILED_TRACE.length) };
}

test("the compiled tree mirrors src/: a .js for every .ts, every other file copied byte for byte, no .ts import left", () => {
  const sources = listFiles(root, "src");
  const outputs = new Set(listFiles(root, "lib"));
  assert.ok(sources.length > 100);
  for (const path of sources) {
    const twin = `lib/${path.slice("src/".length)}`;
    if (path.endsWith(".ts")) assert.ok(outputs.has(`${twin.slice(0, -3)}.js`), path);
    else assert.deepEqual(readFileSync(join(root, twin)), readFileSync(join(root, path)), path);
  }
  assert.ok(outputs.has(`lib/${STAMP_NAME}`));
  assert.ok(
    outputs.has("lib/report/viewer/main.js") &&
      outputs.has("lib/bench/grading/trusted_runner.py") &&
      outputs.has("lib/cli/commandGroups.json"),
  );
  // Static, re-exported, side-effect and dynamic imports: any relative specifier ending in .ts.
  const tsImport = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']*\.ts)["']/;
  let jsImports = 0;
  for (const path of outputs) {
    if (!path.endsWith(".js") || path.startsWith("lib/report/viewer/")) continue;
    const text = readFileSync(join(root, path), "utf8");
    assert.doesNotMatch(text, tsImport, path);
    jsImports += [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)"\.{1,2}\/[^"]*\.js"/g)].length;
  }
  assert.ok(jsImports > 300, `${jsImports} relative .js imports`);
  // JSON modules keep their import attribute (an older esbuild target silently drops it).
  assert.match(
    readFileSync(join(root, "lib/cli/main.js"), "utf8"),
    /from "\.\.\/\.\.\/package\.json" with \{ type: "json" \}/,
  );
});

test("typebox, ajv, diff and commander are bundled into lib/_bundled/: lib/ imports them there, each exports what its package does, the stamp names the packages", async () => {
  assert.deepEqual([...BUNDLED_PACKAGES], ["typebox", "ajv", "diff", "commander"]);
  const stampPath = join(root, "lib", STAMP_NAME);
  const stampBytes = readFileSync(stampPath);
  const stamp = JSON.parse(stampBytes.toString("utf8")) as {
    bundled?: Record<string, { package_json_sha256?: string }>;
  };
  for (const name of BUNDLED_PACKAGES) {
    const installed = installedPackageJson(root, name);
    assert.ok(installed !== null, name);
    assert.equal(stamp.bundled?.[name]?.package_json_sha256, sha256Hex(installed), name);
  }
  for (const path of listFiles(root, "lib")) {
    if (!path.endsWith(".js") || path.startsWith("lib/_bundled/")) continue;
    assert.doesNotMatch(
      readFileSync(join(root, path), "utf8"),
      /from\s*"(?:typebox|ajv|diff|commander)(?:\/[^"]*)?"/,
      path,
    );
  }
  assert.match(
    readFileSync(join(root, "lib/recording/labAuditEvents.js"), "utf8"),
    /from "\.\.\/_bundled\/typebox\.js"/,
  );
  assert.match(
    readFileSync(join(root, "lib/bench/runs/runFileSchemas.js"), "utf8"),
    /from "\.\.\/\.\.\/_bundled\/typebox\.js"/,
  );
  assert.match(
    readFileSync(join(root, "lib/bench/results/unifiedDiff.js"), "utf8"),
    /from "\.\.\/\.\.\/_bundled\/diff\.js"/,
  );
  assert.match(readFileSync(join(root, "lib/cli/main.js"), "utf8"), /from "\.\.\/_bundled\/commander\.js"/);
  // The evidence readers load no Ajv at start (their validators are the build's, #36); the bundle's
  // package digest in the stamp still makes a changed ajv a stale build (the validators' runtime).
  for (const reader of ["lib/recording/evidenceSchemas.js", "lib/recording/evidenceEnvelope.js"])
    assert.doesNotMatch(readFileSync(join(root, reader), "utf8"), /_bundled\/ajv\.js/, reader);
  // Each bundle and its package side by side: the same export names, the same schema built by
  // each typebox, the same verdicts from each Ajv.
  writeFileSync(
    join(root, "probe-bundle.mjs"),
    `import * as bundledTypebox from "./lib/_bundled/typebox.js";
import * as originalTypebox from "typebox";
import * as bundledAjv from "./lib/_bundled/ajv.js";
import * as originalAjv from "ajv";
import * as bundledDiff from "./lib/_bundled/diff.js";
import * as originalDiff from "diff";
import * as bundledCommander from "./lib/_bundled/commander.js";
import * as originalCommander from "commander";
const build = (T) => JSON.stringify(T.Object({ a: T.Union([T.String({ pattern: "^x" }), T.Null()]), b: T.Array(T.Integer({ minimum: 1 })) }, { additionalProperties: false }));
const check = (A) => { const v = new A.Ajv({ strict: false }).compile(JSON.parse(build(originalTypebox.default))); return [{ a: "xy", b: [1] }, { a: "y", b: [] }, { a: null, b: [0] }, { a: null, b: [], c: 1 }].map((x) => v(x)); };
const keys = (m) => Object.keys(m).sort();
const help = (C) => { const p = new C.Command("t").exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} }); p.command("go").option("--n <k>", "a number"); try { p.parse(["go", "--bogus"], { from: "user" }); return "parsed"; } catch (e) { return [e instanceof C.CommanderError, e.code, p.commands[0].helpInformation()]; } };
process.stdout.write(JSON.stringify({ typebox: [keys(bundledTypebox), keys(originalTypebox)], ajv: [keys(bundledAjv), keys(originalAjv)], diff: [keys(bundledDiff), keys(originalDiff)], commander: [keys(bundledCommander), keys(originalCommander)], help: [help(bundledCommander), help(originalCommander)], patch: [bundledDiff.createTwoFilesPatch("a", "b", "x\\ny\\n", "x\\nz\\n"), originalDiff.createTwoFilesPatch("a", "b", "x\\ny\\n", "x\\nz\\n")], same: build(bundledTypebox.default) === build(originalTypebox.default), schema: build(bundledTypebox.default), verdicts: [check(bundledAjv), check(originalAjv)] }));
`,
  );
  const probe = await runNode(root, ["probe-bundle.mjs"]);
  assert.equal(probe.code, 0, probe.stderr);
  const seen = JSON.parse(probe.stdout) as {
    typebox: [string[], string[]];
    ajv: [string[], string[]];
    diff: [string[], string[]];
    commander: [string[], string[]];
    help: [unknown, unknown];
    patch: [string, string];
    same: boolean;
    schema: string;
    verdicts: [boolean[], boolean[]];
  };
  assert.ok(seen.typebox[1].length > 100, `${seen.typebox[1].length} exports`);
  assert.deepEqual(seen.typebox[0], seen.typebox[1]);
  assert.ok(seen.ajv[1].includes("Ajv"));
  assert.deepEqual(seen.ajv[0], seen.ajv[1]);
  assert.ok(seen.diff[1].includes("createTwoFilesPatch") && seen.diff[1].includes("diffArrays"));
  assert.deepEqual(seen.diff[0], seen.diff[1]);
  assert.match(seen.patch[1], /^-y\n\+z$/m);
  assert.equal(seen.patch[0], seen.patch[1]);
  assert.ok(seen.commander[1].includes("Command") && seen.commander[1].includes("CommanderError"));
  assert.deepEqual(seen.commander[0], seen.commander[1]);
  // Each commander refuses the unknown option with its own CommanderError and prints the same help.
  assert.deepEqual(seen.help[0], seen.help[1]);
  assert.deepEqual((seen.help[1] as unknown[]).slice(0, 2), [true, "commander.unknownOption"]);
  assert.equal(seen.same, true);
  assert.match(seen.schema, /"additionalProperties":false/);
  assert.deepEqual(seen.verdicts, [
    [true, false, false, false],
    [true, false, false, false],
  ]);
  // A stamp naming another installed package, or none, is not a build of what is installed now.
  const zero = { package_json_sha256: "0".repeat(64) };
  try {
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ ...stamp.bundled, typebox: zero }, "typebox"],
      [{ ...stamp.bundled, ajv: zero }, "ajv"],
      [undefined, "typebox"],
    ];
    for (const [bundled, name] of cases) {
      writeFileSync(stampPath, JSON.stringify({ ...stamp, bundled }));
      const run = await runTca(root, EXPR_OK);
      assert.equal(
        run.stderr,
        tsxTrace(`the installed ${name} package changed since the build`),
        JSON.stringify(bundled),
      );
      assert.equal(run.stdout, '{"ok":true,"value":7}\n');
    }
  } finally {
    writeFileSync(stampPath, stampBytes);
  }
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("the command runs as lib/_cli/'s bundle: a Lab run loads its chunks, not lib/'s files, and every module in it keeps its own lib/ URL", async () => {
  const cliFiles = listFiles(root, "lib/_cli");
  assert.ok(cliFiles.includes("lib/_cli/main.js"), cliFiles.join(" "));
  const stamp = JSON.parse(readFileSync(join(root, "lib", STAMP_NAME), "utf8")) as { outputs: Record<string, string> };
  for (const path of cliFiles) {
    // Vouched for by the stamp like every file of lib/ (an edit makes the build stale, tested above).
    assert.equal(stamp.outputs[path], sha256Hex(readFileSync(join(root, path))), path);
    const text = readFileSync(join(root, path), "utf8");
    // import.meta.url appears once, in the banner: every module's own is mapped to its lib/ file.
    assert.equal(text.split("import.meta.url").length - 1, 1, path);
    assert.ok(text.startsWith("const __tcaChunkUrl = import.meta.url;"), path);
    for (const [, target] of text.matchAll(/new URL\("([^"]+)",__tcaChunkUrl\)/g)) {
      assert.ok(
        target !== undefined && target.startsWith("../") && !target.startsWith("../_cli/"),
        `${path}: ${target}`,
      );
      assert.ok(existsSync(join(root, "lib", target.slice(3))), `${path}: ${target} is not a file of lib/`);
    }
  }
  // Which files a Lab run loads, logged by a resolve hook (a file of this test's, in the copy).
  const hook = join(root, "test-output-loaded-hook.mjs");
  writeFileSync(
    hook,
    'export async function resolve(specifier, context, next) { const r = await next(specifier, context); if (r.url.startsWith("file:")) process.stderr.write(`loaded ${r.url}\\n`); return r; }\n',
  );
  const register = join(root, "test-output-loaded-register.mjs");
  // A Lab run records the lockfile's digest; the copy has none of its own.
  const lockfile = join(root, "package-lock.json");
  copyFileSync(join(REPO_ROOT, "package-lock.json"), lockfile);
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hook}`)});\n`);
  try {
    const run = join(root, "test-output-bundle-run");
    const lab = await runNode(
      root,
      ["--import", register, join(root, "bin", "tca.js"), "lab", "baseline", "--run", run],
      {
        TCA_NO_COMPILED: "",
      },
    );
    assert.equal(lab.code, 0, lab.stderr);
    const loaded = [...lab.stderr.matchAll(/^loaded file:\/\/(.+)$/gm)].map((m) => (m[1] ?? "").slice(root.length + 1));
    assert.ok(loaded.includes("lib/_cli/main.js"), `${loaded.length} files loaded, lib/_cli/main.js not among them`);
    const perFile = loaded.filter((path) => path.startsWith("lib/") && !/^lib\/(_cli|_bundled)\//.test(path));
    assert.deepEqual(perFile, [], "a module of the per-file build was loaded beside the bundle");
    // runningCode, inside the bundle, judged from its own module's lib/ URL: the compiled build, fresh.
    const manifest = JSON.parse(readFileSync(join(run, "manifest.json"), "utf8")) as {
      runtime: { code: { mode: string; sources_match: boolean; outputs_match: boolean } };
    };
    const { mode, sources_match, outputs_match } = manifest.runtime.code;
    assert.deepEqual(
      { mode, sources_match, outputs_match },
      { mode: "compiled", sources_match: true, outputs_match: true },
    );
    // A file read beside its module (the report viewer beside lib/report/htmlPage.js) through the bundle.
    const html = join(root, "test-output-report.html");
    const report = await runTca(root, ["report", run, "--out", html]);
    assert.equal(report.code, 0, report.stderr);
    assert.ok(readFileSync(html, "utf8").length > 1000);
  } finally {
    for (const path of [
      hook,
      register,
      lockfile,
      join(root, "test-output-bundle-run"),
      join(root, "test-output-report.html"),
    ])
      rmSync(path, { recursive: true, force: true });
  }
});

test("--help and --version are answered by bin/tca.js alone, with or without a build", async () => {
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  for (const env of [{ TCA_NO_COMPILED: "" }, { TCA_NO_COMPILED: "1" }]) {
    assert.deepEqual(await runTca(root, ["--version"], env), {
      code: 0,
      stdout: `${version}\n`,
      stderr: BIN_ALONE_TRACE,
    });
    const help = await runTca(root, ["--help"], env);
    assert.deepEqual([help.code, help.stderr], [0, BIN_ALONE_TRACE]);
    assert.match(help.stdout, /^Usage: tca /);
  }
});

test("help and expr --help: the same output and exit code compiled and through tsx", async () => {
  const help = await runTca(root, ["--help"]);
  const fullHelp = await bothPaths(["help"]);
  assert.equal(fullHelp.stdout, help.stdout, "the compiled program prints the help bin/tca.js prints");
  const exprHelp = await bothPaths(["expr", "--help"]);
  assert.equal(exprHelp.code, 0);
  assert.match(exprHelp.stdout, /^Usage: tca expr /);
});

test("expr eval: the same value, error and exit code compiled and through tsx", async () => {
  assert.deepEqual(await bothPaths(EXPR_OK), { code: 0, stdout: '{"ok":true,"value":7}\n', stderr: "" });
  const failed = await bothPaths(EXPR_ERROR);
  assert.equal(failed.code, 1);
  assert.equal((JSON.parse(failed.stdout) as { error: string }).error, "syntax_error");
});

test("error format: a usage error and a refused run directory read the same compiled and through tsx", async () => {
  // Every required option given, so the unknown one is what is refused.
  const usage = await bothPaths(["expr", "eval", "--function", "clamp", "--expr", "x", "--args", "1,2,3", "--bogus"]);
  assert.equal(usage.code, 2);
  // One line, the pointer to --help inside it (issue 35: every refusal is one line on stderr).
  assert.match(usage.stderr, /^tca expr eval: usage_error: unknown option '--bogus' \(see tca expr eval --help\)\n$/);
  const refused = await bothPaths(["lab", "baseline", "--run", join(root, "no-such-parent", "run")]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^tca lab baseline: run_parent_invalid: /);
});

test("an edited src file means src/ through tsx, running the edit; restoring the bytes makes the build fresh again", async () => {
  const table = join(root, "src/cli/commandGroups.json");
  const original = readFileSync(table, "utf8");
  try {
    writeFileSync(table, original.replace("the restricted integer-expression language", "EDITED AFTER THE BUILD"));
    const edited = await runTca(root, ["help"]);
    assert.ok(edited.stderr.startsWith(tsxTrace("src/ changed since the build")), edited.stderr);
    assert.equal(edited.code, 0);
    assert.match(edited.stdout, /EDITED AFTER THE BUILD/, "the edit runs, not the stale copy in lib/");
  } finally {
    writeFileSync(table, original);
  }
  // Same bytes, new mtime: freshness is by content.
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("an added or a removed src file means src/ through tsx", async () => {
  const extra = join(root, "src/core/addedAfterBuild.ts");
  writeFileSync(extra, "export const added = 1;\n");
  try {
    const added = await runTca(root, EXPR_OK);
    assert.equal(added.stderr, tsxTrace("src/ changed since the build"));
    assert.equal(added.stdout, '{"ok":true,"value":7}\n');
  } finally {
    rmSync(extra);
  }
  const unused = join(root, "src/report/viewer/reportViewer.css");
  renameSync(unused, `${unused}.moved`);
  try {
    assert.equal((await runTca(root, EXPR_OK)).stderr, tsxTrace("src/ changed since the build"));
  } finally {
    renameSync(`${unused}.moved`, unused);
  }
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("a compiled file edited, added or removed after the build means src/ through tsx", async () => {
  const lexer = join(root, "lib/expr/lexer.js");
  const original = readFileSync(lexer);
  try {
    appendFileSync(lexer, "\n// edited after the build\n");
    assert.equal((await runTca(root, EXPR_OK)).stderr, tsxTrace("lib/ changed since the build"));
    rmSync(lexer);
    const removed = await runTca(root, EXPR_OK);
    assert.equal(removed.stderr, tsxTrace("lib/ changed since the build"));
    assert.equal(removed.stdout, '{"ok":true,"value":7}\n');
  } finally {
    writeFileSync(lexer, original);
  }
  const planted = join(root, "lib/core/planted.js");
  writeFileSync(planted, "export {};\n");
  try {
    assert.equal((await runTca(root, EXPR_OK)).stderr, tsxTrace("lib/ changed since the build"));
  } finally {
    rmSync(planted);
  }
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("a changed compile script, a missing, unreadable or foreign stamp, or a missing build means src/ through tsx", async () => {
  const script = join(root, "scripts/compile.mjs");
  const recipe = readFileSync(script);
  appendFileSync(script, "// changed\n");
  try {
    assert.equal((await runTca(root, EXPR_OK)).stderr, tsxTrace("scripts/compile.mjs changed since the build"));
  } finally {
    writeFileSync(script, recipe);
  }
  const stamp = join(root, "lib", STAMP_NAME);
  const stampBytes = readFileSync(stamp);
  try {
    const cases: ReadonlyArray<[string | null, string]> = [
      [null, "no build in lib/ (npm run prepare builds it)"],
      ["{not json", "no build in lib/ (npm run prepare builds it)"],
      ['{"schema":"tca.build-stamp/0","sources":{}}', "lib/.build-stamp.json is not a tca.build-stamp/1 stamp"],
      ["[]", "lib/.build-stamp.json is not a tca.build-stamp/1 stamp"],
      // A stamp that claims another source tree (here: an empty one).
      [
        JSON.stringify({ ...(JSON.parse(stampBytes.toString("utf8")) as object), sources: {} }),
        "src/ changed since the build",
      ],
    ];
    for (const [content, reason] of cases) {
      if (content === null) rmSync(stamp);
      else writeFileSync(stamp, content);
      const run = await runTca(root, EXPR_OK);
      assert.equal(run.stderr, tsxTrace(reason), String(content));
      assert.equal(run.stdout, '{"ok":true,"value":7}\n');
    }
  } finally {
    writeFileSync(stamp, stampBytes);
  }
  renameSync(join(root, "lib"), join(root, "lib-away"));
  try {
    assert.equal((await runTca(root, EXPR_OK)).stderr, tsxTrace("no build in lib/ (npm run prepare builds it)"));
  } finally {
    renameSync(join(root, "lib-away"), join(root, "lib"));
  }
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("a rebuild replaces lib/ whole and leaves no scratch folder behind", () => {
  const marker = join(root, "lib", "leftover-from-an-old-build.js");
  writeFileSync(marker, "");
  const rebuilt = compileCheckout(root);
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  assert.equal(existsSync(marker), false);
  assert.deepEqual(
    readdirSync(root).filter((name) => name.startsWith(".lib-")),
    [],
  );
});

test("a source esbuild cannot compile: compile_failed naming the file, exit 1, the old build left in place and not run", async () => {
  const file = join(root, "src/expr/lexer.ts");
  const original = readFileSync(file);
  const stamp = readFileSync(join(root, "lib", STAMP_NAME));
  appendFileSync(file, "\nexport const broken = ;\n");
  try {
    const failed = compileCheckout(root);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^tca compile: compile_failed: src\/expr\/lexer\.ts:\d+: /m);
    assert.deepEqual(readFileSync(join(root, "lib", STAMP_NAME)), stamp);
    assert.deepEqual(
      readdirSync(root).filter((name) => name.startsWith(".lib-")),
      [],
    );
    assert.equal((await runTca(root, ["--version"])).code, 0);
    assert.ok((await runTca(root, EXPR_OK)).stderr.startsWith(tsxTrace("src/ changed since the build")));
  } finally {
    writeFileSync(file, original);
  }
  assert.equal((await runTca(root, EXPR_OK)).stderr, COMPILED_TRACE);
});

test("without esbuild installed the compile step skips (exit 0, no lib/) and tca runs src/ through tsx", async () => {
  const bare = copyCheckout();
  try {
    rmSync(join(bare, "node_modules"));
    const skipped = await runNode(bare, [join(bare, "scripts/compile.mjs")]);
    assert.deepEqual(skipped, {
      code: 0,
      stdout: "tca compile: esbuild is not installed; skipped (tca runs src/ through tsx)\n",
      stderr: "",
    });
    assert.equal(existsSync(join(bare, "lib")), false);
    symlinkSync(join(REPO_ROOT, "node_modules"), join(bare, "node_modules"));
    const run = await runTca(bare, EXPR_OK);
    assert.deepEqual(run, {
      code: 0,
      stdout: '{"ok":true,"value":7}\n',
      stderr: tsxTrace("no build in lib/ (npm run prepare builds it)"),
    });
  } finally {
    removeCheckout(bare);
  }
});

test("the compile script refuses unknown arguments with a usage error and builds nothing", async () => {
  const refused = await runNode(root, [join(REPO_ROOT, "scripts/compile.mjs"), "--out", root]);
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, "tca compile: usage_error: usage: node scripts/compile.mjs [--root <checkout>]\n");
  assert.equal(refused.stdout, "");
});

/** Starts the model worker through the compiled (or the source) supervisor and asks it to load a folder that does not exist. */
const workerProbe = (from: "lib" | "src"): string => `
import { ModelSupervisor, WORKER_ARGS } from "./${from}/model/worker/supervisor.${from === "lib" ? "js" : "ts"}";
import { systemClock } from "./${from}/core/clock.${from === "lib" ? "js" : "ts"}";
const events = [];
const supervisor = new ModelSupervisor({ onEvent: (event) => events.push(event.kind) });
const loaded = await supervisor.load(process.argv[2], systemClock.now() + 60000);
await supervisor.close();
process.stdout.write(JSON.stringify({ args: WORKER_ARGS, loaded, events, diagnostics: supervisor.workerDiagnostics }));
`;

test("the compiled supervisor runs the compiled modelWorker.js with plain node, and it answers as the tsx worker does", async () => {
  writeFileSync(join(root, "probe-lib-worker.mjs"), workerProbe("lib"));
  writeFileSync(join(root, "probe-src-worker.mjs"), workerProbe("src"));
  const missing = join(root, "no-such-model");
  const [compiled, source] = await Promise.all([
    runNode(root, ["probe-lib-worker.mjs", missing]),
    runNode(root, ["--import", "tsx", "probe-src-worker.mjs", missing]),
  ]);
  assert.equal(compiled.code, 0, compiled.stderr);
  assert.equal(source.code, 0, source.stderr);
  type Probe = {
    args: string[];
    loaded: { ok: boolean; error?: string; message?: string };
    events: string[];
    diagnostics: string;
  };
  const fromLib = JSON.parse(compiled.stdout) as Probe;
  const fromSrc = JSON.parse(source.stdout) as Probe;
  assert.deepEqual(fromLib.args, [join(root, "lib/model/worker/modelWorker.js")]);
  assert.deepEqual(fromSrc.args, ["--import", "tsx", join(root, "src/model/worker/modelWorker.ts")]);
  assert.ok(existsSync(fromLib.args[0] ?? ""));
  // The worker ran, read the request and refused the folder itself (an error reply, not a crash).
  assert.equal(fromLib.loaded.ok, false);
  assert.match(fromLib.loaded.message ?? "", /^loading failed \([a-z_]+\)$/);
  assert.deepEqual(fromLib.loaded, fromSrc.loaded);
  assert.deepEqual(fromLib.events, fromSrc.events);
  assert.doesNotMatch(fromLib.diagnostics, /ERR_|Error/);
});

test("tca model generate on a tiny synthetic checkpoint: the compiled program and worker produce the tokens the tsx ones do", async () => {
  const checkpoint = await makeTinyCheckpoint(21);
  try {
    const args = [
      "model",
      "generate",
      "--model-directory",
      checkpoint.directory,
      "--system",
      "be brief",
      "--user",
      "hello",
    ];
    // One after the other: the first run converts the checkpoint, the second reuses it.
    const source = await runTca(root, args, { TCA_NO_COMPILED: "1" });
    const compiled = await runTca(root, args);
    assert.equal(source.code, 0, source.stderr);
    assert.equal(compiled.code, 0, compiled.stderr);
    assert.ok(compiled.stderr.startsWith(COMPILED_TRACE), compiled.stderr);
    type Generated = {
      outcome: string;
      input_ids: number[];
      raw_output_ids: number[];
      text: string;
      stop_cause: string;
      label: string;
    };
    const pick = ({ outcome, input_ids, raw_output_ids, text, stop_cause, label }: Generated) => ({
      outcome,
      input_ids,
      raw_output_ids,
      text,
      stop_cause,
      label,
    });
    const fromLib = pick(JSON.parse(compiled.stdout) as Generated);
    assert.equal(fromLib.outcome, "generated");
    assert.ok(fromLib.raw_output_ids.length > 0);
    assert.deepEqual(fromLib, pick(JSON.parse(source.stdout) as Generated));
  } finally {
    await checkpoint.cleanup();
  }
});

// #36: the evidence validators are Ajv's standalone code made by the build, never compiled at start.
const VALIDATOR_PROBE = `import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PRECOMPILED_VALIDATORS } from "./lib/recording/precompiledValidatorTable.js";
import { precompiledOr, schemaDigest, validatorKey } from "./lib/recording/precompiledValidators.js";
import { ENVELOPE_AJV_OPTIONS } from "./lib/recording/evidenceEnvelope.js";
import { EVIDENCE_FILE_AJV_OPTIONS, EVIDENCE_SCHEMA_NAMES, evidenceFileSchema } from "./lib/recording/evidenceSchemas.js";
import { LAB_AUDIT_EVENTS, LAB_AUDIT_FORMAT } from "./lib/recording/labAuditEvents.js";
import { BENCH_TRACE_EVENTS } from "./lib/bench/runs/benchTrace.js";
import { BENCH_TRACE_FORMAT } from "./lib/bench/agent/taskTrace.js";
import { deriveRunVerdict } from "./lib/verdicts/runVerdict.js";
const require = createRequire(import.meta.url);
const ajvLoaded = () => Object.keys(require.cache).some((path) => /node_modules\\/ajv\\/dist\\/ajv\\.js$/.test(path));
const run = process.argv[2];
const verdict = deriveRunVerdict(run);
const afterVerdict = { kind: verdict.kind, ajvLoaded: ajvLoaded(), validatorFiles: Object.keys(require.cache).filter((p) => p.includes("/precompiledValidators/")).map((p) => p.slice(p.lastIndexOf("/") + 1)).sort() };
const expected = {};
for (const [format, catalog] of [[LAB_AUDIT_FORMAT, LAB_AUDIT_EVENTS], [BENCH_TRACE_FORMAT, BENCH_TRACE_EVENTS]])
  for (const type of Object.keys(catalog)) expected[validatorKey("event", format, type)] = [catalog[type], ENVELOPE_AJV_OPTIONS];
for (const name of EVIDENCE_SCHEMA_NAMES) expected[validatorKey("file", name)] = [evidenceFileSchema(name), EVIDENCE_FILE_AJV_OPTIONS];
const { Ajv } = require("ajv");
// Values to judge: every record of the run, its data, final.json and manifest.json, and each mutated.
const records = readFileSync(run + "/audit.jsonl", "utf8").trim().split("\\n").map((line) => JSON.parse(line));
const base = [...records, ...records.map((r) => r.data), JSON.parse(readFileSync(run + "/final.json", "utf8")), JSON.parse(readFileSync(run + "/manifest.json", "utf8")), {}, null, [], "x", 7];
const mutants = (value) => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const keys = Object.keys(value);
  return [{ ...value, zz_unknown: 1 }, ...keys.flatMap((key) => { const { [key]: _gone, ...rest } = value; return [rest, { ...value, [key]: null }, { ...value, [key]: "wrong" }, { ...value, [key]: -1.5 }]; })];
};
const values = [...base, ...base.flatMap(mutants)];
const differing = [];
let judged = 0;
for (const [key, [schema, options]] of Object.entries(expected)) {
  const found = PRECOMPILED_VALIDATORS[key];
  if (found === undefined || found.schemaSha256 !== schemaDigest(schema)) { differing.push(key + ": not precompiled from this schema"); continue; }
  const pre = found.load();
  const compiled = new Ajv(options).compile(schema);
  for (const value of values) {
    judged += 1;
    const a = [pre(value), JSON.stringify(pre.errors ?? null)];
    const b = [compiled(value), JSON.stringify(compiled.errors ?? null)];
    if (JSON.stringify(a) !== JSON.stringify(b)) { differing.push(key); break; }
  }
}
const someKey = validatorKey("event", LAB_AUDIT_FORMAT, "run_started");
const sentinel = () => true;
const changed = precompiledOr(someKey, { ...LAB_AUDIT_EVENTS.run_started, description: "edited after the build" }, () => sentinel);
const same = precompiledOr(someKey, LAB_AUDIT_EVENTS.run_started, () => sentinel);
process.stdout.write(JSON.stringify({ afterVerdict, keys: Object.keys(PRECOMPILED_VALIDATORS).sort(), expected: Object.keys(expected).sort(), judged, differing, changedIsCompiled: changed === sentinel, sameIsPrecompiled: same !== sentinel && same === PRECOMPILED_VALIDATORS[someKey].load() }));
`;

test("the evidence validators are the build's: one per event type of each catalog and per evidence file, made from these schemas, judging as a run-time compile does, and a command needs no Ajv", async () => {
  // A real run made by this checkout's CLI (the copy has no package-lock.json, which a Lab run records).
  const scratch = mkdtempSync(join(tmpdir(), "tca-validators-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const run = join(scratch, "baseline");
  const made = await runNode(REPO_ROOT, [join(REPO_ROOT, "bin", "tca.js"), "lab", "baseline", "--run", run]);
  assert.equal(made.code, 0, made.stderr);
  writeFileSync(join(root, "probe-validators.mjs"), VALIDATOR_PROBE);
  // The verdict hashes the harness, package-lock.json included, which the copy leaves out.
  copyFileSync(join(REPO_ROOT, "package-lock.json"), join(root, "package-lock.json"));
  after(() => rmSync(join(root, "package-lock.json"), { force: true }));
  const probe = await runNode(root, ["probe-validators.mjs", run]);
  assert.equal(probe.code, 0, probe.stderr);
  const seen = JSON.parse(probe.stdout) as {
    afterVerdict: { kind: string; ajvLoaded: boolean; validatorFiles: string[] };
    keys: string[];
    expected: string[];
    judged: number;
    differing: string[];
    changedIsCompiled: boolean;
    sameIsPrecompiled: boolean;
  };
  // The verdict of a real run through the compiled build: precompiled validators only, Ajv never loaded.
  assert.equal(seen.afterVerdict.kind, "verified_success");
  assert.equal(seen.afterVerdict.ajvLoaded, false);
  // The Lab audit's catalog and the evidence files, one generated file each; the bench trace's is not loaded.
  assert.deepEqual(seen.afterVerdict.validatorFiles, ["files.cjs", "tca.audit.cjs"]);
  // Exactly the catalogs' event types and the evidence files, each from the schema the readers hold.
  assert.deepEqual(seen.keys, seen.expected);
  assert.ok(seen.keys.length > 40, `${seen.keys.length} validators`);
  assert.deepEqual(seen.differing, []);
  assert.ok(seen.judged > 10_000, `${seen.judged} judgements compared`);
  // A schema that is not the one a validator was made from is compiled again; the same one is not.
  assert.equal(seen.changedIsCompiled, true);
  assert.equal(seen.sameIsPrecompiled, true);
});
