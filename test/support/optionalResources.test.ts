// The rule every test that needs ../shared follows: present -> runs; absent -> skipped with a
// reason that names what is missing and where it was looked for; TCA_REQUIRE_SHARED=1 -> runs
// (and then fails on the missing resource) instead of being skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realQuixBugs, sharedDir, specText } from "./optionalResources.ts";

test("absent: skipped with a reason naming the path; present or required: not skipped", () => {
  const shared = mkdtempSync(join(tmpdir(), "tca-shared-"));
  try {
    const env = { TCA_SHARED_DIR: shared };
    assert.equal(sharedDir(env), shared);
    const spec = specText(env);
    assert.equal(spec.path, join(shared, "spec", "lab-16-build-a-tiny-coding-agent.txt"));
    assert.match(
      String(spec.skip),
      /^the Lab spec not found at .*lab-16-build-a-tiny-coding-agent\.txt \(set TCA_SHARED_DIR/,
    );
    const data = realQuixBugs(env);
    assert.equal(data.path, join(shared, "quixbugs"));
    assert.match(String(data.skip), /^the QuixBugs data set .* not found at /);
    assert.equal(specText({ ...env, TCA_REQUIRE_SHARED: "1" }).skip, false);
    assert.equal(realQuixBugs({ ...env, TCA_REQUIRE_SHARED: "1" }).skip, false);
    mkdirSync(join(shared, "spec"));
    writeFileSync(spec.path, "text");
    mkdirSync(join(shared, "quixbugs"));
    assert.equal(specText(env).skip, false);
    assert.equal(realQuixBugs(env).skip, false);
  } finally {
    rmSync(shared, { recursive: true, force: true });
  }
});
