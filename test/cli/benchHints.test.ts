// Issue #28 item 13 (bench): a bench error's hint names a tca command spelled to work where the
// user is (the rules and their cases: test/cli/invocation.test.ts).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHECKOUT_ROOT, localizedHints } from "../../src/cli/invocation.ts";
import { tca } from "../support/tcaCli.ts";

const root = mkdtempSync(join(tmpdir(), "tca-hints-"));
after(() => rmSync(root, { recursive: true, force: true }));
const bin = join(CHECKOUT_ROOT, "bin", "tca.js");

test("localizedHints rewrites only the words 'tca ' before a command group", () => {
  const elsewhere = { cwd: root, script: bin, env: {} };
  assert.equal(
    localizedHints("the folder does not exist (tca bench quixbugs fetch-dataset downloads it)", elsewhere),
    `the folder does not exist (node ${bin} bench quixbugs fetch-dataset downloads it)`,
  );
  const npmRun = {
    cwd: CHECKOUT_ROOT,
    script: bin,
    env: { npm_lifecycle_event: "tca", npm_command: "run-script", INIT_CWD: CHECKOUT_ROOT },
  };
  assert.equal(localizedHints("run tca engine build", npmRun), "run npm run tca -- engine build");
  assert.equal(
    localizedHints("the tca harness; tca's grader; atca bench", elsewhere),
    "the tca harness; tca's grader; atca bench",
  );
});

test("a bench error's hint, run from a folder outside the checkout, names node and the checkout's bin/tca.js", async () => {
  // skip-rule: needs no sandbox: a missing data set is refused before the sandbox is prepared
  const r = await tca(
    ["bench", "quixbugs", "verify-dataset", "--dataset", join(root, "missing")],
    { ...process.env, XDG_CACHE_HOME: join(root, "cache") },
    root,
  );
  assert.equal(r.code, 1);
  assert.equal(
    r.err,
    `tca bench quixbugs verify-dataset: dataset_missing: the data set folder ${join(root, "missing")} does not exist (node ${bin} bench quixbugs fetch-dataset downloads it; --dataset chooses another)\n`,
  );
});
