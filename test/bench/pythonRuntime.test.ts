// resolvePythonRuntime on a real interpreter that sees only some of pytest's distributions: the
// probe reads pytest's version from its metadata instead of importing it (issue #36), so what
// the import used to refuse is refused from the files: pytest not installed, a requirement of it
// not installed, pytest's package missing beside its metadata. The interpreter is the host's own,
// started with -S (no site-packages) and PYTHONPATH naming a folder of links to what each case
// keeps of the real site-packages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { resolvePythonRuntime } from "../../src/bench/sandbox/pythonRuntime.ts";
import { hostPythonRuntime, systemPackages, testNeeding } from "../support/systemPackages.ts";

const pytestTest = testNeeding(() => systemPackages(["pytest"]));

/** The probe's answer for the host interpreter seeing only the entries of pytestPaths that `keep` keeps. */
function probeSeeing(
  keep: (name: string) => boolean,
  alter: (site: string) => void = () => undefined,
): ReturnType<typeof resolvePythonRuntime> {
  const host = hostPythonRuntime();
  if (!host.ok) throw new Error(host.message);
  const scratch = mkdtempSync(join(tmpdir(), "tca-python-seeing-"));
  try {
    const site = join(scratch, "site-packages");
    mkdirSync(site);
    for (const path of host.value.pytestPaths) {
      if (keep(basename(path))) symlinkSync(path, join(site, basename(path)));
    }
    alter(site);
    const python = join(scratch, "python3");
    writeFileSync(python, `#!/bin/sh\nPYTHONPATH='${site}' exec '${host.value.executable}' -S "$@"\n`, { mode: 0o755 });
    return resolvePythonRuntime(python);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const isPackaging = (name: string): boolean => /^packaging(-[^/]*\.dist-info)?$/.test(name);
const isPluggy = (name: string): boolean => /^pluggy(-[^/]*\.dist-info)?$/.test(name);

pytestTest("all of pytest's distributions linked: the same runtime as the host's python3 (the control)", () => {
  const host = hostPythonRuntime();
  assert.ok(host.ok);
  const r = probeSeeing(() => true);
  assert.ok(r.ok, r.ok ? "" : r.message);
  assert.equal(r.value.pytestVersion, host.value.pytestVersion);
  assert.deepEqual(r.value.pytestPaths, host.value.pytestPaths);
});

pytestTest("pytest not installed (packaging alone is there): python_unavailable, naming pytest", () => {
  const r = probeSeeing(isPackaging);
  assert.equal(r.ok ? "ok" : r.error, "python_unavailable");
  assert.match(r.ok ? "" : r.message, /is pytest installed\?\): not installed: pytest$/);
});

pytestTest("a requirement of pytest not installed (pluggy): python_unavailable, naming it", () => {
  const r = probeSeeing((name) => !isPluggy(name));
  assert.equal(r.ok ? "ok" : r.error, "python_unavailable");
  assert.match(r.ok ? "" : r.message, /: not installed: pluggy$/);
});

pytestTest("pytest's metadata without its package: python_unavailable", () => {
  const r = probeSeeing((name) => name !== "pytest");
  assert.equal(r.ok ? "ok" : r.error, "python_unavailable");
  assert.match(r.ok ? "" : r.message, /: pytest's package is not among its distribution's files$/);
});

test("no python3 at the path given: python_unavailable", () => {
  const r = resolvePythonRuntime(join(tmpdir(), "tca-no-such-dir", "python3"));
  assert.equal(r.ok ? "ok" : r.error, "python_unavailable");
  assert.equal(r.ok ? "" : r.message, "python3 with pytest could not be started (is pytest installed?)");
});

pytestTest("pytest's Requires-Python excludes this interpreter: python_unavailable, naming both", () => {
  const r = probeSeeing(
    () => true,
    (site) => {
      // A copy of pytest's metadata folder whose Requires-Python no interpreter meets.
      const info = readdirSync(site).find((name) => /^pytest-[^/]*\.dist-info$/.test(name));
      assert.ok(info !== undefined);
      const linked = join(site, info);
      const copy = join(site, `${info}.copy`);
      cpSync(linked, copy, { recursive: true, dereference: true });
      rmSync(linked);
      cpSync(copy, linked, { recursive: true });
      rmSync(copy, { recursive: true });
      const metadata = join(linked, "METADATA");
      const text = readFileSync(metadata, "utf8").replace(/^Requires-Python: .*$/m, "Requires-Python: >=99");
      assert.match(text, /^Requires-Python: >=99$/m);
      writeFileSync(metadata, text);
    },
  );
  assert.equal(r.ok ? "ok" : r.error, "python_unavailable");
  assert.match(r.ok ? "" : r.message, /: pytest [0-9.]+ requires Python >=99, this is 3\.[0-9]+\.[0-9]+$/);
});
