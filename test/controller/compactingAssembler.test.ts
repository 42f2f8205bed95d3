// Compaction is deterministic and keeps what Part 9 says must stay; a run whose essential input
// cannot fit stops with context_limit. Token counts come from an injected counter here (one token
// per 4 UTF-8 bytes of the rendered messages), so the rules are tested without a model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compactingAssembler,
  dropOrder,
  essentialEventIds,
  type TokenCounter,
} from "../../src/controller/compactingAssembler.ts";
import type { LoggedObservation } from "../../src/controller/observationLog.ts";
import type { Observation } from "../../src/controller/controllerWorkspace.ts";
import { SYSTEM_INSTRUCTION, TASK_TXT } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit } from "../lab/labRunTestSupport.ts";

const byteCounter: TokenCounter = async (messages) =>
  Math.ceil(messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0) / 4);
const state = { remainingProposals: 3, currentVersion: 1, sourceRead: true, latestPublicTest: "not_run" as const };

function entry(eventId: number, kind: LoggedObservation["kind"], size = 10): LoggedObservation {
  // The entry's kind is given; its observation is a real one of about `size` bytes (only its size matters here).
  const observation: Observation =
    kind === "error"
      ? { ok: false, action: null, error: "invalid_json", message: "p".repeat(size), version: 0 }
      : {
          ok: true,
          action: "read",
          file: "TASK.txt",
          version: 0,
          sha256: "0".repeat(64),
          content: `${kind} ${"p".repeat(size)}`,
        };
  return { eventId, proposalNumber: eventId, kind, observation };
}

const LOG: LoggedObservation[] = [
  entry(1, "source_read", 400),
  entry(2, "test_result", 400),
  entry(3, "error", 400),
  entry(4, "edit_receipt", 400),
  entry(5, "source_read", 400),
  entry(6, "task_read", 400),
  entry(7, "test_result", 400),
  entry(8, "error", 400),
];

test("essential entries: latest read, latest test, latest error, every edit receipt", () => {
  assert.deepEqual(
    [...essentialEventIds(LOG)].sort((a, b) => a - b),
    [4, 5, 7, 8],
  );
  assert.deepEqual(dropOrder(LOG, essentialEventIds(LOG)), [1, 2, 3, 6]);
});

test("a request that fits is sent whole with the fixed instruction first", async () => {
  const assembled = await compactingAssembler(byteCounter).assemble(state, LOG);
  assert.equal(assembled.kind, "request");
  if (assembled.kind !== "request") return;
  assert.deepEqual(assembled.omittedEventIds, []);
  assert.equal(assembled.messages[0]?.content, SYSTEM_INSTRUCTION);
  assert.ok(assembled.messages[1]?.content.includes(TASK_TXT.trimEnd()));
});

test("compaction drops older duplicate reads and tests first, then other non-essentials, oldest first", async () => {
  const sizeWithout = async (omit: number[]): Promise<number> => {
    const kept = LOG.filter((e) => !omit.includes(e.eventId));
    const assembled = await compactingAssembler(byteCounter, 1e9).assemble(state, kept);
    return assembled.inputTokens ?? 0;
  };
  // A budget that fits only after the two oldest duplicates are gone.
  const budget = await sizeWithout([1, 2]);
  const assembled = await compactingAssembler(byteCounter, budget).assemble(state, LOG);
  assert.equal(assembled.kind, "request");
  assert.deepEqual(assembled.omittedEventIds, [1, 2]);
  if (assembled.kind === "request") {
    const user = assembled.messages[1]?.content ?? "";
    for (const kept of [3, 4, 5, 6, 7, 8]) assert.ok(user.includes(`[event ${kept},`), `event ${kept} kept`);
    assert.ok(!user.includes("[event 1,") && !user.includes("[event 2,"));
  }
  // Tighter: everything droppable goes, in order.
  const tight = await compactingAssembler(byteCounter, await sizeWithout([1, 2, 3, 6])).assemble(state, LOG);
  assert.deepEqual(tight.omittedEventIds, [1, 2, 3, 6]);
});

test("when the essential part cannot fit, the assembler reports context_limit", async () => {
  const assembled = await compactingAssembler(byteCounter, 100).assemble(state, LOG);
  assert.equal(assembled.kind, "context_limit");
  assert.deepEqual(assembled.omittedEventIds, [1, 2, 3, 6]);
  assert.ok(assembled.inputTokens > 100);
});

test("a run whose observations outgrow the budget compacts, logs omitted ids, then stops with context_limit", async () => {
  const root = freshRoot("compaction");
  const read = '{"action":"read","file":"toy_math.py"}';
  const initial = await compactingAssembler(byteCounter, 1e9).assemble(state, []);
  // Room for the empty log plus roughly two source reads.
  const budget = (initial.inputTokens ?? 0) + 160;
  const result = await runLab({
    runDirectory: join(root, "run"),
    source: new ScriptedSource([read, read, read, read, read, read]),
    kind: "negative_check",
    assembler: compactingAssembler(byteCounter, budget),
  });
  assert.ok(result.ok);
  const audit = readAudit(result.value.runDirectory);
  const requests = audit.filter((r) => r.type === "request");
  assert.ok(
    requests.some((r) => (r.data["omitted_event_ids"] as number[]).length > 0),
    "some request was compacted",
  );
  for (const r of requests) assert.ok((r.data["input_tokens"] as number) <= budget);
  // Every read is a duplicate except the latest, so this log never exceeds the essential part: it runs to the end.
  assert.equal(result.value.final.stop_reason, "proposal_limit");

  const tiny = await runLab({
    runDirectory: join(root, "tiny"),
    source: new ScriptedSource([read, read]),
    kind: "negative_check",
    assembler: compactingAssembler(byteCounter, (initial.inputTokens ?? 0) + 10),
  });
  assert.ok(tiny.ok);
  assert.equal(tiny.value.final.stop_reason, "context_limit");
  assert.equal(tiny.value.final.proposals_used, 1, "the stop comes before the second generation");
  assert.ok(readAudit(tiny.value.runDirectory).some((r) => r.type === "context_limit"));
});
