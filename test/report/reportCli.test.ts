// `tca report` as a user runs it: writing the file, refusing to overwrite or to write into the
// evidence, --json, and --open serving the page on 127.0.0.1 until Ctrl-C (SIGINT).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { baselineRun, freshRoot } from "./reportFixtures.ts";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "tca.js");
const root = freshRoot("cli");
const run = await baselineRun(root);
after(() => rmSync(root, { recursive: true, force: true }));

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function tca(args: readonly string[], onStdout?: (text: string, child: ReturnType<typeof spawn>) => void): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      onStdout?.(stdout, child);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("tca report writes <run dir>.report.html next to the run, then refuses to overwrite it without --force", async () => {
  const first = await tca(["report", run]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, `lab run: VERIFIED SUCCESS\nreport: ${run}.report.html\n`);
  assert.match(readFileSync(`${run}.report.html`, "utf8"), /<title>tca report \(lab\): baseline<\/title>/);
  const second = await tca(["report", run, "--out", join(run, "inside.html")]);
  assert.equal(second.code, 2);
  assert.match(second.stderr, /^tca report: output_inside_run_directory: /);
  assert.equal(existsSync(join(run, "inside.html")), false);
  const third = await tca(["report", run]);
  assert.equal(third.code, 2);
  assert.match(third.stderr, /output_exists/);
  const missing = await tca(["report", join(root, "nothing-here"), "--json"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^tca report: run_directory_not_found: /);
});

test("tca report --open serves the page on 127.0.0.1 until SIGINT and writes no file", async () => {
  const before = readdirSync(root).sort();
  let url = "";
  let body = "";
  const finished = await tca(["report", run, "--open"], (stdout, child) => {
    const match = /serving the report at (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(stdout);
    if (match === null || url !== "") return;
    url = match[1] ?? "";
    void fetch(url)
      .then(async (response) => {
        body = response.status === 200 ? await response.text() : `status ${response.status}`;
      })
      .finally(() => child.kill("SIGINT"));
  });
  assert.equal(finished.code, 0, finished.stderr);
  assert.match(body, /^<!doctype html>/);
  assert.match(finished.stdout, /stopped\n$/);
  assert.deepEqual(readdirSync(root).sort(), before, "no file written without --out");
});
