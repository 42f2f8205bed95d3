// In-process interruptions (a hook throws) after the write-ahead intent: the outcome is uncertain,
// every further edit is refused until reconcile(), reconcile adopts a committed edit exactly once,
// and an edit reconciled as not committed is never retried.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { renderToyMathSource } from "../../src/expr/index.ts";
import type { EditStep, ReplaceRequest } from "../../src/workspace/index.ts";
import { freshRun, noGuard, picture } from "./workspaceFixture.ts";

const FIX_CLAMP: ReplaceRequest = { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 };
const FIXED_CLAMP_SOURCE = renderToyMathSource({ clamp: REPAIR_EXPRESSIONS.clamp, total: "unit + qty + fee" });

function throwingAt(step: EditStep) {
  let armed = true;
  return {
    [step]: () => {
      if (armed) {
        armed = false;
        throw new Error("injected interruption");
      }
    },
  };
}

for (const step of ["afterIntent", "afterTempWrite", "beforeRename"] as const) {
  test(`interrupted ${step}: edit_interrupted, refused until reconciled, then not committed and never retried`, async () => {
    const { ws, journal, cleanup } = await freshRun(throwingAt(step));
    try {
      const interrupted = await ws.replace(FIX_CLAMP, noGuard);
      assert.equal(!interrupted.ok && interrupted.error, "edit_interrupted");
      assert.equal(ws.hasUncertainEdit(), true);
      const pendingPicture = picture(ws);
      for (const request of [
        FIX_CLAMP,
        { function: "total" as const, old: "unit + qty + fee", new: "unit * qty + fee", version: 0 },
      ]) {
        const refused = await ws.replace(request, noGuard);
        assert.equal(!refused.ok && refused.error, "uncertain_edit");
      }
      const read = await ws.read("toy_math.py");
      assert.equal(!read.ok && read.error, "uncertain_edit");
      assert.equal((await ws.integrityCheck()).ok, false);
      assert.equal((await ws.snapshot()).ok, false);
      assert.deepEqual(picture(ws), pendingPicture, "refusals changed nothing");

      const reconciled = await ws.reconcile();
      assert.ok(reconciled.ok);
      assert.equal(reconciled.value.outcome, "not_committed");
      assert.equal(reconciled.value.state.version, 0);
      assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), INITIAL_TOY_MATH_PY);
      assert.equal(ws.hasUncertainEdit(), false);
      // The same edit again is refused: an uncertain write is never retried blindly.
      const repeat = await ws.replace(FIX_CLAMP, noGuard);
      assert.equal(!repeat.ok && repeat.error, "uncertain_edit");
      assert.deepEqual(picture(ws), pendingPicture);
      // A different edit is allowed and reuses the backup of version 0.
      const other = await ws.replace(
        { function: "total", old: "unit + qty + fee", new: REPAIR_EXPRESSIONS.total, version: 0 },
        noGuard,
      );
      assert.equal(other.ok && other.action === "replace" && other.status, "edit_committed");
      assert.deepEqual(picture(ws).backups, { "toy_math.v0.py": INITIAL_TOY_MATH_PY });
      assert.deepEqual(
        journal.records.map((r) => r.type),
        ["edit_intent", "edit_interrupted", "edit_reconciled", "edit_intent", "edit_committed"],
      );
      const second = await ws.reconcile();
      assert.ok(second.ok && second.value.outcome === "none_pending");
    } finally {
      cleanup();
    }
  });
}

test("interrupted after the rename: reconcile adopts the new version exactly once", async () => {
  const { ws, journal, cleanup } = await freshRun(throwingAt("afterRenameBeforeReceipt"));
  try {
    const interrupted = await ws.replace(FIX_CLAMP, noGuard);
    assert.equal(!interrupted.ok && interrupted.error, "edit_interrupted");
    assert.equal(interrupted.version, 0, "not adopted before reconciliation");
    const reconciled = await ws.reconcile();
    assert.ok(reconciled.ok);
    assert.equal(reconciled.value.outcome, "committed");
    assert.equal(reconciled.value.state.version, 1);
    assert.deepEqual(reconciled.value.state.expressions, {
      clamp: REPAIR_EXPRESSIONS.clamp,
      total: "unit + qty + fee",
    });
    const again = await ws.reconcile();
    assert.ok(again.ok && again.value.outcome === "none_pending" && again.value.state.version === 1);
    assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), FIXED_CLAMP_SOURCE);
    const repeat = await ws.replace(FIX_CLAMP, noGuard);
    assert.equal(!repeat.ok && repeat.error, "stale_version");
    assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent", "edit_interrupted", "edit_reconciled"],
    );
  } finally {
    cleanup();
  }
});

test("reconcile with bytes that are neither before nor after: workspace_conflict, still unresolved", async () => {
  const { ws, cleanup } = await freshRun(throwingAt("afterTempWrite"));
  try {
    assert.equal((await ws.replace(FIX_CLAMP, noGuard)).ok, false);
    const foreign = INITIAL_TOY_MATH_PY.replace("return x", "return lo");
    writeFileSync(path.join(ws.paths.workspace, "toy_math.py"), foreign);
    const reconciled = await ws.reconcile();
    assert.equal(!reconciled.ok && reconciled.error, "workspace_conflict");
    assert.equal(ws.hasUncertainEdit(), true);
    assert.equal(ws.state().version, 0);
    assert.equal(readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"), foreign, "reconcile never writes");
  } finally {
    cleanup();
  }
});
