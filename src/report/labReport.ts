// Reads one Lab run directory (manifest.json, final.json, audit.jsonl, backups/, workspace/)
// into the data of its report. Missing or damaged files are reported as problems on the page,
// never papered over: the verdict then says what could not be verified.
import { join } from "node:path";
import { baseName, numberField, objectField, readJsonObject, readNdjson, stringField, type JsonObject } from "./evidenceFiles.ts";
import { buildEditViews, collectSourceVersions } from "./editDiffs.ts";
import { labKindLabel, labVerdict } from "./labVerdict.ts";
import { buildTimeline } from "./proposalTimeline.ts";
import type { LabReportData } from "./reportDocument.ts";

export const LAB_FILES = { manifest: "manifest.json", final: "final.json", audit: "audit.jsonl" } as const;

export interface LabReadOptions {
  /** Keep request messages (the model input) in the page; off for the nested runs of a checks report. */
  readonly includeRequests: boolean;
}

export function readLabReport(runDirectory: string, options: LabReadOptions = { includeRequests: true }): LabReportData {
  const problems: string[] = [];
  const manifestRead = readJsonObject(join(runDirectory, LAB_FILES.manifest));
  const finalRead = readJsonObject(join(runDirectory, LAB_FILES.final));
  const auditRead = readNdjson(join(runDirectory, LAB_FILES.audit));
  const manifest = manifestRead.ok ? manifestRead.value : null;
  const final = finalRead.ok ? finalRead.value : null;
  if (!manifestRead.ok) problems.push(`${LAB_FILES.manifest}: ${manifestRead.error} (${manifestRead.message})`);
  if (!finalRead.ok) problems.push(`${LAB_FILES.final}: ${finalRead.error} (${finalRead.message})`);
  if (!auditRead.ok) problems.push(`${LAB_FILES.audit}: ${auditRead.error} (${auditRead.message})`);
  const records = auditRead.ok ? auditRead.value.records : [];
  if (auditRead.ok && auditRead.value.badLines.length > 0) {
    problems.push(`${LAB_FILES.audit}: ${auditRead.value.badLines.length} line(s) are not JSON objects (lines ${auditRead.value.badLines.slice(0, 20).join(", ")})`);
  }
  if (manifest !== null && manifest.schema !== "tca.manifest/1") problems.push(`${LAB_FILES.manifest}: unexpected schema ${JSON.stringify(manifest.schema)}`);
  if (final !== null && final.schema !== "tca.final/1") problems.push(`${LAB_FILES.final}: unexpected schema ${JSON.stringify(final.schema)}`);

  const runIds = new Set<string>();
  for (const id of [stringField(manifest, "run_id"), stringField(final, "run_id"), ...records.map((record) => stringField(record, "run_id"))]) {
    if (id !== null) runIds.add(id);
  }
  if (runIds.size > 1) problems.push(`the evidence files name ${runIds.size} different run ids: they may not belong to one run`);
  checkEventOrder(records, problems);

  const stopRecords = records.filter((record) => record.type === "stop");
  const auditStopReason = stringField(objectField(stopRecords[stopRecords.length - 1], "data"), "stop_reason");
  const { proposals, runRecords } = buildTimeline(records, options);
  const elapsed = objectField(final, "elapsed_ms");
  const phases = elapsed === null ? [] : Object.keys(elapsed).flatMap((name) => {
    const ms = numberField(elapsed, name);
    return ms === null ? [] : [{ name, ms }];
  });
  return {
    directoryName: baseName(runDirectory),
    verdict: labVerdict(final, auditStopReason),
    label: labKindLabel(manifest, final),
    runId: stringField(manifest, "run_id") ?? stringField(final, "run_id"),
    stopReason: stringField(final, "stop_reason") ?? auditStopReason,
    manifest,
    final,
    proposals,
    runRecords,
    edits: buildEditViews(records, collectSourceVersions(runDirectory)),
    phases,
    problems,
  };
}

/** Event ids must count 1, 2, 3, ... and times must not decrease; a gap means lost or edited lines. */
function checkEventOrder(records: readonly JsonObject[], problems: string[]): void {
  let expected = 1;
  let lastTime = Number.NEGATIVE_INFINITY;
  for (const record of records) {
    const id = numberField(record, "event_id");
    const time = numberField(record, "t_ms");
    if (id !== expected) {
      problems.push(`${LAB_FILES.audit}: event ids are not consecutive (expected ${expected}, found ${id ?? "none"})`);
      return;
    }
    if (time !== null && time < lastTime) {
      problems.push(`${LAB_FILES.audit}: timestamps decrease at event ${id}`);
      return;
    }
    expected += 1;
    if (time !== null) lastTime = time;
  }
}
