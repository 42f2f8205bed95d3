// regeneration.json of a bench run: the record of the last `verify-run --regenerate`
// (src/bench/runRegeneration.ts). It is a RECORD, never a finding: anyone can write one, so no
// verdict, headline or table depends on it. The report shows it as "recorded regeneration (time):
// …", says it did not re-ask the model itself, and names the command that does. A record of other
// tasks or traces than the ones read now is "stale".
import { isRecord } from "../core/isRecord.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { readTextUnder } from "../core/safeRead.ts";
import { regeneratedSummary } from "../core/responseComparison.ts";
import { RUN_FILES } from "../bench/runs/runDirectory.ts";
import { tracesDigest } from "../bench/runs/runRegeneration.ts";
import type { BenchSnapshot } from "./benchSnapshot.ts";

export type RecordedBenchRegeneration =
  | { readonly state: "absent" }
  | { readonly state: "unreadable"; readonly reason: string }
  | { readonly state: "stale"; readonly regeneratedAt: string }
  | {
      readonly state: "recorded";
      readonly regeneratedAt: string;
      readonly summary: string;
      readonly reproduced: boolean;
      readonly sampled: string | null;
      readonly through: string;
    };

const RECORD_MAX_BYTES = 64 * 1024 * 1024;

/** The run's regeneration.json, read and checked against the tasks and traces read now; no state changes a verdict. */
export function recordedBenchRegenerationOf(runDirectory: string, snapshot: BenchSnapshot): RecordedBenchRegeneration {
  const text = readTextUnder(runDirectory, RUN_FILES.regeneration, RECORD_MAX_BYTES);
  if (!text.ok) return text.error === "not_found" ? { state: "absent" } : { state: "unreadable", reason: text.message };
  const parsed = parseBoundedJson(text.value, RUN_FILES.regeneration);
  const record = parsed.ok ? parsed.value : null;
  if (!isRecord(record) || record.kind !== "quixbugs-regeneration")
    return { state: "unreadable", reason: "not a verify-run --regenerate record" };
  const regeneratedAt = typeof record.regeneratedAt === "string" ? record.regeneratedAt : "time not recorded";
  if (record.tasksSha256 !== snapshot.tasksSha256 || record.tracesSha256 !== tracesDigest(snapshot.traces))
    return { state: "stale", regeneratedAt };
  const { identical, compared, backend, sample } = record;
  if (typeof identical !== "number" || typeof compared !== "number" || !isRecord(backend))
    return { state: "unreadable", reason: "its counts or backend are missing" };
  const label = typeof backend.syntheticLabel === "string" ? backend.syntheticLabel : null;
  const through =
    typeof backend.endpoint === "string"
      ? `through ${backend.endpoint}`
      : typeof backend.modelDirectory === "string"
        ? `through the local engine on ${backend.modelDirectory}`
        : "through an unrecorded backend";
  const sampled =
    isRecord(sample) && typeof sample.size === "number" && typeof sample.of === "number"
      ? `a sample of ${sample.size} of ${sample.of} requests`
      : null;
  return {
    state: "recorded",
    regeneratedAt,
    summary: regeneratedSummary(identical, compared, label),
    reproduced: identical === compared,
    sampled,
    through,
  };
}

/** The line that begins the report's mention of a regeneration (the terminal picks it by this prefix). */
export const RECORDED_REGENERATION_PREFIXES = ["recorded regeneration", "no recorded regeneration"] as const;

/** The report's line for the record: what it says, with its time, and that `by` did not re-ask the model. */
export function recordedBenchRegenerationLine(
  recorded: RecordedBenchRegeneration,
  directory: string,
  by: string,
): string {
  const recompute = `tca bench quixbugs verify-run ${directory} --regenerate --endpoint URL | --model-directory DIR re-asks the model`;
  switch (recorded.state) {
    case "absent":
      return `no recorded regeneration: the model was not re-asked by ${by}; ${recompute}`;
    case "unreadable":
      return `recorded regeneration: ${RUN_FILES.regeneration} ignored (${recorded.reason}); not re-asked by ${by}; ${recompute}`;
    case "stale":
      return `recorded regeneration (${recorded.regeneratedAt}): of other tasks or traces than this run's, it says nothing about them; not re-asked by ${by}; ${recompute}`;
    case "recorded":
      return `recorded regeneration (${recorded.regeneratedAt}): ${recorded.summary}${recorded.sampled === null ? "" : ` (${recorded.sampled})`} ${recorded.through}${recorded.reproduced ? "" : " (not reproduced)"} (a record, not re-asked by ${by}; ${recompute})`;
  }
}
