// Replays every recorded model request of a Lab run (issue 33). The controller builds each
// request from its state and the observations shown so far (controllerLoop.ts); this module
// rebuilds that state and that observation log from the audit, in audit order, and builds the
// request again with the controller's own functions: requestMessages (the messages),
// essentialEventIds and dropOrder (which observations compaction may leave out, and in which
// order). A recorded request is then only compared with the rebuilt one, byte for byte, so a
// deleted, moved or renumbered proposal changes every later request and is named.
//
// Not re-derived: how many observations compaction had to leave out (that needs the model's
// tokenizer and template, so the recorded count is kept, but only as a prefix of the drop
// order), and the input-token count itself.
import { CONTROLLER_LIMITS } from "../constants/labConstants.ts";
import { isRecord } from "../core/isRecord.ts";
import { dropOrder, essentialEventIds } from "../controller/compactingAssembler.ts";
import { classifyObservation, type LoggedObservation } from "../controller/observationLog.ts";
import { requestMessages, type ControllerStateEnvelope } from "../controller/requestAssembler.ts";
import type { AuditRecord } from "../recording/auditRecorder.ts";

type Report = (record: AuditRecord, problem: string) => void;

/** The replayed controller state at a request, as the replay of the decision chain knows it. */
export interface ReplayedRequestState {
  readonly proposalNumber: number;
  readonly currentVersion: number;
  readonly sourceRead: boolean;
}

function integerList(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((item) => Number.isSafeInteger(item)) ? (value as number[]) : null;
}

function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) if (a[index] !== b[index]) return index;
  return length;
}

export class RequestReplay {
  /** The observation log exactly as the controller keeps it (observationLog.ts). */
  readonly #log: LoggedObservation[] = [];
  #latestTest: ControllerStateEnvelope["latestPublicTest"] = "not_run";

  constructor(readonly report: Report) {}

  /** A check's synthetic record: the controller logs `{ ...injected, ok: injected.ok === true }`, marked synthetic. */
  injected(record: AuditRecord): void {
    const injected = record.data.observation;
    if (!isRecord(injected) || record.proposal === null)
      return this.report(record, "an injected observation without its body");
    const observation = { ...injected, ok: injected["ok"] === true };
    this.#log.push({
      eventId: record.event_id,
      proposalNumber: record.proposal,
      kind: classifyObservation(observation),
      observation,
      synthetic: true,
    });
  }

  /** A recorded observation enters the log as recorded; a test result becomes the latest public test. */
  observed(record: AuditRecord): void {
    const observation = record.data.observation;
    if (!isRecord(observation) || record.proposal === null) return;
    this.#log.push({
      eventId: record.event_id,
      proposalNumber: record.proposal,
      kind: classifyObservation(observation),
      observation,
    });
    if (
      observation.ok === true &&
      observation.action === "test" &&
      Number.isSafeInteger(observation.version) &&
      Number.isSafeInteger(observation.passed) &&
      Number.isSafeInteger(observation.total)
    )
      this.#latestTest = {
        version: observation.version as number,
        passed: observation.passed as number,
        total: observation.total as number,
      };
  }

  #state(state: ReplayedRequestState): ControllerStateEnvelope {
    return {
      remainingProposals: CONTROLLER_LIMITS.maxProposals - state.proposalNumber + 1,
      currentVersion: state.currentVersion,
      sourceRead: state.sourceRead,
      latestPublicTest: this.#latestTest,
    };
  }

  /** The recorded omitted ids must be the first ones compaction drops (sorted as the assembler sorts them). */
  #checkOmitted(record: AuditRecord, omitted: readonly number[], all: boolean): boolean {
    const order = dropOrder(this.#log, essentialEventIds(this.#log));
    const expected = (all ? order : order.slice(0, omitted.length)).sort((a, b) => a - b);
    if (omitted.length <= order.length && expected.join(",") === [...omitted].join(",")) return true;
    this.report(
      record,
      `leaves out observations ${JSON.stringify(omitted)}, compaction of the replayed log would leave out ${JSON.stringify(expected)}`,
    );
    return false;
  }

  /** A recorded `request` against the request rebuilt from the replayed state and log. */
  request(record: AuditRecord, state: ReplayedRequestState): void {
    const omitted = integerList(record.data.omitted_event_ids);
    if (omitted === null) return this.report(record, "a request without its omitted observation ids");
    if (!this.#checkOmitted(record, omitted, false)) return;
    const kept = this.#log.filter((entry) => !omitted.includes(entry.eventId));
    const rebuilt = requestMessages(this.#state(state), kept);
    const recorded = Array.isArray(record.data.messages) ? record.data.messages : [];
    if (JSON.stringify(recorded) === JSON.stringify(rebuilt)) return;
    const index = rebuilt.findIndex((message, i) => JSON.stringify(recorded[i]) !== JSON.stringify(message));
    const at = index === -1 ? rebuilt.length : index;
    const message: unknown = recorded[at];
    const content = isRecord(message) && typeof message.content === "string" ? message.content : null;
    const expected = rebuilt[at]?.content ?? null;
    const where =
      content === null || expected === null || (isRecord(message) && message.role !== rebuilt[at]?.role)
        ? `message ${at + 1} is not the rebuilt one`
        : ((offset) =>
            `message ${at + 1} (${rebuilt[at]!.role}), first difference at character ${offset}: recorded ` +
            `${JSON.stringify(content.slice(offset, offset + 48))}, rebuilt ${JSON.stringify(expected.slice(offset, offset + 48))}`)(
            firstDifference(content, expected),
          );
    this.report(
      record,
      `the recorded request differs from the one the request assembler builds from the replayed state (${where})`,
    );
  }

  /** A context limit stops the run only after compaction left out every observation it may drop. */
  contextLimit(record: AuditRecord): void {
    const omitted = integerList(record.data.omitted_event_ids);
    if (omitted === null) return this.report(record, "a context limit without its omitted observation ids");
    this.#checkOmitted(record, omitted, true);
  }
}
