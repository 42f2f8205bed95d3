// Issue #28 item 13 (bench): hints name a tca command spelled to work where the user is: tca when
// started by that name, npm run tca -- inside the checkout, node <checkout>/bin/tca.js elsewhere.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKOUT_ROOT, localizedHints, tcaCommand } from "../../src/cli/nextStep.ts";
import { tca } from "../support/tcaCli.ts";

const root = mkdtempSync(join(tmpdir(), "tca-hints-"));
after(() => rmSync(root, { recursive: true, force: true }));
const bin = join(CHECKOUT_ROOT, "bin", "tca.js");

test("tcaCommand: the three spellings, arguments quoted for the shell", () => {
  assert.equal(tcaCommand(["report", "/r 1"], { cwd: "/", script: "/usr/local/bin/tca" }), "tca report '/r 1'");
  assert.equal(tcaCommand(["report", "/r"], { cwd: join(CHECKOUT_ROOT, "test"), script: bin }), "npm run tca -- report /r");
  assert.equal(tcaCommand(["report", "/r"], { cwd: root, script: bin }), `node ${bin} report /r`);
});

test("localizedHints rewrites only the words 'tca ' before a command group", () => {
  const elsewhere = { cwd: root, script: bin };
  assert.equal(localizedHints("the folder does not exist (tca bench quixbugs fetch-dataset downloads it)", elsewhere), `the folder does not exist (node ${bin} bench quixbugs fetch-dataset downloads it)`);
  assert.equal(localizedHints("run tca engine build", { cwd: CHECKOUT_ROOT, script: bin }), "run npm run tca -- engine build");
  assert.equal(localizedHints("the tca harness; tca's grader; atca bench", elsewhere), "the tca harness; tca's grader; atca bench");
  assert.equal(localizedHints("run tca engine build", { cwd: root, script: "/usr/bin/tca" }), "run tca engine build");
});

test("a bench error's hint, run from a folder outside the checkout, names node and the checkout's bin/tca.js", async () => {
  const r = await tca(["bench", "quixbugs", "verify-dataset", "--dataset", join(root, "missing")], { ...process.env, XDG_CACHE_HOME: join(root, "cache") }, root);
  assert.equal(r.code, 1);
  assert.equal(r.err, `tca bench quixbugs verify-dataset: dataset_missing: the data set folder ${join(root, "missing")} does not exist (node ${bin} bench quixbugs fetch-dataset downloads it; --dataset chooses another)\n`);
});
