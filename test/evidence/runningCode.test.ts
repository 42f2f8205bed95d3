// The runtime identity says which code ran: src/ through tsx, or the compiled lib/ with proof
// (its build stamp) that it is a build of exactly the current src/ and holds exactly what that
// build wrote; the runtime lock refuses a trial on compiled code that is not. The compiled
// cases run the compiled modules themselves, with plain node, in a compiled temporary copy.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runningCode, runtimeIdentity } from "../../src/recording/runtimeIdentity.ts";
import { compileCheckout, copyCheckout, REPO_ROOT, removeCheckout, runNode } from "../support/compiledCheckout.ts";

let root = "";
before(() => {
  root = copyCheckout();
  const compiled = compileCheckout(root);
  assert.equal(compiled.code, 0, compiled.stderr);
  writeFileSync(
    join(root, "probe-identity.mjs"),
    `import { runningCode, runtimeIdentity } from "./lib/recording/runtimeIdentity.js";
import { buildRuntimeLock } from "./lib/model/engine/runtimeLock.js";
const lock = buildRuntimeLock(process.argv[2]);
process.stdout.write(JSON.stringify({ code: runningCode(), identity: runtimeIdentity().code, locked: lock.runtime.code, lib: lock.mismatches.filter((m) => m.startsWith("lib/")) }));
`,
  );
});
after(() => removeCheckout(root));

interface Probe {
  readonly code: Record<string, unknown>;
  readonly identity: unknown;
  readonly locked: unknown;
  readonly lib: readonly string[];
}

async function probe(): Promise<Probe> {
  const run = await runNode(root, ["probe-identity.mjs", REPO_ROOT]);
  assert.equal(run.code, 0, run.stderr);
  const parsed = JSON.parse(run.stdout) as Probe;
  assert.deepEqual(parsed.identity, parsed.code, "runtimeIdentity() carries runningCode()");
  assert.deepEqual(parsed.locked, parsed.code, "the lock records the same");
  return parsed;
}

const SOURCES_DIFFER = "lib/: compiled from other sources than src/ (npm run prepare rebuilds it)";
const OUTPUTS_DIFFER = "lib/: differs from what its build wrote (npm run prepare rebuilds it)";
const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");
const compileRecipe = (): string => sha256(readFileSync(join(REPO_ROOT, "scripts/compile.mjs")));
const esbuildVersion = (): string =>
  (JSON.parse(readFileSync(join(REPO_ROOT, "node_modules/esbuild/package.json"), "utf8")) as { version: string })
    .version;

// Which code this process runs: src/ itself through tsx (a targeted `node --import tsx --test` run),
// or lib/, the build of this checkout that `npm run test:unit` runs (its loader,
// test/support/compiledSourceLoader.mjs, resolves every src/ module to its twin in lib/, and starts
// only on a fresh build). The identity must say exactly that, either way.
const SRC_MODULE = pathToFileURL(join(REPO_ROOT, "src/recording/runtimeIdentity.ts")).href;
const LIB_MODULE = pathToFileURL(join(REPO_ROOT, "lib/recording/runtimeIdentity.js")).href;
const RUNNING_MODULE = import.meta.resolve("../../src/recording/runtimeIdentity.ts");

test("in this process the identity says which code runs: source_via_tsx through tsx, compiled and fresh from lib/", () => {
  assert.ok([SRC_MODULE, LIB_MODULE].includes(RUNNING_MODULE), RUNNING_MODULE);
  const expected =
    RUNNING_MODULE === SRC_MODULE
      ? { mode: "source_via_tsx" }
      : {
          mode: "compiled",
          build_stamp_sha256: sha256(readFileSync(join(REPO_ROOT, "lib/.build-stamp.json"))),
          compiler: { script: "scripts/compile.mjs", script_sha256: compileRecipe(), esbuild: esbuildVersion() },
          sources_match: true,
          outputs_match: true,
        };
  assert.deepEqual(runningCode(), expected);
  assert.deepEqual(runtimeIdentity().code, expected);
  // Decided by the module's own file, whatever tree it names.
  assert.deepEqual(runningCode(pathToFileURL(join(root, "src/recording/runtimeIdentity.ts")).href, root), {
    mode: "source_via_tsx",
  });
});

test("compiled and fresh: the stamp's hash and compiler are recorded, sources and outputs match, the lock has no lib/ mismatch", async () => {
  const stampBytes = readFileSync(join(root, "lib/.build-stamp.json"));
  const fresh = await probe();
  assert.deepEqual(fresh.code, {
    mode: "compiled",
    build_stamp_sha256: sha256(stampBytes),
    compiler: { script: "scripts/compile.mjs", script_sha256: compileRecipe(), esbuild: esbuildVersion() },
    sources_match: true,
    outputs_match: true,
  });
  assert.deepEqual(fresh.lib, []);
  // The same answer computed in this process for the copy (the function the compiled module runs).
  assert.deepEqual(runningCode(pathToFileURL(join(root, "lib/recording/runtimeIdentity.js")).href, root), fresh.code);
});

test("a compiled file changed or added after the build: outputs_match false and the lock refuses", async () => {
  const lexer = join(root, "lib/expr/lexer.js");
  const original = readFileSync(lexer);
  appendFileSync(lexer, "\n// changed after the build\n");
  try {
    const changed = await probe();
    assert.deepEqual([changed.code.sources_match, changed.code.outputs_match], [true, false]);
    assert.deepEqual(changed.lib, [OUTPUTS_DIFFER]);
  } finally {
    writeFileSync(lexer, original);
  }
  const extra = join(root, "lib/core/planted.js");
  writeFileSync(extra, "export {};\n");
  try {
    assert.deepEqual((await probe()).lib, [OUTPUTS_DIFFER]);
  } finally {
    rmSync(extra);
  }
  assert.deepEqual((await probe()).lib, []);
});

test("a src file changed after the build: sources_match false and the lock refuses", async () => {
  const file = join(root, "src/expr/lexer.ts");
  const original = readFileSync(file);
  appendFileSync(file, "\n// changed after the build\n");
  try {
    const stale = await probe();
    assert.deepEqual([stale.code.sources_match, stale.code.outputs_match], [false, true]);
    assert.deepEqual(stale.lib, [SOURCES_DIFFER]);
  } finally {
    writeFileSync(file, original);
  }
});

test("a missing or unparsable stamp proves nothing: both false, both refusals", async () => {
  const stamp = join(root, "lib/.build-stamp.json");
  const original = readFileSync(stamp);
  try {
    writeFileSync(stamp, "{not json");
    const unparsable = await probe();
    assert.deepEqual(unparsable.code, {
      mode: "compiled",
      build_stamp_sha256: sha256(Buffer.from("{not json")),
      compiler: null,
      sources_match: false,
      outputs_match: false,
    });
    assert.deepEqual(unparsable.lib, [SOURCES_DIFFER, OUTPUTS_DIFFER]);
    rmSync(stamp);
    const missing = await probe();
    assert.deepEqual(missing.code, {
      mode: "compiled",
      build_stamp_sha256: null,
      compiler: null,
      sources_match: false,
      outputs_match: false,
    });
    assert.deepEqual(missing.lib, [SOURCES_DIFFER, OUTPUTS_DIFFER]);
  } finally {
    writeFileSync(stamp, original);
  }
});
