// What Ctrl-C prints (issue 28): "cancelling…" at once, and for a cancelled bench run the finished
// count, the run folder and the exact command that resumes it, instead of a summary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { benchCancelledText, CANCELLED_EXIT_CODE, cancellingNotice, resumeCommand } from "../../src/cli/interruption.ts";
import { CHECKOUT_ROOT } from "../../src/cli/nextStep.ts";

/** Started as `tca` from PATH: the hint says tca. */
const onPath = { cwd: "/", script: "/usr/local/bin/tca" };

test("the cancelling notice is one line naming the command", () => {
  assert.equal(cancellingNotice("lab model", "the model is stopped"), "tca lab model: cancelling… (Ctrl-C) the model is stopped\n");
  assert.equal(CANCELLED_EXIT_CODE, 130);
});

test("the resume command keeps the arguments, replaces --out and --resume, and quotes what needs it", () => {
  assert.equal(
    resumeCommand(["bench", "quixbugs", "run", "--endpoint", "http://h:1/v1", "--model", "my model", "--out", "old", "--jobs", "2"], "/runs/r 1", onPath),
    "tca bench quixbugs run --endpoint http://h:1/v1 --model 'my model' --jobs 2 --out '/runs/r 1' --resume",
  );
  assert.equal(resumeCommand(["bench", "quixbugs", "run", "--resume", "--out=x", "--label", "it's"], "/r", onPath), "tca bench quixbugs run --label 'it'\\''s' --out /r --resume");
});

test("a cancelled bench run says cancelled, what was kept and how to resume; never a summary", () => {
  const text = benchCancelledText(3, "/runs/r", ["bench", "quixbugs", "run", "--model", "m"], onPath);
  assert.equal(
    text,
    "cancelled by Ctrl-C: 3 finished tasks recorded in /runs/r; the tasks that were running are not graded and are redone on resume\n" +
      "continue with: tca bench quixbugs run --model m --out /runs/r --resume\n",
  );
  assert.doesNotMatch(text, /fixed/);
  assert.match(benchCancelledText(1, "/r", []), /^cancelled by Ctrl-C: 1 finished task recorded/);
});

test("the resume command is spelled for where the user is: npm run tca -- in the checkout, node <checkout>/bin/tca.js elsewhere", () => {
  const argv = ["bench", "quixbugs", "run", "--model", "m"];
  assert.equal(resumeCommand(argv, "/r", { cwd: CHECKOUT_ROOT, script: `${CHECKOUT_ROOT}/bin/tca.js` }), "npm run tca -- bench quixbugs run --model m --out /r --resume");
  assert.equal(resumeCommand(argv, "/r", { cwd: `${CHECKOUT_ROOT}/src`, script: `${CHECKOUT_ROOT}/bin/tca.js` }), "npm run tca -- bench quixbugs run --model m --out /r --resume");
  assert.equal(resumeCommand(argv, "/r", { cwd: "/tmp", script: `${CHECKOUT_ROOT}/bin/tca.js` }), `node ${CHECKOUT_ROOT}/bin/tca.js bench quixbugs run --model m --out /r --resume`);
});
