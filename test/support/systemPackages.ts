// System packages a fresh machine may lack: bubblewrap (the benchmark's sandbox), python3's
// pytest (the sandboxed test runs) and Chromium (the report tests). They follow the rule of the
// resources beside the checkout (optionalResources.ts): absent -> the test is reported by node's
// test runner as skipped, with what is missing and the command that installs it (never failed,
// never passed). CI sets TCA_REQUIRE_SYSTEM=1: then an absent package is not a skip but a
// failing test, as TCA_REQUIRE_SHARED=1 does for the resources.
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test, type TestContext, type TestOptions } from "node:test";
import type { Result } from "../../src/core/result.ts";
import type { BenchErrorCode } from "../../src/bench/errorCodes.ts";
import { resolvePythonRuntime, type PythonRuntime } from "../../src/bench/sandbox/pythonRuntime.ts";

let hostPython: Result<PythonRuntime, BenchErrorCode> | undefined;

/**
 * python3 as resolvePythonRuntime finds it, probed once per test process (issue #36): the skip
 * rule below and benchSetup (benchFixtures.ts) both need it, and each probe is a Python start
 * through the PATH's python3 (a pyenv shim here) of about 0.13 CPU-s. Held in memory only; a
 * test that wants a fresh probe calls resolvePythonRuntime itself.
 */
export function hostPythonRuntime(): Result<PythonRuntime, BenchErrorCode> {
  hostPython ??= resolvePythonRuntime();
  return hostPython;
}

export function requireSystem(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TCA_REQUIRE_SYSTEM === "1";
}

/** What a test needs from the system: `skip` is the reason (for node:test's `skip` option) or false. */
export interface SystemRequirement {
  readonly skip: string | false;
}

function onPath(name: string, pathVariable: string | undefined): boolean {
  return (pathVariable ?? "").split(delimiter).some((dir) => {
    if (dir === "") return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function requirement(missing: readonly string[], env: NodeJS.ProcessEnv): SystemRequirement {
  if (missing.length === 0 || requireSystem(env)) return { skip: false };
  return { skip: `${missing.join("; ")} (CI sets TCA_REQUIRE_SYSTEM=1 to fail instead)` };
}

/** Whether each package is present, as a reason line per absent one. Pure over env and the probes. */
export function missingPackages(
  wanted: readonly SystemPackage[],
  env: NodeJS.ProcessEnv,
  probes: { pytest: () => boolean; chromium: (path: string) => boolean } = {
    pytest: () => hostPythonRuntime().ok,
    chromium: existsSync,
  },
): string[] {
  const missing: string[] = [];
  for (const name of wanted) {
    if (name === "bubblewrap" && !onPath("bwrap", env.PATH))
      missing.push("bubblewrap (bwrap) is not on PATH: apt-get install -y bubblewrap");
    if (name === "pytest" && !probes.pytest())
      missing.push("python3 with pytest is not available: apt-get install -y python3-pytest (or pip install pytest)");
    if (name === "chromium") {
      const path = env.TCA_CHROMIUM ?? "/usr/bin/chromium";
      if (!probes.chromium(path))
        missing.push(
          `Chromium not found at ${path}: apt-get install -y --no-install-recommends chromium (or set TCA_CHROMIUM)`,
        );
    }
  }
  return missing;
}

type SystemPackage = "bubblewrap" | "pytest" | "chromium";
const cached = new Map<string, SystemRequirement>();

/** The packages' requirement, probed once per test file for the real environment. */
export function systemPackages(
  names: readonly SystemPackage[],
  env: NodeJS.ProcessEnv = process.env,
): SystemRequirement {
  if (env !== process.env) return requirement(missingPackages(names, env), env);
  const key = names.join(",");
  const known = cached.get(key);
  if (known !== undefined) return known;
  const found = requirement(missingPackages(names, env), env);
  cached.set(key, found);
  return found;
}

/** The benchmark's sandbox: bubblewrap and python3 with pytest. */
export function sandboxPackages(env: NodeJS.ProcessEnv = process.env): SystemRequirement {
  return systemPackages(["bubblewrap", "pytest"], env);
}

/** The report tests' browser. */
export function chromiumPackage(env: NodeJS.ProcessEnv = process.env): SystemRequirement {
  return systemPackages(["chromium"], env);
}

/** A bench report in the browser: Chromium and the sandbox that produces the run. */
export function chromiumAndSandbox(env: NodeJS.ProcessEnv = process.env): SystemRequirement {
  return systemPackages(["chromium", "bubblewrap", "pytest"], env);
}

type Body = (t: TestContext) => void | Promise<void>;

/**
 * node:test's `test`, skipped with the requirement's reason when a package is absent. A file
 * whose every test needs the packages imports this as its `test`; a mixed file passes
 * `{ skip: sandboxPackages().skip }` to the tests that need them.
 */
export function testNeeding(needs: () => SystemRequirement): {
  (name: string, body: Body): Promise<void>;
  (name: string, options: TestOptions, body: Body): Promise<void>;
} {
  function gated(name: string, optionsOrBody: TestOptions | Body, maybeBody?: Body): Promise<void> {
    const options = typeof optionsOrBody === "function" ? {} : optionsOrBody;
    const body = typeof optionsOrBody === "function" ? optionsOrBody : maybeBody;
    const skip = needs().skip;
    return test(name, skip === false ? options : { ...options, skip }, body);
  }
  return gated;
}

/** `test` for the benchmark's sandboxed tests. */
export const sandboxTest = testNeeding(sandboxPackages);
/** `test` for the browser tests. */
export const browserTest = testNeeding(chromiumPackage);
