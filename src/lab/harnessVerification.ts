// Part 7: "Verify the harness before loading a model". Before the model trial loads anything it
// records whether a verified scripted baseline and a fully passing checks run exist for THIS
// harness version (the aggregate hash of src/, bin/ and the package files). "Verified" and
// "passing" are the re-derived verdicts (deriveRunVerdict, deriveChecksVerdict), never the
// summary files' own claims. It records; it does not decide for the learner (submission.md cites
// the record).
import { readJsonObjectUnder } from "../core/safeRead.ts";
import { deriveChecksVerdict } from "../evidence/checksVerdict.ts";
import { harnessHashes } from "../evidence/runtimeIdentity.ts";
import { deriveRunVerdict } from "../evidence/runVerdict.ts";

export interface EvidenceCheck {
  readonly directory: string | null;
  /** "verified": exists, passed, same harness; otherwise the first reason it is not. */
  readonly status: "verified" | "not_supplied" | "unreadable" | "evidence_invalid" | "not_passing" | "other_harness_version" | "wrong_kind";
  readonly harness_sha256: string | null;
}

export interface HarnessVerification {
  readonly checked_at: string;
  readonly current_harness_sha256: string;
  readonly baseline: EvidenceCheck;
  readonly checks: EvidenceCheck;
  /** True only when both are "verified". */
  readonly verified_before_loading: boolean;
}

/** Evidence summaries are small; anything larger is not one of ours. */
const EVIDENCE_SUMMARY_MAX_BYTES = 4 * 1024 * 1024;

function readObject(directory: string, name: string): Record<string, unknown> | null {
  return readJsonObjectUnder(directory, name, EVIDENCE_SUMMARY_MAX_BYTES);
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

export function checkBaselineEvidence(directory: string | null, current: string): EvidenceCheck {
  if (directory === null) return { directory, status: "not_supplied", harness_sha256: null };
  const verdict = deriveRunVerdict(directory);
  const { manifest, final } = verdict;
  if (manifest === null || final === null) return { directory, status: "unreadable", harness_sha256: null };
  const harness = field(manifest["harness"], "aggregate_sha256");
  const sha = typeof harness === "string" ? harness : null;
  if (verdict.kind === "evidence_invalid") return { directory, status: "evidence_invalid", harness_sha256: sha };
  if (field(manifest["labels"], "kind") !== "scripted_baseline") return { directory, status: "wrong_kind", harness_sha256: sha };
  if (verdict.kind !== "verified_success") return { directory, status: "not_passing", harness_sha256: sha };
  return { directory, status: sha === current ? "verified" : "other_harness_version", harness_sha256: sha };
}

export function checkChecksEvidence(directory: string | null, current: string): EvidenceCheck {
  if (directory === null) return { directory, status: "not_supplied", harness_sha256: null };
  const report = readObject(directory, "checks.json");
  if (report === null || report["schema"] !== "tca.checks/1") return { directory, status: "unreadable", harness_sha256: null };
  const sha = typeof report["harness_sha256"] === "string" ? report["harness_sha256"] : null;
  // Every row re-derived from its own run directory against the spec's table; a process count
  // that is missing or not zero fails it.
  const verdict = deriveChecksVerdict(directory);
  if (verdict.kind === "evidence_invalid" || verdict.kind === "incomplete") return { directory, status: "evidence_invalid", harness_sha256: sha };
  if (verdict.kind !== "all_passed") return { directory, status: "not_passing", harness_sha256: sha };
  return { directory, status: sha === current ? "verified" : "other_harness_version", harness_sha256: sha };
}

export function verifyHarnessEvidence(baselineDirectory: string | null, checksDirectory: string | null, now: Date = new Date()): HarnessVerification {
  const current = harnessHashes().aggregate_sha256;
  const baseline = checkBaselineEvidence(baselineDirectory, current);
  const checks = checkChecksEvidence(checksDirectory, current);
  return {
    checked_at: now.toISOString(),
    current_harness_sha256: current,
    baseline,
    checks,
    verified_before_loading: baseline.status === "verified" && checks.status === "verified",
  };
}
