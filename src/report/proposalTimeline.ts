// Groups a Lab audit trail into one view per proposal and decides each proposal's status.
// Invalid, denied and discarded proposals get a status and code just like accepted ones, so the
// page shows them with the same weight.
import { isJsonObject, numberField, objectField, stringField, type JsonObject } from "./evidenceFiles.ts";
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

interface StatusAndCode {
  readonly status: ProposalStatus;
  readonly code: string | null;
}

export function proposalStatus(records: readonly JsonObject[]): StatusAndCode {
  const generation = firstOfType(records, "generation");
  if (generation !== null && generation.outcome !== "text") return { status: "no_proposal", code: stringField(generation, "outcome") };
  const discarded = firstOfType(records, "proposal_discarded");
  if (discarded !== null) return { status: "discarded", code: stringField(discarded, "reason") };
  const validation = firstOfType(records, "validation");
  if (validation !== null && validation.ok !== true) return { status: "invalid", code: stringField(validation, "error") };
  const integrity = firstOfType(records, "integrity_check");
  if (integrity !== null && integrity.ok !== true) return { status: "integrity_failure", code: "workspace_conflict" };
  const authorization = firstOfType(records, "authorization");
  if (authorization !== null && authorization.allowed !== true) return { status: "denied", code: stringField(authorization, "error") };
  const observation = objectField(firstOfType(records, "observation"), "observation");
  if (observation !== null) {
    if (observation.ok === true) return { status: "accepted", code: null };
    return { status: "tool_error", code: stringField(observation, "error") };
  }
  return { status: "incomplete", code: null };
}

function actionName(records: readonly JsonObject[]): string | null {
  const validation = firstOfType(records, "validation");
  const action = objectField(validation, "action");
  if (action !== null) return stringField(action, "action");
  const attempted = validation?.attempted_action;
  if (typeof attempted === "string") return attempted;
  if (isJsonObject(attempted)) return stringField(attempted, "action");
  return null;
}

export interface TimelineOptions {
  /** Keep the full request messages (the model input); off for compact nested views. */
  readonly includeRequests: boolean;
}

/** Splits records into per-proposal views (in proposal order) and the run-level records. */
export function buildTimeline(records: readonly JsonObject[], options: TimelineOptions): { proposals: ProposalView[]; runRecords: JsonObject[] } {
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
      const { status, code } = proposalStatus(list);
      return {
        number,
        status,
        code,
        action: actionName(list),
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
