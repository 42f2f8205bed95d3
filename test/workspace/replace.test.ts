// The replace transaction: committed receipts, the no_change no-op, and one test per rejection
// rule asserting the code and that source bytes, version, backups and the journal are unchanged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { EXPR_ERROR_CODES } from "../../src/expr/index.ts";
import { renderToyMathSource } from "../../src/expr/index.ts";
import { createRun, type Observation, type ReplaceRequest } from "../../src/workspace/index.ts";
import { freshRun, noGuard, picture } from "./workspaceFixture.ts";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const FIX_CLAMP: ReplaceRequest = { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 };
const FIX_TOTAL: ReplaceRequest = {
  function: "total",
  old: "unit + qty + fee",
  new: REPAIR_EXPRESSIONS.total,
  version: 1,
};

test("two committed edits: exact receipts, versions, bytes, backups and journal order", async () => {
  const { ws, journal, cleanup } = await freshRun();
  try {
    const first = await ws.replace(FIX_CLAMP, noGuard);
    const afterFirst = renderToyMathSource({ clamp: REPAIR_EXPRESSIONS.clamp, total: "unit + qty + fee" });
    assert.deepEqual(first, {
      ok: true,
      action: "replace",
      status: "edit_committed",
      function: "clamp",
      old_version: 0,
      version: 1,
      sha256: sha(afterFirst),
      expressions: { clamp: REPAIR_EXPRESSIONS.clamp, total: "unit + qty + fee" },
    });
    const second = await ws.replace(FIX_TOTAL, noGuard);
    const afterSecond = renderToyMathSource(REPAIR_EXPRESSIONS);
    assert.deepEqual(second, {
      ok: true,
      action: "replace",
      status: "edit_committed",
      function: "total",
      old_version: 1,
      version: 2,
      sha256: sha(afterSecond),
      expressions: { ...REPAIR_EXPRESSIONS },
    });
    const disk = picture(ws);
    assert.equal(disk.source, afterSecond);
    assert.deepEqual(disk.backups, { "toy_math.v0.py": INITIAL_TOY_MATH_PY, "toy_math.v1.py": afterFirst });
    assert.deepEqual(disk.workspaceEntries, ["TASK.txt", "toy_math.py"], "temp files were renamed into place");
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent", "edit_committed", "edit_intent", "edit_committed"],
    );
    const intent = journal.records[0]?.data as Record<string, unknown>;
    assert.equal(intent.before_sha256, sha(INITIAL_TOY_MATH_PY));
    assert.equal(intent.after_sha256, sha(afterFirst));
    assert.equal(intent.backup_file, "backups/toy_math.v0.py");
    assert.deepEqual(ws.state(), {
      version: 2,
      sourceSha256: sha(afterSecond),
      taskSha256: ws.state().taskSha256,
      expressions: { ...REPAIR_EXPRESSIONS },
    });
    assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
    const snapshot = await ws.snapshot();
    assert.ok(snapshot.ok && snapshot.value.version === 2 && snapshot.value.sha256 === sha(afterSecond));
  } finally {
    cleanup();
  }
});

test("an identical replacement is no_change: no backup, no temp file, no journal record, same version", async () => {
  const { ws, journal, cleanup } = await freshRun();
  try {
    const before = picture(ws);
    const same = await ws.replace(
      { function: "total", old: "unit + qty + fee", new: "unit + qty + fee", version: 0 },
      noGuard,
    );
    assert.deepEqual(same, {
      ok: true,
      action: "replace",
      status: "no_change",
      function: "total",
      old_version: 0,
      version: 0,
      sha256: sha(INITIAL_TOY_MATH_PY),
      expressions: { clamp: "x", total: "unit + qty + fee" },
    });
    assert.deepEqual(picture(ws), before);
    assert.deepEqual(journal.records, []);
    // Also after a committed edit: the backup set does not grow.
    assert.equal((await ws.replace(FIX_CLAMP, noGuard)).ok, true);
    const afterEdit = picture(ws);
    const again = await ws.replace(
      { function: "clamp", old: REPAIR_EXPRESSIONS.clamp, new: REPAIR_EXPRESSIONS.clamp, version: 1 },
      noGuard,
    );
    assert.equal(again.ok && again.action === "replace" && again.status, "no_change");
    assert.deepEqual(picture(ws), afterEdit);
  } finally {
    cleanup();
  }
});

/** Runs one refused replace and asserts the code and that nothing observable changed. */
async function assertRefused(
  request: ReplaceRequest,
  expected: string | ((code: string) => boolean),
  setup?: (ws: Awaited<ReturnType<typeof freshRun>>["ws"]) => Promise<void>,
): Promise<Observation> {
  const { ws, journal, root, cleanup } = await freshRun();
  try {
    if (setup) await setup(ws);
    const before = picture(ws);
    const journalBefore = journal.records.length;
    const observation = await ws.replace(request, noGuard);
    assert.equal(observation.ok, false);
    if (observation.ok) return observation;
    if (typeof expected === "string") assert.equal(observation.error, expected);
    else assert.ok(expected(observation.error), observation.error);
    assert.equal(observation.action, "replace");
    assert.equal(observation.version, before.version);
    assert.equal(typeof observation.message, "string");
    assert.ok(!JSON.stringify(observation).includes(root), "no host path");
    assert.deepEqual(Object.keys(observation).sort(), ["action", "error", "message", "ok", "version"]);
    assert.deepEqual(picture(ws), before, "source, version, backups and workspace entries unchanged");
    assert.equal(journal.records.length, journalBefore, "no journal record");
    return observation;
  } finally {
    cleanup();
  }
}

test("stale_version: a version ahead of or behind the current one", async () => {
  await assertRefused({ ...FIX_CLAMP, version: 1 }, "stale_version");
  await assertRefused({ ...FIX_TOTAL, version: 0 }, "stale_version", async (ws) => {
    assert.equal((await ws.replace(FIX_CLAMP, noGuard)).ok, true);
  });
});

test("old_expression_mismatch: old is not exactly the current expression", async () => {
  for (const old of ["x ", " x", "X", "lo", "unit + qty + fee"]) {
    await assertRefused({ ...FIX_CLAMP, old }, "old_expression_mismatch");
  }
});

test("unlisted_function: a name outside the literal pair (defence in depth)", async () => {
  await assertRefused({ ...FIX_CLAMP, function: "constructor" as "clamp" }, "unlisted_function");
  await assertRefused({ ...FIX_CLAMP, function: "__proto__" as "clamp" }, "unlisted_function");
});

test("an invalid new expression is refused with the expression language's own code", async () => {
  const cases: Array<[string, string]> = [
    ["abs(x)", "forbidden_call"],
    ["x.real", "forbidden_attribute"],
    ['__import__("os")', "forbidden_call"],
    ["x ** 2", "forbidden_power"],
    ["12345678", "integer_token_too_long"],
    [`${"(".repeat(17)}x${")".repeat(17)}`, "paren_nesting_too_deep"],
    ["lo if x < lo else abs(x)", "forbidden_call"],
    ["x\nimport os", "expression_multiline"],
    ["y", "unknown_name"],
  ];
  for (const [text, code] of cases) {
    const observation = await assertRefused({ ...FIX_CLAMP, new: text }, (c) =>
      (EXPR_ERROR_CODES as readonly string[]).includes(c),
    );
    assert.equal(!observation.ok && observation.error, code, text);
  }
});

test("cancellation or deadline at the commit guard: not committed, temp kept, backup holds the old bytes", async () => {
  for (const code of ["cancelled", "time_limit"] as const) {
    const { ws, journal, cleanup } = await freshRun();
    try {
      const observation = await ws.replace(FIX_CLAMP, { beforeCommit: () => code });
      assert.deepEqual(observation, {
        ok: false,
        action: "replace",
        error: code,
        version: 0,
        message:
          code === "cancelled"
            ? "the run was cancelled before the edit committed"
            : "the deadline expired before the edit committed",
      });
      const disk = picture(ws);
      assert.equal(disk.source, INITIAL_TOY_MATH_PY);
      assert.equal(disk.version, 0);
      assert.deepEqual(disk.backups, { "toy_math.v0.py": INITIAL_TOY_MATH_PY });
      assert.deepEqual(disk.workspaceEntries, [".toy_math.py.v1.1.tmp", "TASK.txt", "toy_math.py"]);
      assert.equal(statSync(path.join(ws.paths.workspace, ".toy_math.py.v1.1.tmp")).mode & 0o777, 0o600);
      assert.equal(statSync(path.join(ws.paths.backups, "toy_math.v0.py")).mode & 0o777, 0o600);
      assert.deepEqual(
        journal.records.map((r) => r.type),
        ["edit_intent", "edit_aborted"],
      );
      assert.equal(ws.hasUncertainEdit(), false);
      assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
      // A later attempt commits, reusing (not rewriting) the backup and taking a fresh temp name.
      const retry = await ws.replace(FIX_CLAMP, noGuard);
      assert.equal(retry.ok && retry.action === "replace" && retry.status, "edit_committed");
      const after = picture(ws);
      assert.deepEqual(after.backups, { "toy_math.v0.py": INITIAL_TOY_MATH_PY });
      assert.deepEqual(after.workspaceEntries, [".toy_math.py.v1.1.tmp", "TASK.txt", "toy_math.py"]);
      assert.equal(after.version, 1);
    } finally {
      cleanup();
    }
  }
});

test("the target changes after the temp write: the digest recheck refuses the rename", async () => {
  const external = INITIAL_TOY_MATH_PY.replace("return x", "return hi");
  const { ws, journal, cleanup } = await freshRun({
    afterTempWrite: () => writeFileSync(path.join(ws.paths.workspace, "toy_math.py"), external),
  });
  try {
    const observation = await ws.replace(FIX_CLAMP, noGuard);
    assert.equal(!observation.ok && observation.error, "workspace_conflict");
    assert.equal(observation.version, 0);
    assert.equal(
      readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"),
      external,
      "the external bytes were not overwritten",
    );
    assert.equal(ws.state().version, 0);
    assert.deepEqual(
      journal.records.map((r) => r.type),
      ["edit_intent", "edit_aborted"],
    );
  } finally {
    cleanup();
  }
});

test("a backup name already taken by other bytes: workspace_conflict before any intent", async () => {
  await assertRefused(FIX_CLAMP, "workspace_conflict", async (ws) => {
    writeFileSync(path.join(ws.paths.backups, "toy_math.v0.py"), "not the old bytes\n");
  });
});

test("a journal that cannot record the intent: workspace_io_error, nothing renamed", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const root = path.dirname(ws.paths.run);
    const created = await createRun({
      runDirectory: path.join(root, "run2"),
      journal: {
        append: () => {
          throw new Error("disk full");
        },
      },
    });
    assert.ok(created.ok);
    const observation = await created.value.replace(FIX_CLAMP, noGuard);
    assert.equal(!observation.ok && observation.error, "workspace_io_error");
    assert.equal(readFileSync(path.join(created.value.paths.workspace, "toy_math.py"), "utf8"), INITIAL_TOY_MATH_PY);
    assert.equal(created.value.state().version, 0);
  } finally {
    cleanup();
  }
});

test("concurrent calls are serialized: two racing edits from version 0 commit one and refuse the other", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const [a, b] = await Promise.all([ws.replace(FIX_CLAMP, noGuard), ws.replace(FIX_CLAMP, noGuard)]);
    assert.equal(a.ok && a.action === "replace" && a.status, "edit_committed");
    assert.equal(!b.ok && b.error, "stale_version");
    assert.deepEqual(picture(ws).backups, { "toy_math.v0.py": INITIAL_TOY_MATH_PY });
  } finally {
    cleanup();
  }
});
