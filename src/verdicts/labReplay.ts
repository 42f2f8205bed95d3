// Replays a Lab run's decision chain from the audit, starting from the spec's own initial
// toy_math.py bytes, with the project's own parser, authorizer and expression validator. Every
// recorded decision is compared with what replaying it yields; nothing is believed because other
// records agree with it. Hand-written on purpose: this is the trusted core of the Lab verdict.
//
// Replayed per proposal (in audit order):
//   generation raw text -> parseProposal        == the validation record (ok, action or error code)
//   replayed state      -> authorize            == the authorization record (allowed, error code)
//   dispatch                                    == the validated action, only after an allowed authorization
//   edit_intent / edit_committed / reconciled   == the replace applied to the current rebuilt source:
//                                                  versions chain 0,1,2..., digests of the rebuilt bytes
//   read observation                            == the rebuilt bytes of the version it names (and their digest)
//   test observation                            == the public fixtures evaluated on the rebuilt version
//   accepted finish                             == only after a passing test on the same version and digest
//   request                                     == the request the controller's assembler builds from the
//                                                  replayed state and observation log (labRequestReplay.ts)
//   observation                                 == exactly one per validated proposal, before the next
//                                                  request and before the stop
// and over the whole audit: proposal numbers consecutive, proposals_used / invalid_proposals
// counted from the records, the stop after the last proposal's records.
import { isRecord } from "../core/isRecord.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import { sha256Hex } from "../core/digest.ts";
import { evaluateFixtures, parseToyMathSource, renderToyMathSource } from "../expr/index.ts";
import { parseProposal, type Action } from "../proposal/index.ts";
import { authorize } from "../controller/authorize.ts";
import { INITIAL_TOY_MATH_PY, PUBLIC_FIXTURES, TASK_TXT } from "../constants/labConstants.ts";
import type { LabAuditRecord as AuditRecord, LabAuditRecordOf } from "../recording/labAuditEvents.ts";
import { labProblem, type LabProblem, type LabProblemCode } from "./labProblems.ts";
import { RequestReplay } from "./labRequestReplay.ts";

type Json = Readonly<Record<string, unknown>>;
type Report = (problem: LabProblem) => void;
/** The replay's codes (each is one of the verdict's, with its meaning in labProblems.ts). */
type ReplayCode = Extract<LabProblemCode, `replay_${string}`>;

export interface ReplayedSnapshot {
  readonly version: number;
  readonly sha256: string;
}

export interface Replay {
  /** Rebuilt source of every version, index = version (0 is the spec's initial file). */
  readonly versions: readonly string[];
  readonly finalVersion: ReplayedSnapshot;
  /** The accepted finish the replay allows (null: none, or one the replay refused). */
  readonly finish: ReplayedSnapshot | null;
  readonly proposalsUsed: number;
  readonly invalidProposals: number;
  /** The first stop record's reason, and whether it came after every proposal record. */
  readonly stopReason: string | null;
}

/** Stop reasons that end a proposal before its rejection is counted as invalid (controllerLoop). */
const UNCOUNTED_STOPS = new Set(["workspace_conflict", "observation_limit", "cancelled", "time_limit"]);
/**
 * Records written after a proposal's stop by design: a late answer is recorded when it arrives,
 * a source that cannot close and a harness fault after the loop are recorded with the last
 * proposal's number (labRun.ts). None of them changes a replayed decision.
 */
const AFTER_STOP_ALLOWED = new Set(["late_proposal_discarded", "source_close_failed", "harness_error"]);

/** The public-test cases as the dispatcher words them (dispatch.ts), recomputed. */
export function publicTestOf(
  source: string,
): { readonly passed: number; readonly total: number; readonly cases: readonly unknown[] } | null {
  const parsed = parseToyMathSource(source);
  if (!parsed.ok) return null;
  const evaluated = evaluateFixtures(parsed.value, PUBLIC_FIXTURES);
  if (!evaluated.ok) return null;
  const cases = evaluated.value.map((record) =>
    record.error === null
      ? { function: record.function, inputs: record.inputs, expected: record.expected, actual: record.actual }
      : { function: record.function, inputs: record.inputs, expected: record.expected, error: record.error.code },
  );
  return { passed: evaluated.value.filter((record) => record.passed).length, total: evaluated.value.length, cases };
}

interface ProposalContext {
  readonly number: number;
  raw: string | null;
  action: Action | null;
  allowed: boolean | null;
  dispatched: boolean;
  intent: { readonly id: unknown; readonly source: string } | null;
  committed: boolean;
  /** The integrity check before dispatch: null until recorded. */
  integrityOk: boolean | null;
  failed: boolean;
  stoppedUncounted: boolean;
  /** A validation was recorded, a proposal_discarded was recorded, observations recorded. */
  validated: boolean;
  discarded: boolean;
  observations: number;
}

class Replayer {
  readonly versions: string[] = [INITIAL_TOY_MATH_PY];
  readonly #digests: string[] = [sha256Hex(INITIAL_TOY_MATH_PY)];
  sourceRead = false;
  knownVersion: number | null = null;
  passingTest: ReplayedSnapshot | null = null;
  finish: ReplayedSnapshot | null = null;
  proposalsUsed = 0;
  invalidProposals = 0;
  stopReason: string | null = null;
  stopEventId: number | null = null;
  lastProposalEventId = 0;
  context: ProposalContext | null = null;
  readonly requests: RequestReplay<AuditRecord>;

  constructor(readonly report: Report) {
    this.requests = new RequestReplay<AuditRecord>((record, code, detail) => this.at(record, code, detail));
  }

  get version(): number {
    return this.versions.length - 1;
  }
  get sha(): string {
    return this.#digests[this.version]!;
  }
  expressions(): { clamp: string; total: string } | null {
    const parsed = parseToyMathSource(this.versions[this.version]!);
    return parsed.ok ? { ...parsed.value.expressions } : null;
  }
  commit(source: string): void {
    this.versions.push(source);
    this.#digests.push(sha256Hex(source));
    this.knownVersion = this.version;
    this.passingTest = null; // a committed edit invalidates the previous passing test
    if (this.context !== null) this.context.committed = true;
  }
  closeProposal(): void {
    const ctx = this.context;
    if (ctx !== null && ctx.failed && !ctx.stoppedUncounted) this.invalidProposals += 1;
    this.context = null;
  }
  /** A problem of one record: its line is its event id (the audit reader checks they are equal). */
  at(record: AuditRecord, code: ReplayCode, what: string): void {
    const detail = record.proposal === null ? what : `proposal ${record.proposal}: ${what}`;
    this.report(labProblem(code, "audit.jsonl", detail, { line: record.event_id, event: record.type }));
  }
}

function onGeneration(r: Replayer, record: LabAuditRecordOf<"generation">, ctx: ProposalContext): void {
  if (record.data.outcome === "text") {
    if (typeof record.data.raw_text !== "string")
      r.at(record, "replay_text_missing", "a text outcome without its raw text");
    else ctx.raw = record.data.raw_text;
  }
}

function onValidation(r: Replayer, record: LabAuditRecordOf<"validation">, ctx: ProposalContext): void {
  if (ctx.raw === null) return r.at(record, "replay_text_missing", "a validation without generated text");
  const verdict = parseProposal(ctx.raw);
  if (record.data.ok !== verdict.ok)
    return r.at(
      record,
      "replay_validation_differs",
      `recorded ok ${String(record.data.ok)}, re-validating the raw text says ${verdict.ok}`,
    );
  if (verdict.ok && record.data.ok) {
    if (canonicalJson(record.data.action) !== canonicalJson(verdict.action))
      r.at(record, "replay_validation_differs", "the recorded action differs from the one parsed from the raw text");
    ctx.action = verdict.action;
  } else if (!verdict.ok && !record.data.ok && record.data.error !== verdict.error) {
    r.at(
      record,
      "replay_validation_differs",
      `recorded error ${JSON.stringify(record.data.error)}, re-validating the raw text says ${verdict.error}`,
    );
  }
}

function onAuthorization(r: Replayer, record: LabAuditRecordOf<"authorization">, ctx: ProposalContext): void {
  if (ctx.action === null)
    return r.at(record, "replay_authorization_differs", "an authorization of no validated action");
  // The controller authorizes only after a passing integrity check; a failed one stops the run.
  if (ctx.integrityOk !== true)
    r.at(record, "replay_authorization_differs", "an authorization without a passing integrity check before it");
  const decision = authorize(
    {
      sourceRead: r.sourceRead,
      knownVersion: r.knownVersion,
      currentVersion: r.version,
      currentSha256: r.sha,
      passingTest: r.passingTest,
    },
    ctx.action,
  );
  ctx.allowed = decision.allowed;
  if (record.data.allowed !== decision.allowed)
    return r.at(
      record,
      "replay_authorization_differs",
      `recorded allowed ${String(record.data.allowed)}, the replayed authorizer says ${decision.allowed}`,
    );
  if (!decision.allowed && !record.data.allowed && record.data.error !== decision.error)
    r.at(
      record,
      "replay_authorization_differs",
      `recorded denial ${JSON.stringify(record.data.error)}, the replayed authorizer says ${decision.error}`,
    );
}

function onEditIntent(r: Replayer, record: LabAuditRecordOf<"edit_intent">, ctx: ProposalContext): void {
  const action = ctx.action;
  if (!ctx.dispatched || action?.action !== "replace")
    return r.at(record, "replay_edit_differs", "an edit intent without a dispatched replace");
  const before = r.expressions();
  if (before === null || before[action.function] !== action.old)
    return r.at(record, "replay_edit_differs", "an edit intent whose old expression is not the current one");
  const source = renderToyMathSource({ ...before, [action.function]: action.new });
  if (!parseToyMathSource(source).ok)
    return r.at(record, "replay_edit_differs", "an edit intent whose new source is outside the grammar");
  const d: Json = record.data;
  const after = { ...before, [action.function]: action.new };
  const expected = {
    function: action.function,
    old_version: r.version,
    new_version: r.version + 1,
    before_sha256: r.sha,
    after_sha256: sha256Hex(source),
    backup_file: `backups/toy_math.v${r.version}.py`,
    expressions_before: canonicalJson(before),
    expressions_after: canonicalJson(after),
  };
  for (const [key, value] of Object.entries(expected)) {
    const recorded = key.startsWith("expressions_") ? canonicalJson(d[key]) : d[key];
    if (recorded !== value)
      r.at(
        record,
        "replay_edit_differs",
        `${key} is ${JSON.stringify(d[key])}, the replayed edit gives ${JSON.stringify(value)}`,
      );
  }
  ctx.intent = { id: d.intent_id, source };
}

function onEditOutcome(
  r: Replayer,
  record: LabAuditRecordOf<"edit_committed" | "edit_aborted" | "edit_interrupted" | "edit_reconciled">,
  ctx: ProposalContext,
): void {
  // Read as one JSON view: the four outcomes share the fields compared below, each where it has them.
  const d: Json = record.data;
  const intent = ctx.intent;
  const committed =
    record.type === "edit_committed" || (record.type === "edit_reconciled" && d.outcome === "committed");
  if (intent === null || d.intent_id !== intent.id)
    return r.at(record, "replay_edit_differs", "an edit outcome without its intent");
  if (committed) {
    const afterSha = sha256Hex(intent.source);
    if (d.version !== r.version + 1 || d.sha256 !== afterSha)
      r.at(
        record,
        "replay_edit_differs",
        `records version ${String(d.version)} / ${String(d.sha256)}, the replayed edit gives ${r.version + 1} / ${afterSha}`,
      );
    const oldVersion = r.version;
    r.commit(intent.source);
    if (canonicalJson(d.expressions) !== canonicalJson(r.expressions()))
      r.at(record, "replay_edit_differs", "its expressions are not those of the rebuilt version");
    if (record.type === "edit_committed") {
      const action = ctx.action as Extract<Action, { action: "replace" }>;
      const receipt = {
        ok: true,
        action: "replace",
        status: "edit_committed",
        function: action.function,
        old_version: oldVersion,
      };
      for (const [key, value] of Object.entries(receipt))
        if (d[key] !== value)
          r.at(
            record,
            "replay_edit_differs",
            `${key} is ${JSON.stringify(d[key])}, the replayed edit gives ${JSON.stringify(value)}`,
          );
    }
  } else if (
    record.type !== "edit_interrupted" &&
    (d.version !== r.version || (d.sha256 !== undefined && d.sha256 !== r.sha))
  ) {
    r.at(
      record,
      "replay_edit_differs",
      `an edit that did not commit names version ${String(d.version)}, the replay is at ${r.version}`,
    );
  }
  if (record.type !== "edit_interrupted") ctx.intent = committed || record.type === "edit_aborted" ? null : intent;
}

function checkSnapshot(r: Replayer, record: AuditRecord, o: Json): boolean {
  if (o.version === r.version && o.sha256 === r.sha) return true;
  r.at(
    record,
    "replay_version_differs",
    `names version ${String(o.version)} / ${String(o.sha256)}, the replayed version is ${r.version} / ${r.sha}`,
  );
  return false;
}

function onOkObservation(r: Replayer, record: AuditRecord, ctx: ProposalContext, o: Json): void {
  const action = ctx.action;
  if (action === null || !ctx.dispatched || o.action !== action.action)
    return r.at(record, "replay_observation_differs", "a successful observation of no dispatched action");
  switch (action.action) {
    case "read":
      if (action.file === "TASK.txt") {
        if (o.file !== "TASK.txt" || o.content !== TASK_TXT)
          r.at(record, "replay_observation_differs", "the TASK.txt read does not hold the spec's bytes");
        return;
      }
      if (o.file !== "toy_math.py" || !checkSnapshot(r, record, o))
        return r.at(record, "replay_observation_differs", "a read of toy_math.py that names another file or version");
      if (o.content !== r.versions[r.version] || typeof o.content !== "string" || sha256Hex(o.content) !== o.sha256)
        r.at(
          record,
          "replay_observation_differs",
          "the read content is not the bytes of the version and digest it names",
        );
      if (canonicalJson(o.expressions) !== canonicalJson(r.expressions()))
        r.at(record, "replay_observation_differs", "the read's expressions are not those of the version it names");
      r.sourceRead = true;
      r.knownVersion = r.version;
      return;
    case "replace":
      if (o.status === "edit_committed" && !ctx.committed)
        r.at(record, "replay_observation_differs", "an edit receipt without a committed edit");
      if (o.status === "no_change" && ctx.committed)
        r.at(record, "replay_observation_differs", "a no_change receipt for an edit that committed");
      if (o.status !== "edit_committed" && o.status !== "no_change")
        r.at(record, "replay_observation_differs", "a replace receipt that is neither edit_committed nor no_change");
      if (o.function !== action.function || canonicalJson(o.expressions) !== canonicalJson(r.expressions()))
        r.at(
          record,
          "replay_observation_differs",
          "the receipt's function or expressions are not those of the replayed edit",
        );
      checkSnapshot(r, record, o);
      return;
    case "test": {
      if (!checkSnapshot(r, record, o)) return;
      const recomputed = publicTestOf(r.versions[r.version]!);
      if (
        recomputed === null ||
        o.passed !== recomputed.passed ||
        o.total !== recomputed.total ||
        canonicalJson(o.cases) !== canonicalJson(recomputed.cases)
      ) {
        return r.at(
          record,
          "replay_observation_differs",
          `the test result differs from evaluating version ${r.version} (${recomputed?.passed ?? "?"}/${recomputed?.total ?? "?"} recomputed)`,
        );
      }
      r.passingTest = recomputed.passed === recomputed.total ? { version: r.version, sha256: r.sha } : null;
      return;
    }
    case "finish":
      if (o.status !== "finish_accepted" || !checkSnapshot(r, record, o)) return;
      if (r.passingTest?.version !== r.version || r.passingTest.sha256 !== r.sha)
        return r.at(
          record,
          "replay_finish_differs",
          "a finish accepted without a passing test on the same version and digest",
        );
      if (r.finish !== null) return r.at(record, "replay_finish_differs", "a second accepted finish");
      r.finish = { version: r.version, sha256: r.sha };
      return;
  }
}

function onObservation(r: Replayer, record: LabAuditRecordOf<"observation">, ctx: ProposalContext): void {
  const o: Json = record.data.observation;
  if (!isRecord(o)) return r.at(record, "replay_observation_differs", "an observation without its body");
  if (o.ok === true) return onOkObservation(r, record, ctx, o);
  if (ctx.committed && o.error !== "edit_interrupted")
    r.at(record, "replay_observation_differs", "a refusal recorded for an edit that committed");
  if (o.error !== "edit_interrupted") ctx.failed = true;
}

/**
 * The controller records a validated proposal's observation before anything else happens (the
 * next request, the stop); only a proposal discarded for time or cancellation, or a harness
 * fault, ends without one.
 */
function checkObservationOrder(r: Replayer, record: AuditRecord): void {
  const ctx = r.context;
  if (ctx === null || !ctx.validated || ctx.discarded) return;
  if (ctx.observations === 0 && !(record.type === "stop" && record.data.stop_reason === "harness_error"))
    r.at(
      record,
      "replay_order_differs",
      `proposal ${ctx.number} was validated, but its observation is not recorded before this record`,
    );
}

function onProposalRecord(r: Replayer, record: AuditRecord): void {
  const n = record.proposal!;
  if (record.type === "request") {
    checkObservationOrder(r, record);
    r.closeProposal();
    if (n !== r.proposalsUsed + 1)
      r.at(
        record,
        "replay_order_differs",
        `a request for proposal ${n} after proposal ${r.proposalsUsed}: proposals are numbered 1, 2, 3, ...`,
      );
    r.proposalsUsed = n;
    r.context = {
      number: n,
      raw: null,
      action: null,
      allowed: null,
      dispatched: false,
      intent: null,
      committed: false,
      integrityOk: null,
      failed: false,
      stoppedUncounted: false,
      validated: false,
      discarded: false,
      observations: 0,
    };
    r.requests.request(record, { proposalNumber: n, currentVersion: r.version, sourceRead: r.sourceRead });
    return;
  }
  if (record.type === "synthetic_observation_injected") r.requests.injected(record);
  if (record.type === "context_limit") r.requests.contextLimit(record);
  const ctx = r.context;
  // Before a proposal's request only an injected observation, a context limit or a stop is recorded.
  if (ctx === null || ctx.number !== n) {
    if (n !== r.proposalsUsed + 1 || !["synthetic_observation_injected", "context_limit", "stop"].includes(record.type))
      r.at(record, "replay_order_differs", "a record outside its proposal");
    return;
  }
  switch (record.type) {
    case "generation":
      return onGeneration(r, record, ctx);
    case "validation":
      ctx.validated = true;
      return onValidation(r, record, ctx);
    case "proposal_discarded":
      ctx.discarded = true;
      return;
    case "integrity_check":
      if (ctx.action === null || ctx.integrityOk !== null)
        r.at(record, "replay_order_differs", "an integrity check of no validated action, or a second one");
      ctx.integrityOk = record.data.ok === true;
      return;
    case "authorization":
      return onAuthorization(r, record, ctx);
    case "dispatch":
      if (ctx.allowed !== true || canonicalJson(record.data.action) !== canonicalJson(ctx.action))
        r.at(record, "replay_dispatch_differs", "a dispatch of an action that was not validated and allowed");
      ctx.dispatched = true;
      return;
    case "edit_intent":
      return onEditIntent(r, record, ctx);
    case "edit_committed":
    case "edit_aborted":
    case "edit_interrupted":
    case "edit_reconciled":
      return onEditOutcome(r, record, ctx);
    case "observation":
      ctx.observations += 1;
      if (ctx.observations > 1) r.at(record, "replay_order_differs", "a second observation of one proposal");
      r.requests.observed(record);
      return onObservation(r, record, ctx);
  }
}

/** Replays the audit's decision chain; every disagreement is reported through `report`. */
export function replayDecisionChain(records: readonly AuditRecord[], report: Report): Replay {
  const r = new Replayer(report);
  const started = records.find((record) => record.type === "run_started");
  const initial = isRecord(started?.data.initial_state) ? started.data.initial_state : null;
  if (
    initial !== null &&
    (initial.version !== 0 || initial.sourceSha256 !== r.sha || initial.taskSha256 !== sha256Hex(TASK_TXT))
  ) {
    const detail = "run_started names an initial state other than the spec's initial files";
    report(labProblem("replay_initial_state_differs", "audit.jsonl", detail, { event: "run_started" }));
  }
  for (const record of records) {
    if (record.type === "stop") {
      if (r.stopEventId === null) checkObservationOrder(r, record);
      if (r.stopEventId === null) {
        r.stopEventId = record.event_id;
        r.stopReason = typeof record.data.stop_reason === "string" ? record.data.stop_reason : null;
      }
      if (
        r.context !== null &&
        record.proposal === r.context.number &&
        UNCOUNTED_STOPS.has(String(record.data.stop_reason))
      )
        r.context.stoppedUncounted = true;
    } else if (record.proposal !== null) {
      if (r.stopEventId !== null && !AFTER_STOP_ALLOWED.has(record.type))
        r.at(record, "replay_order_differs", "a proposal record after the stop");
      r.lastProposalEventId = record.event_id;
    }
    if (record.proposal !== null && Number.isSafeInteger(record.proposal)) onProposalRecord(r, record);
    if (record.type === "final_evaluation" && (r.stopEventId === null || record.event_id < r.stopEventId))
      r.at(record, "replay_order_differs", "the final evaluation is not after the stop");
  }
  r.closeProposal();
  if (r.finish !== null && r.stopReason !== "finish_accepted")
    report(
      labProblem(
        "replay_finish_differs",
        "audit.jsonl",
        `a finish was accepted, but the stop reason is ${String(r.stopReason)}`,
      ),
    );
  if (r.finish === null && r.stopReason === "finish_accepted")
    report(
      labProblem(
        "replay_finish_differs",
        "audit.jsonl",
        "the stop reason is finish_accepted, but the replay accepts no finish",
      ),
    );
  return {
    versions: r.versions,
    finalVersion: { version: r.version, sha256: r.sha },
    finish: r.finish,
    proposalsUsed: r.proposalsUsed,
    invalidProposals: r.invalidProposals,
    stopReason: r.stopReason,
  };
}
