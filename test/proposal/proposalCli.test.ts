// `tca proposal check` end to end: spawns the real CLI, feeds stdin bytes exactly, reads
// one JSON verdict line and the exit code. Also the bounded stdin reader on its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readBoundedBytes, STDIN_BYTE_CAP } from "../../src/cli/commands/proposal.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI; `keepOpen` writes the input but never ends stdin (the CLI must not wait for EOF). */
function runCheck(input: Uint8Array | string, keepOpen = false): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/tca.js", "proposal", "check"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdin.on("error", () => undefined); // EPIPE once the CLI stops reading: expected
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.write(input);
    if (!keepOpen) child.stdin.end();
  });
}

function verdictOf(run: CliRun): unknown {
  const lines = run.stdout.split("\n");
  assert.equal(lines.length, 2, `one line expected, got: ${run.stdout} ${run.stderr}`);
  assert.equal(lines[1], "");
  return JSON.parse(lines[0] ?? "");
}

test("cli: an accepted proposal prints {ok:true, action} and exits 0", async () => {
  const run = await runCheck(
    '{"action":"replace","function":"total","old":"unit + qty + fee","new":"unit * qty + fee","version":1}',
  );
  assert.equal(run.code, 0);
  assert.equal(
    run.stdout,
    '{"ok":true,"action":{"action":"replace","function":"total","old":"unit + qty + fee","new":"unit * qty + fee","version":1}}\n',
  );
});

test("cli: a rejected proposal prints {ok:false, error, message} and exits 1", async () => {
  const run = await runCheck('{"action":"read","file":"../TASK.txt"}');
  assert.equal(run.code, 1);
  const verdict = verdictOf(run) as Record<string, unknown>;
  assert.deepEqual(Object.keys(verdict), ["ok", "error", "message"]);
  assert.equal(verdict["ok"], false);
  assert.equal(verdict["error"], "unknown_file");
});

test("cli: stdin bytes are passed exactly (invalid UTF-8, CRLF whitespace, code fence)", async () => {
  const invalid = await runCheck(new Uint8Array([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d]));
  assert.equal((verdictOf(invalid) as { error: string }).error, "invalid_utf8");
  const crlf = await runCheck('\r\n{"action":"test"}\r\n');
  assert.equal(crlf.code, 0);
  assert.deepEqual(verdictOf(crlf), { ok: true, action: { action: "test" } });
  const fenced = await runCheck('```json\n{"action":"test"}\n```\n');
  assert.equal(fenced.code, 1);
  assert.equal((verdictOf(fenced) as { error: string }).error, "code_fence");
});

test("cli: empty stdin is empty_proposal", async () => {
  const run = await runCheck("");
  assert.equal(run.code, 1);
  assert.equal((verdictOf(run) as { error: string }).error, "empty_proposal");
});

test("cli: oversized input is proposal_too_large, and reading stops without waiting for EOF", async () => {
  // 64 KiB written and stdin never closed: the CLI must answer after reading past its cap.
  const run = await runCheck(" ".repeat(64 * 1024), true);
  assert.equal(run.code, 1);
  assert.equal((verdictOf(run) as { error: string }).error, "proposal_too_large");
});

test("readBoundedBytes stops pulling from an endless stream after cap + 1 bytes", async () => {
  let pulled = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    for (;;) {
      pulled++;
      yield new Uint8Array(1000).fill(0x20);
    }
  }
  const bytes = await readBoundedBytes(endless(), STDIN_BYTE_CAP);
  assert.equal(bytes.byteLength, STDIN_BYTE_CAP + 1);
  assert.equal(pulled, Math.ceil((STDIN_BYTE_CAP + 1) / 1000));
});

test("readBoundedBytes returns short input whole, including string chunks", async () => {
  async function* chunks(): AsyncGenerator<Uint8Array | string> {
    yield new Uint8Array([0x7b]);
    yield '"a":1}';
  }
  const bytes = await readBoundedBytes(chunks(), STDIN_BYTE_CAP);
  assert.equal(Buffer.from(bytes).toString("utf8"), '{"a":1}');
});
