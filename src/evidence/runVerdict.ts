// The one verdict of a Lab run, derived from its audit (the event log) and cross-checked against
// every summary file, never read from a summary alone. Used by the report, `tca lab submission`
// and the CLI summaries, so no two places can disagree about what a run showed.
//
// What is checked (each failure is listed; any one makes the verdict evidence_invalid):
//   audit.jsonl    readable regular file (no link, no FIFO), non-empty, strict UTF-8, no torn tail,
//                  the recorder's strict reader (JSON lines, event ids 1..n, non-decreasing time),
//                  every record against schemas/audit-record.schema.json, one run id throughout,
//                  at most one stop / final_evaluation / run_finished / accepted finish, and the
//                  final_evaluation's verified_success equal to what its own counts say
//   final.json     schema, run id, stop reason, finish, evaluation status/snapshot/counts, cases
//                  consistent with the spec fixtures, labels, verified_success derived from the audit
//   manifest.json  schema, run id, labels equal to run_started's
//   workspace/toy_math.py  its digest equals the final snapshot's digest
// A run with no final.json and no run_finished record is INCOMPLETE (a crash), not invalid.
import { sha256Hex } from "../core/digest.ts";
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES } from "../spec/constants.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { decodeUtf8Strict, readFileUnder } from "../core/safeRead.ts";
import { AUDIT_MAX_BYTES, parseAuditBytes, type AuditRecord } from "./auditRecorder.ts";
import { schemaProblem, type EvidenceSchemaName } from "./evidenceSchemas.ts";

export const LAB_EVIDENCE_FILES = {
  audit: "audit.jsonl",
  manifest: "manifest.json",
  final: "final.json",
  finalSource: "workspace/toy_math.py",
} as const;

const JSON_FILE_MAX_BYTES = 16 * 1024 * 1024;
const SOURCE_MAX_BYTES = 1024 * 1024;
/** Problems listed one by one up to this many; the rest are counted. */
const MAX_LISTED_PROBLEMS = 40;

export type RunVerdictKind = "verified_success" | "not_verified" | "incomplete" | "evidence_invalid";

/** The one wording of each verdict, shared by the report, the CLI summaries and submission.md. */
export const RUN_VERDICT_HEADLINES: Readonly<Record<RunVerdictKind, string>> = {
  verified_success: "VERIFIED SUCCESS",
  not_verified: "NOT VERIFIED",
  incomplete: "INCOMPLETE RUN",
  evidence_invalid: "EVIDENCE INVALID",
};

type Json = Readonly<Record<string, unknown>>;

export interface Snapshot {
  readonly version: number;
  readonly sha256: string;
}

/** What the audit alone says about the run. */
export interface AuditFacts {
  readonly runId: string | null;
  readonly stopReason: string | null;
  readonly finish: Snapshot | null;
  readonly evaluation: {
    readonly status: string;
    readonly snapshot: Snapshot | null;
    readonly publicPassed: number | null;
    readonly heldOutPassed: number | null;
    readonly claimedVerified: boolean;
  } | null;
  /** Verified success recomputed from the audit's own records (finish, stop, evaluation counts). */
  readonly verifiedByAudit: boolean;
  readonly finished: boolean;
}

export interface RunVerdict {
  readonly kind: RunVerdictKind;
  /** Every disagreement or defect found; non-empty exactly when kind is evidence_invalid. */
  readonly problems: readonly string[];
  readonly facts: AuditFacts;
  /** The audit records as read (empty when the audit could not be read), for the renderings. */
  readonly records: readonly AuditRecord[];
  readonly manifest: Json | null;
  readonly final: Json | null;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(object: Json | null | undefined, key: string): Json | null {
  const value = object?.[key];
  return isObject(value) ? value : null;
}

function snapshotOf(value: unknown): Snapshot | null {
  if (!isObject(value) || !Number.isSafeInteger(value.version) || typeof value.sha256 !== "string") return null;
  return { version: value.version as number, sha256: value.sha256 };
}

/** Key-order-independent JSON text, so two equal objects compare equal however they were written. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

class ProblemList {
  readonly items: string[] = [];
  #dropped = 0;
  add(problem: string): void {
    if (this.items.length < MAX_LISTED_PROBLEMS) this.items.push(problem);
    else this.#dropped += 1;
  }
  done(): string[] {
    return this.#dropped === 0 ? this.items : [...this.items, `... and ${this.#dropped} more problem(s)`];
  }
}

/** Reads one JSON evidence file: null when absent; a problem for anything else that is wrong. */
function readJsonEvidence(runDirectory: string, name: string, schema: EvidenceSchemaName, problems: ProblemList): Json | null {
  const bytes = readFileUnder(runDirectory, name, JSON_FILE_MAX_BYTES);
  if (!bytes.ok) {
    if (bytes.error !== "not_found") problems.add(`${name}: ${bytes.error}: ${bytes.message}`);
    return null;
  }
  const text = decodeUtf8Strict(bytes.value, name);
  if (!text.ok) {
    problems.add(`${name}: ${text.error}: ${text.message}`);
    return null;
  }
  // Depth-checked before parsing (src/core/boundedJson): over-deep JSON is refused with its own code.
  const parsed = parseBoundedJson(text.value, name);
  if (!parsed.ok) {
    problems.add(parsed.error === "json_too_deep" ? `${name}: ${parsed.error}: ${parsed.message}` : `${name}: not valid JSON`);
    return null;
  }
  const value = parsed.value;
  if (!isObject(value)) {
    problems.add(`${name}: not a JSON object`);
    return null;
  }
  const mismatch = schemaProblem(schema, value);
  if (mismatch !== null) problems.add(`${name}: does not match its schema: ${mismatch}`);
  return value;
}

function readAudit(runDirectory: string, problems: ProblemList): AuditRecord[] {
  const name = LAB_EVIDENCE_FILES.audit;
  const bytes = readFileUnder(runDirectory, name, AUDIT_MAX_BYTES);
  if (!bytes.ok) {
    problems.add(`${name}: ${bytes.error}: ${bytes.message}`);
    return [];
  }
  if (bytes.value.length === 0) {
    problems.add(`${name}: the audit is empty: a run always records events`);
    return [];
  }
  const parsed = parseAuditBytes(bytes.value);
  if (!parsed.ok) {
    problems.add(`${name}: ${parsed.error}: ${parsed.message}`);
    return [];
  }
  if (parsed.value.tornTail) problems.add(`${name}: the last line is incomplete (truncated audit)`);
  for (const record of parsed.value.records) {
    const mismatch = schemaProblem("audit-record", record);
    if (mismatch !== null) problems.add(`${name}: event ${record.event_id} (${record.type}) does not match its schema: ${mismatch}`);
  }
  return [...parsed.value.records];
}

function auditFacts(records: readonly AuditRecord[], problems: ProblemList): AuditFacts {
  const runId = records[0]?.run_id ?? null;
  if (records.some((record) => record.run_id !== runId)) problems.add("audit.jsonl: the records name more than one run id");
  const ofType = (type: string): AuditRecord[] => records.filter((record) => record.type === type);
  const stops = ofType("stop");
  const evaluations = ofType("final_evaluation");
  const finishedRecords = ofType("run_finished");
  const finishes = ofType("observation").filter((record) => {
    const observation = field(record.data, "observation");
    return observation?.ok === true && observation.action === "finish" && observation.status === "finish_accepted";
  });
  const finished = finishedRecords.length > 0;
  for (const [type, list] of [["stop", stops], ["final_evaluation", evaluations], ["run_finished", finishedRecords]] as const) {
    if (list.length > 1) problems.add(`audit.jsonl: ${list.length} ${type} records; a run has exactly one`);
    else if (list.length === 0 && finished) problems.add(`audit.jsonl: no ${type} record although the run finished`);
  }
  if (finishes.length > 1) problems.add(`audit.jsonl: ${finishes.length} accepted finishes; a run stops at the first`);
  const stopReason = typeof stops[0]?.data.stop_reason === "string" ? stops[0].data.stop_reason : null;
  const finish = finishes.length === 1 ? snapshotOf(field(finishes[0]!.data, "observation")) : null;
  const evaluationData = evaluations[0]?.data;
  const evaluation = evaluationData === undefined ? null : {
    status: typeof evaluationData.status === "string" ? evaluationData.status : "unrecorded",
    snapshot: snapshotOf(evaluationData.snapshot),
    publicPassed: Number.isSafeInteger(evaluationData.public_passed) ? (evaluationData.public_passed as number) : null,
    heldOutPassed: Number.isSafeInteger(evaluationData.held_out_passed) ? (evaluationData.held_out_passed as number) : null,
    claimedVerified: evaluationData.verified_success === true,
  };
  // The rule of Part 9, from the audit's own records: an accepted finish, a completed evaluation
  // of exactly the finished snapshot, every public and held-out case passed.
  const verifiedByAudit =
    stopReason === "finish_accepted" && finish !== null && evaluation !== null && evaluation.status === "completed" &&
    evaluation.snapshot !== null && evaluation.snapshot.version === finish.version && evaluation.snapshot.sha256 === finish.sha256 &&
    evaluation.publicPassed === PUBLIC_FIXTURES.length && evaluation.heldOutPassed === HELD_OUT_FIXTURES.length;
  if (evaluation !== null && evaluation.claimedVerified !== verifiedByAudit) {
    problems.add(`audit.jsonl: final_evaluation says verified_success ${evaluation.claimedVerified}, but its own records say ${verifiedByAudit}`);
  }
  const finishedData = finishedRecords[0]?.data;
  if (finishedData !== undefined) {
    if (finishedData.stop_reason !== stopReason) problems.add("audit.jsonl: run_finished names a different stop reason than the stop record");
    if (finishedData.verified_success !== verifiedByAudit) problems.add(`audit.jsonl: run_finished says verified_success ${String(finishedData.verified_success)}, the audit's records say ${verifiedByAudit}`);
  }
  return { runId, stopReason, finish, evaluation, verifiedByAudit, finished };
}

function sameSnapshot(a: Snapshot | null, b: Snapshot | null): boolean {
  return a === null || b === null ? a === b : a.version === b.version && a.sha256 === b.sha256;
}

function checkFinal(final: Json, facts: AuditFacts, records: readonly AuditRecord[], problems: ProblemList): void {
  const says = (what: string, recorded: unknown, audit: unknown): void =>
    problems.add(`final.json: ${what} is ${JSON.stringify(recorded) ?? "missing"}, the audit says ${JSON.stringify(audit)}`);
  if (final.run_id !== facts.runId) says("run_id", final.run_id, facts.runId);
  if (final.stop_reason !== facts.stopReason) says("stop_reason", final.stop_reason, facts.stopReason);
  if (!sameSnapshot(snapshotOf(final.finish), facts.finish) || (final.finish !== null && snapshotOf(final.finish) === null)) says("finish", final.finish, facts.finish);
  if (final.verified_success !== facts.verifiedByAudit) says("verified_success", final.verified_success, facts.verifiedByAudit);
  const evaluation = field(final, "final_evaluation");
  const audited = facts.evaluation;
  if (audited === null) problems.add("final.json: has a final evaluation, the audit records none");
  else if (evaluation !== null) {
    if (evaluation.status !== audited.status) says("final_evaluation.status", evaluation.status, audited.status);
    const snapshot = evaluation.version === null && evaluation.sha256 === null ? null : snapshotOf(evaluation);
    if (!sameSnapshot(snapshot, audited.snapshot)) says("the final snapshot", { version: evaluation.version, sha256: evaluation.sha256 }, audited.snapshot);
    if (evaluation.public_passed !== audited.publicPassed) says("public_passed", evaluation.public_passed, audited.publicPassed);
    if (evaluation.held_out_passed !== audited.heldOutPassed) says("held_out_passed", evaluation.held_out_passed, audited.heldOutPassed);
    checkCases(evaluation, problems);
  }
  const started = records.find((record) => record.type === "run_started");
  if (started !== undefined && canonical(final.labels) !== canonical(started.data.labels)) problems.add("final.json: labels differ from the audit's run_started labels");
}

/** Each recorded case: a spec fixture, `passed` true exactly when actual equals expected, counts that add up. */
function checkCases(evaluation: Json, problems: ProblemList): void {
  const cases = Array.isArray(evaluation.cases) ? evaluation.cases.filter(isObject) : [];
  const fixtures = { public: PUBLIC_FIXTURES, held_out: HELD_OUT_FIXTURES } as const;
  const passed = { public: 0, held_out: 0 };
  for (const [index, item] of cases.entries()) {
    const set = item.set === "public" || item.set === "held_out" ? item.set : null;
    const known = set === null ? undefined : fixtures[set].find((fixture) => fixture.function === item.function && canonical(fixture.inputs) === canonical(item.inputs));
    if (set === null || known === undefined || known.expected !== item.expected) {
      problems.add(`final.json: case ${index + 1} is not one of the spec's fixtures`);
      continue;
    }
    const shouldPass = item.error === null && item.actual === known.expected;
    if (item.passed !== shouldPass) problems.add(`final.json: case ${index + 1} says passed ${String(item.passed)}, its actual value says ${shouldPass}`);
    if (shouldPass) passed[set] += 1;
  }
  if (cases.length > 0 && (passed.public !== evaluation.public_passed || passed.held_out !== evaluation.held_out_passed)) {
    problems.add(`final.json: the listed cases pass ${passed.public} public and ${passed.held_out} held-out, the counts say ${String(evaluation.public_passed)} and ${String(evaluation.held_out_passed)}`);
  }
}

function checkManifest(manifest: Json, facts: AuditFacts, records: readonly AuditRecord[], problems: ProblemList): void {
  if (manifest.run_id !== facts.runId) problems.add(`manifest.json: run_id is ${JSON.stringify(manifest.run_id)}, the audit says ${JSON.stringify(facts.runId)}`);
  const started = records.find((record) => record.type === "run_started");
  if (started !== undefined && canonical(manifest.labels) !== canonical(started.data.labels)) problems.add("manifest.json: labels differ from the audit's run_started labels");
}

/** The final toy_math.py on disk must be the bytes the final evaluation captured. */
function checkSnapshotDigest(runDirectory: string, facts: AuditFacts, problems: ProblemList): void {
  const snapshot = facts.evaluation?.snapshot ?? null;
  if (snapshot === null) return;
  const bytes = readFileUnder(runDirectory, LAB_EVIDENCE_FILES.finalSource, SOURCE_MAX_BYTES);
  if (!bytes.ok) problems.add(`${LAB_EVIDENCE_FILES.finalSource}: ${bytes.error}: ${bytes.message}`);
  else if (sha256Hex(bytes.value) !== snapshot.sha256) problems.add(`${LAB_EVIDENCE_FILES.finalSource}: its digest differs from the final snapshot's`);
}

/** The verdict of the Lab run in `runDirectory`, derived from its audit and cross-checked. */
export function deriveRunVerdict(runDirectory: string): RunVerdict {
  const problems = new ProblemList();
  const records = readAudit(runDirectory, problems);
  const facts = auditFacts(records, problems);
  const final = readJsonEvidence(runDirectory, LAB_EVIDENCE_FILES.final, "final", problems);
  const manifest = readJsonEvidence(runDirectory, LAB_EVIDENCE_FILES.manifest, "manifest", problems);
  const finalPresent = final !== null || problems.items.some((problem) => problem.startsWith(`${LAB_EVIDENCE_FILES.final}:`));
  if (final !== null) checkFinal(final, facts, records, problems);
  else if (facts.finished) problems.add("final.json: missing, although the audit records that the run finished");
  if (final !== null && !facts.finished && records.length > 0) problems.add("audit.jsonl: no run_finished record, although final.json exists");
  if (manifest !== null) checkManifest(manifest, facts, records, problems);
  else if (records.some((record) => record.type === "run_started")) problems.add("manifest.json: missing, although the audit records the run started");
  checkSnapshotDigest(runDirectory, facts, problems);
  const listed = problems.done();
  const kind: RunVerdictKind =
    listed.length > 0 ? "evidence_invalid" : !finalPresent ? "incomplete" : facts.verifiedByAudit ? "verified_success" : "not_verified";
  return { kind, problems: listed, facts, records, manifest, final };
}
