// One writer per run folder (#35), with real processes: a `bench quixbugs run --resume` holds its
// folder while it waits on an endpoint that accepts and never answers (the preflight), and every
// other writer of that folder started meanwhile (a second run, verify-run, merge into it) is
// refused with run_folder_locked naming the holder, changing nothing. The holder stopped by Ctrl-C
// or SIGTERM releases the lock; one killed outright leaves a stale lock that the next writer takes
// over with a notice; another host's lock is refused; a run that fails before writing leaves no
// folder and no lock.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { RUN_FOLDER_LOCK_FILE } from "../../src/core/runFolderLock.ts";
import { sandboxTest } from "../support/systemPackages.ts";
import { tca, TCA_BIN } from "../support/tcaCli.ts";
import { MINI_DATASET_DIR } from "./benchFixtures.ts";
import { realBenchRun } from "../evidence/regradeRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-run-lock-"));
process.on("exit", () => rmSync(root, { recursive: true, force: true }));

let made: Promise<string> | null = null;
/** One real run on the mini data set, made once for the file (every test reads it or copies its state). */
const fixtureRun = (): Promise<string> => (made ??= realBenchRun(root, "run"));

/** Every file under the folder with its bytes' digest: what "changed nothing" is compared on. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const path = join(dir, name);
    if (statSync(path).isFile())
      out[relative(dir, path)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** An endpoint that accepts connections and never answers: the preflight waits, holding the lock. */
async function silentEndpoint(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const runArgs = (endpoint: string, out: string, resume = true): string[] => [
  "bench",
  "quixbugs",
  "run",
  "--endpoint",
  endpoint,
  "--model",
  "scripted",
  "--conditions",
  "A",
  "--programs",
  "gcd",
  "--dataset",
  MINI_DATASET_DIR,
  "--out",
  out,
  "--preflight-timeout",
  "120",
  "--jobs",
  "1",
  ...(resume ? ["--resume"] : []),
];

interface Holder {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A real `tca bench quixbugs run` child, returned once it is in the preflight (so it holds the lock). */
async function holdingRun(endpoint: string, out: string): Promise<Holder> {
  const child = spawn(process.execPath, [TCA_BIN, ...runArgs(endpoint, out)], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("checking the endpoint")) resolve();
    });
    void exited.then(() => reject(new Error(`the holder exited before its preflight: ${stderr}`)));
  });
  return { child, stderr: () => stderr, exited };
}

function lockOf(dir: string): { pid: number; host: string; command: string } {
  return JSON.parse(readFileSync(join(dir, RUN_FOLDER_LOCK_FILE), "utf8")) as {
    pid: number;
    host: string;
    command: string;
  };
}

sandboxTest(
  "while a run holds its folder, a second run, verify-run and merge into it are refused naming it, and change nothing; Ctrl-C releases it",
  async (t) => {
    const run = await fixtureRun();
    const endpoint = await silentEndpoint();
    t.after(() => endpoint.close());
    const before = snapshot(run);
    const holder = await holdingRun(endpoint.url, run);
    t.after(() => holder.child.kill("SIGKILL"));
    const lock = lockOf(run);
    assert.deepEqual(lock.pid, holder.child.pid);
    assert.equal(lock.host, hostname());
    assert.equal(lock.command, "bench quixbugs run");
    const held = snapshot(run);

    const second = await tca(runArgs(endpoint.url, run));
    const verify = await tca(["bench", "quixbugs", "verify-run", run, "--dataset", MINI_DATASET_DIR, "--jobs", "1"]);
    const merge = await tca(["bench", "quixbugs", "merge", "--out", run, run]);
    for (const [name, r, command] of [
      ["run", second, "bench quixbugs run"],
      ["verify-run", verify, "bench quixbugs verify-run"],
      ["merge", merge, "bench quixbugs merge"],
    ] as const) {
      assert.equal(r.code, 1, `${name}: ${r.err}`);
      assert.match(
        r.err,
        new RegExp(
          `(^|\\n)tca ${command}: run_folder_locked: ${run} is being written by pid ${holder.child.pid} on \\S+ \\(command: bench quixbugs run, since [0-9T:.Z-]+\\); one writer per run folder: wait for it to finish \\(or stop it: kill ${holder.child.pid}\\), then run again\\n$`,
        ),
        name,
      );
      assert.deepEqual(snapshot(run), held, `${name} changed nothing`);
    }

    holder.child.kill("SIGINT");
    const end = await holder.exited;
    assert.equal(end.code, 130, holder.stderr());
    assert.match(
      holder.stderr(),
      /tca bench quixbugs run: cancelled: stopped by Ctrl-C; nothing was written; run it again with: /,
    );
    assert.ok(!existsSync(join(run, RUN_FOLDER_LOCK_FILE)), "the lock is released");
    assert.deepEqual(snapshot(run), before);
  },
);

sandboxTest("a holder stopped by SIGTERM releases the lock (exit 143)", async (t) => {
  const run = await fixtureRun();
  const endpoint = await silentEndpoint();
  t.after(() => endpoint.close());
  const before = snapshot(run);
  const holder = await holdingRun(endpoint.url, run);
  t.after(() => holder.child.kill("SIGKILL"));
  assert.ok(existsSync(join(run, RUN_FOLDER_LOCK_FILE)));
  holder.child.kill("SIGTERM");
  assert.equal((await holder.exited).code, 143, holder.stderr());
  assert.match(holder.stderr(), /cancelled: stopped by SIGTERM; nothing was written/);
  assert.deepEqual(snapshot(run), before);
});

sandboxTest(
  "a holder killed outright leaves a stale lock: the next writer takes it over with a one-line notice, and releases it",
  async (t) => {
    const run = await fixtureRun();
    const endpoint = await silentEndpoint();
    t.after(() => endpoint.close());
    const holder = await holdingRun(endpoint.url, run);
    holder.child.kill("SIGKILL");
    await holder.exited;
    assert.equal(lockOf(run).pid, holder.child.pid, "SIGKILL leaves the lock behind");
    const verify = await tca(["bench", "quixbugs", "verify-run", run, "--dataset", MINI_DATASET_DIR, "--jobs", "1"]);
    assert.equal(verify.code, 0, verify.err);
    const notices = verify.err.split("\n").filter((line) => line.includes("took over"));
    assert.equal(notices.length, 1);
    assert.match(
      notices[0] ?? "",
      new RegExp(
        `^tca bench quixbugs verify-run: took over the writer's lock of ${run} left by pid ${holder.child.pid} on \\S+ \\(command: bench quixbugs run, since \\S+\\), which is no longer running$`,
      ),
    );
    assert.ok(existsSync(join(run, "verification.json")));
    assert.ok(!existsSync(join(run, RUN_FOLDER_LOCK_FILE)), "released at the end");
  },
);

sandboxTest("a lock from another host is refused until the user removes it; nothing is written", async () => {
  const run = await fixtureRun();
  const lockPath = join(run, RUN_FOLDER_LOCK_FILE);
  writeFileSync(
    lockPath,
    JSON.stringify({
      pid: 1,
      host: "node-17.cluster",
      command: "bench quixbugs run",
      startedAt: "2026-12-03T09:00:00Z",
      token: "t",
    }),
  );
  try {
    const before = snapshot(run);
    const verify = await tca(["bench", "quixbugs", "verify-run", run, "--dataset", MINI_DATASET_DIR, "--jobs", "1"]);
    assert.equal(verify.code, 1);
    assert.match(
      verify.err,
      /run_folder_locked: .* is being written by pid 1 on node-17\.cluster \(command: bench quixbugs run, since 2026-12-03T09:00:00Z\), another host, whose process cannot be checked from here; wait for it to finish, or if it is no longer running there, remove .*\/\.tca-writer\.lock and run again/,
    );
    assert.deepEqual(snapshot(run), before);
  } finally {
    rmSync(lockPath, { force: true });
  }
});

sandboxTest(
  "a run that fails before writing (nothing listens at the endpoint) leaves no folder and no lock",
  async () => {
    const parent = mkdtempSync(join(root, "fresh-"));
    const out = join(parent, "run");
    const r = await tca(runArgs("http://127.0.0.1:9/v1", out, false));
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /endpoint_unreachable/);
    assert.deepEqual(readdirSync(parent), [], "the folder made for the lock is gone again");
    // The same failure on an existing run: the run's files as they were, no lock left.
    const run = await fixtureRun();
    const before = snapshot(run);
    const resumed = await tca(runArgs("http://127.0.0.1:9/v1", run));
    assert.equal(resumed.code, 1, resumed.err);
    assert.deepEqual(snapshot(run), before);
  },
);
