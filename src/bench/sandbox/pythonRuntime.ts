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
}

const PROBE =
  "import sys, json\n" +
  "import pytest\n" +
  "print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'version': sys.version.split()[0], 'pytest': pytest.__version__}))\n";

export function resolvePythonRuntime(command = "python3"): Result<PythonRuntime, BenchErrorCode> {
  const probe = spawnSync(command, ["-c", PROBE], { encoding: "utf8", timeout: 60_000 });
  if (probe.error || probe.status !== 0) {
    return err("python_unavailable", "python3 with pytest could not be started (is pytest installed?)");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(probe.stdout.trim().split("\n").pop() ?? "");
  } catch {
    return err("python_unavailable", "python3 gave an unreadable answer");
  }
  if (typeof parsed !== "object" || parsed === null) {
    return err("python_unavailable", "python3 gave an unreadable answer");
  }
  const rec = parsed as Record<string, unknown>;
  const { executable, prefix, base_prefix: basePrefix, version, pytest } = rec;
  if (
    typeof executable !== "string" ||
    typeof prefix !== "string" ||
    typeof basePrefix !== "string" ||
    typeof version !== "string" ||
    typeof pytest !== "string" ||
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
  return ok({ executable, prefix, version, pytestVersion: pytest });
}
