// Per-run control groups: the caps that hold for a whole sandboxed run (every process it starts,
// and the tmpfs pages it writes), not per process. One group per run with a memory limit
// (memory + swap where swap is accounted) and a pids limit; cgroup v1 (separate memory and pids
// hierarchies) or v2 (one unified hierarchy), whichever this machine lets us write. Groups are
// created under this process's own group, so the caps nest inside whatever the host imposes.
// A group is named tca-<owner pid>-<owner start time>-<run id>: when an owner was SIGKILLed
// before it could remove its groups, the next start finds them (owner gone) and removes them.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type CgroupMechanism = "cgroup-v1" | "cgroup-v2" | "none";

export interface CgroupSupport {
  readonly mechanism: CgroupMechanism;
  /** Parent folders in which run groups are made (one per v1 controller; one for v2). */
  readonly memoryParent: string | undefined;
  readonly pidsParent: string | undefined;
  /**
   * Where the run's CPU time is read: v2, the run's own group (cpu.stat's usage_usec, present
   * in every v2 group); v1, a cpuacct hierarchy in which run groups are made (cpuacct.usage).
   * Undefined where neither is writable: the supervisor's /proc reading is then the meter.
   */
  readonly cpuParent?: string | undefined;
  /** Why no cgroup could be used, when mechanism is "none". */
  readonly reason?: string;
}

export interface RunCgroups {
  /** The folders whose cgroup.procs the run's first process joins. */
  readonly dirs: readonly string[];
  readonly memoryDir: string;
  readonly pidsDir: string;
  /** The file holding the run's CPU time (cpu.stat or cpuacct.usage), when one is kept. */
  readonly cpuFile: string | undefined;
  readonly mechanism: Exclude<CgroupMechanism, "none">;
}

export interface CgroupCaps {
  readonly memoryBytes: number;
  readonly maxProcesses: number;
}

const ROOT = "/sys/fs/cgroup";

/** This process's own group path for a v1 controller (or "" for v2), from /proc/self/cgroup. */
function ownGroup(controller: string | ""): string | undefined {
  try {
    for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, controllers, path] = line.split(":");
      if (controllers === undefined || path === undefined) continue;
      if (
        controller === "" ? controllers === "" && line.startsWith("0::") : controllers.split(",").includes(controller)
      )
        return path;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The start time of a process (field 22 of /proc/<pid>/stat), or undefined when it is gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

const OWNER = `${process.pid}-${processStartTime(process.pid) ?? "0"}`;

function probe(parent: string, files: Readonly<Record<string, string>>): boolean {
  const dir = join(parent, `tca-${OWNER}-probe${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    for (const [file, value] of Object.entries(files)) writeFileSync(join(dir, file), value);
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // Left for the next start's cleanup.
    }
  }
}

/** Which cgroup mechanism can cap memory and processes here (tried in order: v2, v1). */
export function detectCgroupSupport(): CgroupSupport {
  const v2Base = ownGroup("");
  if (v2Base !== undefined && existsSync(join(ROOT, "cgroup.controllers"))) {
    const parent = join(ROOT, v2Base);
    const enabled = readText(join(parent, "cgroup.subtree_control")).split(/\s+/);
    if (
      enabled.includes("memory") &&
      enabled.includes("pids") &&
      probe(parent, { "memory.max": String(64 << 20), "pids.max": "8" })
    ) {
      const cpu = existsSync(join(parent, "cpu.stat")) ? parent : undefined;
      return { mechanism: "cgroup-v2", memoryParent: parent, pidsParent: parent, cpuParent: cpu };
    }
  }
  const mem = ownGroup("memory");
  const pids = ownGroup("pids");
  if (mem !== undefined && pids !== undefined) {
    const memoryParent = join(ROOT, "memory", mem);
    const pidsParent = join(ROOT, "pids", pids);
    if (probe(memoryParent, { "memory.limit_in_bytes": String(64 << 20) }) && probe(pidsParent, { "pids.max": "8" })) {
      const acct = ownGroup("cpuacct");
      const cpuParent = acct === undefined ? undefined : v1CpuacctParent(acct);
      return { mechanism: "cgroup-v1", memoryParent, pidsParent, cpuParent };
    }
  }
  return {
    mechanism: "none",
    memoryParent: undefined,
    pidsParent: undefined,
    reason: "no writable memory and pids cgroup (v1 or v2) for this process",
  };
}

/** The v1 cpuacct folder (its own hierarchy, or shared with cpu as "cpu,cpuacct") where run groups can be made. */
function v1CpuacctParent(group: string): string | undefined {
  for (const mount of ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"]) {
    const parent = join(ROOT, mount, group);
    if (!existsSync(join(parent, "cpuacct.usage"))) continue;
    if (probe(parent, {})) return parent;
  }
  return undefined;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Creates the run's group(s) with the caps applied; undefined when a cap could not be set. */
export function createRunCgroups(support: CgroupSupport, runId: string, caps: CgroupCaps): RunCgroups | undefined {
  if (support.mechanism === "none" || !support.memoryParent || !support.pidsParent) return undefined;
  const name = `tca-${OWNER}-${runId}`;
  const memoryDir = join(support.memoryParent, name);
  const pidsDir = join(support.pidsParent, name);
  const cpuDir = support.cpuParent === undefined ? undefined : join(support.cpuParent, name);
  const made: string[] = [];
  try {
    for (const dir of new Set([memoryDir, pidsDir, ...(cpuDir ? [cpuDir] : [])])) {
      mkdirSync(dir);
      made.push(dir);
    }
    if (support.mechanism === "cgroup-v2") {
      writeFileSync(join(memoryDir, "memory.max"), String(caps.memoryBytes));
      if (existsSync(join(memoryDir, "memory.swap.max"))) writeFileSync(join(memoryDir, "memory.swap.max"), "0");
      writeFileSync(join(pidsDir, "pids.max"), String(caps.maxProcesses));
    } else {
      writeFileSync(join(memoryDir, "memory.limit_in_bytes"), String(caps.memoryBytes));
      if (existsSync(join(memoryDir, "memory.memsw.limit_in_bytes")))
        writeFileSync(join(memoryDir, "memory.memsw.limit_in_bytes"), String(caps.memoryBytes));
      writeFileSync(join(pidsDir, "pids.max"), String(caps.maxProcesses));
    }
    const cpuFile =
      cpuDir === undefined ? undefined : join(cpuDir, support.mechanism === "cgroup-v2" ? "cpu.stat" : "cpuacct.usage");
    return { dirs: made, memoryDir, pidsDir, cpuFile, mechanism: support.mechanism };
  } catch {
    for (const dir of made) removeGroupNow(dir);
    return undefined;
  }
}

function members(dir: string): number[] | undefined {
  try {
    return readFileSync(join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  } catch {
    return undefined;
  }
}

function removeGroupNow(dir: string): boolean {
  for (const pid of members(dir) ?? []) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return !existsSync(dir);
  }
}

/** Kills a group's members and removes it, waiting (bounded, synchronously) for them to die. */
function removeGroupPatiently(dir: string): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; attempt < 200; attempt++) {
    if (removeGroupNow(dir)) return true;
    Atomics.wait(pause, 0, 0, 10);
  }
  return false;
}

/**
 * CPU time, in microseconds, that every process of the run has used so far: the kernel's own
 * count for the group, so it includes exited processes, reaped or auto-reaped (SIGCHLD
 * ignored), threads and orphans alike, and cannot be stopped or fooled from inside. Undefined
 * when the run keeps no CPU file or it cannot be read.
 */
export function readCgroupCpuMicros(groups: RunCgroups | undefined): number | undefined {
  if (!groups?.cpuFile) return undefined;
  let text: string;
  try {
    text = readFileSync(groups.cpuFile, "utf8");
  } catch {
    return undefined;
  }
  if (groups.mechanism === "cgroup-v2") {
    const m = /^usage_usec (\d+)$/m.exec(text);
    return m ? Number(m[1]) : undefined;
  }
  const ns = Number(text.trim());
  return Number.isFinite(ns) && text.trim() !== "" ? Math.floor(ns / 1000) : undefined;
}

/** What the run's caps recorded: which limits were reached, and the memory peak. */
export interface CgroupReport {
  readonly limitsHit: readonly ("memory" | "pids")[];
  readonly peakMemoryBytes: number | null;
}

function counter(text: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

export function readCgroupReport(groups: RunCgroups): CgroupReport {
  const hit: ("memory" | "pids")[] = [];
  let peak: number | null;
  if (groups.mechanism === "cgroup-v2") {
    const events = readText(join(groups.memoryDir, "memory.events"));
    if (counter(events, "max") > 0 || counter(events, "oom_kill") > 0) hit.push("memory");
    const p = Number(readText(join(groups.memoryDir, "memory.peak")).trim());
    peak = Number.isFinite(p) && p > 0 ? p : null;
  } else {
    const oom = readText(join(groups.memoryDir, "memory.oom_control"));
    if (Number(readText(join(groups.memoryDir, "memory.failcnt")).trim()) > 0 || counter(oom, "oom_kill") > 0)
      hit.push("memory");
    const p = Number(readText(join(groups.memoryDir, "memory.max_usage_in_bytes")).trim());
    peak = Number.isFinite(p) && p > 0 ? p : null;
  }
  if (counter(readText(join(groups.pidsDir, "pids.events")), "max") > 0) hit.push("pids");
  return { limitsHit: hit, peakMemoryBytes: peak };
}

const DRAIN_PAUSE_MS = 10;
const DRAIN_BOUND_MS = 5_000;

/**
 * Empties and removes a run's groups. When bwrap exits, the PID namespace is torn down
 * asynchronously, so members can linger for a moment: kill whatever is left, wait until each
 * group is empty (bounded), then remove it. Resolving only afterwards also means no process of
 * the run outlives the run.
 */
export async function drainAndRemoveCgroups(groups: RunCgroups | undefined): Promise<void> {
  if (!groups) return;
  for (const dir of groups.dirs) {
    // One run in three to eight needed a retry here, and one a millisecond later sufficed
    // (issue #36): the first retries come sooner, then every DRAIN_PAUSE_MS, DRAIN_BOUND_MS in
    // all, as before.
    for (let attempt = 0, waited = 0; waited < DRAIN_BOUND_MS; attempt++) {
      if (removeGroupNow(dir)) break;
      const pause = Math.min(DRAIN_PAUSE_MS, 2 ** attempt);
      await new Promise((r) => setTimeout(r, pause));
      waited += pause;
    }
  }
}

/** Old-style groups carry no owner; only long-idle empty ones are surely abandoned. */
const LEGACY_GROUP_AGE_MS = 10 * 60_000;

function olderThan(dir: string, ms: number): boolean {
  try {
    return Date.now() - statSync(dir).mtimeMs > ms;
  } catch {
    return false;
  }
}

/**
 * Removes the groups of owners that no longer exist (a parent SIGKILLed mid-run), killing what
 * is left in them; also empty groups in the old tca-<run id> naming. Returns what it removed.
 */
export function cleanupStaleCgroups(support: CgroupSupport): string[] {
  const removed: string[] = [];
  const parents = new Set(
    [support.memoryParent, support.pidsParent, support.cpuParent, join(ROOT, "pids")].filter(
      (p): p is string => p !== undefined,
    ),
  );
  for (const parent of parents) {
    let entries: string[];
    try {
      entries = readdirSync(parent);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const owned = /^tca-(\d+)-(\d+)-/.exec(entry);
      const dir = join(parent, entry);
      if (owned) {
        if (processStartTime(Number(owned[1])) === owned[2]) continue; // its owner is alive
        if (removeGroupPatiently(dir)) removed.push(dir);
      } else if (
        /^tca-[0-9a-f]{16}$/.test(entry) &&
        (members(dir) ?? [1]).length === 0 &&
        olderThan(dir, LEGACY_GROUP_AGE_MS)
      ) {
        try {
          rmdirSync(dir);
          removed.push(dir);
        } catch {
          // In use after all.
        }
      }
    }
  }
  return removed;
}
