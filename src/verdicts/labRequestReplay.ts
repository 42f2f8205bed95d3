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
import type { LabProblemCode } from "./labProblems.ts";

/** This replay's codes (labProblems.ts gives their meanings). */
export type RequestReplayCode = Extract<
  LabProblemCode,
  "replay_request_differs" | "replay_omitted_differs" | "replay_observation_differs"
>;

/**
 * The fields of an audit record this replay reads, structurally (the v1 record and the v2
 * envelope's typed record both have them); `data` is checked here, never assumed.
 */
export interface ReplayedRecord {
  readonly event_id: number;
  readonly proposal: number | null;
  readonly type: string;
  readonly data: unknown;
}

function dataOf(record: ReplayedRecord): Readonly<Record<string, unknown>> {
  return isRecord(record.data) ? record.data : {};
}

/**
 * An observation as the log holds it. The audit's strict reader has checked every record against
 * its schema (a mismatch is a verdict problem of its own), so the recorded body is the
 * controller's observation shape.
 */
function asObservation(value: Readonly<Record<string, unknown>>): LoggedObservation["observation"] {
  return value as LoggedObservation["observation"];
}

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

export class RequestReplay<R extends ReplayedRecord> {
  /** The observation log exactly as the controller keeps it (observationLog.ts). */
  readonly #log: LoggedObservation[] = [];
  #latestTest: ControllerStateEnvelope["latestPublicTest"] = "not_run";

  constructor(readonly report: (record: R, code: RequestReplayCode, detail: string) => void) {}

  /** A check's synthetic record: the controller logs `{ ...injected, ok: injected.ok === true }`, marked synthetic. */
  injected(record: R): void {
    const injected = dataOf(record).observation;
    if (!isRecord(injected) || record.proposal === null)
      return this.report(record, "replay_observation_differs", "an injected observation without its body");
    const observation = asObservation({ ...injected, ok: injected["ok"] === true });
    this.#log.push({
      eventId: record.event_id,
      proposalNumber: record.proposal,
      kind: classifyObservation(observation),
      observation,
      synthetic: true,
    });
  }

  /** A recorded observation enters the log as recorded; a test result becomes the latest public test. */
  observed(record: R): void {
    const body = dataOf(record).observation;
    if (!isRecord(body) || record.proposal === null) return;
    const observation = asObservation(body);
    this.#log.push({
      eventId: record.event_id,
      proposalNumber: record.proposal,
      kind: classifyObservation(observation),
      observation,
    });
    if (
      body.ok === true &&
      body.action === "test" &&
      Number.isSafeInteger(body.version) &&
      Number.isSafeInteger(body.passed) &&
      Number.isSafeInteger(body.total)
    )
      this.#latestTest = {
        version: body.version as number,
        passed: body.passed as number,
        total: body.total as number,
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
  #checkOmitted(record: R, omitted: readonly number[], all: boolean): boolean {
    const order = dropOrder(this.#log, essentialEventIds(this.#log));
    const expected = (all ? order : order.slice(0, omitted.length)).sort((a, b) => a - b);
    if (omitted.length <= order.length && expected.join(",") === [...omitted].join(",")) return true;
    this.report(
      record,
      "replay_omitted_differs",
      `leaves out observations ${JSON.stringify(omitted)}, compaction of the replayed log would leave out ${JSON.stringify(expected)}`,
    );
    return false;
  }

  /** A recorded `request` against the request rebuilt from the replayed state and log. */
  request(record: R, state: ReplayedRequestState): void {
    const data = dataOf(record);
    const omitted = integerList(data.omitted_event_ids);
    if (omitted === null)
      return this.report(record, "replay_omitted_differs", "a request without its omitted observation ids");
    if (!this.#checkOmitted(record, omitted, false)) return;
    const kept = this.#log.filter((entry) => !omitted.includes(entry.eventId));
    const rebuilt = requestMessages(this.#state(state), kept);
    const recorded: readonly unknown[] = Array.isArray(data.messages) ? data.messages : [];
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
      "replay_request_differs",
      `the recorded request differs from the one the request assembler builds from the replayed state (${where})`,
    );
  }

  /** A context limit stops the run only after compaction left out every observation it may drop. */
  contextLimit(record: R): void {
    const omitted = integerList(dataOf(record).omitted_event_ids);
    if (omitted === null)
      return this.report(record, "replay_omitted_differs", "a context limit without its omitted observation ids");
    this.#checkOmitted(record, omitted, true);
  }
}
