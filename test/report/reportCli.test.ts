// `tca report` as a user runs it: writing the file, refusing to overwrite or to write into the
// evidence, --json, and --open serving the page on 127.0.0.1 until Ctrl-C (SIGINT).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baselineRun, freshRoot } from "./reportFixtures.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";
import { canonicalJson } from "../../src/core/canonicalJson.ts";
import { sha256Hex } from "../../src/core/digest.ts";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "tca.js");
const root = freshRoot("cli");
const run = await baselineRun(root);
after(() => rmSync(root, { recursive: true, force: true }));

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function tca(
  args: readonly string[],
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    onStart?.(child);
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
  assert.equal(first.stdout, `lab run: SCRIPTED BASELINE · VERIFIED SUCCESS\nreport: ${run}.report.html\n`);
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

/** Kills the child after `ms`: a hang shows as a null exit code and a failed assertion, never a stuck suite. */
async function tcaWithin(ms: number, args: readonly string[]): Promise<Finished & { readonly elapsedMs: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const finished = await tca(args, undefined, (child) => {
    timer = setTimeout(() => child.kill("SIGKILL"), ms);
  });
  clearTimeout(timer);
  return { ...finished, elapsedMs: Date.now() - started };
}

test("a planted final.json claiming success: the CLI prints EVIDENCE INVALID and exits 1", async () => {
  const planted = join(root, "planted");
  cpSync(run, planted, { recursive: true });
  const lines = readFileSync(join(planted, "audit.jsonl"), "utf8").split("\n");
  // The audit's only stop becomes model_error; final.json still says success.
  writeFileSync(
    join(planted, "audit.jsonl"),
    lines.map((line) => line.replace('"stop_reason":"finish_accepted"', '"stop_reason":"model_error"')).join("\n"),
  );
  const result = await tca(["report", planted]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout.split("\n")[0], "lab run: SCRIPTED BASELINE · EVIDENCE INVALID");
  assert.match(result.stderr, /^tca report: evidence_invalid: /);
  assert.ok(!result.stderr.includes(" at "), "no stack trace");
  const json = await tca(["report", planted, "--json"]);
  assert.equal(json.code, 1);
  assert.equal(
    (JSON.parse(json.stdout) as { lab: { verdict: { headline: string } } }).lab.verdict.headline,
    "SCRIPTED BASELINE · EVIDENCE INVALID",
  );
});

test("a FIFO audit.jsonl: tca report refuses it and exits instead of blocking", async () => {
  const fifoRun = join(root, "fifo-run");
  cpSync(run, fifoRun, { recursive: true });
  rmSync(join(fifoRun, "audit.jsonl"));
  execFileSync("mkfifo", [join(fifoRun, "audit.jsonl")]);
  // Nothing ever writes to the FIFO, so a blocking open never returns; the bound only turns such a hang into a failure.
  const result = await tcaWithin(30_000, ["report", fifoRun, "--json"]);
  assert.notEqual(result.code, null, "tca report blocked on the FIFO");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^tca report: evidence_invalid: file_unreadable: audit\.jsonl: not_regular_file/);
  const alone = join(root, "fifo-alone");
  mkdirSync(alone);
  execFileSync("mkfifo", [join(alone, "audit.jsonl")]);
  const refused = await tcaWithin(30_000, ["report", alone, "--json"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^tca report: evidence_unreadable: \/.*: audit\.jsonl is not a regular file/);
});

test("a bench run made on another data set than run.json names: stderr gives the coded cause and the next command, not verify-run's record", async () => {
  const dir = join(root, "bench-dataset");
  const tasks = writeBenchRun(dir, { programs: 1, turns: 1 });
  const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
  const programs = Object.fromEntries(tasks.map((t) => [t.program, "1".repeat(64)]));
  const dataset = {
    root: "/data/quixbugs",
    relativeToRun: "../quixbugs",
    sha256: sha256Hex(canonicalJson(programs)),
    programs,
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify({ ...manifest, dataset }, null, 2) + "\n");
  const result = await tca(["report", dir, "--out", join(root, "bench-dataset.html")]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout.split("\n")[0], "bench run: PIPELINE CHECK · EVIDENCE INVALID");
  const [line, ...rest] = result.stderr.trimEnd().split("\n");
  assert.deepEqual(rest, [], "one line");
  assert.match(line ?? "", /^tca report: evidence_invalid: cause: dataset_digest_mismatch \(4 problems\): /);
  assert.match(
    line ?? "",
    new RegExp(
      `; next step: run the tasks again into a new folder on the data set you mean: tca bench quixbugs run --dataset /data/quixbugs --out \\S+-rerun`,
    ),
  );
  assert.doesNotMatch(line ?? "", /recorded verification/);
});
