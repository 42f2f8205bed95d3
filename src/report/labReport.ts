// Reads one Lab run directory (manifest.json, final.json, audit.jsonl, backups/, workspace/)
// into the data of its report. The verdict is the evidence room's deriveRunVerdict (recomputed
// from the audit, cross-checked against every summary file); its problems head the page's
// problem list. Missing or damaged files are reported, never papered over.
import { readAuditLog } from "../recording/auditLog.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { deriveRunVerdict, LAB_EVIDENCE_FILES } from "../verdicts/runVerdict.ts";
import type { ModelCheck } from "../verdicts/modelTrialCheck.ts";
import { baseName, numberField, objectField, stringField, type JsonObject } from "./evidenceFiles.ts";
import { buildEditViews, collectSourceVersions } from "./editDiffs.ts";
import { labKindLabel, labVerdict, proposalTextLabel } from "./labVerdict.ts";
import { buildTimeline } from "./proposalTimeline.ts";
import { readRecordedRegeneration, recordedRegenerationLine } from "../verdicts/labRegenerationRecord.ts";
import type { LabReportData } from "./reportDocument.ts";

export const LAB_FILES = LAB_EVIDENCE_FILES;

export interface LabReadOptions {
  /** Keep request messages (the model input) in the page; off for the nested runs of a checks report. */
  readonly includeRequests: boolean;
  /** The run's model directory as opened now (the CLI does it); absent: the model is not checked. */
  readonly modelCheck?: ModelCheck;
}

export function readLabReport(
  runDirectory: string,
  options: LabReadOptions = { includeRequests: true },
): LabReportData {
  const verdict = deriveRunVerdict(
    runDirectory,
    options.modelCheck === undefined ? {} : { modelCheck: options.modelCheck },
  );
  const problems = verdict.problems.map(formatProblem);
  let records: readonly JsonObject[] = verdict.records.map((record): JsonObject => ({ ...record }));
  if (records.length === 0) {
    // The verdict has no records when the one strict reader refused the audit: the timeline shows
    // the records that reader read before the refused line (none looser), with its coded problem.
    const read = readAuditLog(runDirectory);
    if (!read.ok) {
      records = read.before.map((record): JsonObject => ({ ...record }));
      problems.push(
        `${LAB_FILES.audit}: the timeline shows the ${records.length} record(s) read before the audit ` +
          `reader refused: ${formatProblem(read.problem)}`,
      );
    }
  }
  const manifest = verdict.manifest;
  const final = verdict.final;
  const { proposals, runRecords } = buildTimeline(records, options);
  const elapsed = objectField(final, "elapsed_ms");
  const phases =
    elapsed === null
      ? []
      : Object.keys(elapsed).flatMap((name) => {
          const ms = numberField(elapsed, name);
          return ms === null ? [] : [{ name, ms }];
        });
  const label = labKindLabel(verdict);
  // regeneration.json is shown as a record with its time (never a finding of this report); a run
  // whose every record is scripted had no model to re-ask, so it gets no line unless it holds one.
  const regeneration = readRecordedRegeneration(runDirectory);
  const askedModel = verdict.records.some((record) => record.type === "request" && record.source !== "scripted");
  const shown = labVerdict(verdict);
  const details =
    regeneration.state === "absent" && !askedModel
      ? shown.details
      : [...shown.details, recordedRegenerationLine(regeneration, runDirectory)];
  return {
    directoryName: baseName(runDirectory),
    verdict: { ...shown, details },
    label,
    textLabel: proposalTextLabel(manifest, final, label),
    runId: verdict.facts.runId ?? stringField(manifest, "run_id") ?? stringField(final, "run_id"),
    stopReason: verdict.facts.stopReason,
    manifest,
    final,
    proposals,
    runRecords,
    edits: buildEditViews(records, collectSourceVersions(runDirectory)),
    phases,
    problems,
  };
}
