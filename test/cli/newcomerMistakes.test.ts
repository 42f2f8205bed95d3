// Issue 35, item 9: the newcomer's smaller mistakes, each made on purpose through the real CLI
// (bin/tca.js, as a user runs it), checking what they see on stdout and stderr, the exit status
// and what is left on disk: a typo in --programs gets the nearest names and where the list is;
// verify-dataset names the folder it checks and gives an estimate that holds; a missing bench
// --model-directory and a run folder inside a repository get their next step; a next step never
// names a path that is already there; a refused connection says why in words.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxTest } from "../support/systemPackages.ts";
import { MINI_DATASET_DIR } from "../support/optionalResources.ts";
import { TCA_BIN } from "../support/tcaCli.ts";
import {
  datasetCheckStartLine,
  editDistance,
  nearestPrograms,
  unknownProgramsMessage,
} from "../../src/bench/benchRunSetup.ts";
import { connectionFailureCause } from "../../src/model/artifacts/httpTransfer.ts";
import { reportCommand, shellLines } from "../../src/cli/invocation.ts";
import { unusedPath } from "../../src/cli/pathArguments.ts";
import { checkpointText } from "../../src/cli/commands/modelEngine.ts";
import { blockedSubmissionCommand, submissionOutArguments } from "../../src/cli/downloadHints.ts";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "tca-newcomer-")));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** tca as a newcomer runs it from a folder outside the checkout: hints are spelled `node BIN …`. */
function tca(args: readonly string[], cwd = scratch): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [TCA_BIN, ...args], {
    cwd,
    encoding: "utf8",
    input: "",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", XDG_CACHE_HOME: join(scratch, "cache") },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const fresh = (name: string): string => {
  const dir = join(scratch, name);
  mkdirSync(dir);
  return dir;
};

test("nearestPrograms: the names a typo meant, nearest first, none for a name far from all", () => {
  const names = ["gcd", "get_factors", "bitcount", "is_palindrome", "pascal", "levenshtein", "lcs_length"];
  assert.equal(editDistance("gcdd", "gcd"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.deepEqual(nearestPrograms("gcdd", names), ["gcd"]);
  assert.deepEqual(nearestPrograms("bitcont", names), ["bitcount"]);
  assert.deepEqual(nearestPrograms("levenstein", names), ["levenshtein"]);
  assert.deepEqual(nearestPrograms("quicksort_xyz", names), []);
  const dataset = { root: "/d", programs: names.map((name) => ({ name })) };
  assert.equal(
    unknownProgramsMessage(["gcdd", "zzzzzz"], dataset),
    "unknown programs: gcdd (did you mean gcd?), zzzzzz; the data set /d has 7 programs, one per file in " +
      "/d/python_programs (ls /d/python_programs lists them; --programs takes the names without .py)",
  );
});

sandboxTest(
  "verify-dataset --programs gcdd: the suggestion and where the list is, one line, exit 1, nothing cached",
  async () => {
    const r = tca(["bench", "quixbugs", "verify-dataset", "--dataset", MINI_DATASET_DIR, "--programs", "gcdd"]);
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    const list = join(MINI_DATASET_DIR, "python_programs");
    assert.equal(
      r.err,
      `tca bench quixbugs verify-dataset: unknown_program: unknown programs: gcdd (did you mean gcd?); the data set ${MINI_DATASET_DIR} has 5 programs, one per file in ${list} (ls ${list} lists them; --programs takes the names without .py)\n`,
    );
    // Following the suggestion lists the very names --programs takes.
    const listed = readdirSync(list).map((f) => f.replace(/\.py$/, ""));
    assert.ok(listed.includes("gcd"));
    assert.equal(existsSync(join(scratch, "cache")), false, "nothing written to the cache");
  },
);

sandboxTest("verify-dataset names the folder it checks, first on stderr and in its summary line", async () => {
  const r = tca(["bench", "quixbugs", "verify-dataset", "--dataset", MINI_DATASET_DIR, "--programs", "gcd"]);
  assert.equal(r.code, 0, r.err);
  const firstLines = r.err.split("\n").slice(0, 3).join(" ").replace(/\s+/g, " ");
  assert.ok(
    firstLines.startsWith(
      `checking the data set ${MINI_DATASET_DIR} in the sandbox: 1 program, 1 at a time; each buggy program must fail and each reference fix pass.`,
    ),
    r.err,
  );
  // No per-program rate is promised; the test timeout that bounds a looping program is named.
  assert.doesNotMatch(r.err, /per program per core/);
  assert.match(firstLines, /runs its full 60 s test timeout \(--test-timeout\)/);
  assert.match(
    r.out,
    new RegExp(`^data set ${MINI_DATASET_DIR.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 1/1 buggy`, "m"),
  );
});

test("the data set check's first line: the folder, the count, the jobs actually used, the timeout", () => {
  assert.equal(
    datasetCheckStartLine({ root: "/q", programs: 40, jobs: 8, testTimeoutS: 60 }),
    "checking the data set /q in the sandbox: 40 programs, 8 at a time; each buggy program must fail and " +
      "each reference fix pass. Most take a few seconds, a buggy one that never ends runs its full 60 s test " +
      "timeout (--test-timeout)…",
  );
  assert.match(datasetCheckStartLine({ root: "/q", programs: 2, jobs: 8, testTimeoutS: 5 }), /2 programs, 2 at a time/);
});

test("bench run --backend local with a --model-directory that does not exist: the two commands that make one there", () => {
  // skip-rule: needs no sandbox: the model directory is refused before the sandbox is prepared
  const cwd = fresh("bench-model");
  const missing = join(cwd, "bench-rehearsal");
  const r = tca(["bench", "quixbugs", "run", "--backend", "local", "--model-directory", missing], cwd);
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.equal(
    r.err,
    `tca bench quixbugs run: model_directory_invalid: --model-directory ${missing} does not exist (make one there: ` +
      `node ${TCA_BIN} model make-bench-rehearsal-checkpoint --directory ${missing} for the bench rehearsal model, ` +
      `or node ${TCA_BIN} model acquire --directory ${missing} for the pinned model)\n`,
  );
  assert.deepEqual(readdirSync(cwd), [], "no bench-runs/ folder, nothing else");
});

test("bench run and verify-dataset --programs gcdd: refused with unknown_program before python3 is probed or the sandbox self-tested", () => {
  // skip-rule: needs no sandbox: the typo is refused before the sandbox is prepared
  // PATH names an empty folder: no python3 and no bwrap can be found, so a refusal that came
  // after the interpreter probe or the self-test would read python_unavailable instead.
  const cwd = fresh("bench-typo");
  const emptyPath = fresh("bench-typo-path");
  const list = join(MINI_DATASET_DIR, "python_programs");
  const refusal = `unknown_program: unknown programs: gcdd (did you mean gcd?); the data set ${MINI_DATASET_DIR} has 5 programs, one per file in ${list} (ls ${list} lists them; --programs takes the names without .py)\n`;
  const run = (args: readonly string[]): ReturnType<typeof tca> => {
    const r = spawnSync(process.execPath, [TCA_BIN, ...args], {
      cwd,
      encoding: "utf8",
      input: "",
      env: { PATH: emptyPath, HOME: process.env.HOME ?? "", XDG_CACHE_HOME: join(scratch, "typo-cache") },
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const out = join(cwd, "run-out");
  const benchRun = run([
    "bench",
    "quixbugs",
    "run",
    ...["--backend", "openai", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"],
    ...["--dataset", MINI_DATASET_DIR, "--programs", "gcd,gcdd", "--out", out],
  ]);
  assert.equal(benchRun.err, `tca bench quixbugs run: ${refusal}`);
  assert.equal(benchRun.code, 1);
  assert.equal(benchRun.out, "");
  const verify = run(["bench", "quixbugs", "verify-dataset", "--dataset", MINI_DATASET_DIR, "--programs", "gcdd"]);
  assert.equal(verify.err, `tca bench quixbugs verify-dataset: ${refusal}`);
  assert.equal(verify.code, 1);
  assert.deepEqual(readdirSync(cwd), [], "no run folder, nothing else");
  assert.equal(existsSync(join(scratch, "typo-cache")), false, "nothing written to the cache");
});

test("lab baseline --run inside a git repository: the folder beside it to make, and the run path that is free", () => {
  const repo = fresh("repo");
  mkdirSync(join(repo, ".git"));
  const run = join(repo, "runs", "baseline");
  mkdirSync(join(repo, "runs"));
  const refused = tca(["lab", "baseline", "--run", run]);
  assert.equal(refused.code, 2);
  assert.equal(refused.out, "");
  assert.equal(
    refused.err,
    `tca lab baseline: run_inside_repository: the run directory would be inside a git repository (${repo}): ${run} ` +
      `(run folders stay outside any repository; e.g. mkdir -p -m 700 ${repo}-runs, then --run ${repo}-runs/baseline)\n`,
  );
  assert.deepEqual(readdirSync(join(repo, "runs")), [], "nothing created");
  // Following it works; a second time, the suggestion is the next free name and no mkdir.
  mkdirSync(`${repo}-runs`, { mode: 0o700 });
  const followed = tca(["lab", "baseline", "--run", `${repo}-runs/baseline`]);
  assert.equal(followed.code, 0, followed.err);
  const again = tca(["lab", "baseline", "--run", run]);
  assert.match(again.err, new RegExp(`e\\.g\\. --run ${repo}-runs/baseline-2\\)\\n$`));
});

test("lab checks --root inside a git repository: refused once, before the root is made (no table of 21 failures)", () => {
  const repo = fresh("repo-checks");
  mkdirSync(join(repo, ".git"));
  const root = join(repo, "checks");
  const r = tca(["lab", "checks", "--root", root]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  assert.match(
    r.err,
    new RegExp(
      `^tca lab checks: run_inside_repository: the run directory would be inside a git repository \\(${repo}\\): ${root} \\(run folders stay outside any repository; e\\.g\\. mkdir -p -m 700 ${repo}-runs, then --root ${repo}-runs/checks\\)\\n$`,
    ),
  );
  assert.deepEqual(readdirSync(repo), [".git"]);
});

test("lab baseline's next step names a checks root that does not exist yet, not the one already there", async () => {
  const lab = fresh("lab");
  mkdirSync(join(lab, "checks"));
  const r = tca(["lab", "baseline", "--run", join(lab, "baseline")]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`\\n  node ${TCA_BIN} lab checks --root ${lab}/checks-2\\n`));
  assert.equal(existsSync(join(lab, "checks-2")), false);
  // The report hint: plain while there is no report; with --force once one is there.
  assert.equal(reportCommand(join(lab, "baseline")).endsWith(`report ${lab}/baseline`), true);
  writeFileSync(join(lab, "baseline.report.html"), "earlier");
  assert.equal(reportCommand(join(lab, "baseline")).endsWith(`report ${lab}/baseline --force`), true);
});

test("unusedPath: the preferred path when free, else the first free -N; a dangling link counts as taken", async () => {
  const dir = fresh("unused");
  assert.equal(unusedPath(join(dir, "run")), join(dir, "run"));
  mkdirSync(join(dir, "run"));
  writeFileSync(join(dir, "run-2"), "");
  const { symlinkSync } = await import("node:fs");
  symlinkSync(join(dir, "nowhere"), join(dir, "run-3"));
  assert.equal(unusedPath(join(dir, "run")), join(dir, "run-4"));
});

test("a checkpoint maker's text (rehearsal, bench rehearsal, synthetic): where, what, a next step with a free run folder", async () => {
  const dir = fresh("rehearsal");
  const checkpoint = join(dir, "reh");
  const first = checkpointText(checkpoint, "lab", 9_831_104);
  const lines = first.split("\n");
  assert.equal(lines[0], `rehearsal checkpoint written to ${checkpoint}`);
  assert.equal(lines[1], `  9,831,104 parameters; its record: ${checkpoint}/synthetic-manifest.json`);
  assert.equal(lines[2], "next step: a Lab trial on it (labelled REHEARSAL)");
  const command = lines
    .slice(3)
    .join("\n")
    .replace(/ \\\n {6}/g, " ");
  assert.match(command, new RegExp(`--run ${dir}/rehearsal-run --model-directory ${checkpoint} `));
  assert.match(command, /--yes --without-predictions\n$/, "off a terminal the trial's consent is --yes");
  assert.doesNotMatch(first, /^\{/m, "no JSON dump");
  // A rehearsal run already there: the next step names a free one.
  mkdirSync(join(dir, "rehearsal-run"));
  assert.match(checkpointText(checkpoint, "lab", 1), new RegExp(`--run ${dir}/rehearsal-run-2 `));
  const bench = checkpointText(checkpoint, "bench", 1).replace(/ \\\n {6}/g, " ");
  assert.match(
    bench,
    /--backend local --model-directory .* --dataset .*test\/fixtures\/quixbugs-mini --out .*bench-rehearsal-run\n$/,
  );
  // make-test-checkpoint: the same shape, a pipeline check's run folder.
  const synthetic = checkpointText(checkpoint, "synthetic", 1).split("\n");
  assert.equal(synthetic[0], `synthetic checkpoint (random weights) written to ${checkpoint}`);
  assert.equal(synthetic[2], "next step: a Lab trial on it (a pipeline check, never a model result)");
  assert.match(synthetic.slice(3).join(" "), new RegExp(`--run ${dir}/pipeline-run `));
});

test("shellLines: a long command broken before options with a trailing backslash; words never cut", () => {
  const command =
    "node /a/bin/tca.js lab model --run /very/long/path/rehearsal-run --model-directory /very/long/path/reh --yes";
  assert.deepEqual(shellLines(command, 80), [
    "  node /a/bin/tca.js lab model --run /very/long/path/rehearsal-run \\",
    "      --model-directory /very/long/path/reh --yes",
  ]);
  assert.deepEqual(shellLines("tca report /x", 60), ["  tca report /x"]);
  assert.equal(
    shellLines(command, 80)
      .join("\n")
      .replace(/ \\\n {6}/g, " "),
    `  ${command}`,
  );
});

test("a connection that fails says why in words: refused, no DNS answer, timed out", async () => {
  assert.match(
    connectionFailureCause({ code: "ECONNREFUSED" }, "127.0.0.1"),
    /refused \(ECONNREFUSED: nothing listens/,
  );
  assert.match(
    connectionFailureCause({ code: "ENOTFOUND" }, "huggingface.co"),
    /huggingface\.co did not resolve \(ENOTFOUND/,
  );
  assert.match(
    connectionFailureCause({ code: "EAI_AGAIN" }, "huggingface.co"),
    /could not be resolved now \(EAI_AGAIN/,
  );
  assert.match(connectionFailureCause({ code: "ETIMEDOUT" }, "x"), /timed out \(ETIMEDOUT/);
  assert.equal(connectionFailureCause({ code: "EWHATEVER" }, "x"), "system error EWHATEVER");
  assert.equal(connectionFailureCause(new Error("socket hang up"), "x"), "the connection closed before any response");
  // A name that cannot resolve (.invalid is reserved), as Node reports it, with or without a network.
  const error = await new Promise<unknown>((resolve) => {
    get("http://no-such-host.invalid/", () => resolve(null)).on("error", resolve);
  });
  assert.match(
    connectionFailureCause(error, "no-such-host.invalid"),
    /no-such-host\.invalid (did not resolve|could not be resolved)/,
  );
});

test("a suggested lab submission names --out only when submission.md beside the baseline is taken, then a free name", () => {
  const dir = fresh("submission");
  const baseline = join(dir, "baseline");
  assert.deepEqual(submissionOutArguments(baseline), []);
  writeFileSync(join(dir, "submission.md"), "an earlier --blocked submission");
  assert.deepEqual(submissionOutArguments(baseline), ["--out", join(dir, "submission-2.md")]);
  writeFileSync(join(dir, "submission-2.md"), "");
  assert.deepEqual(submissionOutArguments(baseline), ["--out", join(dir, "submission-3.md")]);
  assert.match(
    blockedSubmissionCommand({ baseline, modelDirectory: join(dir, "qwen") }),
    new RegExp(`--baseline ${baseline} --out ${dir}/submission-3\\.md --checks CHECKS_ROOT `),
  );
  // With the baseline unknown (a placeholder), no --out is guessed.
  assert.doesNotMatch(blockedSubmissionCommand({ modelDirectory: join(dir, "qwen") }), /--out/);
});
