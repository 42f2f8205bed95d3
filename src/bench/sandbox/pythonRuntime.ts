// The real Python interpreter behind whatever `python3` is on PATH (often a slow pyenv
// shim). Resolved once, on the host, so the sandbox can bind its prefix read-only and run
// the interpreter directly.
import { spawnSync } from "node:child_process";
import { basename, dirname, isAbsolute } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";

export interface PythonRuntime {
  readonly executable: string;
  readonly prefix: string;
  readonly version: string;
  readonly pytestVersion: string;
  /**
   * Host paths of what pytest itself imports from outside the standard library: the top-level
   * packages, modules and metadata folders of pytest's distribution and of those it requires
   * (pluggy, iniconfig, packaging, pygments here), and nothing else of site-packages. In the
   * sandbox, the folders holding them are masked (pytestSiteDirs) and a pytest run gets exactly
   * these bound back, so the model's run_tests imports what the grade imports (no numpy) and
   * pytest still runs.
   */
  readonly pytestPaths: readonly string[];
}

/**
 * How every Python in the sandbox starts: `-B` no bytecode files, `-s` no user site, `-S` no
 * `site` module, so no site-packages on sys.path: only the standard library is importable (and,
 * for a pytest run, pytest's own packages: pytestPaths). The grade and run_tests alike.
 */
export const ISOLATED_PYTHON_FLAGS: readonly string[] = ["-B", "-s", "-S"];

// pytest's distributions by their files (RECORD; top_level.txt where a packager left RECORD
// out), following its requirements whose markers hold here, extras left out. pytest itself is
// not imported (issue #36): `import pytest` (pygments, email, ast, ...) cost more CPU than the
// rest of the probe, in every process that prepares a sandbox, only to read a version that the
// distribution's metadata holds too. What the import established is checked from the files
// instead, as the sandbox sees them: it binds these paths alone (sandbox.ts), so a requirement
// with no distribution here (nothing of it bound) is refused, as the import refused it, and
// pytest's own package must be found in the folders a sandboxed pytest run has on sys.path
// (testRunner.ts) and lie among the bound paths. Each distribution's Requires-Python must hold
// for this interpreter (what an install on an older Python would break at import); whether
// pytest's code runs here is otherwise first proved by a sandboxed pytest run (the sandbox
// self-test does not start pytest).
const PROBE = `import sys, json, os, re
import importlib.metadata as md
from importlib.machinery import PathFinder
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
here = '%d.%d.%d' % sys.version_info[:3]
paths, seen, todo, missing, version = set(), set(), ['pytest'], [], None
while todo:
    name = todo.pop()
    key = re.sub(r'[-_.]+', '-', name).lower()
    if key in seen:
        continue
    seen.add(key)
    try:
        d = md.distribution(name)
    except md.PackageNotFoundError:
        missing.append(name)
        continue
    if key == 'pytest':
        version = d.version
    needs = d.metadata.get('Requires-Python')
    if needs and not SpecifierSet(needs).contains(here, prereleases=True):
        sys.exit(name + ' ' + d.version + ' requires Python ' + needs + ', this is ' + here)
    tops = set()
    for f in d.files or []:
        if (len(f.parts) > 1 or f.parts[0].endswith('.py')) and f.parts[0] not in ('..', '__pycache__', 'bin'):
            tops.add(f.parts[0])
    if not d.files:
        tops.update((d.read_text('top_level.txt') or '').split())
    for t in tops:
        for c in (t, t + '.py'):
            full = os.path.realpath(str(d.locate_file(c)))
            if os.path.exists(full):
                paths.add(full)
    for r in d.requires or []:
        req = Requirement(r)
        if req.marker is None or req.marker.evaluate({'extra': ''}):
            todo.append(req.name)
if missing:
    sys.exit('not installed: ' + ', '.join(sorted(missing)))
spec = PathFinder.find_spec('pytest', sorted({os.path.dirname(p) for p in paths}))
origin = os.path.realpath(spec.origin) if spec is not None and spec.origin else ''
if not any(origin.startswith(p + os.sep) for p in paths):
    sys.exit("pytest's package is not among its distribution's files")
print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'version': sys.version.split()[0], 'pytest': version, 'pytest_paths': sorted(paths)}))
`;

/** The folders pytest's packages live in: masked in every sandbox run, on a pytest run's sys.path. */
export function pytestSiteDirs(python: PythonRuntime): readonly string[] {
  return [...new Set(python.pytestPaths.map((p) => dirname(p)))];
}

/**
 * Each path absolute, a plain name inside a folder named site-packages or dist-packages (only
 * such a folder is masked: never the standard library's).
 */
function validPytestPaths(value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  for (const p of value) {
    if (typeof p !== "string" || !isAbsolute(p)) return undefined;
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(basename(p))) return undefined;
    if (!/^(site|dist)-packages$/.test(basename(dirname(p)))) return undefined;
  }
  return value as string[];
}

export function resolvePythonRuntime(command = "python3"): Result<PythonRuntime, BenchErrorCode> {
  const probe = spawnSync(command, ["-c", PROBE], { encoding: "utf8", timeout: 60_000 });
  if (probe.error || probe.status !== 0) {
    // The probe's own refusal (a distribution not installed) is its last line on stderr.
    const reason = probe.error ? "" : (probe.stderr.trim().split("\n").pop() ?? "");
    return err(
      "python_unavailable",
      `python3 with pytest could not be started (is pytest installed?)${reason ? `: ${reason}` : ""}`,
    );
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
  const pytestPaths = validPytestPaths(rec.pytest_paths);
  if (
    typeof executable !== "string" ||
    typeof prefix !== "string" ||
    typeof basePrefix !== "string" ||
    typeof version !== "string" ||
    typeof pytest !== "string" ||
    pytestPaths === undefined ||
    !isAbsolute(executable) ||
    !isAbsolute(prefix)
  ) {
    return err(
      "python_unavailable",
      "python3 gave an unreadable answer (or pytest's packages are not in a site-packages or dist-packages folder)",
    );
  }
  if (prefix !== basePrefix) {
    // A virtual environment: pytest lives in `prefix` while the standard library lives in
    // `base_prefix`; binding both would be needed. Keep the sandbox simple and refuse.
    return err("python_unavailable", "python3 is a virtual environment; point PATH at a plain interpreter with pytest");
  }
  return ok({ executable, prefix, version, pytestVersion: pytest, pytestPaths });
}
