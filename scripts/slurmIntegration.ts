// npm run test:slurm — the benchmark's shards on a real Slurm cluster of one node (not part of
// npm test: it installs packages and starts daemons). It installs slurm-wlm and munge with apt
// when they are missing (as root), writes a one-node slurm.conf into a temporary folder, starts
// munged, slurmctld and slurmd (each by its own PID, all stopped at the end, also on failure or
// Ctrl-C), serves the project's scripted model on 127.0.0.1, and then:
//   1. runs the mini data set's 20 tasks in one process (the reference);
//   2. submits examples/slurm/quixbugs-array.sbatch unchanged (4 array tasks, one shard each; the
//      ids --array=0-3 and TCA_SHARDS=4 as submit.sh gives them)
//      with the merge job after it (afterok), waits, and compares the merged run with the
//      reference task by task: it prints "identical" and the counts, or what differs;
//   3. submits the array again against a slow model, cancels array task 2 mid-run (scancel),
//      resubmits that one task (sbatch --array=2, the same file, so --resume), merges, and
//      compares again.
// Exit 0 only when both comparisons are identical. Everything is bounded in time (12 minutes);
// the temporary folder is removed at the end unless TCA_KEEP_SLURM_DIR=1.
//
// Process tracking: proctrack/linuxproc (a job's processes are found through their parent
// chain), task/none. proctrack/cgroup and task/cgroup would make slurmd manage cgroups of its
// own, which needs cgroup mounts set up for Slurm (cgroup.conf) and overlaps with the sandbox's
// per-run cgroups (src/bench/sandbox/sandboxCgroups.ts); with linuxproc the sandbox's groups are
// the only ones, created under whatever group the job runs in. A job's bubblewrap sandboxes die
// with it (--die-with-parent), which linuxproc's kill of the job's process tree relies on.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { freePort } from "./freePort.ts";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { startRoutedServer, type ScriptedServer, type ScriptedTurn } from "../test/bench/scriptedChatServer.ts";

const ROOT = resolve(import.meta.dirname, "..");
const TCA = join(ROOT, "bin/tca.js");
const MINI = join(ROOT, "test/fixtures/quixbugs-mini");
const ARRAY_SBATCH = join(ROOT, "examples/slurm/quixbugs-array.sbatch");
const MERGE_SBATCH = join(ROOT, "examples/slurm/quixbugs-merge.sbatch");
const DEADLINE = performance.now() + 12 * 60_000;
const SHARDS = 4;

function log(line: string): void {
  process.stderr.write(`[slurm] ${line}\n`);
}

function left(): number {
  return DEADLINE - performance.now();
}

const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));

function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: Math.max(1000, Math.min(left(), 300_000)),
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** A child process run without blocking this process's event loop, which serves the scripted model. */
function runAsync(command: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), Math.max(1000, left()));
    child.on("close", (code) => {
      clearTimeout(timer);
      ok({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}

const SLURM_TOOLS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"];

function missingTools(): string[] {
  return SLURM_TOOLS.filter((t) => run("sh", ["-c", `command -v ${t} || test -x /usr/sbin/${t}`]).code !== 0);
}

function ensurePackages(): void {
  if (missingTools().length === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error(`missing ${missingTools().join(", ")}: install them with sudo apt-get install slurm-wlm munge`);
  log("installing slurm-wlm and munge with apt (one time)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "--no-install-recommends", "slurm-wlm", "munge"],
  ]) {
    const r = run("apt-get", args, env);
    if (r.code !== 0)
      throw new Error(`apt-get ${args.join(" ")} failed: ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`);
  }
  if (missingTools().length > 0) throw new Error(`still missing after apt: ${missingTools().join(", ")}`);
}

/** The three daemons of a one-node cluster, owned by this process. */
class OneNodeCluster {
  readonly daemons: { name: string; child: ChildProcess }[] = [];
  readonly env: NodeJS.ProcessEnv;
  constructor(
    readonly dir: string,
    readonly conf: string,
  ) {
    this.env = { ...process.env, SLURM_CONF: conf };
  }

  static async create(dir: string): Promise<OneNodeCluster> {
    for (const sub of ["munge", "state", "spool", "log"]) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
    const key = join(dir, "munge", "munge.key");
    writeFileSync(key, randomBytes(1024), { mode: 0o400 });
    chmodSync(join(dir, "munge"), 0o711); // munged wants its socket's folder searchable by all
    const [ctldPort, dPort] = [await freePort(), await freePort()];
    const node = hostname().split(".")[0] ?? "localhost";
    const cpus = Math.max(1, Number(run("nproc", []).stdout.trim()) || 1);
    const conf = join(dir, "slurm.conf");
    writeFileSync(
      conf,
      [
        "ClusterName=tcatest",
        `SlurmctldHost=${node}`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${dPort}`,
        "AuthType=auth/munge",
        "CredType=cred/munge",
        `AuthInfo=socket=${join(dir, "munge", "munge.sock")}`,
        "SlurmUser=root",
        "SlurmdUser=root",
        `StateSaveLocation=${join(dir, "state")}`,
        `SlurmdSpoolDir=${join(dir, "spool")}`,
        `SlurmctldPidFile=${join(dir, "slurmctld.pid")}`,
        `SlurmdPidFile=${join(dir, "slurmd.pid")}`,
        `SlurmctldLogFile=${join(dir, "log", "slurmctld.log")}`,
        `SlurmdLogFile=${join(dir, "log", "slurmd.log")}`,
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "SchedulerType=sched/backfill",
        "MpiDefault=none",
        "ReturnToService=2",
        // Keep finished jobs visible to scontrol for the whole test (no accounting database here).
        "MinJobAge=3600",
        "KillWait=5",
        "JobCompType=jobcomp/none",
        "AccountingStorageType=accounting_storage/none",
        "JobAcctGatherType=jobacct_gather/none",
        `NodeName=${node} CPUs=${cpus} State=UNKNOWN`,
        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
        "",
      ].join("\n"),
    );
    const cluster = new OneNodeCluster(dir, conf);
    cluster.start("munged", "munged", [
      "-F",
      "-f",
      `--key-file=${key}`,
      `--socket=${join(dir, "munge", "munge.sock")}`,
      `--pid-file=${join(dir, "munge", "munged.pid")}`,
      `--seed-file=${join(dir, "munge", "seed")}`,
      `--log-file=${join(dir, "log", "munged.log")}`,
    ]);
    await sleep(1000);
    cluster.start("slurmctld", "slurmctld", ["-D", "-f", conf]);
    await sleep(1000);
    cluster.start("slurmd", "slurmd", ["-D", "-f", conf]);
    await cluster.waitIdle();
    return cluster;
  }

  private start(name: string, command: string, args: readonly string[]): void {
    const out = join(this.dir, "log", `${name}.out`);
    const child = spawn(command, args, { env: this.env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.stderr?.on("data", (c: Buffer) => chunks.push(c));
    child.on("exit", () => writeFileSync(out, Buffer.concat(chunks)));
    this.daemons.push({ name, child });
    log(`started ${name} (pid ${child.pid})`);
  }

  private async waitIdle(): Promise<void> {
    const until = performance.now() + 60_000;
    while (performance.now() < until) {
      for (const d of this.daemons)
        if (d.child.exitCode !== null)
          throw new Error(`${d.name} exited with ${d.child.exitCode}; see ${join(this.dir, "log")}`);
      const r = run("sinfo", ["-h", "-o", "%T"], this.env);
      if (r.code === 0 && r.stdout.trim() === "idle") return;
      await sleep(500);
    }
    throw new Error("the node did not become idle in 60 s");
  }

  sbatch(args: readonly string[], extraEnv: Readonly<Record<string, string>>): string {
    const r = run("sbatch", ["--parsable", ...args], { ...this.env, ...extraEnv });
    if (r.code !== 0) throw new Error(`sbatch ${args.join(" ")}: ${r.stderr.trim()}`);
    return r.stdout.trim().split(";")[0] ?? "";
  }

  /** JobState of every job (array elements one by one) whose id is or starts with `jobId`. */
  states(jobId: string): Map<string, string> {
    const r = run("scontrol", ["-o", "show", "job", jobId], this.env);
    const states = new Map<string, string>();
    for (const line of r.stdout.split("\n")) {
      const id = /\bJobId=(\d+)/.exec(line)?.[1];
      const arrayJob = /\bArrayJobId=(\d+)/.exec(line)?.[1];
      const task = /\bArrayTaskId=(\S+)/.exec(line)?.[1];
      const state = /\bJobState=(\S+)/.exec(line)?.[1];
      if (!id || !state) continue;
      states.set(arrayJob && task ? `${arrayJob}_${task}` : id, state);
    }
    return states;
  }

  async waitEnded(jobIds: readonly string[], what: string): Promise<Map<string, string>> {
    const active = new Set(["PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"]);
    while (left() > 0) {
      const all = new Map(jobIds.flatMap((id) => [...this.states(id)]));
      const pendingForever =
        [...all].filter(([, s]) => s === "PENDING").length > 0 &&
        run("squeue", ["-h", "-o", "%r", "-j", jobIds.join(",")], this.env).stdout.includes("DependencyNeverSatisfied");
      if (pendingForever) throw new Error(`${what}: a dependency can never be satisfied: ${JSON.stringify([...all])}`);
      if (all.size > 0 && [...all.values()].every((s) => !active.has(s))) return all;
      await sleep(1000);
    }
    throw new Error(`${what}: not finished before the test's deadline`);
  }

  async stop(): Promise<void> {
    run("scancel", ["--full", "--user=root"], this.env);
    const until = performance.now() + 20_000;
    while (performance.now() < until && run("squeue", ["-h"], this.env).stdout.trim() !== "") await sleep(500);
    for (const d of [...this.daemons].reverse()) {
      if (d.child.exitCode !== null || d.child.signalCode !== null) continue;
      d.child.kill("SIGTERM");
      const gone = await Promise.race([
        new Promise<boolean>((ok) => d.child.once("exit", () => ok(true))),
        sleep(10_000).then(() => false),
      ]);
      if (!gone) d.child.kill("SIGKILL");
      log(`stopped ${d.name}`);
    }
  }
}

/** The scripted model: a fix for three programs, a wrong edit for the rest; the same answer for the same request, in any process. */
function scriptedModel(): (body: Record<string, unknown>) => ScriptedTurn {
  const FIXED = new Set(["gcd", "pascal", "bitcount"]);
  return (body) => {
    const messages = body.messages as { role: string; content?: string | null }[];
    const text = messages.map((m) => m.content ?? "").join("\n");
    const program = /python_programs\/([A-Za-z_]+)\.py/.exec(text)?.[1];
    // The preflight's connection check names no program.
    if (program === undefined || !existsSync(join(MINI, "python_programs", `${program}.py`))) return { content: "OK" };
    const fixed = readFileSync(join(MINI, "correct_python_programs", `${program}.py`), "utf8");
    const buggy = readFileSync(join(MINI, "python_programs", `${program}.py`), "utf8");
    const answer = FIXED.has(program) ? fixed : `${buggy}\n# an edit that fixes nothing\n`;
    if (!Array.isArray(body.tools)) return { content: "```python\n" + answer + "```" };
    const tools = (body.tools as { function?: { name?: string } }[]).map((t) => t.function?.name);
    const turn = messages.filter((m) => m.role === "assistant").length;
    if (turn === 0)
      return {
        toolCalls: [{ name: "write_file", arguments: { path: `python_programs/${program}.py`, content: answer } }],
      };
    if (turn === 1 && tools.includes("run_tests")) return { toolCalls: [{ name: "run_tests", arguments: {} }] };
    return { content: "Done: the function is fixed." };
  };
}

/** The last lines of every job's output, for a failure message. */
function tail(folder: string): string {
  if (!existsSync(folder)) return "(none)";
  return readdirSync(folder)
    .sort()
    .map((name) => `${name}: ${readFileSync(join(folder, name), "utf8").trim().split("\n").slice(-2).join(" / ")}`)
    .join(" | ");
}

/** Whole lines in a run folder's tasks.ndjson (0 when it has none yet). */
function recordedTasks(runDir: string): number {
  const path = join(runDir, "tasks.ndjson");
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "").length
    : 0;
}

interface Outcome {
  readonly outcome: string;
  readonly stopReason: string;
  readonly claimedFixed: boolean;
  readonly finalSha256: string;
  readonly grade: string;
}

/** taskId → what the task came to (the latest record of each task). */
function outcomes(runDir: string): Map<string, Outcome> {
  const map = new Map<string, Outcome>();
  for (const line of readFileSync(join(runDir, "tasks.ndjson"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const r = JSON.parse(line) as {
      taskId: string;
      outcome: string;
      stopReason: string;
      claimedFixed: boolean;
      finalSha256: string;
      grade: { outcome: string };
    };
    map.set(r.taskId, {
      outcome: r.outcome,
      stopReason: r.stopReason,
      claimedFixed: r.claimedFixed,
      finalSha256: r.finalSha256,
      grade: r.grade.outcome,
    });
  }
  return map;
}

function compare(reference: Map<string, Outcome>, other: Map<string, Outcome>, what: string): boolean {
  const ids = [...new Set([...reference.keys(), ...other.keys()])].sort();
  const differing = ids.filter((id) => JSON.stringify(reference.get(id)) !== JSON.stringify(other.get(id)));
  const counts = new Map<string, number>();
  for (const o of other.values()) counts.set(o.outcome, (counts.get(o.outcome) ?? 0) + 1);
  const countText = [...counts]
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  if (differing.length === 0 && other.size === reference.size) {
    console.log(`${what}: identical, task by task (${other.size} tasks: ${countText})`);
    return true;
  }
  console.log(
    `${what}: DIFFERENT in ${differing.length} of ${ids.length} tasks (${other.size} merged, ${reference.size} in the single run)`,
  );
  for (const id of differing)
    console.log(`  ${id}: single ${JSON.stringify(reference.get(id))} · slurm ${JSON.stringify(other.get(id))}`);
  return false;
}

function jobEnv(server: ScriptedServer, out: string): Record<string, string> {
  return {
    TCA_ENDPOINT: server.endpoint,
    TCA_MODEL: "scripted-model-v1",
    TCA_OUT: out,
    TCA_DATASET: MINI,
    TCA_CONDITIONS: "A,B,C,D",
    TCA_CHECKOUT: ROOT,
    // The one place the shard count is set (examples/slurm/submit.sh): the array's ids come from it too.
    TCA_SHARDS: String(SHARDS),
  };
}

/** The array's ids, as submit.sh gives them on sbatch's command line (the file has no #SBATCH --array). */
const ARRAY_IDS = `--array=0-${SHARDS - 1}`;

// The node has as many CPUs as this machine (2 here); the example asks 4 per task, so the test
// submits it with 1 (a command-line option overrides the file's #SBATCH line) and the array
// tasks share the node two at a time.
const SMALL = ["--cpus-per-task=1", "--time=00:15:00"];

async function main(): Promise<number> {
  ensurePackages();
  const dir = mkdtempSync(join(tmpdir(), "tca-slurm-"));
  let cluster: OneNodeCluster | undefined;
  const servers: ScriptedServer[] = [];
  const cleanup = async (): Promise<void> => {
    if (cluster) await cluster.stop();
    for (const s of servers) await s.close();
    if (process.env.TCA_KEEP_SLURM_DIR === "1") log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (): void => {
    log("interrupted: stopping the cluster");
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // A bug in this script must not leave daemons behind: kill them synchronously on the way out.
  process.once("uncaughtException", (e) => {
    console.error(`[slurm] FAILED (uncaught): ${e.message}`);
    for (const d of cluster?.daemons ?? []) d.child.kill("SIGKILL");
    process.exit(1);
  });
  try {
    cluster = await OneNodeCluster.create(join(dir, "cluster"));
    const server = await startRoutedServer(scriptedModel());
    servers.push(server);
    const runs = join(dir, "runs");
    mkdirSync(runs, { mode: 0o700 });

    let t = performance.now();
    const single = await runAsync(process.execPath, [
      TCA,
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      server.endpoint,
      "--model",
      "scripted-model-v1",
      "--dataset",
      MINI,
      "--conditions",
      "A,B,C,D",
      "--jobs",
      "2",
      "--out",
      join(runs, "single"),
      "--json",
    ]);
    if (single.code !== 0)
      throw new Error(
        `the single-process run failed (exit ${single.code}): ${`${single.stderr}${single.stdout}`.trim().split("\n").slice(-3).join(" / ")}`,
      );
    const reference = outcomes(join(runs, "single"));
    log(`single-process run: ${reference.size} tasks in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    t = performance.now();
    // Job output goes to the temporary folder, not the checkout the jobs start in.
    const outputs = join(dir, "job-output");
    mkdirSync(outputs);
    const arrayOut = `--output=${join(outputs, "array-%A_%a.out")}`;
    const mergeOut = `--output=${join(outputs, "merge-%j.out")}`;
    const array = cluster.sbatch([...SMALL, arrayOut, ARRAY_IDS, ARRAY_SBATCH], jobEnv(server, join(runs, "array")));
    const merge = cluster.sbatch(
      [mergeOut, "--dependency=afterok:" + array, MERGE_SBATCH],
      jobEnv(server, join(runs, "array")),
    );
    log(`submitted array job ${array} (${SHARDS} tasks) and merge job ${merge} after it`);
    const states = await cluster.waitEnded([array, merge], "array and merge");
    log(
      `array and merge: ${[...states].map(([id, s]) => `${id} ${s}`).join(", ")} in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    if ([...states.values()].some((s) => s !== "COMPLETED"))
      throw new Error(
        `a job did not complete: ${[...states].map(([id, st]) => `${id} ${st}`).join(", ")}; job output: ${tail(outputs)}`,
      );
    const first = compare(reference, outcomes(join(runs, "array", "merged")), "array of 4, merged");
    const shardRecord = JSON.parse(readFileSync(join(runs, "array", "shard-3-of-4", "run.json"), "utf8")) as {
      shard: unknown;
    };
    if (JSON.stringify(shardRecord.shard) !== JSON.stringify({ index: 3, count: 4, from: "slurm" }))
      throw new Error(`shard 3's run.json says ${JSON.stringify(shardRecord.shard)}`);

    // Again, with a slow model, and array task 2 (shard 3 of 4) cancelled in the middle of its run.
    const slow = await startRoutedServer(scriptedModel(), { responseDelayMs: 1500 });
    servers.push(slow);
    const out2 = join(runs, "cancelled");
    const array2 = cluster.sbatch([...SMALL, arrayOut, ARRAY_IDS, ARRAY_SBATCH], jobEnv(slow, out2));
    const shard3 = join(out2, "shard-3-of-4");
    while (left() > 0) {
      const state = cluster.states(array2).get(`${array2}_2`);
      // Cancelled once it has recorded a task, so the resume must both keep that one and redo the rest.
      if (state === "RUNNING" && recordedTasks(shard3) >= 1) break;
      if (state !== undefined && state !== "PENDING" && state !== "RUNNING")
        throw new Error(`array task 2 ended (${state}) before it could be cancelled`);
      await sleep(500);
    }
    const cancel = run("scancel", [`${array2}_2`], cluster.env);
    if (cancel.code !== 0) throw new Error(`scancel: ${cancel.stderr.trim()}`);
    const states2 = await cluster.waitEnded([array2], "the array with one task cancelled");
    const finishedBefore = recordedTasks(shard3);
    log(
      `cancelled array: ${[...states2].map(([id, s]) => `${id} ${s}`).join(", ")}; shard 3 had ${finishedBefore} of 5 tasks recorded`,
    );
    if (states2.get(`${array2}_2`) !== "CANCELLED")
      throw new Error(`array task 2 is ${states2.get(`${array2}_2`)}, not CANCELLED`);
    if (finishedBefore >= 5)
      throw new Error("shard 3 finished before the cancel took effect; the resume was not exercised");
    const again = cluster.sbatch([...SMALL, arrayOut, "--array=2", ARRAY_SBATCH], jobEnv(slow, out2));
    const merge2 = cluster.sbatch([mergeOut, "--dependency=afterok:" + again, MERGE_SBATCH], jobEnv(slow, out2));
    log(`resubmitted array task 2 as job ${again} (--resume), merge job ${merge2} after it`);
    const states3 = await cluster.waitEnded([again, merge2], "resubmitted task and merge");
    if ([...states3.values()].some((s) => s !== "COMPLETED"))
      throw new Error(`after the resubmission: ${JSON.stringify([...states3])}; job output: ${tail(outputs)}`);
    const shard3Lines = recordedTasks(shard3);
    if (shard3Lines !== 5)
      throw new Error(
        `shard 3 holds ${shard3Lines} task records after the resume, not 5 (a task lost or counted twice)`,
      );
    const second = compare(
      reference,
      outcomes(join(out2, "merged")),
      "array with task 2 cancelled and resumed, merged",
    );
    return first && second ? 0 : 1;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`[slurm] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
