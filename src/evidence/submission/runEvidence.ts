// Reads a finished run directory back for reporting (submission.md). Evidence is trusted harness
// output, but it is still parsed defensively: a missing or malformed file is a clear error.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../lab/result.ts";
import { readAuditRecords, type AuditRecord } from "../auditRecorder.ts";

export type AuditEvent = AuditRecord;

export interface RunEvidence {
  /** A short name used in citations: "baseline", "model", ... */
  readonly name: string;
  readonly directory: string;
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly final: Readonly<Record<string, unknown>>;
  readonly audit: readonly AuditEvent[];
}

export type EvidenceErrorCode = "run_evidence_missing" | "run_evidence_invalid";

export function readRunEvidence(name: string, directory: string): Result<RunEvidence, EvidenceErrorCode> {
  for (const file of ["manifest.json", "final.json", "audit.jsonl"]) {
    if (!existsSync(join(directory, file))) return err("run_evidence_missing", `${name} run: ${file} is missing`);
  }
  try {
    const manifest = JSON.parse(readFileSync(join(directory, "manifest.json"), "utf8")) as Record<string, unknown>;
    const final = JSON.parse(readFileSync(join(directory, "final.json"), "utf8")) as Record<string, unknown>;
    const auditFile = readAuditRecords(join(directory, "audit.jsonl"));
    if (!auditFile.ok) return err("run_evidence_invalid", `${name} run: ${auditFile.message}`);
    const audit = auditFile.value.records;
    if (manifest["schema"] !== "tca.manifest/1" || final["schema"] !== "tca.final/1") return err("run_evidence_invalid", `${name} run: unknown evidence schema`);
    return ok({ name, directory, manifest, final, audit });
  } catch {
    return err("run_evidence_invalid", `${name} run: evidence files are not valid JSON`);
  }
}

export function eventsOf(run: RunEvidence, type: string, proposal?: number): AuditEvent[] {
  return run.audit.filter((event) => event.type === type && (proposal === undefined || event.proposal === proposal));
}

export function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function runKind(run: RunEvidence): string {
  return String(record(run.manifest["labels"])["kind"] ?? "unknown");
}
