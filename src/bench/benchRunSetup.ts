// The assembly of a benchmark run, before its first task, as functions tests call directly (issue
// 32: the CLI parses, calls and prints):
// - checkRunOptions: every option conflict and value check, before anything is touched;
// - runOutputFolder: the run's folder (the default name, a scheduler's shard folder);
// - openBackend: the local engine, or an OpenAI-compatible endpoint after its preflight, with the
//   served-checkpoint recognition that labels a run REHEARSAL or PIPELINE CHECK;
// - runLabel: that label, one rule for the terminal, results.md and the report;
// - checkDatasetCached: the data set check, from its cache when it may be (datasetCheckCache.ts).
// Nothing here writes to the terminal: lines go to the caller's `notify`, progress to typed events.
import { join, resolve } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import { parseConditionList, type ConditionId } from "./agent/conditions.ts";
import { resolveShard, type Shard } from "./runs/taskPlan.ts";
import { parseThinking, thinkingRequestFields, type ThinkingMode } from "./endpoint/thinkingMode.ts";
import {
  capabilityWarnings,
  preflightEndpoint,
  preflightStartLine,
  type PreflightReport,
} from "./endpoint/endpointPreflight.ts";
import {
  inProjectShapes,
  recognizeServedCheckpoint,
  servedCheckpointLabels,
  type InProjectShape,
} from "./endpoint/servedCheckpoint.ts";
import { benchResultSource, PIPELINE_CHECK_LINE, REHEARSAL_LINE } from "./results/resultsSummary.ts";
import type { BenchEnvironment } from "./benchEnvironment.ts";
import {
  datasetCheckKey,
  lookupDatasetCheck,
  storeDatasetCheck,
  type CachedCheck,
  type DatasetCheckSelection,
} from "./grading/datasetCheckCache.ts";
import { verifyDataset, type VerifyRecord, type VerifyReport } from "./grading/verifyDataset.ts";
import type { ChatBackend } from "../sources/openaiCompatibleChat.ts";
import { OpenAiCompatibleClient } from "../sources/openaiCompatibleClient.ts";
import { LocalEngineChat } from "../sources/localEngineChat.ts";
import type { SupervisedProgress } from "../model/worker/supervisor.ts";

// The typo check lives beside the data set (prepareBenchEnvironment refuses a typo before the
// sandbox is touched); its names stay importable from here with the rest of a run's setup.
export { editDistance, nearestPrograms, unknownPrograms, unknownProgramsMessage } from "./dataset/programNames.ts";

/** The options of `tca bench quixbugs run` as commander gives them (strings, unparsed). */
export interface BenchRunFlags {
  readonly backend: string;
  readonly endpoint?: string;
  readonly model?: string;
  readonly modelDirectory?: string;
  readonly conditions: string;
  readonly programs?: string;
  readonly out?: string;
  readonly jobs?: string;
  readonly resume?: boolean;
  readonly shard?: string;
  readonly shardCount?: string;
  readonly shardFrom?: string;
  readonly repeats?: string;
  readonly temperature?: string;
  readonly pipelineCheck?: boolean;
  readonly apiKeyEnv?: string;
  readonly thinking?: string;
  readonly disableThinking?: boolean;
  readonly label?: string;
  readonly hardware?: string;
  readonly includeSlow?: boolean;
  readonly testTimeout?: string;
  readonly preflightTimeout?: string;
}

/** The preflight's default bound, in seconds (--preflight-timeout): a slow CPU server answers a tiny request in seconds. */
export const DEFAULT_PREFLIGHT_TIMEOUT_S = 120;

/** What checkRunOptions makes of the flags: every value parsed, every conflict refused. */
export interface BenchRunSettings {
  readonly backend: "openai" | "local";
  readonly conditions: readonly ConditionId[];
  readonly programs?: readonly string[];
  readonly jobs: number;
  readonly testTimeoutMs: number;
  readonly shard?: Shard;
  readonly repeats: number;
  readonly temperature: number;
  readonly hardware?: string;
  /** openai only: --thinking (in the fingerprint). */
  readonly thinking?: ThinkingMode;
  /** openai only: from --api-key-env or OPENAI_API_KEY; sent, never recorded. */
  readonly apiKey?: string;
  readonly preflightTimeoutMs: number;
}

/** A positive integer option (up to 6 digits); `fallback` when not given, undefined when malformed. */
export function positiveInt(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return /^[1-9]\d{0,5}$/.test(text) ? Number(text) : undefined;
}

/** A comma-separated list, blanks dropped; undefined when the option was not given. */
export function programList(text: string | undefined): string[] | undefined {
  return text === undefined
    ? undefined
    : text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
}

const OPENAI_ONLY =
  "--endpoint, --model, --api-key-env, --thinking, --disable-thinking, --pipeline-check and --preflight-timeout belong to --backend openai";

/**
 * Every option check of a run, before the sandbox, the data set or the endpoint is touched:
 * the backend and the options that belong to it, the value of each option, and the shard from
 * the flags or the scheduler's environment (`env`: process.env, or a test's).
 */
export function checkRunOptions(
  flags: BenchRunFlags,
  env: Readonly<Record<string, string | undefined>>,
  defaultJobs: number,
): Result<BenchRunSettings, BenchErrorCode> {
  if (flags.backend !== "openai" && flags.backend !== "local")
    return err("invalid_option", "--backend takes openai or local");
  const local = flags.backend === "local";
  if (local) {
    if (flags.modelDirectory === undefined) return err("invalid_option", "--backend local needs --model-directory DIR");
    if (
      flags.endpoint !== undefined ||
      flags.model !== undefined ||
      flags.apiKeyEnv !== undefined ||
      flags.disableThinking === true ||
      flags.thinking !== undefined ||
      flags.pipelineCheck === true ||
      flags.preflightTimeout !== undefined
    )
      return err("invalid_option", OPENAI_ONLY);
  } else {
    if (flags.endpoint === undefined || flags.model === undefined)
      return err("invalid_option", "--backend openai needs --endpoint URL and --model NAME");
    if (flags.modelDirectory !== undefined)
      return err("invalid_option", "--model-directory belongs to --backend local");
  }
  const conditions = parseConditionList(flags.conditions);
  if (!conditions) return err("invalid_option", "--conditions takes a list of A, B, C, D");
  const jobs = positiveInt(flags.jobs, local ? 1 : defaultJobs);
  const timeout = positiveInt(flags.testTimeout, 60);
  if (jobs === undefined || timeout === undefined)
    return err("invalid_option", "--jobs and --test-timeout take positive integers");
  const shard = resolveShard(flags, env);
  if (!shard.ok) return shard;
  const repeats = positiveInt(flags.repeats, 1);
  if (repeats === undefined || repeats > 100) return err("invalid_option", "--repeats takes an integer 1..100");
  const temperature =
    flags.temperature === undefined ? 0 : /^\d+(\.\d+)?$/.test(flags.temperature) ? Number(flags.temperature) : NaN;
  if (!(temperature >= 0 && temperature <= 2)) return err("invalid_option", "--temperature takes a number 0..2");
  // One line in results.md: no control characters, a label's length.
  if (
    flags.hardware !== undefined &&
    (flags.hardware.trim() === "" || flags.hardware.length > 200 || /\p{Cc}/u.test(flags.hardware))
  )
    return err("invalid_option", "--hardware takes one line of text (1-200 characters)");
  const preflightTimeout = positiveInt(flags.preflightTimeout, DEFAULT_PREFLIGHT_TIMEOUT_S);
  if (preflightTimeout === undefined || preflightTimeout > 3600)
    return err("invalid_option", "--preflight-timeout takes whole seconds, 1..3600");
  const programs = programList(flags.programs);
  const common = {
    conditions,
    ...(programs !== undefined ? { programs } : {}),
    jobs,
    testTimeoutMs: timeout * 1000,
    ...(shard.value !== undefined ? { shard: shard.value } : {}),
    repeats,
    temperature,
    ...(flags.hardware !== undefined ? { hardware: flags.hardware } : {}),
    preflightTimeoutMs: preflightTimeout * 1000,
  };
  if (local) return ok({ backend: "local", ...common });
  const key = endpointApiKey(flags.apiKeyEnv, env);
  if (!key.ok) return key;
  const apiKey = key.value;
  const thinking = parseThinking(flags.thinking, flags.disableThinking === true);
  if (!thinking.ok) return thinking;
  return ok({ backend: "openai", ...common, thinking: thinking.value, ...(apiKey ? { apiKey } : {}) });
}

/**
 * The API key an endpoint is sent: the variable --api-key-env names (empty or unset is refused), else
 * OPENAI_API_KEY, the OpenAI clients' convention. Sent, never recorded. One rule for a run and for
 * verify-run --regenerate, which asks the same server again.
 */
export function endpointApiKey(
  apiKeyEnv: string | undefined,
  env: NodeJS.ProcessEnv,
): Result<string | undefined, BenchErrorCode> {
  if (apiKeyEnv === undefined) return ok(env.OPENAI_API_KEY || undefined);
  const key = env[apiKeyEnv];
  return key ? ok(key) : err("invalid_option", `environment variable ${apiKeyEnv} is empty`);
}

/**
 * The run's folder: --out, or bench-runs/quixbugs-<model>-<time> (…-indexed with --shard-count,
 * so every array task names the same one); with --shard-count every array task (pod) gets the
 * same arguments and writes its own <out>/shard-<i>-of-<n>. Relative to `cwd`.
 */
export function runOutputFolder(
  flags: Pick<BenchRunFlags, "backend" | "model" | "out" | "shardCount">,
  shard: Shard | undefined,
  now: Date,
  cwd: string = process.cwd(),
): { readonly base: string; readonly outDir: string } {
  const nameForDir = flags.backend === "local" ? "local" : (flags.model ?? "model");
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const base = resolve(
    cwd,
    flags.out ??
      join(
        "bench-runs",
        `quixbugs-${nameForDir.replace(/[^A-Za-z0-9._-]+/g, "_")}-${flags.shardCount !== undefined ? "indexed" : stamp}`,
      ),
  );
  const outDir =
    flags.shardCount !== undefined && shard !== undefined ? join(base, `shard-${shard.index}-of-${shard.count}`) : base;
  return { base, outDir };
}

/** A run's kind, from its model description: the label every place that shows a result carries first. */
export interface RunLabel {
  readonly kind: "rehearsal" | "pipeline_check" | "model_result";
  /** REHEARSAL, PIPELINE CHECK, or null for a model result. */
  readonly title: "REHEARSAL" | "PIPELINE CHECK" | null;
  /** The line the terminal and results.md print above the numbers; null for a model result. */
  readonly line: string | null;
}

export function runLabel(description: Readonly<Record<string, unknown>>): RunLabel {
  const kind = benchResultSource(description).kind;
  if (kind === "rehearsal") return { kind: "rehearsal", title: "REHEARSAL", line: REHEARSAL_LINE };
  if (kind === "pipeline_check") return { kind: "pipeline_check", title: "PIPELINE CHECK", line: PIPELINE_CHECK_LINE };
  return { kind: "model_result", title: null, line: null };
}

export interface OpenedBackend {
  readonly backend: ChatBackend;
  readonly description: Readonly<Record<string, unknown>>;
  /** In the run's fingerprint: what --resume and merge compare. */
  readonly modelName: string;
  /** --thinking, for an OpenAI-compatible endpoint (in the fingerprint); undefined for the local engine. */
  readonly thinking?: ThinkingMode;
}

export interface OpenBackendHooks {
  /** A warning or note line for the person running the command (no trailing newline). */
  readonly notify: (line: string) => void;
  readonly onGenerationProgress?: (progress: SupervisedProgress) => void;
  /** The shapes of this project's own checkpoints (default: inProjectShapes()); tests pass their own. */
  readonly shapes?: readonly InProjectShape[];
}

/**
 * Creates the chosen backend and records its identity. An endpoint is checked first (the
 * preflight: a wrong model name, a missing /v1 or key, a server without tool calling, or one that
 * refuses the thinking field stops here with the server's message and the likely fix), then
 * recognized: a server reporting the shape of one of this project's checkpoints gets the labels
 * that checkpoint gets through --backend local, and --pipeline-check labels the run a pipeline check.
 */
export async function openBackend(
  flags: Pick<BenchRunFlags, "endpoint" | "model" | "modelDirectory" | "label" | "pipelineCheck">,
  settings: BenchRunSettings,
  hooks: OpenBackendHooks,
): Promise<Result<OpenedBackend, string>> {
  if (settings.backend === "local") {
    if (flags.modelDirectory === undefined) return err("invalid_option", "--backend local needs --model-directory DIR");
    const local = await LocalEngineChat.create({
      modelDirectory: flags.modelDirectory,
      ...(hooks.onGenerationProgress !== undefined ? { onGenerationProgress: hooks.onGenerationProgress } : {}),
    });
    if (!local.ok) return local;
    const identity = await local.value.describe(AbortSignal.timeout(30_000));
    return ok({
      backend: local.value,
      description: { ...identity, label: flags.label ?? local.value.modelName },
      modelName: local.value.modelName,
    });
  }
  const { endpoint, model } = flags;
  if (endpoint === undefined || model === undefined)
    return err("invalid_option", "--backend openai needs --endpoint URL and --model NAME");
  const thinking = settings.thinking ?? "off";
  const thinkingFields = thinkingRequestFields(thinking);
  const needsTools = settings.conditions.some((c) => c !== "A");
  const clientOptions = {
    endpoint,
    model,
    temperature: settings.temperature,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
  const client = new OpenAiCompatibleClient({
    ...clientOptions,
    ...(thinkingFields ? { extraBody: thinkingFields } : {}),
  });
  hooks.notify(preflightStartLine({ endpoint, timeoutMs: settings.preflightTimeoutMs }));
  const preflight = await preflightEndpoint(client, {
    endpoint,
    model,
    needsTools,
    apiKeySent: settings.apiKey !== undefined,
    timeoutMs: settings.preflightTimeoutMs,
    ...(thinkingFields
      ? { thinking: { mode: thinking, withoutField: new OpenAiCompatibleClient(clientOptions) } }
      : {}),
  });
  if (!preflight.ok) return preflight;
  for (const w of preflight.value.warnings) hooks.notify(`warning: ${w}`);
  const identity = await client.describe(AbortSignal.timeout(30_000));
  for (const w of capabilityWarnings(identity.serverProps, needsTools)) hooks.notify(`warning: ${w}`);
  const report: PreflightReport = preflight.value;
  const recognized = recognizeServedCheckpoint(identity.serverModels, model, hooks.shapes ?? (await inProjectShapes()));
  if (recognized !== null)
    hooks.notify(
      `note: the endpoint serves this project's ${recognized.name} checkpoint (recognized by its shape at /v1/models); the run is labelled ${recognized.kind === "rehearsal" ? "REHEARSAL" : "PIPELINE CHECK"}, not a model result`,
    );
  const labels = {
    ...(flags.pipelineCheck === true ? { synthetic: true } : {}),
    ...(recognized !== null ? servedCheckpointLabels(recognized) : {}),
  };
  return ok({
    backend: client,
    description: { ...identity, preflight: report, label: flags.label ?? model, ...labels },
    modelName: model,
    thinking,
  });
}

/**
 * The line a data set check starts with (verify-dataset and run alike): which folder, how many
 * programs, and an estimate that holds. No per-program rate is promised: most programs take a
 * second, but a buggy one that never ends (bitcount) runs until its test timeout, so the first
 * results can take about that long; the progress lines that follow show the real pace.
 */
export function datasetCheckStartLine(check: {
  readonly root: string;
  readonly programs: number;
  readonly jobs: number;
  readonly testTimeoutS: number;
}): string {
  return (
    `checking the data set ${check.root} in the sandbox: ${check.programs} program${check.programs === 1 ? "" : "s"}, ` +
    `${Math.max(1, Math.min(check.jobs, check.programs))} at a time; ` +
    `each buggy program must fail and each reference fix pass. Most take a few seconds, a buggy one that ` +
    `never ends runs its full ${check.testTimeoutS} s test timeout (--test-timeout)…`
  );
}

/** What the data set check tells its caller while it runs. */
export type DatasetCheckEvent =
  | { readonly kind: "cached"; readonly cached: CachedCheck }
  | { readonly kind: "cache_unusable"; readonly reason: string }
  | { readonly kind: "started"; readonly programs: number; readonly root: string }
  | { readonly kind: "record"; readonly record: VerifyRecord; readonly done: number; readonly all: number };

/**
 * The data set check before a run, from the cache when a pass for this exact data set and sandbox
 * is there (src/bench/grading/datasetCheckCache.ts), else run and cached when it passes. `note` is
 * what run.json's datasetCheck adds ("", or when the cached pass was made). The run folder's own
 * dataset-check.json is never believed on --resume (it would pass a data set changed in place).
 */
export async function checkDatasetCached(
  env: BenchEnvironment,
  selection: DatasetCheckSelection,
  options: {
    readonly jobs: number;
    readonly recheck: boolean;
    readonly cacheDir: string;
    readonly onEvent?: (event: DatasetCheckEvent) => void;
  },
): Promise<{ report: VerifyReport; note: string }> {
  const key = datasetCheckKey(env.sandbox, env.dataset, selection);
  const tell = options.onEvent ?? ((): void => undefined);
  if (!options.recheck) {
    const cached = lookupDatasetCheck(options.cacheDir, key, env.dataset.root);
    if (cached.hit) {
      tell({ kind: "cached", cached: cached.value });
      return { report: cached.value.report, note: ` (cached pass of ${cached.value.checkedAt})` };
    }
    if (cached.code === "cache_unusable") tell({ kind: "cache_unusable", reason: cached.reason });
  }
  tell({
    kind: "started",
    programs: selection.programs?.length ?? env.dataset.programs.length,
    root: env.dataset.root,
  });
  const report = await verifyDataset(env.sandbox, env.dataset, {
    jobs: options.jobs,
    includeSlow: selection.includeSlow,
    ...(selection.programs ? { programs: selection.programs } : {}),
    onRecord: (record, done, all) => tell({ kind: "record", record, done, all }),
  });
  if (report.ok) storeDatasetCheck(options.cacheDir, key, report);
  return { report, note: "" };
}

/** run.json's datasetCheck line. */
export function datasetCheckLine(check: VerifyReport, note: string): string {
  return `${check.buggyFailing}/${check.programs} buggy fail, ${check.fixesPassing}/${check.programs} fixes pass${note}`;
}
