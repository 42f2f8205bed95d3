// Reads a finished run directory back for reporting (submission.md). The run's verdict comes
// first (src/verdicts/runVerdict.ts: derived from the audit, cross-checked against final.json,
// manifest.json and the final source, read without following links or blocking on FIFOs);
// evidence that is invalid or incomplete is refused, so submission.md never cites it.
import { isRecord } from "../../core/isRecord.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { formatProblem } from "../../recording/evidenceProblem.ts";
import type {
  LabAuditEventType,
  LabAuditRecord as AuditRecord,
  LabAuditRecordOf,
} from "../../recording/labAuditEvents.ts";
import { deriveRunVerdict, RUN_VERDICT_HEADLINES, type RunVerdict } from "../runVerdict.ts";
import type { ModelCheck } from "../modelTrialCheck.ts";

export type AuditEvent = AuditRecord;

export interface RunEvidence {
  /** A short name used in citations: "baseline", "model", ... */
  readonly name: string;
  readonly directory: string;
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly final: Readonly<Record<string, unknown>>;
  readonly audit: readonly AuditEvent[];
  /** The one verdict of the run (never evidence_invalid or incomplete here). */
  readonly verdict: RunVerdict;
}

export type EvidenceErrorCode = "run_evidence_missing" | "run_evidence_invalid";

/** `modelCheck`: the run's model directory as opened now (absent: the model is not checked). */
export function readRunEvidence(
  name: string,
  directory: string,
  modelCheck?: ModelCheck,
): Result<RunEvidence, EvidenceErrorCode> {
  const verdict = deriveRunVerdict(directory, modelCheck === undefined ? {} : { modelCheck });
  if (verdict.kind === "evidence_invalid") {
    // Decided by the problem's code (an evidence file that is not there at all), never by its wording.
    const missing = verdict.problems.find((problem) => problem.code === "file_missing");
    if (missing !== undefined) return err("run_evidence_missing", `${name} run: ${formatProblem(missing)}`);
    const shown = verdict.problems.slice(0, 3).map(formatProblem).join("; ");
    return err("run_evidence_invalid", `${name} run: ${RUN_VERDICT_HEADLINES.evidence_invalid}: ${shown}`);
  }
  if (verdict.manifest === null) return err("run_evidence_missing", `${name} run: manifest.json is missing`);
  if (verdict.final === null)
    return err("run_evidence_missing", `${name} run: final.json is missing (${RUN_VERDICT_HEADLINES.incomplete})`);
  return ok({ name, directory, manifest: verdict.manifest, final: verdict.final, audit: verdict.records, verdict });
}

export function eventsOf<K extends LabAuditEventType>(
  run: RunEvidence,
  type: K,
  proposal?: number,
): LabAuditRecordOf<K>[] {
  return run.audit.filter(
    (event): event is LabAuditRecordOf<K> =>
      event.type === type && (proposal === undefined || event.proposal === proposal),
  );
}

export function record(value: unknown): Readonly<Record<string, unknown>> {
  return isRecord(value) ? value : {};
}

export function runKind(run: RunEvidence): string {
  return String(record(run.manifest["labels"])["kind"] ?? "unknown");
}
