import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AUDIT_SCHEMA, AuditRecorder, readAuditRecords } from "../../src/recording/auditRecorder.ts";

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
    assert.equal(recorder.append("run_started", { note: 'line\nbreak "quoted"' }), 1);
    assert.equal(recorder.append("proposal", { raw: '}\n{"type":"forged"}' }, 1), 2);
    assert.equal(recorder.append("observation", { ok: true }, 1), 3);
    recorder.close();
    recorder.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, "utf8");
    assert.equal(text.split("\n").length, 4, "three lines and a final newline: embedded newlines are escaped");
    const read = readAuditRecords(file);
    assert.ok(read.ok);
    assert.equal(read.value.tornTail, false);
    assert.deepEqual(
      read.value.records.map((r) => [r.event_id, r.t_ms, r.proposal, r.type]),
      [
        [1, 5, null, "run_started"],
        [2, 9, 1, "proposal"],
        [3, 9, 1, "observation"],
      ],
    );
    assert.deepEqual(read.value.records[1], {
      schema: AUDIT_SCHEMA,
      run_id: "r1",
      event_id: 2,
      t_ms: 9,
      source: "scripted",
      proposal: 1,
      type: "proposal",
      data: { raw: '}\n{"type":"forged"}' },
    });
    assert.throws(() => recorder.append("late", {}));
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
    recorder.append("a", {});
    recorder.close();
    appendFileSync(file, '{"schema":"tca.audit/1","run_id":"r"');
    const torn = readAuditRecords(file);
    assert.ok(torn.ok && torn.value.tornTail && torn.value.records.length === 1);

    const line = (id: number, t: number) =>
      JSON.stringify({
        schema: AUDIT_SCHEMA,
        run_id: "r",
        event_id: id,
        t_ms: t,
        source: "s",
        proposal: null,
        type: "x",
        data: {},
      });
    const cases: Record<string, string> = {
      "not json": "nope\n",
      "skipped id": `${line(1, 0)}\n${line(3, 0)}\n`,
      "time goes back": `${line(1, 5)}\n${line(2, 4)}\n`,
      "wrong schema": `${line(1, 0).replace(AUDIT_SCHEMA, "other/1")}\n`,
      "payload not an object": `${line(1, 0).replace('"data":{}', '"data":[]')}\n`,
    };
    for (const [name, content] of Object.entries(cases)) {
      writeFileSync(path.join(dir, "bad.jsonl"), content);
      const read = readAuditRecords(path.join(dir, "bad.jsonl"));
      assert.equal(!read.ok && read.error, "audit_malformed", name);
    }
    assert.equal(
      (() => {
        const r = readAuditRecords(path.join(dir, "missing.jsonl"));
        return !r.ok && r.error;
      })(),
      "audit_unreadable",
    );
  } finally {
    cleanup();
  }
});
