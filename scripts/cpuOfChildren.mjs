// Wrapper used by `npm run test:durations`: runs one command as its child, waits for it, and
// writes on fd 3 the CPU time the kernel accounted to this process's reaped descendants (the
// cutime and cstime fields of /proc/self/stat: the child and every process it and its own
// descendants waited for, sandboxed Python runs included), then exits with the child's code.
//   node scripts/cpuOfChildren.mjs <command> [args...]
// Linux only (it reads /proc). A descendant that nobody waited for (orphaned to init) is not
// counted; times are in clock ticks (USER_HZ, 100 per second on Linux).
import { spawn } from "node:child_process";
import { readFileSync, writeSync } from "node:fs";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: node scripts/cpuOfChildren.mjs <command> [args...]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
child.on("error", (error) => {
  process.stderr.write(`cpuOfChildren: ${error.message}\n`);
  process.exit(127);
});
child.on("close", (code, signal) => {
  writeSync(3, `${JSON.stringify({ code, signal, stat: readFileSync("/proc/self/stat", "utf8") })}\n`);
  process.exit(code ?? 1);
});
