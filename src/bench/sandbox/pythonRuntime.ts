// The real Python interpreter behind whatever `python3` is on PATH (often a slow pyenv
// shim). Resolved once, on the host, so the sandbox can bind its prefix read-only and run
// the interpreter directly.
import { spawnSync } from "node:child_process";
import { isAbsolute } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";

export interface PythonRuntime {
  readonly executable: string;
  readonly prefix: string;
  readonly version: string;
  readonly pytestVersion: string;
  /**
   * The import path entries the site module adds (site-packages, and what its .pth files add),
   * under the prefix or /usr, in order: run_tests starts python with -S (no .pth imports, such as a
   * host's certifi hook, at every start) and appends these itself, where site would have put them.
   */
  readonly sitePaths: readonly string[];
}

const PROBE =
  "import sys, json\n" +
  "import pytest\n" +
  "print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'version': sys.version.split()[0], 'pytest': pytest.__version__, 'path': sys.path}))\n";
const NO_SITE_PROBE = "import sys, json\nprint(json.dumps(sys.path))\n";

function probeJson(command: string, args: readonly string[]): unknown {
  const probe = spawnSync(command, args, { encoding: "utf8", timeout: 60_000 });
  if (probe.error || probe.status !== 0) return undefined;
  try {
    return JSON.parse(probe.stdout.trim().split("\n").pop() ?? "");
  } catch {
    return null;
  }
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

export function resolvePythonRuntime(command = "python3"): Result<PythonRuntime, BenchErrorCode> {
  const parsed = probeJson(command, ["-c", PROBE]);
  if (parsed === undefined) {
    return err("python_unavailable", "python3 with pytest could not be started (is pytest installed?)");
  }
  const noSitePath = probeJson(command, ["-S", "-c", NO_SITE_PROBE]);
  if (typeof parsed !== "object" || parsed === null || !isStringArray(noSitePath)) {
    return err("python_unavailable", "python3 gave an unreadable answer");
  }
  const rec = parsed as Record<string, unknown>;
  const { executable, prefix, base_prefix: basePrefix, version, pytest, path } = rec;
  if (
    typeof executable !== "string" ||
    typeof prefix !== "string" ||
    typeof basePrefix !== "string" ||
    typeof version !== "string" ||
    typeof pytest !== "string" ||
    !isStringArray(path) ||
    !isAbsolute(executable) ||
    !isAbsolute(prefix)
  ) {
    return err("python_unavailable", "python3 gave an unreadable answer");
  }
  if (prefix !== basePrefix) {
    // A virtual environment: pytest lives in `prefix` while the standard library lives in
    // `base_prefix`; binding both would be needed. Keep the sandbox simple and refuse.
    return err("python_unavailable", "python3 is a virtual environment; point PATH at a plain interpreter with pytest");
  }
  // Only what the sandbox binds (the prefix, /usr) can be imported there.
  const visible = (p: string): boolean => p.startsWith(`${prefix}/`) || p.startsWith("/usr/");
  const sitePaths = path.filter((p) => !noSitePath.includes(p) && visible(p));
  return ok({ executable, prefix, version, pytestVersion: pytest, sitePaths });
}
