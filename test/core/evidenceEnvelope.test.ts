// The envelope's strict reader on a small catalog of its own: every coded problem it promises.
import { test } from "node:test";
import assert from "node:assert/strict";
import Type from "typebox";
import { encodeRecord, eventReader, recordSchema, type EventOf } from "../../src/recording/evidenceEnvelope.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";

const catalog = {
  started: Type.Object({ label: Type.String() }, { additionalProperties: false }),
  counted: Type.Object(
    { n: Type.Integer({ minimum: 0 }), note: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
};
const reader = eventReader("tca.test-log", catalog, [1]);
const base = { format: "tca.test-log", v: 2, run_id: "r", event_id: 1, t_ms: 0, source: "scripted", proposal: null };
const code = (value: unknown): string => {
  const read = reader.read(value, "log.ndjson", 3);
  return read.ok ? "ok" : read.problem.code;
};

test("a record of the catalog reads back as the typed union, narrowed by its type", () => {
  const line = encodeRecord<typeof catalog, "counted">({ ...base, v: 2, type: "counted", data: { n: 4 } });
  assert.equal(
    line,
    '{"format":"tca.test-log","v":2,"run_id":"r","event_id":1,"t_ms":0,"type":"counted","source":"scripted","proposal":null,"data":{"n":4}}\n',
  );
  const read = reader.read(JSON.parse(line), "log.ndjson", 1);
  assert.ok(read.ok);
  const record: EventOf<typeof catalog> = read.record;
  if (record.type === "counted") assert.equal(record.data.n, 4);
  else assert.fail("narrowed to the wrong event");
});

test("every way a line can be wrong has its own code, and nothing from the file is echoed", () => {
  assert.equal(code([1]), "not_json_object");
  assert.equal(code({ ...base, format: "tca.other", type: "started", data: { label: "x" } }), "wrong_format");
  assert.equal(code({ ...base, v: 1, type: "started", data: { label: "x" } }), "old_format_version");
  assert.equal(code({ ...base, v: 3, type: "started", data: { label: "x" } }), "unknown_format_version");
  assert.equal(code({ ...base, type: "started", data: { label: "x" }, extra: 1 }), "bad_envelope");
  assert.equal(code({ ...base, event_id: 0, type: "started", data: { label: "x" } }), "bad_envelope");
  assert.equal(code({ ...base, t_ms: -1, type: "started", data: { label: "x" } }), "bad_envelope");
  assert.equal(code({ ...base, source: "", type: "started", data: { label: "x" } }), "bad_envelope");
  assert.equal(code({ ...base, proposal: 0, type: "started", data: { label: "x" } }), "bad_envelope");
  assert.equal(code({ ...base, proposal: 2, type: "started", data: { label: "x" } }), "ok");
  const { proposal: _dropped, ...withoutProposal } = base;
  assert.equal(code({ ...withoutProposal, type: "started", data: { label: "x" } }), "bad_envelope");
  assert.equal(code({ ...base, type: "stopped", data: {} }), "unknown_event");
  assert.equal(code({ ...base, type: "toString", data: {} }), "unknown_event");
  assert.equal(code({ ...base, type: "started", data: { label: "x", secret: "SECRET-TEXT" } }), "unknown_field");
  assert.equal(code({ ...base, type: "started", data: {} }), "missing_field");
  assert.equal(code({ ...base, type: "counted", data: { n: "4" } }), "wrong_type");
  assert.equal(code({ ...base, type: "counted", data: { n: -1 } }), "wrong_type");
  const read = reader.read(
    { ...base, type: "counted", data: { n: 1, note: "SECRET-TEXT", more: "SECRET-TEXT" } },
    "log.ndjson",
    3,
  );
  assert.ok(!read.ok);
  assert.equal(formatProblem(read.problem), 'unknown_field: log.ndjson:3 (counted): data has an unknown field "more"');
});

test("the generated schema has one branch per event, each closed", () => {
  const schema = recordSchema("tca.test-log", catalog, "test log record") as {
    anyOf: { additionalProperties: boolean; properties: { type: { const: string } } }[];
  };
  assert.deepEqual(
    schema.anyOf.map((b) => b.properties.type.const),
    ["started", "counted"],
  );
  assert.ok(schema.anyOf.every((b) => b.additionalProperties === false));
});

test("a problem prints as code: file[:line][ (event)]: detail, and one of the whole run (no file) as code: detail", () => {
  const detail = "12 more problem(s)";
  assert.equal(formatProblem({ code: "problems_omitted", file: "", detail }), `problems_omitted: ${detail}`);
  assert.equal(
    formatProblem({ code: "file_missing", file: "final.json", detail: "gone" }),
    "file_missing: final.json: gone",
  );
  assert.equal(formatProblem({ code: "bad", file: "a.jsonl", line: 4, detail: "x" }), "bad: a.jsonl:4: x");
  assert.equal(formatProblem({ code: "bad", file: "a.jsonl", event: "stop", detail: "x" }), "bad: a.jsonl (stop): x");
});
