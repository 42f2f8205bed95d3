import { test } from "node:test";
import assert from "node:assert/strict";
import { boundObservation, capObservation, rejection } from "../../src/workspace/index.ts";

test("boundObservation measures UTF-8 bytes of the JSON and never truncates", () => {
  const fits = boundObservation({ ok: true, content: "a".repeat(2000) });
  assert.ok(fits.ok);
  assert.equal(fits.value.bytes, Buffer.byteLength(fits.value.json));
  assert.equal(fits.value.json, JSON.stringify({ ok: true, content: "a".repeat(2000) }));
  const exact = "x".repeat(2048 - JSON.stringify({ c: "" }).length);
  assert.ok(boundObservation({ c: exact }).ok, "exactly 2048 bytes fits");
  const over = boundObservation({ c: `${exact}x` });
  assert.equal(!over.ok && over.error, "observation_limit");
  // Multi-byte characters count as bytes, not code units; escapes count as serialized.
  assert.equal(boundObservation({ c: "é".repeat(1100) }).ok, false);
  assert.equal(boundObservation({ c: '"'.repeat(1100) }).ok, false);
});

test("capObservation replaces an oversized required observation with observation_limit", () => {
  const big = {
    ok: true as const,
    action: "read" as const,
    file: "TASK.txt" as const,
    version: 3,
    sha256: "0".repeat(64),
    content: "z".repeat(3000),
  };
  assert.deepEqual(
    capObservation(big, "read", 3),
    rejection("read", "observation_limit", "the required observation does not fit in 2048 bytes", 3),
  );
  const small = { ...big, content: "z" };
  assert.equal(capObservation(small, "read", 3), small);
});
