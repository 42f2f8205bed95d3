// The CLI as a user runs it (spawned `node bin/tca.js`). Every acquire case here is a refusal
// that happens before any request; the endpoint is a closed local port wherever the case
// allows, so even a bug could not reach the real hub.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { scratchParent } from "./fixtureHub.ts";

const BIN = resolve(import.meta.dirname, "../../bin/tca.js");
const CLOSED_LOCAL_ENDPOINT = "http://127.0.0.1:9";

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function tca(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      // A minimal environment: no inherited CI, HF_ENDPOINT or token; stdin is not a terminal.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", HF_TOKEN: "hf_never_read", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end();
  });
}

test("tca model plan prints the pinned numbers and downloads nothing", async () => {
  const run = await tca(["model", "plan", "--directory", "/models/qwen"]);
  assert.equal(run.code, 0, run.stderr);
  for (const needle of [
    "Qwen/Qwen2.5-Coder-0.5B-Instruct",
    "ea3f2471cf1b1f0db85067f1ef93848e38e88c25",
    "Apache-2.0",
    "494,032,768",
    "config.json                     659",
    "generation_config.json          243",
    "tokenizer_config.json         7,305",
    "tokenizer.json            7,031,645",
    "vocab.json                2,776,833",
    "merges.txt                1,671,839",
    "model.safetensors       988,097,824",
    "LICENSE                      11,343",
    "total                   999,597,691",
    "aggregate transfer ceiling: 1,200,000,000 bytes",
    "destination: /models/qwen",
    "acquisition deadline: 20 minutes",
    "~1,976,131,072 bytes (1.84 GiB)",
    "at least 3,000,000,000 bytes (2.79 GiB) at the destination",
    "estimates from the Lab, not measurements",
  ]) {
    assert.ok(run.stdout.includes(needle), `missing: ${needle}`);
  }
});

test("tca model acquire refusals: no consent, CI with the real hub, existing destination, bad endpoint", async (t) => {
  const { parent, cleanup } = await scratchParent();
  t.after(cleanup);

  await mkdir(join(parent, "existing"));
  // Independent refusals, spawned together to keep the suite quick.
  const [noConsent, ciDefault, ciVariable, existing, credentials, noDirectory] = await Promise.all([
    tca(["model", "acquire", "--directory", join(parent, "a"), "--endpoint", CLOSED_LOCAL_ENDPOINT]),
    tca(["model", "acquire", "--directory", join(parent, "b"), "--yes"], { CI: "true" }),
    tca(["model", "acquire", "--directory", join(parent, "c"), "--yes"], {
      CI: "1",
      HF_ENDPOINT: "https://huggingface.co/",
    }),
    tca(["model", "acquire", "--directory", join(parent, "existing"), "--yes", "--endpoint", CLOSED_LOCAL_ENDPOINT]),
    tca([
      "model",
      "acquire",
      "--directory",
      join(parent, "d"),
      "--yes",
      "--endpoint",
      "https://user:pw@mirror.example",
    ]),
    tca(["model", "acquire", "--yes"]),
  ]);
  assert.equal(noConsent.code, 1);
  assert.match(noConsent.stderr, /^tca model acquire: consent_required: /m);
  assert.match(noConsent.stdout, /999,597,691/); // the plan was shown first
  assert.equal(ciDefault.code, 1);
  assert.match(ciDefault.stderr, /^tca model acquire: ci_refuses_real_hub: /m);
  assert.equal(ciVariable.code, 1);
  assert.match(ciVariable.stderr, /^tca model acquire: ci_refuses_real_hub: /m);
  assert.equal(existing.code, 1);
  assert.match(existing.stderr, /^tca model acquire: destination_exists: /m);
  assert.equal(credentials.code, 1);
  assert.match(credentials.stderr, /^tca model acquire: endpoint_invalid: /m);
  assert.equal(noDirectory.code, 2);

  assert.deepEqual(await readdir(parent), ["existing"]);
  assert.deepEqual(await readdir(join(parent, "existing")), []);
});

test("tca model verify prints a per-file table and exits non-zero on a directory that is not verified", async (t) => {
  const { parent, cleanup } = await scratchParent();
  t.after(cleanup);
  const run = await tca(["model", "verify", "--directory", parent]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^file\s+expected bytes\s+observed bytes\s+identity\s+status$/m);
  assert.match(run.stdout, /^model\.safetensors\s+988,097,824\s+-\s+sha256\s+file_missing$/m);
  assert.match(run.stdout, /NOT verified/);
  assert.match(run.stdout, /manifest_missing/);
  const missing = await tca(["model", "verify", "--directory", join(parent, "nowhere")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /directory_missing/);
});
