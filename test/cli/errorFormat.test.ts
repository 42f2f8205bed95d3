// The one error form of the command line, `tca <command>: <code>: <message>`, per command group,
// through the real bin/tca.js as a user calls it; and the start-up paths (--help, --version)
// that bin/tca.js answers without loading the TypeScript sources.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { commanderMessage, commandPath, commandPathFromArgv, formatCommandError } from "../../src/cli/commandError.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

function tca(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TCA, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** The first line of stderr must be exactly one error line of the given command. */
function assertErrorLine(stderr: string, command: string, code: RegExp | string): string {
  const first = stderr.split("\n")[0] ?? "";
  const m = /^tca ([a-z -]+?): ([a-z][a-z0-9_]*): (.+)$/.exec(first) ?? /^tca(): ([a-z][a-z0-9_]*): (.+)$/.exec(first);
  assert.ok(m, `not in the form "tca <command>: <code>: <message>": ${JSON.stringify(first)}`);
  assert.equal(m[1], command);
  if (typeof code === "string") assert.equal(m[2], code);
  else assert.match(m[2] ?? "", code);
  return m[3] ?? "";
}

test("formatCommandError: one line, the message's own line breaks joined", () => {
  assert.equal(
    formatCommandError("lab baseline", "run_parent_invalid", "no parent"),
    "tca lab baseline: run_parent_invalid: no parent\n",
  );
  assert.equal(
    formatCommandError("report", "x_y", "first\n\n  second\r\nthird\n"),
    "tca report: x_y: first; second; third\n",
  );
});

test("commandPathFromArgv follows the command tree up to the first option or unknown word", () => {
  // skip-rule: needs no sandbox: argv only, nothing runs
  const program = new Command("tca");
  program.command("bench").command("quixbugs").command("run");
  program.command("lab").command("baseline");
  assert.equal(commandPathFromArgv(program, ["bench", "quixbugs", "run", "--jobs", "x"]), "bench quixbugs run");
  assert.equal(commandPathFromArgv(program, ["lab", "nope", "baseline"]), "lab");
  assert.equal(commandPathFromArgv(program, ["--lab"]), "");
  assert.equal(commandPathFromArgv(program, []), "");
  const run = program.commands[0]?.commands[0]?.commands[0];
  assert.ok(run);
  assert.equal(commandPath(run), "bench quixbugs run");
  assert.equal(commanderMessage("error: unknown option '--x'\n"), "unknown option '--x'");
});

test("usage errors from the argument parser: the command path, usage_error, exit 2", async () => {
  // skip-rule: needs no sandbox: usage errors come from the argument parser
  const [unknownGroup, unknownCommand, missingValue, missingRequired] = await Promise.all([
    tca(["nope"]),
    tca(["lab", "nope"]),
    tca(["bench", "quixbugs", "run", "--jobs"]),
    tca(["lab", "submission"]),
  ]);
  for (const r of [unknownGroup, unknownCommand, missingValue, missingRequired]) assert.equal(r.code, 2);
  assert.match(assertErrorLine(unknownGroup.stderr, "", "usage_error"), /unknown command 'nope'/);
  assert.match(assertErrorLine(unknownCommand.stderr, "lab", "usage_error"), /unknown command 'nope'/);
  assert.match(assertErrorLine(missingValue.stderr, "bench quixbugs run", "usage_error"), /--jobs/);
  assert.match(assertErrorLine(missingRequired.stderr, "lab submission", "usage_error"), /--baseline/);
});

test("refusals of each command group name the path that failed", async () => {
  // skip-rule: needs no sandbox: every refusal here comes before the sandbox is prepared
  const scratch = mkdtempSync(join(tmpdir(), "tca-errors-"));
  try {
    const aFile = join(scratch, "a-file");
    writeFileSync(aFile, "x");
    const missing = join(scratch, "missing");
    const [lab, predict, bench, report, model] = await Promise.all([
      tca(["lab", "baseline", "--run", join(aFile, "run")]),
      tca(["lab", "predict"]),
      tca(["bench", "quixbugs", "verify-dataset", "--dataset", missing]),
      tca(["report", missing]),
      tca([
        "model",
        "acquire",
        "--directory",
        join(missing, "sub", "qwen"),
        "--yes",
        "--endpoint",
        "http://127.0.0.1:9",
      ]),
    ]);
    assert.notEqual(lab.code, 0);
    assertErrorLine(lab.stderr, "lab baseline", /^[a-z_]+$/);
    assert.notEqual(predict.code, 0);
    assertErrorLine(predict.stderr, "lab predict", "usage_error");
    assert.equal(bench.code, 1);
    assert.ok(
      assertErrorLine(bench.stderr, "bench quixbugs verify-dataset", "dataset_missing").includes(missing),
      "the message names the folder",
    );
    assert.equal(report.code, 2);
    assertErrorLine(report.stderr, "report", "run_directory_not_found");
    assert.equal(model.code, 1);
    assertErrorLine(
      model.stderr
        .split("\n")
        .filter((l) => l.startsWith("tca "))
        .join("\n"),
      "model acquire",
      /^[a-z_]+$/,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("--version prints package.json's version; --help lists every group, also when answered without tsx", async () => {
  const [version, short, help, helpFromSources] = await Promise.all([
    tca(["--version"]),
    tca(["-V"]),
    tca(["--help"]),
    // "help" goes through src/cli/main.ts (tsx); "--help" is answered by bin/tca.js alone.
    tca(["help"]),
  ]);
  assert.equal(version.stdout, `${PACKAGE_VERSION}\n`);
  assert.equal(short.stdout, `${PACKAGE_VERSION}\n`);
  assert.equal(help.code, 0);
  for (const group of ["expr", "proposal", "lab", "model", "bench", "report"])
    assert.match(help.stdout, new RegExp(`^  ${group}\\b`, "m"));
  assert.match(help.stdout, /-V, --version/);
  assert.equal(help.stdout, helpFromSources.stdout, "the fast path prints the same help as the full program");
});
