// The last steps of the replace transaction: the digest recheck runs before the commit guard, the
// guard's answer is the one that counts (a cancellation arriving during the recheck stops the
// rename), and a journal failure after the commit is adopted surfaces as an exception (the
// controller's harness_error), never as an uncertain edit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { renderToyMathSource } from "../../src/expr/index.ts";
import { createRun, type CommitGuard, type ReplaceRequest } from "../../src/workspace/index.ts";
import type { EditJournal } from "../../src/workspace/editJournal.ts";
import { freshRun, memoryJournal, picture, tempRoot } from "./workspaceFixture.ts";

const FIX_CLAMP: ReplaceRequest = { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 };
const FIXED_CLAMP_SOURCE = renderToyMathSource({ clamp: REPAIR_EXPRESSIONS.clamp, total: "unit + qty + fee" });

/** A guard that answers `cancelled` once `cancel()` has been called, and logs when it is asked. */
function switchableGuard(log: string[]): CommitGuard & { cancel(): void } {
  let cancelled = false;
  return {
    cancel: () => {
      cancelled = true;
    },
    beforeCommit: () => {
      log.push(cancelled ? "guard:cancelled" : "guard:proceed");
      return cancelled ? "cancelled" : null;
    },
  };
}

test("cancellation that arrives while the digest is rechecked: the guard sees it, nothing is renamed", async () => {
  const log: string[] = [];
  const guard = switchableGuard(log);
  let flippedBeforeRecheckEnded = false;
  const { ws, journal, cleanup } = await freshRun({
    afterTempWrite: () => {
      log.push("afterTempWrite");
      // Fires on the next turn of the event loop, i.e. while the recheck waits for its first file
      // read (the recheck is the next step and does real I/O). No timer, no sleeping.
      setImmediate(() => {
        log.push("cancel");
        guard.cancel();
      });
    },
    beforeRename: () => {
      flippedBeforeRecheckEnded = log.includes("cancel");
      log.push("beforeRename");
    },
  });
  try {
    const before = picture(ws);
    const observation = await ws.replace(FIX_CLAMP, guard);
    assert.ok(flippedBeforeRecheckEnded, `the cancellation landed during the recheck (${log.join(", ")})`);
    assert.deepEqual(log, ["afterTempWrite", "cancel", "beforeRename", "guard:cancelled"]);
    assert.equal(!observation.ok && observation.error, "cancelled");
    assert.equal(observation.version, 0);
    const after = picture(ws);
    assert.equal(after.source, INITIAL_TOY_MATH_PY);
    assert.equal(after.version, 0);
    assert.deepEqual(
      after.backups,
      { ...before.backups, "toy_math.v0.py": INITIAL_TOY_MATH_PY },
      "only the prepared backup",
    );
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent", "edit_aborted"],
    );
    assert.equal(ws.hasUncertainEdit(), false);
  } finally {
    cleanup();
  }
});

test("cancellation after the recheck but before the guard (beforeRename hook): not committed", async () => {
  for (const code of ["cancelled", "time_limit"] as const) {
    let expired = false;
    const { ws, journal, cleanup } = await freshRun({
      beforeRename: () => {
        expired = true;
      },
    });
    try {
      const observation = await ws.replace(FIX_CLAMP, { beforeCommit: () => (expired ? code : null) });
      assert.equal(!observation.ok && observation.error, code);
      assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), INITIAL_TOY_MATH_PY);
      assert.equal(ws.state().version, 0);
      assert.deepEqual(
        journal.records.map((r) => r.type),
        ["edit_intent", "edit_aborted"],
      );
    } finally {
      cleanup();
    }
  }
});

test("the recheck comes first: a changed target is a conflict and the guard is never asked", async () => {
  const log: string[] = [];
  const external = INITIAL_TOY_MATH_PY.replace("return x", "return hi");
  const { ws, journal, cleanup } = await freshRun({
    afterTempWrite: () => writeFileSync(path.join(ws.paths.workspace, "toy_math.py"), external),
  });
  try {
    const observation = await ws.replace(FIX_CLAMP, switchableGuard(log));
    assert.equal(!observation.ok && observation.error, "workspace_conflict");
    assert.deepEqual(log, []);
    assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), external);
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent", "edit_aborted"],
    );
  } finally {
    cleanup();
  }
});

test("a guard that lets the edit through is asked exactly once, after the recheck and the hook", async () => {
  const log: string[] = [];
  const { ws, cleanup } = await freshRun({
    afterTempWrite: () => {
      log.push("afterTempWrite");
    },
    beforeRename: () => {
      log.push("beforeRename");
    },
  });
  try {
    const observation = await ws.replace(FIX_CLAMP, switchableGuard(log));
    assert.equal(observation.ok && observation.action === "replace" && observation.status, "edit_committed");
    assert.deepEqual(log, ["afterTempWrite", "beforeRename", "guard:proceed"]);
  } finally {
    cleanup();
  }
});

test("the journal fails to record a committed edit: an exception (harness error), not edit_interrupted", async () => {
  const { root, cleanup } = tempRoot();
  const journal = memoryJournal();
  const failing: EditJournal = {
    append(type, payload) {
      if (type === "edit_committed") throw new Error("disk full");
      return journal.append(type, payload);
    },
  };
  try {
    const created = await createRun({ runDirectory: path.join(root, "run"), journal: failing });
    assert.ok(created.ok);
    const ws = created.value;
    await assert.rejects(ws.replace(FIX_CLAMP, { beforeCommit: () => null }), /disk full/);
    // The edit did commit and was adopted: no uncertain edit, no edit_interrupted record.
    assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), FIXED_CLAMP_SOURCE);
    assert.equal(ws.state().version, 1);
    assert.equal(ws.hasUncertainEdit(), false);
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent"],
    );
    assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
    // The workspace stays usable and consistent with the adopted state.
    const reconciled = await ws.reconcile();
    assert.ok(reconciled.ok && reconciled.value.outcome === "none_pending" && reconciled.value.state.version === 1);
    const stale = await ws.replace(FIX_CLAMP, { beforeCommit: () => null });
    assert.equal(!stale.ok && stale.error, "stale_version");
  } finally {
    cleanup();
  }
});
