// The request assembler for token-counted sources (Part 9): counts input tokens after the chat
// template and compacts the observation log deterministically to fit 2,048 tokens.
//
// Always kept: the fixed instruction, the task, the contract, the state envelope, the latest
// successful source read, every committed edit receipt, the latest public-test result and the
// latest error. Dropped first: older duplicate source reads and test results (oldest first); then
// the other non-essential entries (older errors, task reads, no_change receipts), oldest first.
// If the essential part alone does not fit, the assembler reports context_limit and the run stops.
// Compaction only removes observations: it never changes the instruction, task or permissions.
import { CONTROLLER_LIMITS } from "../constants/labConstants.ts";
import type { LoggedObservation } from "./observationLog.ts";
import type { ChatMessage } from "../core/chatMessage.ts";
import { requestMessages, type AssembledRequest, type RequestAssembler } from "./requestAssembler.ts";

/** Counts the input tokens of messages exactly as the source will feed them (template applied). */
export type TokenCounter = (messages: readonly ChatMessage[]) => Promise<number>;

export function compactingAssembler(
  countTokens: TokenCounter,
  budget: number = CONTROLLER_LIMITS.maxInputTokens,
): RequestAssembler {
  return {
    async assemble(state, log) {
      const essential = essentialEventIds(log);
      const droppable = dropOrder(log, essential);
      const omitted: number[] = [];
      for (;;) {
        const kept = log.filter((entry) => !omitted.includes(entry.eventId));
        const messages = requestMessages(state, kept);
        const inputTokens = await countTokens(messages);
        if (inputTokens <= budget)
          return { kind: "request", messages, omittedEventIds: [...omitted].sort((a, b) => a - b), inputTokens };
        const next = droppable[omitted.length];
        if (next === undefined)
          return { kind: "context_limit", inputTokens, omittedEventIds: [...omitted].sort((a, b) => a - b) };
        omitted.push(next);
      }
    },
  };
}

/** Event ids that compaction may never drop. */
export function essentialEventIds(log: readonly LoggedObservation[]): Set<number> {
  const keep = new Set<number>();
  const latest = (kind: LoggedObservation["kind"]): LoggedObservation | undefined =>
    [...log].reverse().find((entry) => entry.kind === kind && entry.synthetic !== true);
  for (const entry of [latest("source_read"), latest("test_result"), latest("error")])
    if (entry) keep.add(entry.eventId);
  for (const entry of log) if (entry.kind === "edit_receipt") keep.add(entry.eventId);
  return keep;
}

/** Non-essential event ids in the order compaction drops them. */
export function dropOrder(log: readonly LoggedObservation[], essential: ReadonlySet<number>): number[] {
  const candidates = log.filter((entry) => !essential.has(entry.eventId));
  const duplicates = candidates.filter((entry) => entry.kind === "source_read" || entry.kind === "test_result");
  const others = candidates.filter((entry) => entry.kind !== "source_read" && entry.kind !== "test_result");
  return [...duplicates, ...others].map((entry) => entry.eventId);
}

export type { AssembledRequest };
