// `tca expr check FIFO` refuses the FIFO at once (opened with O_NONBLOCK, type checked before any
// read) instead of blocking until a writer appears. Nothing ever writes to the FIFO here, so a
// blocking open would never return: the child-process bound turns such a hang into a failure.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ENTRY = join(import.meta.dirname, "..", "..", "bin", "tca.js");
const root = mkdtempSync(join(tmpdir(), "tca-expr-fifo-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("tca expr check on a FIFO answers file_unreadable and exits 1 without blocking", async () => {
  const fifo = join(root, "toy_math.py");
  execFileSync("mkfifo", [fifo]);
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, "expr", "check", fifo], { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, stdout: out });
    });
  });
  assert.notEqual(code, null, "tca expr check blocked on the FIFO");
  assert.equal(code, 1);
  assert.deepEqual(JSON.parse(stdout), { ok: false, error: "file_unreadable", message: "not a regular file" });
});
