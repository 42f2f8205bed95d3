// What Ctrl-C prints (issue 28): "cancelling…" at once, and for a cancelled bench run the finished
// count, the run folder and the exact command that resumes it, instead of a summary.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  benchCancelledText,
  CANCELLED_EXIT_CODE,
  cancellingNotice,
  resumeCommand,
} from "../../src/cli/interruption.ts";
import { CHECKOUT_ROOT } from "../../src/cli/invocation.ts";

const BIN = `${CHECKOUT_ROOT}/bin/tca.js`;
/** Started as node bin/tca.js from outside the checkout: the hint is node and the absolute bin path. */
const elsewhere = { cwd: "/", script: BIN, env: { PATH: "/usr/bin" } };
const NODE_BIN = `node ${BIN}`;

test("the cancelling notice is one line naming the command", () => {
  assert.equal(
    cancellingNotice("lab model", "the model is stopped"),
    "tca lab model: cancelling… (Ctrl-C) the model is stopped\n",
  );
  assert.equal(CANCELLED_EXIT_CODE, 130);
});

test("the resume command keeps the arguments, replaces --out and --resume, and quotes what needs it", () => {
  // skip-rule: needs no sandbox: argv only, nothing runs
  assert.equal(
    resumeCommand(
      ["bench", "quixbugs", "run", "--endpoint", "http://h:1/v1", "--model", "my model", "--out", "old", "--jobs", "2"],
      "/runs/r 1",
      elsewhere,
    ),
    `${NODE_BIN} bench quixbugs run --endpoint http://h:1/v1 --model 'my model' --jobs 2 --out '/runs/r 1' --resume`,
  );
  assert.equal(
    resumeCommand(["bench", "quixbugs", "run", "--resume", "--out=x", "--label", "it's"], "/r", elsewhere),
    `${NODE_BIN} bench quixbugs run --label 'it'\\''s' --out /r --resume`,
  );
});

test("a cancelled bench run says cancelled, what was kept and how to resume; never a summary", () => {
  // skip-rule: needs no sandbox: argv only, nothing runs
  const text = benchCancelledText(3, "/runs/r", ["bench", "quixbugs", "run", "--model", "m"], elsewhere);
  assert.equal(
    text,
    "cancelled by Ctrl-C: 3 finished tasks recorded in /runs/r; the tasks that were running are not graded and are redone on resume\n" +
      `continue with: ${NODE_BIN} bench quixbugs run --model m --out /runs/r --resume\n`,
  );
  assert.doesNotMatch(text, /fixed/);
  assert.match(benchCancelledText(1, "/r", []), /^cancelled by Ctrl-C: 1 finished task recorded/);
});

test("the resume command is spelled for where the user is: npm run tca -- when typed in the checkout, node <checkout>/bin/tca.js elsewhere", () => {
  // skip-rule: needs no sandbox: argv only, nothing runs
  const argv = ["bench", "quixbugs", "run", "--model", "m"];
  const npmRun = (initCwd: string) => ({
    cwd: CHECKOUT_ROOT,
    script: BIN,
    env: { npm_lifecycle_event: "tca", npm_command: "run-script", INIT_CWD: initCwd },
  });
  assert.equal(
    resumeCommand(argv, "/r", npmRun(CHECKOUT_ROOT)),
    "npm run tca -- bench quixbugs run --model m --out /r --resume",
  );
  assert.equal(
    resumeCommand(argv, "/r", npmRun(`${CHECKOUT_ROOT}/src`)),
    "npm run tca -- bench quixbugs run --model m --out /r --resume",
  );
  assert.equal(
    resumeCommand(argv, "/r", { cwd: "/tmp", script: BIN, env: {} }),
    `${NODE_BIN} bench quixbugs run --model m --out /r --resume`,
  );
});
