// Issue #35, item 0: a machine without bubblewrap or Chromium passes `npm test`, the tests that
// need them reported as skipped with the install command. Held two ways: every test file is
// scanned for sandbox and browser entry points outside the skip rule (test/support/skipRuleScan.ts),
// with planted violations so the scan itself can fail; and one bench test file is run with
// bwrap hidden from PATH, as a fresh machine would run it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { skipRuleViolations } from "../support/skipRuleScan.ts";

const TEST_ROOT = fileURLToPath(new URL("../", import.meta.url));
const testFiles = (): string[] =>
  readdirSync(TEST_ROOT, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join(TEST_ROOT, f));

test("every test that needs bubblewrap or Chromium goes through the skip rule of test/support/systemPackages.ts", () => {
  const files = testFiles();
  assert.ok(files.length > 100, `found only ${files.length} test files`);
  const violations = files.flatMap((file) => skipRuleViolations(file, TEST_ROOT));
  assert.deepEqual(
    violations.map((v) => `${v.file}:${v.line} ${v.what} needs the ${v.needs}`),
    [],
    "use sandboxTest/browserTest, or { skip: sandboxPackages().skip } (chromiumPackage, chromiumAndSandbox); " +
      "a test that only names a sandboxed command says `// skip-rule: needs no sandbox: <why>` in its body",
  );
});

/** The scan of one planted file, as `line what needs`. */
function planted(text: string): string[] {
  const file = join(TEST_ROOT, "bench", "planted.test.ts");
  return skipRuleViolations(file, TEST_ROOT, text).map((v) => `${v.line} ${v.what} ${v.needs}`);
}

const HEADER = `import { before, test } from "node:test";
import { browserTest, chromiumPackage, sandboxPackages, sandboxTest } from "../support/systemPackages.ts";
import { tca } from "../support/tcaCli.ts";
import { benchSetup } from "./benchFixtures.ts";
import { realBenchRun } from "../evidence/regradeRunFixture.ts";
import { startBrowser } from "../report/browserSession.ts";
`;

test("planted: a CLI bench run, a sandbox helper, a helper module's run and a browser, each outside the rule, are found", () => {
  assert.deepEqual(
    planted(
      HEADER +
        `test("cli", async () => { await tca(["bench", "quixbugs", "run", "--model", "m"]); });
test("setup", () => { benchSetup(); });
const viaLocal = () => tca(["bench", "quixbugs", "make-taskset", "--seed", "1"]);
test("local", async () => { await viaLocal(); });
let honest = "";
before(async () => { honest = await realBenchRun("/tmp/x", "honest"); });
test("reads the hook's run", () => { void honest; });
browserTest("wrong gate", () => { benchSetup(); });
test("browser", async () => { await startBrowser(); });
test("no reason", () => {
  // skip-rule: needs no sandbox:
  benchSetup();
});
const atImport = benchSetup();
`,
    ),
    [
      `7 test("cli") sandbox`,
      `8 test("setup") sandbox`,
      `10 test("local") sandbox`,
      `12 before(…) sandbox`,
      `13 test("reads the hook's run") sandbox`,
      `14 browserTest("wrong gate") sandbox`,
      `15 test("browser") browser`,
      `16 test("no reason") sandbox`,
      `20 module-level code sandbox`,
    ],
  );
});

test("planted: the same tests through the rule, and an argv that runs nothing with its reason, are not found", () => {
  assert.deepEqual(
    planted(
      HEADER +
        `sandboxTest("cli", async () => { await tca(["bench", "quixbugs", "run", "--model", "m"]); });
test("option", { skip: sandboxPackages().skip }, () => { benchSetup(); });
const browserPresent = chromiumPackage().skip === false;
let session: unknown;
before(async () => { if (!browserPresent) return; session = await startBrowser(); });
browserTest("browser", () => { void session; });
let honest = "";
before(async () => {
  if (sandboxPackages().skip !== false) return;
  honest = await realBenchRun("/tmp/x", "honest");
});
sandboxTest("reads the hook's run", () => { void honest; });
test("argv", () => {
  // skip-rule: needs no sandbox: argv only, nothing runs
  void ["bench", "quixbugs", "run"];
});
test("lab", async () => { await tca(["lab", "run", "--out", "x"]); });
`,
    ),
    [],
  );
});

/** PATH with every folder that holds bwrap replaced by a folder of links to all its other files. */
function pathWithoutBwrap(scratch: string): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir, index) => {
      if (!existsSync(join(dir, "bwrap"))) return dir;
      const links = mkdtempSync(join(scratch, `dir-${index}-`));
      for (const name of readdirSync(dir))
        if (name !== "bwrap") symlinkSync(join(resolve(dir), name), join(links, name));
      return links;
    })
    .join(delimiter);
}

test("a bench test file run on a machine without bwrap: its sandboxed tests are skipped with the install command, none fails", async () => {
  const scratch = mkdtempSync(join(tmpdir(), "tca-no-bwrap-"));
  try {
    // NODE_TEST_CONTEXT (set by the runner running this file) would make the child report to it instead of as TAP.
    const { NODE_TEST_CONTEXT: _runner, ...outer } = process.env;
    const env = { ...outer, PATH: pathWithoutBwrap(scratch), TCA_REQUIRE_SYSTEM: "" };
    const file = join(TEST_ROOT, "bench", "thinkingMode.test.ts");
    const { code, out } = await new Promise<{ code: number; out: string }>((done) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "--test", "--test-reporter=tap", file],
        { env, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
      );
    });
    assert.equal(code, 0, out);
    assert.match(out, /^# fail 0$/m);
    assert.match(out, /^# pass [1-9]/m, "the tests that need no sandbox still run");
    assert.match(out, /^# skipped [1-9]/m);
    assert.match(out, /# SKIP bubblewrap \(bwrap\) is not on PATH: apt-get install -y bubblewrap/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
