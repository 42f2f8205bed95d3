import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AuditRecorder } from "../../src/recording/auditRecorder.ts";
import { readAuditFile } from "../../src/recording/auditLog.ts";

const STOP_DATA = { stop_reason: "script_exhausted", at: "before_request", proposals_scripted: 0 } as const;

function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tca-audit-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function steppingClock(times: number[]) {
  let i = 0;
  return { now: () => times[Math.min(i++, times.length - 1)] ?? 0 };
}

test("one JSON object per line with the envelope, monotonic ids and times, mode 0600", () => {
  const { dir, cleanup } = scratch();
  const previous = process.umask(0);
  try {
    const file = path.join(dir, "audit.jsonl");
    const recorder = AuditRecorder.create(file, {
      runId: "r1",
      sourceLabel: "scripted",
      clock: steppingClock([5, 9, 7]),
    });
    assert.equal(
      recorder.append("source_load", {
        ok: false,
        error: "model_error",
        message: 'line\nbreak "quoted"',
        elapsed_ms: 1,
      }),
      1,
    );
    const generation = {
      outcome: "text",
      raw_text: '}\n{"type":"forged"}',
      message: null,
      metadata: {},
      elapsed_ms: 3,
    } as const;
    assert.equal(recorder.append("generation", generation, 1), 2);
    assert.equal(recorder.append("stop", STOP_DATA, 1), 3);
    recorder.close();
    recorder.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, "utf8");
    assert.equal(text.split("\n").length, 4, "three lines and a final newline: embedded newlines are escaped");
    const read = readAuditFile(file);
    assert.ok(read.ok);
    assert.equal(read.log.tornTail, false);
    assert.deepEqual(
      read.log.records.map((r) => [r.event_id, r.t_ms, r.proposal, r.type]),
      [
        [1, 5, null, "source_load"],
        [2, 9, 1, "generation"],
        [3, 9, 1, "stop"],
      ],
    );
    assert.deepEqual(read.log.records[1], {
      format: "tca.audit",
      v: 2,
      run_id: "r1",
      event_id: 2,
      t_ms: 9,
      type: "generation",
      source: "scripted",
      proposal: 1,
      data: generation,
    });
    // The envelope's keys in the documented order (docs/evidence-format.md).
    assert.deepEqual(Object.keys(JSON.parse(text.split("\n")[0]!) as object), [
      "format",
      "v",
      "run_id",
      "event_id",
      "t_ms",
      "type",
      "source",
      "proposal",
      "data",
    ]);
    assert.throws(() => recorder.append("stop", STOP_DATA));
  } finally {
    process.umask(previous);
    cleanup();
  }
});

test("creation is exclusive: an existing file or a symlink is refused", () => {
  const { dir, cleanup } = scratch();
  try {
    const options = { runId: "r", sourceLabel: "s", clock: { now: () => 0 } };
    writeFileSync(path.join(dir, "existing.jsonl"), "keep\n");
    assert.throws(() => AuditRecorder.create(path.join(dir, "existing.jsonl"), options), /EEXIST/);
    assert.equal(readFileSync(path.join(dir, "existing.jsonl"), "utf8"), "keep\n");
    symlinkSync(path.join(dir, "target.jsonl"), path.join(dir, "link.jsonl"));
    assert.throws(() => AuditRecorder.create(path.join(dir, "link.jsonl"), options), /EEXIST/);
  } finally {
    cleanup();
  }
});

test("the reader reports a torn last line and rejects malformed or reordered files", () => {
  const { dir, cleanup } = scratch();
  try {
    const file = path.join(dir, "audit.jsonl");
    const recorder = AuditRecorder.create(file, { runId: "r", sourceLabel: "s", clock: { now: () => 1 } });
    recorder.append("stop", STOP_DATA);
    recorder.close();
    appendFileSync(file, '{"format":"tca.audit","v":2,"run_id":"r"');
    const torn = readAuditFile(file);
    assert.ok(torn.ok && torn.log.tornTail && torn.log.records.length === 1);

    const line = (id: number, t: number) =>
      JSON.stringify({
        format: "tca.audit",
        v: 2,
        run_id: "r",
        event_id: id,
        t_ms: t,
        type: "stop",
        source: "s",
        proposal: null,
        data: STOP_DATA,
      });
    const cases: Record<string, [string, string]> = {
      "not json": ["nope\n", "not_json"],
      "skipped id": [`${line(1, 0)}\n${line(3, 0)}\n`, "out_of_order"],
      "time goes back": [`${line(1, 5)}\n${line(2, 4)}\n`, "out_of_order"],
      "wrong format": [`${line(1, 0).replace('"tca.audit"', '"other"')}\n`, "wrong_format"],
      "payload not an object": [`${line(1, 0).replace(/"data":\{.*\}\}$/, '"data":[]}')}\n`, "wrong_type"],
    };
    for (const [name, [content, code]] of Object.entries(cases)) {
      writeFileSync(path.join(dir, "bad.jsonl"), content);
      const read = readAuditFile(path.join(dir, "bad.jsonl"));
      assert.equal(!read.ok && read.problem.code, code, name);
      assert.equal(!read.ok && read.problem.file, "audit.jsonl", name);
    }
    const missing = readAuditFile(path.join(dir, "missing.jsonl"));
    assert.equal(!missing.ok && missing.problem.code, "audit_unreadable");
  } finally {
    cleanup();
  }
});
