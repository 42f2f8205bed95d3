// Ctrl-C, the same everywhere (issue 35, item 3): lab checks, verify-dataset, make-taskset and
// model make-test-checkpoint, stopped by SIGINT (or SIGTERM) at a known step of their work (the
// first check folder on disk, the first program's progress line, the first weights line), print
// one line `tca <command>: cancelled: …` naming what was removed and the exact command that runs
// it again, exit 130 (143), and leave nothing behind: no claimed --out, no root without
// checks.json, no checkpoint without a manifest. The rerun of lab checks is then run as printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sandboxPackages } from "../support/systemPackages.ts";
import { MINI_DATASET_DIR } from "../support/optionalResources.ts";
import { interruptedText } from "../../src/cli/interruption.ts";

const BIN = realpathSync(resolve(import.meta.dirname, "../../bin/tca.js"));

interface Stopped {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs tca and sends `signal` once `ready(stderr)` holds (checked on every chunk of stderr and every 50 ms). */
function stopWhen(
  args: readonly string[],
  ready: (stderr: string) => boolean,
  signal: "SIGINT" | "SIGTERM" = "SIGINT",
): Promise<Stopped & { readonly signalled: boolean }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, XDG_CACHE_HOME: join(tmpdir(), "tca-interrupt-cache") },
    });
    let stdout = "";
    let stderr = "";
    let signalled = false;
    const check = (): void => {
      if (!signalled && ready(stderr)) {
        signalled = true;
        child.kill(signal);
      }
    };
    const poll = setInterval(check, 50);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
      check();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(poll);
      done({ code, stdout, stderr, signalled });
    });
  });
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

test("the cancelled line: the error form, what was removed, the rerun command", () => {
  assert.equal(
    interruptedText("lab checks", "SIGINT", "/r/checks", "tca lab checks --root /r/checks"),
    "tca lab checks: cancelled: stopped by Ctrl-C; the partial output /r/checks was removed, nothing is left behind; run it again with: tca lab checks --root /r/checks\n",
  );
  assert.equal(
    interruptedText("bench quixbugs verify-dataset", "SIGTERM", null, "tca bench quixbugs verify-dataset"),
    "tca bench quixbugs verify-dataset: cancelled: stopped by SIGTERM; nothing was written; run it again with: tca bench quixbugs verify-dataset\n",
  );
});

test("lab checks stopped by Ctrl-C after its first check folder: exit 130, the root removed, and the printed rerun runs", async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), "tca-int-checks-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const root = join(scratch, "checks");
  const stopped = await stopWhen(
    ["lab", "checks", "--root", root],
    () => existsSync(root) && readdirSync(root).length > 0,
  );
  assert.ok(stopped.signalled, `it finished before the signal: ${stopped.stdout}`);
  assert.equal(stopped.code, 130, stopped.stderr);
  const rerun = `node ${BIN} lab checks --root ${root}`;
  assert.equal(lastLine(stopped.stderr), lastLine(interruptedText("lab checks", "SIGINT", root, rerun)));
  assert.equal(existsSync(root), false, "no partial root (it would be unknown_run_kind, and a rerun output_exists)");
  const again = spawnSync("bash", ["-c", rerun], { encoding: "utf8" });
  assert.equal(again.status, 0, again.stderr);
  assert.ok(existsSync(join(root, "checks.json")));
});

test("model make-test-checkpoint --size full stopped by SIGTERM at its first weights line: exit 143, no folder without a manifest", async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), "tca-int-ckpt-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const directory = join(scratch, "ckpt");
  const args = ["model", "make-test-checkpoint", "--directory", directory, "--size", "full"];
  const stopped = await stopWhen(args, (err) => /writing weights: /.test(err), "SIGTERM");
  assert.ok(stopped.signalled);
  assert.equal(stopped.code, 143, stopped.stderr);
  assert.equal(
    lastLine(stopped.stderr),
    lastLine(interruptedText("model make-test-checkpoint", "SIGTERM", directory, `node ${BIN} ${args.join(" ")}`)),
  );
  assert.deepEqual(readdirSync(scratch), []);
});

test(
  "verify-dataset and make-taskset stopped by Ctrl-C at their first program: exit 130, the rerun command, no claimed --out",
  { skip: sandboxPackages().skip },
  async (t) => {
    const scratch = mkdtempSync(join(tmpdir(), "tca-int-bench-"));
    t.after(() => rmSync(scratch, { recursive: true, force: true }));
    const verifyArgs = ["bench", "quixbugs", "verify-dataset", "--dataset", MINI_DATASET_DIR, "--jobs", "1"];
    const verify = await stopWhen(verifyArgs, (err) => /^1\/\d+ /m.test(err));
    assert.ok(verify.signalled, verify.stdout);
    assert.equal(verify.code, 130, verify.stderr);
    assert.equal(
      lastLine(verify.stderr),
      lastLine(interruptedText("bench quixbugs verify-dataset", "SIGINT", null, `node ${BIN} ${verifyArgs.join(" ")}`)),
    );
    assert.equal(verify.stdout, "", "no table that would read as a finished check");

    const out = join(scratch, "seed-1");
    const tasksetArgs = [
      "bench",
      "quixbugs",
      "make-taskset",
      "--dataset",
      MINI_DATASET_DIR,
      "--seed",
      "1",
      "--out",
      out,
    ];
    const taskset = await stopWhen([...tasksetArgs, "--jobs", "1"], (err) => /^1\/\d+ /m.test(err));
    assert.ok(taskset.signalled, taskset.stdout);
    assert.equal(taskset.code, 130, taskset.stderr);
    assert.equal(
      lastLine(taskset.stderr),
      lastLine(
        interruptedText(
          "bench quixbugs make-taskset",
          "SIGINT",
          out,
          `node ${BIN} ${[...tasksetArgs, "--jobs", "1"].join(" ")}`,
        ),
      ),
    );
    assert.deepEqual(readdirSync(scratch), [], "neither the claimed --out nor a staging folder is left");
  },
);
