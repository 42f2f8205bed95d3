// The rule for system packages (bubblewrap, python3's pytest, Chromium): absent -> skipped with
// the reason and the install command; TCA_REQUIRE_SYSTEM=1 -> not skipped (the test then fails
// on the absent package); present -> not skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { missingPackages, requireSystem, systemPackages } from "./systemPackages.ts";

test("absent bubblewrap and Chromium: skipped with the reason and the apt-get command; required: not skipped", () => {
  const empty = mkdtempSync(join(tmpdir(), "tca-nopath-"));
  try {
    const env = { PATH: empty, TCA_CHROMIUM: join(empty, "chromium") };
    const absent = systemPackages(["bubblewrap", "chromium"], env);
    assert.equal(typeof absent.skip, "string");
    assert.match(String(absent.skip), /^bubblewrap \(bwrap\) is not on PATH: apt-get install -y bubblewrap; /);
    assert.match(
      String(absent.skip),
      /Chromium not found at .*chromium: apt-get install -y --no-install-recommends chromium/,
    );
    assert.match(String(absent.skip), /TCA_REQUIRE_SYSTEM=1/);
    assert.equal(systemPackages(["bubblewrap", "chromium"], { ...env, TCA_REQUIRE_SYSTEM: "1" }).skip, false);
    assert.equal(requireSystem({ TCA_REQUIRE_SYSTEM: "0" }), false);
    writeFileSync(join(empty, "bwrap"), "#!/bin/sh\n");
    chmodSync(join(empty, "bwrap"), 0o755);
    writeFileSync(join(empty, "chromium"), "");
    assert.equal(systemPackages(["bubblewrap", "chromium"], env).skip, false);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test("python3 without pytest is named with its install command; with it, nothing is missing", () => {
  const without = missingPackages(["pytest"], {}, { pytest: () => false, chromium: () => true });
  assert.deepEqual(without, [
    "python3 with pytest is not available: apt-get install -y python3-pytest (or pip install pytest)",
  ]);
  assert.deepEqual(missingPackages(["pytest", "chromium"], {}, { pytest: () => true, chromium: () => true }), []);
});
