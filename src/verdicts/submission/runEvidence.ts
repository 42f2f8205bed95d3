// Reads a finished run directory back for reporting (submission.md). The run's verdict comes
// first (src/verdicts/runVerdict.ts: derived from the audit, cross-checked against final.json,
// manifest.json and the final source, read without following links or blocking on FIFOs);
// evidence that is invalid or incomplete is refused, so submission.md never cites it.
import { err, ok, type Result } from "../../core/result.ts";
import type {
  LabAuditEventType,
  LabAuditRecord as AuditRecord,
  LabAuditRecordOf,
} from "../../recording/labAuditEvents.ts";
import { deriveRunVerdict, RUN_VERDICT_HEADLINES, type RunVerdict } from "../runVerdict.ts";

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

export function readRunEvidence(name: string, directory: string): Result<RunEvidence, EvidenceErrorCode> {
  const verdict = deriveRunVerdict(directory);
  if (verdict.kind === "evidence_invalid") {
    // Decided on the verdict's own fact (which evidence files are not there), never on a problem's wording.
    const missing = verdict.absent[0];
    if (missing !== undefined) return err("run_evidence_missing", `${name} run: ${missing.problem}`);
    return err(
      "run_evidence_invalid",
      `${name} run: ${RUN_VERDICT_HEADLINES.evidence_invalid}: ${verdict.problems.slice(0, 3).join("; ")}`,
    );
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
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function runKind(run: RunEvidence): string {
  return String(record(run.manifest["labels"])["kind"] ?? "unknown");
}
