// The engine loads exactly the selected llama.cpp binary and records it (issue 18), on a tiny
// synthetic checkpoint. CI has no native build, so there the native case checks the refusal.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { LlamaEngine } from "../../src/model/engine/llamaEngine.ts";
import { nativeBuildStatus } from "../../src/model/engine/engineBinary.ts";
import { ensureDerivedGguf } from "../../src/model/gguf/derivedCache.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;
let ggufPath = "";
let vocabularySize = 0;

before(async () => {
  checkpoint = await makeTinyCheckpoint(11, "binary");
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const derived = await ensureDerivedGguf(opened.value);
  assert.ok(derived.ok);
  ggufPath = derived.value.ggufPath;
  vocabularySize = opened.value.arch.vocabSize;
});

after(async () => {
  await checkpoint.cleanup();
});

test("a prebuilt selection loads the prebuilt binary and the identity records it", async () => {
  const loaded = await LlamaEngine.load({
    ggufPath,
    vocabularySize,
    binary: { requested: "prebuilt", binary: "prebuilt", reason: "test", nativeFiles: null },
  });
  assert.ok(loaded.ok);
  try {
    const identity = loaded.value.identity();
    assert.deepEqual(identity["binary"], {
      kind: "prebuilt",
      requested: "prebuilt",
      reason: "test",
      native_files_sha256: null,
    });
    assert.equal((identity["llama_cpp_build"] as { build_type: string }).build_type, "prebuilt");
  } finally {
    await loaded.value.dispose();
  }
});

test("a native selection loads the local build, or is refused when none exists (never the prebuilt one)", async () => {
  const status = nativeBuildStatus();
  const loaded = await LlamaEngine.load({
    ggufPath,
    vocabularySize,
    binary: { requested: "native", binary: "native", reason: "test", nativeFiles: status.files },
  });
  if (!status.present) {
    assert.equal(loaded.ok, false);
    if (!loaded.ok) assert.equal(loaded.error, "engine_unavailable");
    return;
  }
  assert.ok(loaded.ok);
  try {
    const identity = loaded.value.identity();
    assert.equal((identity["binary"] as { kind: string }).kind, "native");
    assert.equal((identity["llama_cpp_build"] as { build_type: string }).build_type, "localBuild");
  } finally {
    await loaded.value.dispose();
  }
});
