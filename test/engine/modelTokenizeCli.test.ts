// tca model tokenize / make-test-checkpoint --tokenizer / make-rehearsal-checkpoint through the
// real CLI in a child process: JSON on success, `tca <command>: <code>: <message>` and exit 1 on
// bad input, and nothing created or printed on stdout when refused.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";

const BIN = new URL("../../bin/tca.js", import.meta.url).pathname;
const tca = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

let root: string;
let directory: string;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tca-tokenize-cli-"));
  directory = path.join(root, "standin");
  const made = await makeTestCheckpoint({ directory, size: "tiny", seed: 1, tokenizer: "qwen2.5-stand-in" });
  assert.ok(made.ok);
});

after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

test("tokenize prints one JSON object with ids and count, for text, a file and the chat template", async () => {
  const text = tca("model", "tokenize", "--model-directory", directory, "--text", "Hello world");
  assert.equal(text.status, 0, text.stderr);
  assert.deepEqual(JSON.parse(text.stdout), {
    ids: [9707, 1879],
    count: 2,
    input: "text",
    tokenizer: "qwen2.5-stand-in",
    label: "synthetic-pipeline-check",
  });
  const file = path.join(root, "input.txt");
  await writeFile(file, " Hello world");
  const fromFile = tca("model", "tokenize", "--model-directory", directory, "--file", file);
  assert.deepEqual((JSON.parse(fromFile.stdout) as { ids: number[] }).ids, [21927, 1879]); // llama.cpp's .out for " Hello world"
  const chat = tca("model", "tokenize", "--model-directory", directory, "--system", "S", "--user", "U");
  const parsed = JSON.parse(chat.stdout) as { ids: number[]; count: number; input: string };
  assert.equal(parsed.input, "chat_template");
  assert.equal(parsed.count, parsed.ids.length);
  assert.deepEqual(parsed.ids.slice(-3), [151644, 77091, 198]);
});

test("tokenize refuses ambiguous, incomplete or undecodable input with input_invalid", async () => {
  const bad = path.join(root, "bad.txt");
  await writeFile(bad, Buffer.from([0xff, 0xfe, 0x41]));
  for (const args of [
    ["--text", "a", "--file", bad],
    ["--text", "a", "--system", "s", "--user", "u"],
    ["--system", "s"],
    ["--user", "u"],
    [],
    ["--file", bad],
    ["--file", path.join(root, "missing.txt")],
  ]) {
    const result = tca("model", "tokenize", "--model-directory", directory, ...args);
    assert.equal(result.status, 1, args.join(" "));
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^tca model tokenize: input_invalid: /, args.join(" "));
  }
  const notModel = tca("model", "tokenize", "--model-directory", root, "--text", "x");
  assert.equal(notModel.status, 1);
  assert.match(notModel.stderr, /: (model_not_verified|unexpected_file|model_directory_invalid): /);
});

test("make-test-checkpoint refuses an unknown tokenizer and creates nothing; make-rehearsal-checkpoint and make-bench-rehearsal-checkpoint never overwrite", async () => {
  const target = path.join(root, "never");
  const unknown = tca("model", "make-test-checkpoint", "--directory", target, "--size", "tiny", "--tokenizer", "qwen3");
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /input_invalid: --tokenizer must be synthetic or qwen2\.5/);
  assert.equal(existsSync(target), false);
  const existing = path.join(root, "existing");
  await mkdir(existing);
  for (const command of ["make-rehearsal-checkpoint", "make-bench-rehearsal-checkpoint"]) {
    const rehearsal = tca("model", command, "--directory", existing);
    assert.equal(rehearsal.status, 1);
    assert.match(rehearsal.stderr, new RegExp(`^tca model ${command}: destination_exists: `));
    assert.equal(rehearsal.stdout, "");
  }
});
