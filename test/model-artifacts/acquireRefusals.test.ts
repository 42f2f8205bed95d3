import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acquireModel } from "../../src/model/artifacts/acquire.ts";
import { resolveEndpoint } from "../../src/model/artifacts/endpoint.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";
import { acquireFixture, makeFixture, PLENTY, scratchParent, startHub, type LocalHub } from "./fixtureHub.ts";
import { assertAcquisitionFailed } from "./failureAssertions.ts";
import { gitBlobSha1 } from "../../src/model/artifacts/fileIdentity.ts";

async function setup(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ hub: LocalHub; parent: string; fixture: ReturnType<typeof makeFixture> }> {
  const fixture = makeFixture();
  const hub = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  return { hub, parent, fixture };
}

test("an existing destination is refused before consent, and nothing in it changes", async (t) => {
  const { hub, parent, fixture } = await setup(t);
  const directory = join(parent, "existing");
  await mkdir(directory);
  await writeFile(join(directory, "notes.txt"), "mine");
  let asked = false;
  const result = await acquireFixture(fixture, hub, directory, {
    consent: async () => {
      asked = true;
      return { given: true, form: "flag_yes" };
    },
  });
  assert.equal(result.ok ? "" : result.error, "destination_exists");
  assert.equal(asked, false);
  assert.deepEqual(await readdir(directory), ["notes.txt"]);
  assert.equal(hub.requests.length, 0);
  assert.equal((await requireVerifiedModelDirectory(directory, fixture.pins)).ok, false);
  // an existing file is refused the same way
  await writeFile(join(parent, "file"), "x");
  const onFile = await acquireFixture(fixture, hub, join(parent, "file"));
  assert.equal(onFile.ok ? "" : onFile.error, "destination_exists");
});

test("relative paths and missing parents are refused", async (t) => {
  const { hub, parent, fixture } = await setup(t);
  const relative = await acquireFixture(fixture, hub, "relative/qwen");
  assert.equal(relative.ok ? "" : relative.error, "destination_invalid");
  const orphan = await acquireFixture(fixture, hub, join(parent, "missing", "qwen"));
  assert.equal(orphan.ok ? "" : orphan.error, "destination_invalid");
  assert.equal(hub.requests.length, 0);
});

test("without consent (non-interactive without --yes, or anything but yes) nothing is created or requested", async (t) => {
  const { hub, parent, fixture } = await setup(t);
  for (const code of ["consent_required", "consent_refused"] as const) {
    const directory = join(parent, code);
    let prompt = "";
    const result = await acquireFixture(fixture, hub, directory, {
      consent: async (text) => {
        prompt = text;
        return { given: false, code, message: "no" };
      },
    });
    assert.equal(result.ok ? "" : result.error, code);
    assert.match(
      prompt,
      /^Download the eight listed model files, totaling [\d,]+ bytes, from Qwen’s public Hugging Face repository into this new model directory\?$/,
    );
    assert.deepEqual(await readdir(parent), []);
  }
  assert.equal(hub.requests.length, 0);
});

test("insufficient disk or memory (and unreadable resources) stop acquisition before any request", async (t) => {
  const { hub, parent, fixture } = await setup(t);
  const cases = [
    { readings: { ...PLENTY, freeDiskBytes: 2_999_999_999 }, code: "insufficient_disk" },
    { readings: { ...PLENTY, totalMemoryBytes: 2e9 }, code: "insufficient_memory" },
    { readings: { ...PLENTY, availableMemoryBytes: 1e9 }, code: "insufficient_memory" },
  ] as const;
  for (const { readings, code } of cases) {
    const result = await acquireFixture(fixture, hub, join(parent, "qwen"), { readResources: async () => readings });
    assert.equal(result.ok ? "" : result.error, code);
    assert.match(result.ok ? "" : result.message, /the plan needs at least/);
  }
  const unreadable = await acquireFixture(fixture, hub, join(parent, "qwen"), {
    readResources: async () => {
      throw new Error("statfs failed");
    },
  });
  assert.equal(unreadable.ok ? "" : unreadable.error, "resource_check_failed");
  assert.deepEqual(await readdir(parent), []);
  assert.equal(hub.requests.length, 0);
});

test("the resource reader is asked about the destination's parent (statfs needs an existing path)", async (t) => {
  const { hub, parent, fixture } = await setup(t);
  let asked = "";
  const result = await acquireFixture(fixture, hub, join(parent, "qwen"), {
    readResources: async (path) => {
      asked = path;
      return PLENTY;
    },
  });
  assert.ok(result.ok);
  assert.equal(asked, parent);
});

test("CI set with the real hub endpoint is refused; a local mirror is allowed", () => {
  const real = resolveEndpoint(undefined, { CI: "true" });
  assert.equal(real.ok ? "" : real.error, "ci_refuses_real_hub");
  const explicitReal = resolveEndpoint("https://huggingface.co/", { CI: "1" });
  assert.equal(explicitReal.ok ? "" : explicitReal.error, "ci_refuses_real_hub");
  const viaVariable = resolveEndpoint(undefined, { CI: "true", HF_ENDPOINT: "https://huggingface.co" });
  assert.equal(viaVariable.ok ? "" : viaVariable.error, "ci_refuses_real_hub");
  const mirror = resolveEndpoint("http://127.0.0.1:9", { CI: "true" });
  assert.ok(mirror.ok);
  assert.equal(mirror.value.isRealHub, false);
});

test("a config requesting custom code is rejected at the final check; the loader refuses the directory", async (t) => {
  const config = '{"architectures": ["Qwen2ForCausalLM"], "auto_map": {"AutoModelForCausalLM": "modeling.Qwen2"}}\n';
  const fixture = makeFixture({ config, expectedConfigJson: null });
  assert.equal(fixture.pins.files[0]?.gitBlobSha1, gitBlobSha1(Buffer.from(config)));
  const hub = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  const directory = join(parent, "qwen");
  const manifest = await assertAcquisitionFailed(
    await acquireFixture(fixture, hub, directory),
    "config_rejected",
    directory,
    fixture.pins,
    "config.json",
  );
  assert.match(manifest.error?.message ?? "", /auto_map/);
});

test("a config that differs from the pinned architecture config is rejected", async (t) => {
  const config = '{"architectures": ["Qwen2ForCausalLM"], "hidden_size": 1}\n';
  const fixture = makeFixture({ config });
  const hub = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  const directory = join(parent, "qwen");
  await assertAcquisitionFailed(
    await acquireFixture(fixture, hub, directory),
    "config_mismatch",
    directory,
    fixture.pins,
    "config.json",
  );
});

test("the default pins are used when none are injected (the real eight files, never fetched here)", async (t) => {
  const { parent } = await setup(t);
  const result = await acquireModel({
    directory: join(parent, "qwen"),
    endpoint: { base: "http://127.0.0.1:9", source: "flag", isRealHub: false },
    consent: async (prompt) => {
      assert.equal(
        prompt,
        "Download the eight listed model files, totaling 999,597,691 bytes, from Qwen’s public Hugging Face repository into this new model directory?",
      );
      return { given: false, code: "consent_refused", message: "declined in test" };
    },
  });
  assert.equal(result.ok ? "" : result.error, "consent_refused");
});
