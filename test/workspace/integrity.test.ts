// The managed-file policy: every violation is workspace_conflict, for integrityCheck, read,
// replace and snapshot alike, and none of them adopts the changed bytes or moves the version.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  cpSync,
} from "node:fs";
import path from "node:path";
import { INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS, TASK_TXT } from "../../src/constants/labConstants.ts";
import type { RunWorkspace } from "../../src/workspace/index.ts";
import { freshRun, noGuard, picture } from "./workspaceFixture.ts";

test("reads return exactly the spec's fields and never advance the version", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const task = await ws.read("TASK.txt");
    assert.deepEqual(task, {
      ok: true,
      action: "read",
      file: "TASK.txt",
      version: 0,
      sha256: ws.state().taskSha256,
      content: TASK_TXT,
    });
    const source = await ws.read("toy_math.py");
    assert.deepEqual(source, {
      ok: true,
      action: "read",
      file: "toy_math.py",
      version: 0,
      sha256: ws.state().sourceSha256,
      content: INITIAL_TOY_MATH_PY,
      expressions: { clamp: "x", total: "unit + qty + fee" },
    });
    assert.equal(ws.state().version, 0);
  } finally {
    cleanup();
  }
});

test("a read of an unknown logical file is refused without touching disk", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    for (const name of ["../TASK.txt", "/etc/passwd", "./toy_math.py", "TOY_MATH.PY"]) {
      const observation = await ws.read(name as "TASK.txt");
      assert.deepEqual(observation, {
        ok: false,
        action: "read",
        error: "unknown_file",
        message: "only TASK.txt and toy_math.py can be read",
        version: 0,
      });
    }
  } finally {
    cleanup();
  }
});

type Tamper = (ws: RunWorkspace, root: string) => void;
const sourceOf = (ws: RunWorkspace) => path.join(ws.paths.workspace, "toy_math.py");
const taskOf = (ws: RunWorkspace) => path.join(ws.paths.workspace, "TASK.txt");

const TAMPERS: Record<string, Tamper> = {
  "source replaced by a symlink to identical bytes": (ws, root) => {
    writeFileSync(path.join(root, "elsewhere.py"), INITIAL_TOY_MATH_PY);
    unlinkSync(sourceOf(ws));
    symlinkSync(path.join(root, "elsewhere.py"), sourceOf(ws));
  },
  "task replaced by a symlink": (ws, root) => {
    writeFileSync(path.join(root, "task"), TASK_TXT);
    unlinkSync(taskOf(ws));
    symlinkSync(path.join(root, "task"), taskOf(ws));
  },
  "source hard-linked from outside": (ws, root) => linkSync(sourceOf(ws), path.join(root, "alias.py")),
  "task hard-linked from outside": (ws, root) => linkSync(taskOf(ws), path.join(root, "alias.txt")),
  "source replaced by a directory": (ws) => {
    unlinkSync(sourceOf(ws));
    mkdirSync(sourceOf(ws));
  },
  "source deleted": (ws) => unlinkSync(sourceOf(ws)),
  "source bytes changed": (ws) => appendFileSync(sourceOf(ws), "\n"),
  "task bytes changed": (ws) => writeFileSync(taskOf(ws), TASK_TXT.toUpperCase()),
  "workspace directory replaced by an identical copy": (ws) => {
    cpSync(ws.paths.workspace, `${ws.paths.workspace}.copy`, { recursive: true });
    renameSync(ws.paths.workspace, `${ws.paths.workspace}.old`);
    renameSync(`${ws.paths.workspace}.copy`, ws.paths.workspace);
  },
  "workspace directory replaced by a symlink to itself": (ws) => {
    renameSync(ws.paths.workspace, `${ws.paths.workspace}.real`);
    symlinkSync(`${ws.paths.workspace}.real`, ws.paths.workspace);
  },
};

for (const [name, tamper] of Object.entries(TAMPERS)) {
  test(`workspace_conflict: ${name}`, async () => {
    const { ws, root, cleanup } = await freshRun();
    try {
      assert.equal((await ws.read("toy_math.py")).ok, true);
      tamper(ws, root);
      const before = ws.state();
      const integrity = await ws.integrityCheck();
      assert.equal(integrity.ok ? "ok" : integrity.error, "workspace_conflict");
      for (const file of ["TASK.txt", "toy_math.py"] as const) {
        const read = await ws.read(file);
        assert.equal(read.ok, false);
        assert.equal(!read.ok && read.error, "workspace_conflict");
        assert.equal(read.version, 0);
        assert.ok(!JSON.stringify(read).includes(root), "no host path in the observation");
      }
      const replace = await ws.replace(
        { function: "total", old: "unit + qty + fee", new: REPAIR_EXPRESSIONS.total, version: 0 },
        noGuard,
      );
      assert.equal(!replace.ok && replace.error, "workspace_conflict");
      const snapshot = await ws.snapshot();
      assert.equal(!snapshot.ok && snapshot.error, "workspace_conflict");
      assert.deepEqual(ws.state(), before, "nothing adopted");
      assert.deepEqual(readdirSync(ws.paths.backups), [], "the refused replace wrote no backup");
    } finally {
      cleanup();
    }
  });
}

test("a file changed on disk between read and replace: workspace_conflict, nothing written", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    assert.equal((await ws.read("toy_math.py")).ok, true);
    const external = INITIAL_TOY_MATH_PY.replace("return x", "return lo");
    writeFileSync(sourceOf(ws), external);
    const before = picture(ws);
    const observation = await ws.replace(
      { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 },
      noGuard,
    );
    assert.equal(!observation.ok && observation.error, "workspace_conflict");
    assert.deepEqual(picture(ws), before);
    assert.deepEqual(before.backups, {});
    assert.equal(readFileSync(sourceOf(ws), "utf8"), external);
  } finally {
    cleanup();
  }
});

test("the final snapshot is integrity-checked and returns the parsed source", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const snapshot = await ws.snapshot();
    assert.ok(snapshot.ok);
    assert.equal(snapshot.value.version, 0);
    assert.equal(snapshot.value.sha256, ws.state().sourceSha256);
    assert.equal(snapshot.value.bytes.toString("utf8"), INITIAL_TOY_MATH_PY);
    assert.deepEqual(snapshot.value.source.expressions, { clamp: "x", total: "unit + qty + fee" });
  } finally {
    cleanup();
  }
});
