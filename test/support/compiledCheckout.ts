// A throwaway copy of the checkout (src/, bin/, the compile script, package.json, tsconfig.json,
// with node_modules and schemas linked) compiled into its own lib/ by scripts/compile.mjs
// --root. Tests of the compiled start-up use it, so they never rebuild or read the real lib/,
// which other work in the same tree may be rebuilding or leaving stale.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COMPILE = join(REPO_ROOT, "scripts", "compile.mjs");

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh copy (no lib/ yet). */
export function copyCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), "tca-compiled-"));
  cpSync(join(REPO_ROOT, "src"), join(root, "src"), { recursive: true });
  cpSync(join(REPO_ROOT, "bin"), join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "scripts"));
  cpSync(COMPILE, join(root, "scripts", "compile.mjs"));
  for (const name of ["package.json", "tsconfig.json"]) cpSync(join(REPO_ROOT, name), join(root, name));
  for (const name of ["node_modules", "schemas"]) symlinkSync(join(REPO_ROOT, name), join(root, name));
  return root;
}

/** Runs the project's compile step on `root` (into root/lib). */
export function compileCheckout(root: string): CliRun {
  const run = spawnSync(process.execPath, [COMPILE, "--root", root], { encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

export function removeCheckout(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

/** `node <root>/bin/tca.js …args` from root, start-up trace on; env adds to (or with "" clears) this process's. */
export function runTca(
  root: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CliRun> {
  return runNode(root, [join(root, "bin", "tca.js"), ...args], { TCA_STARTUP_TRACE: "1", TCA_NO_COMPILED: "", ...env });
}

/** Plain node (no tsx) on a file, from root. */
export function runNode(
  root: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export const BIN_ALONE_TRACE = "tca: start-up: bin/tca.js alone\n";
export const COMPILED_TRACE = "tca: start-up: compiled lib/\n";
export const tsxTrace = (reason: string): string => `tca: start-up: src/ through tsx (${reason})\n`;
