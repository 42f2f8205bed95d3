// The environment a run records: the client's CPU and GPU (nvidia-smi where it exists), the
// server's /props, and the --hardware label for a server this machine cannot see.
import { test } from "node:test";
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { tca } from "../support/tcaCli.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeHostHardware, hardwareLine } from "../../src/bench/runs/hostHardware.ts";
import { MINI_DATASET_DIR } from "./benchFixtures.ts";
import { SCRIPTED_MODEL_ID, startRoutedServer } from "./scriptedChatServer.ts";

test("the client's hardware: CPU model and count from the OS, GPUs from nvidia-smi, null without it", () => {
  const withGpu = describeHostHardware(() => "NVIDIA GeForce RTX 4070, 12282 MiB, 560.35\n");
  assert.equal(withGpu.cpuCount, cpus().length);
  assert.equal(withGpu.cpu, cpus()[0]?.model.trim());
  assert.deepEqual(withGpu.gpus, ["NVIDIA GeForce RTX 4070, 12282 MiB, 560.35"]);
  assert.equal(describeHostHardware(() => null).gpus, null);
  assert.deepEqual(describeHostHardware(() => "").gpus, []);
});

test("the results.md line names the label and the client, and says when nvidia-smi was absent", () => {
  const host = { cpu: "AMD EPYC", cpuCount: 16, memoryGiB: 128, gpus: null };
  assert.equal(
    hardwareLine("RTX 4070 12 GB", host),
    "hardware: RTX 4070 12 GB (--hardware); client: AMD EPYC × 16, 128 GiB, GPU: no nvidia-smi",
  );
  assert.equal(
    hardwareLine(undefined, { ...host, gpus: ["H200, 143771 MiB, 570"] }),
    "hardware: client: AMD EPYC × 16, 128 GiB, GPU: H200, 143771 MiB, 570",
  );
  assert.equal(hardwareLine(undefined, undefined), null);
});

sandboxTest(
  "run --hardware: the label and the client's hardware in run.json and results.md, with the server's /props; a multi-line label is refused",
  async () => {
    const server = await startRoutedServer(() => ({ content: "```python\ndef gcd(a, b):\n    return a\n```" }), {
      props: {
        build_info: "b11461-cuda",
        model_path: "/models/qwen3-8b-q4_k_m.gguf",
        default_generation_settings: { n_ctx: 16384 },
      },
    });
    const scratch = mkdtempSync(join(tmpdir(), "tca-hardware-"));
    try {
      const out = join(scratch, "run");
      const base = [
        "bench",
        "quixbugs",
        "run",
        "--endpoint",
        server.endpoint,
        "--model",
        SCRIPTED_MODEL_ID,
        "--programs",
        "gcd",
        "--conditions",
        "A",
        "--dataset",
        MINI_DATASET_DIR,
        "--jobs",
        "1",
      ];
      const bad = await tca([...base, "--out", out, "--hardware", "RTX\n4070", "--json"]);
      assert.equal(bad.code, 1);
      assert.equal((JSON.parse(bad.out) as { error: string }).error, "invalid_option");
      const r = await tca([...base, "--out", out, "--hardware", "RTX 4070 12 GB (remote)"]);
      assert.equal(r.code, 0, r.err);
      const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
        environment: { hardwareLabel?: string; clientHardware?: { cpuCount?: number } };
        model: { serverProps?: { build_info?: string } };
      };
      assert.equal(manifest.environment.hardwareLabel, "RTX 4070 12 GB (remote)");
      assert.equal(manifest.environment.clientHardware?.cpuCount, cpus().length);
      assert.equal(manifest.model.serverProps?.build_info, "b11461-cuda");
      const md = readFileSync(join(out, "results.md"), "utf8");
      assert.match(md, /- hardware: RTX 4070 12 GB \(remote\) \(--hardware\); client: .+ × \d+, \d+ GiB, GPU: /);
      assert.match(
        md,
        /- server \/props: build b11461-cuda, model \/models\/qwen3-8b-q4_k_m\.gguf, context 16384 \(all of it in run\.json\)/,
      );
    } finally {
      await server.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  },
);
