// One writer per run folder (src/core/runFolderLock.ts), in-process: a free folder is taken, a live
// holder refused, a stale one (its pid dead on this host) taken over, another host's refused, and
// anything else at the lock's name refused and left alone. The holder's facts are injected, so
// "alive", "dead" and "another host" are decided by the test, not by timing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  acquireRunFolderLock,
  pidAlive,
  readLockHolder,
  RUN_FOLDER_LOCK_FILE,
  THIS_PROCESS,
  type LockFacts,
  type LockHolder,
} from "../../src/core/runFolderLock.ts";

function folder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "tca-lock-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const facts = (over: Partial<LockFacts>): LockFacts => ({ ...THIS_PROCESS, ...over });

/** A lock file as another process would have left it. */
function plant(dir: string, holder: Omit<LockHolder, "token"> & { token?: string }): void {
  writeFileSync(join(dir, RUN_FOLDER_LOCK_FILE), JSON.stringify({ token: "planted", ...holder }));
}

/** A pid that was alive and is not any more: a child that exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  const pid = Number(child.stdout);
  assert.ok(pid > 0 && !pidAlive(pid));
  return pid;
}

test("a free folder is taken: the lock names pid, host, command and start; release removes it, and only once", (t) => {
  const dir = folder(t);
  const now = new Date("2026-12-03T12:00:00.000Z");
  const held = acquireRunFolderLock(dir, "bench quixbugs run", facts({ now: () => now }));
  assert.ok(held.ok);
  assert.equal(held.value.tookOverFrom, null);
  const found = readLockHolder(join(dir, RUN_FOLDER_LOCK_FILE));
  assert.equal(found.kind, "holder");
  if (found.kind !== "holder") return;
  assert.deepEqual(
    { pid: found.holder.pid, host: found.holder.host, command: found.holder.command, at: found.holder.startedAt },
    { pid: process.pid, host: THIS_PROCESS.host, command: "bench quixbugs run", at: now.toISOString() },
  );
  // Only the lock is left in the folder: the private name it was written under is gone.
  assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE]);
  held.value.release();
  assert.deepEqual(readdirSync(dir), []);
  // A second release does not remove a lock another writer took meanwhile.
  const next = acquireRunFolderLock(dir, "bench quixbugs verify-run");
  assert.ok(next.ok);
  held.value.release();
  assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE]);
  next.value.release();
});

test("a live holder on this host is refused: run_folder_locked names its pid, command and start, and what to do", (t) => {
  const dir = folder(t);
  plant(dir, { pid: 4242, host: THIS_PROCESS.host, command: "bench quixbugs run", startedAt: "2026-12-03T11:00:00Z" });
  const before = readFileSync(join(dir, RUN_FOLDER_LOCK_FILE), "utf8");
  const refused = acquireRunFolderLock(dir, "bench quixbugs verify-run", facts({ isAlive: (pid) => pid === 4242 }));
  assert.ok(!refused.ok);
  assert.equal(refused.error, "run_folder_locked");
  assert.match(refused.message, /pid 4242 on .* \(command: bench quixbugs run, since 2026-12-03T11:00:00Z\)/);
  assert.match(refused.message, /wait for it to finish \(or stop it: kill 4242\)/);
  assert.equal(readFileSync(join(dir, RUN_FOLDER_LOCK_FILE), "utf8"), before);
  assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE]);
});

test("a stale lock (its pid no longer alive on this host) is taken over and the old holder reported", (t) => {
  const dir = folder(t);
  const pid = deadPid();
  plant(dir, { pid, host: THIS_PROCESS.host, command: "bench quixbugs run", startedAt: "2026-12-03T10:00:00Z" });
  const held = acquireRunFolderLock(dir, "bench quixbugs run");
  assert.ok(held.ok, held.ok ? "" : held.message);
  assert.equal(held.value.tookOverFrom?.pid, pid);
  assert.equal(held.value.tookOverFrom?.token, "planted");
  const found = readLockHolder(join(dir, RUN_FOLDER_LOCK_FILE));
  assert.ok(found.kind === "holder" && found.holder.pid === process.pid);
  assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE]);
  held.value.release();
});

test("a lock naming this process's own pid that this process does not hold was left by an earlier process: stale", (t) => {
  const dir = folder(t);
  plant(dir, {
    pid: process.pid,
    host: THIS_PROCESS.host,
    command: "bench quixbugs run",
    startedAt: "2026-01-01T00:00:00Z",
  });
  const held = acquireRunFolderLock(dir, "bench quixbugs run");
  assert.ok(held.ok);
  assert.equal(held.value.tookOverFrom?.token, "planted");
  // While this process holds it, a second acquisition here is refused, never re-entered.
  const again = acquireRunFolderLock(dir, "bench quixbugs merge");
  assert.ok(!again.ok);
  assert.equal(again.error, "run_folder_locked");
  held.value.release();
});

test("a lock from another host is refused even when its pid is dead here: the user removes it", (t) => {
  const dir = folder(t);
  plant(dir, {
    pid: deadPid(),
    host: "node-17.cluster",
    command: "bench quixbugs run",
    startedAt: "2026-12-03T09:00:00Z",
  });
  const refused = acquireRunFolderLock(dir, "bench quixbugs run");
  assert.ok(!refused.ok);
  assert.equal(refused.error, "run_folder_locked");
  assert.match(refused.message, /on node-17\.cluster .*another host.*remove .*\.tca-writer\.lock and run again/);
  assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE]);
});

test("anything else at the lock's name is refused as run_lock_invalid and left as it was: text, a link, a folder, a FIFO", (t) => {
  const dir = folder(t);
  const lock = join(dir, RUN_FOLDER_LOCK_FILE);
  const cases: [string, () => void, RegExp][] = [
    ["text", () => writeFileSync(lock, "not json"), /its content is not a tca lock/],
    ["half a lock", () => writeFileSync(lock, '{"pid": 12'), /its content is not a tca lock/],
    [
      "a pid of 0",
      () => writeFileSync(lock, JSON.stringify({ pid: 0, host: "h", command: "c", startedAt: "s", token: "t" })),
      /not a tca lock/,
    ],
    ["a link", () => symlinkSync(join(dir, "elsewhere"), lock), /symbolic link/],
    ["a folder", () => mkdirSync(lock), /not a regular file/],
    ["a FIFO", () => spawnSync("mkfifo", [lock]), /not a regular file/],
    ["a large file", () => writeFileSync(lock, "x".repeat(5000)), /5000 bytes/],
  ];
  for (const [name, make, why] of cases) {
    rmSync(lock, { recursive: true, force: true });
    make();
    const refused = acquireRunFolderLock(dir, "bench quixbugs run");
    assert.ok(!refused.ok, name);
    assert.equal(refused.error, "run_lock_invalid", name);
    assert.match(refused.message, why, name);
    assert.deepEqual(readdirSync(dir), [RUN_FOLDER_LOCK_FILE], `${name}: nothing added or removed`);
  }
});

test("after a stale lock is taken over, the next contender judges the new holder: alive, so refused", (t) => {
  const dir = folder(t);
  plant(dir, {
    pid: deadPid(),
    host: THIS_PROCESS.host,
    command: "bench quixbugs run",
    startedAt: "2026-12-03T10:00:00Z",
  });
  // The second contender judges the lock only after the first has replaced it (its own pid is "alive").
  const first = acquireRunFolderLock(dir, "bench quixbugs run", facts({ pid: 1_000_001 }));
  assert.ok(first.ok);
  const second = acquireRunFolderLock(
    dir,
    "bench quixbugs run",
    facts({ pid: 1_000_002, isAlive: (pid) => pid === 1_000_001 }),
  );
  assert.ok(!second.ok);
  assert.match(second.message, /pid 1000001/);
  first.value.release();
  assert.deepEqual(readdirSync(dir), []);
});
