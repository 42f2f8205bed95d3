// Runs a program's QuixBugs tests (pytest) on given target bytes, in a fresh sandbox and a fresh
// read-only task folder each time: nothing a previous run (or the program under test) wrote
// survives. This is the model's run_tests feedback only: pytest shares a process with the
// program under test, which can therefore forge its verdict; the grade is the trusted grader's (../grading/).
// Only python_testcases/test_<p>.py is collected; the legacy *_test.py drivers are never there.
import type { QuixDataset, QuixProgram } from "../dataset/dataset.ts";
import { testFilePath } from "../dataset/dataset.ts";
import { runInSandbox, type SandboxConfig } from "../sandbox/sandbox.ts";
import { ISOLATED_PYTHON_FLAGS, pytestSiteDirs, type PythonRuntime } from "../sandbox/pythonRuntime.ts";
import { createTaskFolder } from "../dataset/taskFolder.ts";

export type TestOutcome = "passed" | "failed" | "timeout" | "error";

export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly skipped: number;
}

export interface TestRunResult {
  readonly outcome: TestOutcome;
  readonly counts: TestCounts;
  readonly seconds: number;
  /** CPU time of the whole run from its cgroup (null where the sandbox keeps no such count). */
  readonly cpuSeconds: number | null;
  readonly exitCode: number | null;
  /** The run's output with host paths replaced (safe to show a model). */
  readonly output: string;
  /** pytest's final summary line, when there is one. */
  readonly summary: string;
  readonly processGroupId: number;
  readonly runId: string;
}

export interface TestRunOptions {
  /** Include the slow knapsack case (--runslow). Off by default: it runs for over 9 minutes. */
  readonly includeSlow?: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * What `python -m pytest` runs, as -m runs it (pytest's __main__ through runpy's _run_code, at the
 * same stack depth: a candidate recursing to the limit must fail exactly as before; sys.path[0]
 * and sys.argv[0] as -m sets them), with the interpreter's garbage collector kept off pytest's own
 * objects: they are made permanent (gc.freeze) once pytest is imported, automatic collection
 * paused while it is (nothing of the candidate's runs then). Otherwise every full collection
 * re-walks all of them, five more at the end of the session (unraisableexception's cleanup):
 * about a third of a run's CPU (issue #36). The candidate's objects, created later, are collected
 * as before: gc stays on, with the same thresholds. Python starts as every sandboxed Python does
 * (ISOLATED_PYTHON_FLAGS: no `site`), and the bootstrap puts back the site-packages folder(s)
 * where `site` would have, at the end of sys.path; in the sandbox they hold pytest's own packages
 * alone (sandbox.ts): the file under test imports what the grade imports (the standard library;
 * numpy is not importable), plus pytest and its requirements, and pytest's output reads as before.
 */
export function pytestBootstrap(siteDirs: readonly string[]): string {
  return (
    `import gc, os, runpy, sys; sys.path[0] = os.getcwd(); sys.path.extend(${JSON.stringify(siteDirs)}); ` +
    "gc.disable(); import pytest; gc.freeze(); gc.enable(); " +
    "name, spec, code = runpy._get_module_details('pytest'); sys.argv[0] = spec.origin; " +
    "runpy._run_code(code, sys.modules['__main__'].__dict__, None, '__main__', spec)"
  );
}

/** Plugins that only act on options never passed here (junitxml, pastebin) are not loaded;
 * cacheprovider would write into the read-only folder. */
export function pytestArguments(python: PythonRuntime, program: string, includeSlow: boolean): string[] {
  const argv = [
    "python",
    ...ISOLATED_PYTHON_FLAGS,
    "-c",
    pytestBootstrap(pytestSiteDirs(python)),
    "-q",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:junitxml",
    "-p",
    "no:pastebin",
    "--tb=short",
    "--color=no",
    testFilePath(program),
  ];
  if (includeSlow) argv.push("--runslow");
  return argv;
}

const COUNT_WORDS: Record<string, keyof TestCounts> = {
  passed: "passed",
  failed: "failed",
  error: "errors",
  errors: "errors",
  skipped: "skipped",
};

export function parseSummary(output: string): { summary: string; counts: TestCounts } {
  const lines = output.trimEnd().split("\n");
  const summary = [...lines].reverse().find((l) => / in [0-9.]+s/.test(l)) ?? "";
  const counts = { passed: 0, failed: 0, errors: 0, skipped: 0 };
  for (const m of summary.matchAll(/(\d+) (passed|failed|errors?|skipped)/g)) {
    const key = COUNT_WORDS[m[2] ?? ""];
    if (key) counts[key] += Number(m[1]);
  }
  return { summary: summary.replace(/^=+\s*|\s*=+$/g, ""), counts };
}

/**
 * pytest's progress line(s) (-q: one character per test, then the share done, "......... [100%]"),
 * padding collapsed as the document's recorded run shows them; "" when the output has none.
 */
export function progressLine(output: string): string {
  return output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^[.sxXFEP]+\s+\[\s*\d+%\]$/.test(l))
    .map((l) => l.replace(/\s+\[/, " ["))
    .join(" ");
}

/** Replaces host paths that can appear in tracebacks (the Python prefix) with a placeholder. */
export function sanitizeOutput(text: string, config: SandboxConfig): string {
  return text.split(config.python.prefix).join("<python>");
}

export function classifyExit(exitCode: number | null, timedOut: boolean, counts: TestCounts): TestOutcome {
  if (timedOut) return "timeout";
  if (exitCode === 0 && counts.failed === 0 && counts.errors === 0 && counts.passed > 0) return "passed";
  // pytest: 1 = some tests failed; 2 = interrupted (collection error: import/syntax errors).
  if (exitCode === 1 && counts.errors === 0) return "failed";
  return "error";
}

export async function runProgramTests(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  targetContent: Buffer | string,
  options: TestRunOptions = {},
): Promise<TestRunResult> {
  const folder = createTaskFolder(dataset, program, targetContent);
  try {
    const run = await runInSandbox(config, {
      taskDir: folder.dir,
      argv: pytestArguments(config.python, program.name, options.includeSlow ?? false),
      pytest: true,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const output = sanitizeOutput(`${run.stdout}${run.stderr ? `\n${run.stderr}` : ""}`, config);
    const { summary, counts } = parseSummary(run.stdout);
    return {
      outcome: run.aborted ? "timeout" : classifyExit(run.exitCode, run.timedOut, counts),
      counts,
      seconds: run.elapsedMs / 1000,
      cpuSeconds: run.cpuSeconds,
      exitCode: run.exitCode,
      output,
      summary,
      processGroupId: run.processGroupId,
      runId: run.runId,
    };
  } finally {
    folder.remove();
  }
}
