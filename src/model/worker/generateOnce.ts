// One supervised generation for `tca model generate` and reproducibility checks: load under
// the supervisor, generate once with the Lab's settings, and return one JSON-ready record.
import { readFile, stat } from "node:fs/promises";
import { systemClock, type MonotonicClock } from "../../core/clock.ts";
import { CONTROLLER_LIMITS } from "../../constants/labConstants.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { ModelSupervisor, type SupervisedProgress, type SupervisorOptions } from "./supervisor.ts";
import { MAX_INPUT_IDS, type GenerationInput } from "./protocol.ts";
import { checkpointOutputNote } from "../synthetic/syntheticManifest.ts";

export type GenerateOnceErrorCode = "input_invalid" | "time_limit" | "model_error" | "cancelled";

/** Reads `--input-ids`: a JSON array of non-negative integer token ids (bounded file size). */
export async function readInputIdsFile(file: string): Promise<Result<number[], "input_invalid">> {
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile() || info.size > 1024 * 1024)
    return err("input_invalid", "input ids file is missing, not a file, or larger than 1 MiB");
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch {
    return err("input_invalid", "input ids file is not JSON");
  }
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > MAX_INPUT_IDS ||
    !value.every((v) => Number.isSafeInteger(v) && (v as number) >= 0)
  ) {
    return err("input_invalid", "input ids must be a non-empty JSON array of non-negative integers");
  }
  return ok(value as number[]);
}

export async function generateOnce(options: {
  readonly modelDirectory: string;
  readonly input: GenerationInput;
  readonly clock?: MonotonicClock;
  readonly overallBudgetMs?: number;
  readonly supervisor?: Omit<SupervisorOptions, "clock">;
  /** Called once the model is loaded, before the generation starts (the CLI's status line). */
  readonly onLoaded?: () => void;
  /** Live token counts of the generation (the CLI's status line; nothing else sees them). */
  readonly onProgress?: (progress: SupervisedProgress) => void;
}): Promise<Result<Record<string, unknown>, GenerateOnceErrorCode>> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const overallDeadlineMs = started + (options.overallBudgetMs ?? CONTROLLER_LIMITS.overallDeadlineMs);
  const supervisor = new ModelSupervisor({ ...options.supervisor, clock });
  try {
    const loaded = await supervisor.load(options.modelDirectory, overallDeadlineMs);
    if (!loaded.ok) return err(loaded.error, loaded.message);
    options.onLoaded?.();
    const outcome = await supervisor.generate(options.input, {
      overallDeadlineMs,
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    });
    const common = {
      label: loaded.value.label,
      synthetic: loaded.value.synthetic,
      ...(loaded.value.synthetic ? { note: checkpointOutputNote(loaded.value.label) } : {}),
    };
    const timing = { supervised_load: Math.round(loaded.value.loadMs), call: Math.round(outcome.elapsedMs) };
    switch (outcome.kind) {
      case "result": {
        const r = outcome.report;
        return ok({
          ...common,
          outcome: "generated",
          input_tokens: r.inputTokens,
          input_ids: options.input.kind === "ids" ? undefined : r.inputIds,
          raw_output_ids: r.rawOutputIds,
          output_tokens: r.outputTokens,
          text: r.text,
          stop_cause: r.stopCause,
          prefix_tokens_reused: r.prefixTokensReused,
          timings_ms: { ...timing, ...r.timingsMs },
          threads: r.threads,
          worker_peak_rss_bytes: r.peakRssBytes,
          engine: loaded.value.identity,
        });
      }
      case "context_limit":
        return ok({
          ...common,
          outcome: "context_limit",
          input_tokens: outcome.inputTokens,
          timings_ms: timing,
          engine: loaded.value.identity,
        });
      case "time_limit":
        return err("time_limit", "generation did not finish before the deadline");
      case "cancelled":
        return err("cancelled", "generation was cancelled");
      case "model_error":
        return err("model_error", outcome.message);
    }
  } finally {
    await supervisor.close();
  }
}
