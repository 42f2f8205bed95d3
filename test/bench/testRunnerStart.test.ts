// run_tests starts pytest with `python -S` and a bootstrap (issue #36: the site module's .pth
// imports cost a third of every start). What the model sees must not change: each candidate here
// (passing, failing, not importable, one that reports the import path it sees) gets the same
// outcome, counts, exit code and output as `python -m pytest` with the arguments run_tests had
// before, in the same sandbox and the same fresh read-only folder.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { runProgramTests, sanitizeOutput } from "../../src/bench/agent/testRunner.ts";
import { testFilePath } from "../../src/bench/dataset/dataset.ts";
import { createTaskFolder } from "../../src/bench/dataset/taskFolder.ts";
import { runInSandbox } from "../../src/bench/sandbox/sandbox.ts";
import { benchSetup, buggy, program, referenceFix } from "./benchFixtures.ts";

/** What run_tests ran before: plain `python -m pytest`, site module and all. */
function plainPytestArgv(name: string): string[] {
  return ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short", "--color=no", testFilePath(name)];
}

/** pytest's timings are the only part of its output that differs from run to run. */
const withoutTimings = (text: string): string => text.replace(/ in [0-9.]+s\b/g, " in <t>s");

async function both(name: string, source: string) {
  const { sandbox, dataset } = benchSetup();
  const p = program(dataset, name);
  const now = await runProgramTests(sandbox, dataset, p, source);
  const folder = createTaskFolder(dataset, p, source);
  try {
    const before = await runInSandbox(sandbox, { taskDir: folder.dir, argv: plainPytestArgv(name) });
    const output = sanitizeOutput(`${before.stdout}${before.stderr ? `\n${before.stderr}` : ""}`, sandbox);
    return { now, before: { exitCode: before.exitCode, output } };
  } finally {
    folder.remove();
  }
}

const SYS_PATH_REPORT = [
  "import sys",
  "raise RuntimeError('SYS-PATH ' + repr(sys.path) + ' MODULES ' + repr(sorted(m for m in sys.modules if m.startswith('pytest'))))",
  "",
].join("\n");

const CANDIDATES: ReadonlyArray<{ readonly label: string; readonly name: string; readonly source: () => string }> = [
  { label: "reference fix (passes)", name: "gcd", source: () => referenceFix(benchSetup().dataset, "gcd") },
  { label: "buggy program (fails)", name: "pascal", source: () => buggy(benchSetup().dataset, "pascal") },
  { label: "syntax error (collection error)", name: "gcd", source: () => "def gcd(a, b:\n    return a\n" },
  { label: "reports sys.path at import", name: "bitcount", source: () => SYS_PATH_REPORT },
];

for (const c of CANDIDATES) {
  test(`run_tests' -S start shows what python -m pytest showed: ${c.label}`, async () => {
    const { now, before } = await both(c.name, c.source());
    assert.equal(now.exitCode, before.exitCode);
    assert.equal(withoutTimings(now.output), withoutTimings(before.output));
  });
}

test("the candidate's import path under the -S start is the one site gave it, site-packages included", async () => {
  const { now } = await both("bitcount", SYS_PATH_REPORT);
  assert.equal(now.outcome, "error");
  const { sandbox } = benchSetup();
  const seen = /SYS-PATH (\[[^\]]*\])/.exec(now.output)?.[1] ?? "";
  assert.ok(sandbox.python.sitePaths.length > 0, "the probe found site-packages");
  // The output shows the Python prefix as <python> (sanitizeOutput); site-packages come last, as site puts them.
  const shown = sandbox.python.sitePaths.map((p) => `'${p.split(sandbox.python.prefix).join("<python>")}'`);
  assert.ok(seen.endsWith(`${shown.join(", ")}]`), `${shown.join(", ")} at the end of ${seen}`);
  assert.ok(seen.includes("'/task'"), seen);
});
