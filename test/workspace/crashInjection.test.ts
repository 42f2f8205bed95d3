// Crash injection: the edit transaction runs in a child process that is SIGKILLed at each step
// (the hook announces the step and blocks; the test kills on that line, no sleeps). The test then
// reopens the run from its audit, reconciles, and checks that the file is exactly the old or the
// new bytes, the recorded state matches, nothing was written twice, and the uncertain edit is not
// repeated.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { renderToyMathSource } from "../../src/expr/index.ts";
import { readAuditFile } from "../../src/recording/auditLog.ts";
import { recoverRun, type EditStep, type ReplaceRequest } from "../../src/workspace/index.ts";
import { memoryJournal, noGuard, tempRoot } from "./workspaceFixture.ts";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "crashEditChild.mjs");
const NEW_SOURCE = renderToyMathSource({ clamp: REPAIR_EXPRESSIONS.clamp, total: "unit + qty + fee" });
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const FIX_CLAMP: ReplaceRequest = { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 };

interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
}

function runChild(runDirectory: string, step: EditStep | "none"): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, runDirectory, step], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes(`ready:${step}\n`)) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout }));
  });
}

interface Expectation {
  readonly pendingAfterCrash: boolean;
  readonly outcome: "none_pending" | "not_committed" | "committed";
  readonly tempFiles: number;
  readonly repeatCode: string | null;
}

const EXPECTED: Record<EditStep | "none", Expectation> = {
  afterBackup: { pendingAfterCrash: false, outcome: "none_pending", tempFiles: 0, repeatCode: null },
  afterIntent: { pendingAfterCrash: true, outcome: "not_committed", tempFiles: 0, repeatCode: "uncertain_edit" },
  afterTempWrite: { pendingAfterCrash: true, outcome: "not_committed", tempFiles: 1, repeatCode: "uncertain_edit" },
  beforeRename: { pendingAfterCrash: true, outcome: "not_committed", tempFiles: 1, repeatCode: "uncertain_edit" },
  afterRenameBeforeReceipt: {
    pendingAfterCrash: true,
    outcome: "committed",
    tempFiles: 0,
    repeatCode: "stale_version",
  },
  none: { pendingAfterCrash: false, outcome: "none_pending", tempFiles: 0, repeatCode: "stale_version" },
};

for (const [step, expected] of Object.entries(EXPECTED) as Array<[EditStep | "none", Expectation]>) {
  test(`SIGKILL ${step === "none" ? "never (control run)" : `at ${step}`}: reconcile gives exactly old or new bytes`, async () => {
    const { root, cleanup } = tempRoot();
    try {
      const run = path.join(root, "run");
      const exit = await runChild(run, step);
      if (step === "none") assert.equal(exit.code, 0, exit.stdout);
      else assert.equal(exit.signal, "SIGKILL", exit.stdout);

      const audit = readAuditFile(path.join(run, "audit.jsonl"));
      assert.ok(audit.ok, "the audit is well-formed after the kill");
      assert.equal(audit.log.tornTail, false);
      const types = audit.log.records.map((r) => r.type);
      assert.ok(
        audit.log.records.every((r) => r.run_id === "crash-test" && r.proposal === 3 && r.source === "scripted"),
      );
      assert.equal(
        types.filter((t) => t === "edit_intent").length,
        step === "afterBackup" ? 0 : 1,
        "at most one intent",
      );
      assert.ok(types.filter((t) => t === "edit_committed").length <= 1);

      const journal = memoryJournal();
      const recovered = await recoverRun({ runDirectory: run, records: audit.log.records, journal });
      assert.ok(recovered.ok);
      const ws = recovered.value;
      assert.equal(ws.hasUncertainEdit(), expected.pendingAfterCrash);

      const reconciled = await ws.reconcile();
      assert.ok(reconciled.ok);
      const committed = expected.outcome === "committed" || step === "none";
      assert.equal(reconciled.value.outcome, expected.outcome);
      const onDisk = readFileSync(path.join(run, "workspace", "toy_math.py"), "utf8");
      assert.equal(onDisk, committed ? NEW_SOURCE : INITIAL_TOY_MATH_PY, "exactly the old or exactly the new bytes");
      assert.equal(ws.state().version, committed ? 1 : 0);
      assert.equal(ws.state().sourceSha256, sha(onDisk), "the recorded state matches the bytes");
      assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
      // Reconciling again adopts nothing a second time.
      const again = await ws.reconcile();
      assert.ok(again.ok && again.value.outcome === "none_pending" && again.value.state.version === ws.state().version);

      // Nothing written twice: one backup with the old bytes, at most one temp file (evidence).
      assert.deepEqual(readdirSync(path.join(run, "backups")), ["toy_math.v0.py"]);
      assert.equal(readFileSync(path.join(run, "backups", "toy_math.v0.py"), "utf8"), INITIAL_TOY_MATH_PY);
      const temps = readdirSync(path.join(run, "workspace")).filter((name) => name.endsWith(".tmp"));
      assert.equal(temps.length, expected.tempFiles);
      for (const temp of temps) assert.equal(readFileSync(path.join(run, "workspace", temp), "utf8"), NEW_SOURCE);

      // The same edit again: refused when its outcome was uncertain, stale once committed,
      // and after a crash before any intent it simply commits, reusing the backup.
      const repeat = await ws.replace(FIX_CLAMP, noGuard);
      if (expected.repeatCode === null) {
        assert.equal(repeat.ok && repeat.action === "replace" && repeat.status, "edit_committed");
        assert.deepEqual(readdirSync(path.join(run, "backups")), ["toy_math.v0.py"]);
        assert.equal(readFileSync(path.join(run, "workspace", "toy_math.py"), "utf8"), NEW_SOURCE);
      } else {
        assert.equal(!repeat.ok && repeat.error, expected.repeatCode);
        assert.equal(readFileSync(path.join(run, "workspace", "toy_math.py"), "utf8"), onDisk);
        assert.equal(ws.state().version, committed ? 1 : 0);
        // A later process that replays the audit plus the reconciliation record refuses it too.
        const reopened = await recoverRun({
          runDirectory: run,
          records: [...audit.log.records, ...journal.records],
          journal: memoryJournal(),
        });
        assert.ok(reopened.ok && !reopened.value.hasUncertainEdit());
        const repeatAgain = await reopened.value.replace(FIX_CLAMP, noGuard);
        assert.equal(!repeatAgain.ok && repeatAgain.error, expected.repeatCode);
      }
    } finally {
      cleanup();
    }
  });
}
