// The checkout's own CLI (bin/tca.js) run as a child process, as a user runs it: its exit code
// and both output streams. One helper for the CLI tests instead of a copy in each file.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** The checkout's bin/tca.js, by absolute path. */
export const TCA_BIN = TCA;

/** Runs `tca ARGS` (env: the child's whole environment; default this process's; cwd: default this process's). */
export function tca(args: readonly string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TCA, ...args],
      { maxBuffer: 16 * 1024 * 1024, ...(env ? { env } : {}), ...(cwd !== undefined ? { cwd } : {}) },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, out: stdout, err: stderr });
      },
    );
  });
}
