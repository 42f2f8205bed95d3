// Groups a Lab audit trail into one view per proposal. Each proposal's status is the evidence
// room's one classification (classifyProposal), the same one submission.md renders. Invalid,
// denied and discarded proposals get a status and code just like accepted ones, so the page
// shows them with the same weight.
import { classifyProposal } from "../verdicts/proposalOutcome.ts";
import { numberField, objectField, stringField, type JsonObject } from "./evidenceFiles.ts";
import type { ProposalStatus, ProposalView } from "./reportDocument.ts";

function firstOfType(records: readonly JsonObject[], type: string): JsonObject | null {
  const found = records.find((record) => record.type === type);
  return found === undefined ? null : objectField(found, "data");
}

function tokenCount(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.length;
  return null;
}

/** The report's rendering of the evidence room's one classification (src/verdicts/proposalOutcome.ts). */
export function proposalStatus(records: readonly JsonObject[]): {
  readonly status: ProposalStatus;
  readonly code: string | null;
} {
  const { status, code } = classifyProposal(records);
  return { status, code };
}

export interface TimelineOptions {
  /** Keep the full request messages (the model input); off for compact nested views. */
  readonly includeRequests: boolean;
}

/** Splits records into per-proposal views (in proposal order) and the run-level records. */
export function buildTimeline(
  records: readonly JsonObject[],
  options: TimelineOptions,
): { proposals: ProposalView[]; runRecords: JsonObject[] } {
  const byProposal = new Map<number, JsonObject[]>();
  const runRecords: JsonObject[] = [];
  for (const record of records) {
    const kept = !options.includeRequests && record.type === "request" ? withoutMessages(record) : record;
    const proposal = record.proposal;
    if (typeof proposal === "number" && Number.isInteger(proposal)) {
      const list = byProposal.get(proposal) ?? [];
      list.push(kept);
      byProposal.set(proposal, list);
    } else {
      runRecords.push(kept);
    }
  }
  const proposals = [...byProposal.entries()]
    .sort(([a], [b]) => a - b)
    .map(([number, list]): ProposalView => {
      const generation = firstOfType(list, "generation");
      const request = firstOfType(list, "request");
      const metadata = objectField(generation, "metadata");
      const { status, code, action } = classifyProposal(list);
      return {
        number,
        status,
        code,
        action,
        rawText: stringField(generation, "raw_text"),
        inputTokens: tokenCount(metadata?.inputTokens) ?? tokenCount(request?.input_tokens),
        outputTokens: tokenCount(metadata?.outputTokens) ?? tokenCount(metadata?.rawOutputIds),
        generationMs: numberField(generation, "elapsed_ms"),
        records: list,
      };
    });
  return { proposals, runRecords };
}

function withoutMessages(record: JsonObject): JsonObject {
  const data = objectField(record, "data");
  if (data === null || !Array.isArray(data.messages)) return record;
  const { messages, ...rest } = data;
  return { ...record, data: { ...rest, messages_omitted: Array.isArray(messages) ? messages.length : 0 } };
}
