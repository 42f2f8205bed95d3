import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { INITIAL_TOY_MATH_PY, TASK_TXT } from "../../src/constants/labConstants.ts";
import { createRun } from "../../src/workspace/index.ts";
import { memoryJournal, tempRoot } from "./workspaceFixture.ts";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

test("a fresh run has the spec layout, exact bytes, version 0 and both digests", async () => {
  const { root, cleanup } = tempRoot();
  try {
    const run = path.join(root, "run");
    const created = await createRun({ runDirectory: run, journal: memoryJournal() });
    assert.ok(created.ok);
    const ws = created.value;
    assert.deepEqual(ws.paths, { run, workspace: path.join(run, "workspace"), backups: path.join(run, "backups") });
    assert.deepEqual(readdirSync(run).sort(), ["backups", "workspace"]);
    assert.deepEqual(readdirSync(path.join(run, "workspace")).sort(), ["TASK.txt", "toy_math.py"]);
    assert.deepEqual(readdirSync(path.join(run, "backups")), []);
    assert.equal(readFileSync(path.join(run, "workspace", "TASK.txt"), "utf8"), TASK_TXT);
    assert.equal(readFileSync(path.join(run, "workspace", "toy_math.py"), "utf8"), INITIAL_TOY_MATH_PY);
    assert.deepEqual(ws.state(), {
      version: 0,
      sourceSha256: sha(INITIAL_TOY_MATH_PY),
      taskSha256: sha(TASK_TXT),
      expressions: { clamp: "x", total: "unit + qty + fee" },
    });
    assert.deepEqual(await ws.integrityCheck(), { ok: true, value: undefined });
  } finally {
    cleanup();
  }
});

test("directories are 0700 and files 0600 regardless of umask", async () => {
  const { root, cleanup } = tempRoot();
  const previous = process.umask(0o000);
  try {
    const run = path.join(root, "run");
    const created = await createRun({ runDirectory: run, journal: memoryJournal() });
    assert.ok(created.ok);
    for (const dir of [run, path.join(run, "workspace"), path.join(run, "backups")]) {
      assert.equal(statSync(dir).mode & 0o777, 0o700, dir);
    }
    for (const file of ["TASK.txt", "toy_math.py"]) {
      assert.equal(statSync(path.join(run, "workspace", file)).mode & 0o777, 0o600, file);
    }
  } finally {
    process.umask(previous);
    cleanup();
  }
});

test("the journal factory receives the run paths once the directory exists", async () => {
  const { root, cleanup } = tempRoot();
  try {
    let seen: string | null = null;
    const created = await createRun({
      runDirectory: path.join(root, "run"),
      journal: (paths) => {
        seen = readdirSync(paths.run).sort().join(",");
        return memoryJournal();
      },
    });
    assert.ok(created.ok);
    assert.equal(seen, "backups,workspace");
  } finally {
    cleanup();
  }
});

async function refusal(runDirectory: string): Promise<string> {
  const created = await createRun({ runDirectory, journal: memoryJournal() });
  assert.equal(created.ok, false);
  return created.ok ? "" : created.error;
}

test("exclusive creation refuses unsafe destinations and creates nothing", async (t) => {
  const { root, cleanup } = tempRoot();
  t.after(cleanup);

  await t.test("relative path", async () => {
    assert.equal(await refusal("relative/run"), "run_path_not_absolute");
  });
  await t.test("non-normal path", async () => {
    assert.equal(await refusal(`${root}/a/../run`), "run_path_unsafe");
    assert.equal(await refusal(`${root}/run/`), "run_path_unsafe");
    assert.equal(await refusal("/"), "run_path_unsafe");
  });
  await t.test("existing destination (directory, file, dangling symlink)", async () => {
    mkdirSync(path.join(root, "dir"));
    writeFileSync(path.join(root, "file"), "x");
    symlinkSync(path.join(root, "nowhere"), path.join(root, "dangling"));
    for (const name of ["dir", "file", "dangling"]) {
      assert.equal(await refusal(path.join(root, name)), "run_destination_exists", name);
    }
    assert.deepEqual(readdirSync(path.join(root, "dir")), []);
  });
  await t.test("missing parent, parent a file, parent a symlink", async () => {
    assert.equal(await refusal(path.join(root, "missing", "run")), "run_parent_invalid");
    writeFileSync(path.join(root, "plain"), "x");
    assert.equal(await refusal(path.join(root, "plain", "run")), "run_parent_invalid");
    mkdirSync(path.join(root, "real"));
    symlinkSync(path.join(root, "real"), path.join(root, "link"));
    assert.equal(await refusal(path.join(root, "link", "run")), "run_parent_invalid");
    assert.deepEqual(readdirSync(path.join(root, "real")), []);
  });
  await t.test("inside a git repository (directory or worktree file, at any depth)", async () => {
    mkdirSync(path.join(root, "repo", ".git"), { recursive: true });
    mkdirSync(path.join(root, "repo", "deep", "er"), { recursive: true });
    assert.equal(await refusal(path.join(root, "repo", "run")), "run_inside_repository");
    assert.equal(await refusal(path.join(root, "repo", "deep", "er", "run")), "run_inside_repository");
    mkdirSync(path.join(root, "worktree"));
    writeFileSync(path.join(root, "worktree", ".git"), "gitdir: elsewhere\n");
    assert.equal(await refusal(path.join(root, "worktree", "run")), "run_inside_repository");
    assert.deepEqual(readdirSync(path.join(root, "repo", "deep", "er")), []);
  });
  await t.test("inside another run (its top, its workspace, its backups)", async () => {
    const outer = path.join(root, "outer");
    assert.ok((await createRun({ runDirectory: outer, journal: memoryJournal() })).ok);
    assert.equal(await refusal(path.join(outer, "nested")), "run_inside_run");
    assert.equal(await refusal(path.join(outer, "workspace", "nested")), "run_inside_run");
    assert.equal(await refusal(path.join(outer, "backups", "nested")), "run_inside_run");
    assert.deepEqual(readdirSync(path.join(outer, "backups")), []);
  });
  await t.test("the same destination twice: the second is refused", async () => {
    const run = path.join(root, "twice");
    assert.ok((await createRun({ runDirectory: run, journal: memoryJournal() })).ok);
    assert.equal(await refusal(run), "run_destination_exists");
  });
});
