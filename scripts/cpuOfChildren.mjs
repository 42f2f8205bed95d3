// Wrapper used by `npm run test:durations`: runs one command as its child, waits for it, and
// writes on fd 3 the CPU time of the child and everything it started, then exits with the
// child's code.
//   node scripts/cpuOfChildren.mjs <command> [args...]
// The meter, best first:
//  - "cgroup": the wrapper makes a CPU accounting group of its own under the group it is in
//    (cgroup v1 cpuacct, or v2's unified hierarchy), moves itself into it, then starts the
//    child, so every descendant is charged to it wherever it is reparented. This is the only
//    meter that sees a sandbox's processes: bwrap runs them in a PID namespace whose init is
//    killed, not waited for, so they never reach anyone's cutime (makeTaskset: 17 CPU-s by
//    cutime against 65 by cgroup). The group is removed afterwards.
//  - "cutime": where no group can be made (no cgroup fs, not writable), the cutime and cstime of
//    /proc/self/stat: the descendants that were waited for, in 10 ms ticks. It undercounts
//    sandboxed runs; the table says which meter it used.
// TCA_DURATIONS_METER=cutime forces the fallback (its test uses it). Linux only (it reads /proc
// and /sys/fs/cgroup).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmdirSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: node scripts/cpuOfChildren.mjs <command> [args...]\n");
  process.exit(2);
}

/** This process's group path in one hierarchy ("" for v2's), or undefined. */
function ownGroup(controller) {
  try {
    for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, controllers, path] = line.split(":");
      if (controllers === undefined || path === undefined) continue;
      if (controller === "" ? controllers === "" : controllers.split(",").includes(controller)) return path;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Makes a group of our own and joins it; { dir, parent, kind } or undefined. */
function joinOwnGroup() {
  if (process.env.TCA_DURATIONS_METER === "cutime") return undefined;
  const name = `tca-durations-${process.pid}`;
  const candidates = [];
  const v1 = ownGroup("cpuacct");
  if (v1 !== undefined) {
    // v1 mounts cpuacct alone or co-mounted with cpu ("cpu,cpuacct"); try the usual mount points.
    for (const mount of ["/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpuacct,cpu"])
      candidates.push({ parent: join(mount, v1), kind: "v1" });
  }
  const v2 = ownGroup("");
  if (v2 !== undefined) {
    for (const mount of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"])
      candidates.push({ parent: join(mount, v2), kind: "v2" });
  }
  for (const { parent, kind } of candidates) {
    const statFile = kind === "v1" ? "cpuacct.usage_user" : "cpu.stat";
    const dir = join(parent, name);
    try {
      readFileSync(join(parent, statFile));
      mkdirSync(dir);
    } catch {
      continue;
    }
    try {
      readFileSync(join(dir, statFile));
      writeFileSync(join(dir, "cgroup.procs"), `${process.pid}\n`);
      return { dir, parent, kind };
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // left for the cgroup fs: an empty group holds nothing
      }
    }
  }
  return undefined;
}

/** Back to the parent group, so that the wrapper's own waiting is not charged to the child's. */
function leaveGroup(group) {
  try {
    writeFileSync(join(group.parent, "cgroup.procs"), `${process.pid}\n`);
  } catch {
    // still counted, then: a few milliseconds of this wrapper
  }
}

function removeGroup(group) {
  try {
    rmdirSync(group.dir);
  } catch {
    // a descendant still alive keeps the group; the figures are already read
  }
}

/** The group's counters as raw text; scripts/testDurationsReport.ts parses them. */
function readGroup(group) {
  const read = (name) => readFileSync(join(group.dir, name), "utf8");
  return group.kind === "v1"
    ? { kind: "v1", usageUser: read("cpuacct.usage_user"), usageSys: read("cpuacct.usage_sys") }
    : { kind: "v2", cpuStat: read("cpu.stat") };
}

const group = joinOwnGroup();
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
// The child joined the group when it was forked; its descendants inherit it.
if (group !== undefined) leaveGroup(group);
child.on("error", (error) => {
  process.stderr.write(`cpuOfChildren: ${error.message}\n`);
  if (group !== undefined) removeGroup(group);
  process.exit(127);
});
child.on("close", (code, signal) => {
  let report;
  if (group !== undefined) {
    report = { code, signal, meter: "cgroup", cgroup: readGroup(group) };
    removeGroup(group);
  } else report = { code, signal, meter: "cutime", stat: readFileSync("/proc/self/stat", "utf8") };
  writeSync(3, `${JSON.stringify(report)}\n`);
  process.exit(code ?? 1);
});
