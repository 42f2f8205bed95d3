// The one verdict of a Lab run, RE-DERIVED from its artifacts: the final toy_math.py is validated
// and evaluated again, and the audit's decision chain is replayed from the spec's initial file
// (labReplay.ts). A recorded claim is only ever compared with what was recomputed; no claim is
// believed because other claims agree with it. Used by the report, `tca lab submission`, the
// checks verdict and the CLI summaries, so no two places can disagree about what a run showed.
//
// Recomputed (each disagreement is listed; any one makes the verdict evidence_invalid):
//   workspace/toy_math.py  validated by src/expr and evaluated on the 4 public and 8 held-out
//                  fixtures; verified_success is what that evaluation says (with a replayed
//                  accepted finish of exactly the final version); a completed final evaluation
//                  must be of these bytes, which must be the final version the replay rebuilt
//   audit.jsonl    the recorder's strict reader, schemas, one run id, no CR byte; the decision
//                  chain replayed (labReplay.ts): versions, digests, backups, tests, finish,
//                  validation and authorization, read contents, record order, proposal counts
//   final.json     every recorded field against the recomputed one: stop reason, finish,
//                  counts, the twelve cases one by one, proposals_used, invalid_proposals
//   manifest.json  labels, source label, budgets, fixtures, prompt, harness aggregate
//                  (labManifestCheck.ts)
//   the model      a run labelled model_trial, extension or pipeline check: its model directory
//                  opened now through the loader's gate and compared with what the run recorded
//                  (modelTrialCheck.ts); only deriveRunVerdictCheckingModel opens it (async, it
//                  re-hashes the weights), a plain deriveRunVerdict says "not checked"
// Recorded, not re-derived: times and durations, the model's raw text itself (only what the
// harness did with it), what an integrity check found on disk at the time (only that nothing is
// authorized after a failed one) and the final evaluation's status.
// A run with no final.json and no run_finished record is INCOMPLETE (a crash), not invalid.
import { isRecord } from "../core/isRecord.ts";
import { sha256Hex } from "../core/digest.ts";
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES } from "../constants/labConstants.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { decodeUtf8Strict, listDirectoryUnder, readFileUnder } from "../core/safeRead.ts";
import { AUDIT_MAX_BYTES, parseAuditLog } from "../recording/auditLog.ts";
import type {
  LabAuditEventType,
  LabAuditRecord as AuditRecord,
  LabAuditRecordOf,
} from "../recording/labAuditEvents.ts";
import { schemaProblem, type EvidenceSchemaName } from "../recording/evidenceSchemas.ts";
import { checkManifestAgainstSpec } from "./labManifestCheck.ts";
import { labProblem, type LabProblem, type LabProblemCode } from "./labProblems.ts";
import { reevaluateSource, type Reevaluation } from "./labReevaluation.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import { replayDecisionChain, type Replay } from "./labReplay.ts";
import { compareHarness, type HarnessComparison } from "./harnessComparison.ts";
import type { ResultSource } from "../core/resultLabel.ts";
import {
  checkModelDirectory,
  judgeModelClaim,
  labResultSource,
  modelClaimOf,
  olderRehearsalKindNote,
  type ModelCheck,
  type ModelTrialStatus,
} from "./modelTrialCheck.ts";

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

/** What the verdict recomputed itself (never read from a summary). */
export interface Recomputed {
  readonly replay: Replay;
  /** The final workspace/toy_math.py re-evaluated; null when it could not be read. */
  readonly finalSource: Reevaluation | null;
  readonly verifiedSuccess: boolean;
}

/** What a verdict shows but cannot recompute; the report prints it under "recorded, not re-derived". */
export const NOT_REDERIVED: readonly string[] = [
  "times and durations (t_ms, elapsed_ms, deadlines)",
  "the model's raw text itself: only what the harness did with it is replayed",
  "the input-token counts, and how many observations compaction left out (only that they are the first it drops)",
  "what an integrity check found on disk at the time, the final evaluation's status and the harness file hashes",
];

export interface RunVerdict {
  readonly kind: RunVerdictKind;
  readonly recomputed: Recomputed;
  /**
   * Every disagreement or defect found, coded (labProblems.ts); non-empty exactly when kind is
   * evidence_invalid. An evidence file that is not there at all is `file_missing` (submission.md's
   * run_evidence_missing decides by that code), never dropped by the listing cap.
   */
  readonly problems: readonly LabProblem[];
  readonly facts: AuditFacts;
  /** The audit records as read (empty when the audit could not be read), for the renderings. */
  readonly records: readonly AuditRecord[];
  readonly manifest: Json | null;
  readonly final: Json | null;
  /** What the run says about its model, judged (null: the run claims no model). */
  readonly modelTrial: ModelTrialStatus | null;
  /** The recorded harness against the harness reading the run now (null: no manifest). */
  readonly harness: HarnessComparison | null;
  /** What made the proposals, re-derived (labResultSource): the label every result line carries first. */
  readonly source: ResultSource;
  /** How an older run's kind was read (a rehearsal recorded as synthetic_pipeline_check), or null. */
  readonly kindNote: string | null;
}

export interface RunVerdictOptions {
  /** The run's model directory as opened now (deriveRunVerdictCheckingModel); absent: not checked. */
  readonly modelCheck?: ModelCheck;
}

function field(object: Json | null | undefined, key: string): Json | null {
  const value = object?.[key];
  return isRecord(value) ? value : null;
}

function snapshotOf(value: unknown): Snapshot | null {
  if (!isRecord(value) || !Number.isSafeInteger(value.version) || typeof value.sha256 !== "string") return null;
  return { version: value.version as number, sha256: value.sha256 };
}

const canonical = canonicalJson;

class ProblemList {
  readonly items: LabProblem[] = [];
  #dropped = 0;
  add(problem: LabProblem): void {
    // A missing file is a fact consumers decide on (run_evidence_missing): listed past the cap too.
    if (this.items.length < MAX_LISTED_PROBLEMS || problem.code === "file_missing") this.items.push(problem);
    else this.#dropped += 1;
  }
  /** A problem of a whole file. */
  of(code: LabProblemCode, file: string, detail: string): void {
    this.add(labProblem(code, file, detail));
  }
  done(): LabProblem[] {
    if (this.#dropped === 0) return this.items;
    return [...this.items, labProblem("problems_omitted", "", `${this.#dropped} more problem(s)`)];
  }
}

/**
 * Reads one JSON evidence file: null when absent; a problem for anything else that is wrong.
 * `present` says whether anything is there (a link, FIFO or oversized file is, and is refused).
 */
function readJsonEvidence(
  runDirectory: string,
  name: string,
  schema: EvidenceSchemaName,
  problems: ProblemList,
): { readonly value: Json | null; readonly present: boolean } {
  const bytes = readFileUnder(runDirectory, name, JSON_FILE_MAX_BYTES);
  if (!bytes.ok) {
    if (bytes.error !== "not_found") problems.of("file_unreadable", name, `${bytes.error}: ${bytes.message}`);
    return { value: null, present: bytes.error !== "not_found" };
  }
  return { value: parseJsonEvidence(bytes.value, name, schema, problems), present: true };
}

function parseJsonEvidence(
  bytes: Buffer,
  name: string,
  schema: EvidenceSchemaName,
  problems: ProblemList,
): Json | null {
  const text = decodeUtf8Strict(bytes, name);
  if (!text.ok) {
    problems.of("not_utf8", name, `${text.error}: ${text.message}`);
    return null;
  }
  // The harness writes LF only and escapes every CR inside strings: a raw CR means an edit.
  if (bytes.includes(0x0d))
    problems.of("cr_byte", name, "holds a CR byte (CRLF line ends): the harness never writes one");
  // Depth-checked before parsing (src/core/boundedJson): over-deep JSON is refused with its own code.
  const parsed = parseBoundedJson(text.value, name);
  if (!parsed.ok) {
    if (parsed.error === "json_too_deep") problems.of("json_too_deep", name, parsed.message);
    else problems.of("not_json", name, "not valid JSON");
    return null;
  }
  const value = parsed.value;
  if (!isRecord(value)) {
    problems.of("not_json_object", name, "not a JSON object");
    return null;
  }
  const mismatch = schemaProblem(schema, value);
  if (mismatch !== null) problems.of("schema_mismatch", name, `does not match its schema: ${mismatch}`);
  return value;
}

function readAudit(runDirectory: string, problems: ProblemList): AuditRecord[] {
  const name = LAB_EVIDENCE_FILES.audit;
  const bytes = readFileUnder(runDirectory, name, AUDIT_MAX_BYTES);
  if (!bytes.ok) {
    const detail = `${bytes.error}: ${bytes.message}`;
    problems.of(bytes.error === "not_found" ? "file_missing" : "file_unreadable", name, detail);
    return [];
  }
  if (bytes.value.length === 0) {
    problems.of("audit_empty", name, "the audit is empty: a run always records events");
    return [];
  }
  if (bytes.value.includes(0x0d))
    problems.of("cr_byte", name, "holds a CR byte (CRLF line ends): the recorder never writes one");
  // The one strict reader: every record of format 2 and of the catalog, or the first coded problem.
  const parsed = parseAuditLog(bytes.value);
  if (!parsed.ok) {
    problems.add(parsed.problem);
    return [];
  }
  if (parsed.log.tornTail) problems.of("truncated_audit", name, "the last line is incomplete (truncated audit)");
  return [...parsed.log.records];
}

function auditFacts(records: readonly AuditRecord[], problems: ProblemList): AuditFacts {
  const audit = LAB_EVIDENCE_FILES.audit;
  const runId = records[0]?.run_id ?? null;
  if (records.some((record) => record.run_id !== runId))
    problems.of("run_id_mixed", audit, "the records name more than one run id");
  const ofType = <K extends LabAuditEventType>(type: K): LabAuditRecordOf<K>[] =>
    records.filter((record): record is LabAuditRecordOf<K> => record.type === type);
  const stops = ofType("stop");
  const evaluations = ofType("final_evaluation");
  const finishedRecords = ofType("run_finished");
  const finishes = ofType("observation").filter((record) => {
    const observation = record.data.observation;
    return observation.ok && observation.action === "finish" && observation.status === "finish_accepted";
  });
  const finished = finishedRecords.length > 0;
  for (const [type, list] of [
    ["stop", stops],
    ["final_evaluation", evaluations],
    ["run_finished", finishedRecords],
  ] as const) {
    if (list.length > 1)
      problems.add(
        labProblem("record_duplicated", audit, `${list.length} ${type} records; a run has exactly one`, {
          event: type,
        }),
      );
    else if (list.length === 0 && finished)
      problems.add(labProblem("record_missing", audit, `no ${type} record although the run finished`, { event: type }));
  }
  if (finishes.length > 1)
    problems.of("record_duplicated", audit, `${finishes.length} accepted finishes; a run stops at the first`);
  const stopReason = stops[0]?.data.stop_reason ?? null;
  const finish = finishes.length === 1 ? snapshotOf(finishes[0]!.data.observation) : null;
  const evaluationData = evaluations[0]?.data;
  const evaluation =
    evaluationData === undefined
      ? null
      : {
          status: evaluationData.status,
          snapshot: snapshotOf(evaluationData.snapshot),
          publicPassed: evaluationData.public_passed,
          heldOutPassed: evaluationData.held_out_passed,
          claimedVerified: evaluationData.verified_success,
        };
  // The rule of Part 9, from the audit's own records: an accepted finish, a completed evaluation
  // of exactly the finished snapshot, every public and held-out case passed.
  const verifiedByAudit =
    stopReason === "finish_accepted" &&
    finish !== null &&
    evaluation !== null &&
    evaluation.status === "completed" &&
    evaluation.snapshot !== null &&
    evaluation.snapshot.version === finish.version &&
    evaluation.snapshot.sha256 === finish.sha256 &&
    evaluation.publicPassed === PUBLIC_FIXTURES.length &&
    evaluation.heldOutPassed === HELD_OUT_FIXTURES.length;
  if (evaluation !== null && evaluation.claimedVerified !== verifiedByAudit) {
    const detail = `final_evaluation says verified_success ${evaluation.claimedVerified}, but its own records say ${verifiedByAudit}`;
    problems.add(labProblem("audit_claim_differs", audit, detail, { event: "final_evaluation" }));
  }
  const finishedData = finishedRecords[0]?.data;
  if (finishedData !== undefined) {
    const claim = (detail: string): void =>
      problems.add(labProblem("audit_claim_differs", audit, detail, { event: "run_finished" }));
    if (finishedData.stop_reason !== stopReason)
      claim("run_finished names a different stop reason than the stop record");
    if (finishedData.verified_success !== verifiedByAudit)
      claim(
        `run_finished says verified_success ${String(finishedData.verified_success)}, the audit's records say ${verifiedByAudit}`,
      );
  }
  return { runId, stopReason, finish, evaluation, verifiedByAudit, finished };
}

function sameSnapshot(a: Snapshot | null, b: Snapshot | null): boolean {
  return a === null || b === null ? a === b : a.version === b.version && a.sha256 === b.sha256;
}

function checkFinal(
  final: Json,
  facts: AuditFacts,
  records: readonly AuditRecord[],
  recomputed: Recomputed,
  problems: ProblemList,
): void {
  const name = LAB_EVIDENCE_FILES.final;
  const says = (what: string, recorded: unknown, audit: unknown): void =>
    problems.of(
      "final_field_differs",
      name,
      `${what} is ${JSON.stringify(recorded) ?? "missing"}, the audit says ${JSON.stringify(audit)}`,
    );
  const differs = (what: string, recorded: unknown, value: unknown): void =>
    problems.of(
      "final_field_differs",
      name,
      `${what} is ${JSON.stringify(recorded) ?? "missing"}, recomputed ${JSON.stringify(value)}`,
    );
  if (final.run_id !== facts.runId) says("run_id", final.run_id, facts.runId);
  if (final.stop_reason !== facts.stopReason) says("stop_reason", final.stop_reason, facts.stopReason);
  if (
    !sameSnapshot(snapshotOf(final.finish), recomputed.replay.finish) ||
    (final.finish !== null && snapshotOf(final.finish) === null)
  )
    differs("finish", final.finish, recomputed.replay.finish);
  if (final.verified_success !== recomputed.verifiedSuccess)
    differs("verified_success", final.verified_success, recomputed.verifiedSuccess);
  if (final.proposals_used !== recomputed.replay.proposalsUsed)
    differs("proposals_used", final.proposals_used, recomputed.replay.proposalsUsed);
  if (final.invalid_proposals !== recomputed.replay.invalidProposals)
    differs("invalid_proposals", final.invalid_proposals, recomputed.replay.invalidProposals);
  const evaluation = field(final, "final_evaluation");
  const audited = facts.evaluation;
  if (audited === null)
    problems.of("final_evaluation_unrecorded", name, "has a final evaluation, the audit records none");
  else if (evaluation !== null) {
    if (evaluation.status !== audited.status) says("final_evaluation.status", evaluation.status, audited.status);
    const snapshot = evaluation.version === null && evaluation.sha256 === null ? null : snapshotOf(evaluation);
    if (!sameSnapshot(snapshot, audited.snapshot))
      says("the final snapshot", { version: evaluation.version, sha256: evaluation.sha256 }, audited.snapshot);
    if (evaluation.public_passed !== audited.publicPassed)
      says("public_passed", evaluation.public_passed, audited.publicPassed);
    if (evaluation.held_out_passed !== audited.heldOutPassed)
      says("held_out_passed", evaluation.held_out_passed, audited.heldOutPassed);
    checkCases(evaluation, audited, recomputed, problems);
  }
  const started = records.find((record) => record.type === "run_started");
  if (started !== undefined && canonical(final.labels) !== canonical(started.data.labels))
    problems.of("labels_differ", name, "labels differ from the audit's run_started labels");
}

/**
 * The recorded cases must be exactly the recomputed ones: all twelve, in order, for a completed
 * evaluation; a prefix of them for an interrupted one; none where no snapshot was captured.
 */
function checkCases(
  evaluation: Json,
  audited: NonNullable<AuditFacts["evaluation"]>,
  recomputed: Recomputed,
  problems: ProblemList,
): void {
  const recorded = Array.isArray(evaluation.cases) ? evaluation.cases : [];
  const snapshotSource =
    audited.snapshot === null ? null : (recomputed.replay.versions[audited.snapshot.version] ?? null);
  const expected = snapshotSource === null ? [] : reevaluateSource(snapshotSource).cases;
  const comparable = audited.status === "completed" ? expected : expected.slice(0, recorded.length);
  if (canonical(recorded) !== canonical(comparable)) {
    const first = firstDifference(recorded, comparable) + 1;
    problems.of(
      "final_cases_differ",
      LAB_EVIDENCE_FILES.final,
      `the ${recorded.length} recorded case(s) differ from the ${comparable.length} recomputed on the final ` +
        `version (first difference at case ${first})`,
    );
  }
}

function firstDifference(a: readonly unknown[], b: readonly unknown[]): number {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) if (canonical(a[index]) !== canonical(b[index])) return index;
  return length;
}

function checkManifest(
  manifest: Json,
  facts: AuditFacts,
  records: readonly AuditRecord[],
  replay: Replay,
  problems: ProblemList,
): void {
  const name = LAB_EVIDENCE_FILES.manifest;
  if (manifest.run_id !== facts.runId)
    problems.of(
      "manifest_field_differs",
      name,
      `run_id is ${JSON.stringify(manifest.run_id)}, the audit says ${JSON.stringify(facts.runId)}`,
    );
  const started = records.find((record) => record.type === "run_started");
  if (started !== undefined && canonical(manifest.labels) !== canonical(started.data.labels))
    problems.of("labels_differ", name, "labels differ from the audit's run_started labels");
  checkManifestAgainstSpec(manifest, records, replay.proposalsUsed, (problem) => problems.add(problem));
}

const BACKUP_NAME = /^toy_math\.v(0|[1-9][0-9]{0,5})\.py$/;

/** Every backup holds the rebuilt bytes of the version its name gives; every committed edit left one. */
function checkBackups(runDirectory: string, replay: Replay, problems: ProblemList): void {
  const listed = listDirectoryUnder(runDirectory, "backups");
  const names = listed.ok ? listed.value : [];
  if (!listed.ok && listed.error !== "not_found")
    problems.of("file_unreadable", "backups", `${listed.error}: ${listed.message}`);
  for (const name of names) {
    const match = BACKUP_NAME.exec(name);
    const source = match === null ? undefined : replay.versions[Number(match[1])];
    const file = `backups/${name}`;
    if (source === undefined) {
      problems.of("backup_unexpected", file, "not the backup of a version the replay rebuilt");
      continue;
    }
    const bytes = readFileUnder(runDirectory, file, SOURCE_MAX_BYTES);
    if (!bytes.ok) problems.of("file_unreadable", file, `${bytes.error}: ${bytes.message}`);
    else if (!bytes.value.equals(Buffer.from(source, "utf8")))
      problems.of("backup_differs", file, `does not hold the bytes of version ${match![1]} (rebuilt from the audit)`);
  }
  for (let version = 0; version < replay.finalVersion.version; version++) {
    if (!names.includes(`toy_math.v${version}.py`))
      problems.of(
        "backup_missing",
        `backups/toy_math.v${version}.py`,
        `missing, although the audit commits an edit from version ${version}`,
      );
  }
}

/**
 * The final toy_math.py is read and re-evaluated. A completed final evaluation must be of exactly
 * these bytes, which must be the final version the replay rebuilt, and its counts must be theirs.
 */
function reevaluateFinal(runDirectory: string, facts: AuditFacts, replay: Replay, problems: ProblemList): Recomputed {
  const name = LAB_EVIDENCE_FILES.finalSource;
  const bytes = readFileUnder(runDirectory, name, SOURCE_MAX_BYTES);
  const finalSource = bytes.ok ? reevaluateSource(bytes.value) : null;
  const evaluation = facts.evaluation;
  const snapshot = evaluation?.snapshot ?? null;
  const audit = LAB_EVIDENCE_FILES.audit;
  if (snapshot !== null && !sameSnapshot(snapshot, replay.finalVersion))
    problems.add(
      labProblem(
        "final_version_differs",
        audit,
        `the final evaluation names version ${snapshot.version} / ${snapshot.sha256}, the replayed final version is ` +
          `${replay.finalVersion.version} / ${replay.finalVersion.sha256}`,
        { event: "final_evaluation" },
      ),
    );
  const onDiskSha = bytes.ok ? sha256Hex(bytes.value) : null;
  if (snapshot !== null) {
    if (!bytes.ok) problems.of("file_unreadable", name, `${bytes.error}: ${bytes.message}`);
    else if (onDiskSha !== snapshot.sha256)
      problems.of("final_source_differs", name, "its digest differs from the final snapshot's");
  }
  if (evaluation?.status === "completed" && finalSource !== null) {
    if (finalSource.grammar !== "valid")
      problems.of(
        "final_source_outside_grammar",
        name,
        `outside the grammar (${finalSource.grammar}): it can never have been evaluated`,
      );
    else if (
      evaluation.publicPassed !== finalSource.publicPassed ||
      evaluation.heldOutPassed !== finalSource.heldOutPassed
    ) {
      const recorded =
        `${String(evaluation.publicPassed)}/${PUBLIC_FIXTURES.length} public and ` +
        `${String(evaluation.heldOutPassed)}/${HELD_OUT_FIXTURES.length} held-out`;
      const recount = `re-evaluating ${name} gives ${finalSource.publicPassed} and ${finalSource.heldOutPassed}`;
      const detail = `the final evaluation records ${recorded}, ${recount}`;
      problems.add(labProblem("final_evaluation_recount", audit, detail, { event: "final_evaluation" }));
    }
  }
  const finish = replay.finish;
  const verifiedSuccess =
    replay.stopReason === "finish_accepted" &&
    finish !== null &&
    sameSnapshot(finish, replay.finalVersion) &&
    evaluation?.status === "completed" &&
    onDiskSha === finish.sha256 &&
    finalSource !== null &&
    finalSource.allPass;
  if (facts.verifiedByAudit !== verifiedSuccess)
    problems.of(
      "verified_success_differs",
      audit,
      `its records claim verified_success ${facts.verifiedByAudit}, re-deriving it gives ${verifiedSuccess}`,
    );
  return { replay, finalSource, verifiedSuccess };
}

/** The verdict of the Lab run in `runDirectory`, re-derived from its artifacts. */
export function deriveRunVerdict(runDirectory: string, options: RunVerdictOptions = {}): RunVerdict {
  const problems = new ProblemList();
  const records = readAudit(runDirectory, problems);
  const facts = auditFacts(records, problems);
  const replay = replayDecisionChain(records, (problem) => problems.add(problem));
  const recomputed = reevaluateFinal(runDirectory, facts, replay, problems);
  const finalRead = readJsonEvidence(runDirectory, LAB_EVIDENCE_FILES.final, "final", problems);
  const manifestRead = readJsonEvidence(runDirectory, LAB_EVIDENCE_FILES.manifest, "manifest", problems);
  const final = finalRead.value;
  const manifest = manifestRead.value;
  const finalPresent = finalRead.present;
  if (final !== null) checkFinal(final, facts, records, recomputed, problems);
  // "missing" only when there is nothing there: a link, FIFO, directory or oversized file was
  // already named by the read's own refusal.
  else if (facts.finished && !finalPresent)
    problems.of("file_missing", LAB_EVIDENCE_FILES.final, "missing, although the audit records that the run finished");
  if (final !== null && !facts.finished && records.length > 0)
    problems.add(
      labProblem("record_missing", LAB_EVIDENCE_FILES.audit, "no run_finished record, although final.json exists", {
        event: "run_finished",
      }),
    );
  if (manifest !== null) checkManifest(manifest, facts, records, replay, problems);
  else if (records.some((record) => record.type === "run_started") && !manifestRead.present)
    problems.of("file_missing", LAB_EVIDENCE_FILES.manifest, "missing, although the audit records the run started");
  if (records.length > 0) checkBackups(runDirectory, replay, problems);
  const claim = modelClaimOf(manifest, records);
  const modelTrial = claim === null ? null : judgeModelClaim(claim, options.modelCheck ?? null);
  if (modelTrial?.status === "not_verified" && modelTrial.code !== null)
    problems.of(modelTrial.code, LAB_EVIDENCE_FILES.manifest, modelTrial.detail);
  const listed = problems.done();
  const kind: RunVerdictKind =
    listed.length > 0
      ? "evidence_invalid"
      : !finalPresent
        ? "incomplete"
        : recomputed.verifiedSuccess
          ? "verified_success"
          : "not_verified";
  const harness = manifest === null ? null : compareHarness(manifest);
  return {
    kind,
    problems: listed,
    recomputed,
    facts,
    records,
    manifest,
    final,
    modelTrial,
    harness,
    source: labResultSource(manifest, records, modelTrial),
    kindNote: olderRehearsalKindNote(manifest, records),
  };
}

/** The run's model directory opened now, for a run that claims a model (undefined: it claims none). */
export async function modelCheckOfRun(runDirectory: string, now: Date = new Date()): Promise<ModelCheck | undefined> {
  // The claim as the verdict finds it (the same readers and modelClaimOf), without the replay and
  // the re-evaluation the verdict then does once, with the model checked (#36: not twice).
  const unused = new ProblemList();
  const records = readAudit(runDirectory, unused);
  const manifest = readJsonEvidence(runDirectory, LAB_EVIDENCE_FILES.manifest, "manifest", unused).value;
  const claim = modelClaimOf(manifest, records);
  return claim === null ? undefined : checkModelDirectory(claim, now);
}

/** The verdict with the run's model directory verified now: what the CLI, the report and submission.md use. */
export async function deriveRunVerdictCheckingModel(runDirectory: string, now: Date = new Date()): Promise<RunVerdict> {
  const modelCheck = await modelCheckOfRun(runDirectory, now);
  return deriveRunVerdict(runDirectory, modelCheck === undefined ? {} : { modelCheck });
}
