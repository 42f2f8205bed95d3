// verify-run --regenerate (#33): every recorded model request of a bench run sent again, through the
// backends `bench run` uses (an OpenAI-compatible endpoint, or the local engine on a model directory),
// and each response compared with the recorded one. The requests are the bench replay's
// (src/verdicts/benchReplay.ts): each turn's messages rebuilt with the harness's own functions from
// the recorded history and checked digest for digest against the trace, so every turn is asked with
// its own recorded history and one difference does not hide the rest. The backend's own request
// record (the HTTP body: messages, tools, model, sampling settings; the local engine's rendered
// prompt digest and token count) must equal the recorded exchange's, else the turn differs.
//
// What is compared: the reply's content and its tool calls (name and arguments text), byte for byte
// in UTF-8 (src/core/responseComparison.ts, the Lab's comparison), as the canonical JSON
// {"content", "toolCalls": [{"arguments", "name"}]}. The one thing left out is each tool call's id:
// the server names it (llama-server draws a random one; the local engine numbers it by turn), not the
// model, and nothing the harness decides rests on it beyond pairing a result with its call.
//
// The result is a record (regeneration.json), never a finding that makes a verdict valid: without
// --strict a difference is "not reproduced" (a server need not be deterministic); with --strict the
// CLI makes any difference EVIDENCE INVALID.
import { canonicalJson } from "../../core/canonicalJson.ts";
import { mapWithConcurrency } from "../../core/concurrency.ts";
import { sha256Hex } from "../../core/digest.ts";
import { isRecord } from "../../core/isRecord.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { boundedText, firstDifferingOffset } from "../../core/responseComparison.ts";
import type { ChatBackend, ChatTurnResult, ProposedToolCall } from "../../sources/openaiCompatibleChat.ts";
import {
  authHint,
  OpenAiCompatibleClient,
  type OpenAiCompatibleOptions,
} from "../../sources/openaiCompatibleClient.ts";
import { LocalEngineChat } from "../../sources/localEngineChat.ts";
import { openCheckpointDirectory } from "../../model/loader/checkpointDirectory.ts";
import type { HarnessRequest } from "../agent/harnessDecisions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { replaceRunRecord, RUN_FILES, type RunManifest } from "./runDirectory.ts";
import type { BenchRegenerationJson } from "./runFileSchemas.ts";

export const BENCH_REGENERATION_NORMALIZATION =
  'content and tool calls (name, arguments text) byte for byte in UTF-8, as the canonical JSON {"content","toolCalls":[{"arguments","name"}]}; tool-call ids left out (the server names them, not the model)';

export const SAMPLE_RULE =
  "the N requests whose SHA-256 of `TASK_KEY#TURN` is smallest, sent in run order (the same N for the same run; known in advance, so a sample bounds the cost, never proves a run)";

/** One model turn as the replay rebuilt it, with what the run recorded for it. */
export interface RecordedModelTurn {
  readonly turn: number;
  /** The request the harness builds from the replayed conversation (digest-checked against the trace). */
  readonly request: HarnessRequest;
  /** False when a message could not be rebuilt (a test file read without the data set): not sent. */
  readonly complete: boolean;
  readonly recorded:
    | {
        readonly kind: "response";
        readonly content: string;
        readonly toolCalls: readonly ProposedToolCall[];
        readonly finishReason: string | null;
        /** The backend's record of the request as sent (model_response.exchange.request). */
        readonly exchangeRequest: unknown;
      }
    | { readonly kind: "error"; readonly error: string };
}

/** A task's model turns, keyed like tasks.ndjson (task id, `.r<k>` for repeats), with its time budget. */
export interface RegenerationTask {
  readonly key: string;
  readonly turns: readonly RecordedModelTurn[];
  readonly taskTimeoutMs: number;
}

export type RegenerationTarget =
  | { readonly kind: "endpoint"; readonly endpoint: string; readonly apiKey?: string }
  | { readonly kind: "model_directory"; readonly directory: string };

export interface RegenerationBackend {
  readonly backend: ChatBackend;
  readonly identity: BenchRegenerationJson["backend"];
}

const stringField = (record: Readonly<Record<string, unknown>>, key: string): string | null =>
  typeof record[key] === "string" ? record[key] : null;

/** The client options the run's endpoint client had, from run.json (the model it named, its sampling, its extra fields). */
export function recordedClientOptions(
  manifest: RunManifest,
  endpoint: string,
  apiKey?: string,
): OpenAiCompatibleOptions | null {
  const model = manifest.model;
  const requested = stringField(model, "requestedModel");
  if (requested === null) return null;
  const sampling = isRecord(model.sampling) ? model.sampling : {};
  const temperature = typeof sampling.temperature === "number" ? sampling.temperature : 0;
  return {
    endpoint,
    model: requested,
    temperature,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(isRecord(model.extraBody) && Object.keys(model.extraBody).length > 0 ? { extraBody: model.extraBody } : {}),
  };
}

/**
 * The backend the run's requests are sent to again, refused before anything is sent or written: a
 * backend of another kind than the run's, an endpoint that does not answer or does not serve the
 * run's model, a model directory that does not verify or is not the run's checkpoint.
 */
export async function openRegenerationBackend(
  manifest: RunManifest,
  target: RegenerationTarget,
): Promise<Result<RegenerationBackend, BenchErrorCode | string>> {
  const recordedBackend = stringField(manifest.model, "backend");
  if (target.kind === "endpoint") {
    if (recordedBackend !== "openai-compatible")
      return err(
        "regeneration_backend_mismatch",
        `the run was made through ${recordedBackend ?? "an unrecorded backend"}, not an OpenAI-compatible endpoint: regenerate it with --model-directory DIR`,
      );
    const options = recordedClientOptions(manifest, target.endpoint, target.apiKey);
    if (options === null)
      return err("nothing_to_regenerate", "run.json records no requested model name to send (model.requestedModel)");
    const client = new OpenAiCompatibleClient(options);
    const listed = await client.listModels(AbortSignal.timeout(15_000));
    if (!listed.ok && listed.status === null)
      return err("endpoint_unreachable", `nothing answered at ${target.endpoint} (start the server, or check the URL)`);
    if (!listed.ok)
      return err(
        "endpoint_rejected",
        `${target.endpoint}/models answered HTTP ${listed.status}: ${listed.message}${listed.status === 401 || listed.status === 403 ? `; ${authHint(target.apiKey !== undefined)}` : ""}`,
      );
    if (listed.ids.length > 0 && !listed.ids.includes(options.model))
      return err(
        "model_not_served",
        `${target.endpoint} does not serve ${options.model}, the model the run asked (it lists ${listed.ids.join(", ")})`,
      );
    return ok({
      backend: client,
      identity: {
        kind: "openai-compatible",
        endpoint: target.endpoint,
        modelDirectory: null,
        model: options.model,
        syntheticLabel: null,
      },
    });
  }
  if (recordedBackend !== "local-engine")
    return err(
      "regeneration_backend_mismatch",
      `the run was made through ${recordedBackend ?? "an unrecorded backend"}, not the local engine: regenerate it with --endpoint URL`,
    );
  // The directory's verified files against the run's before the engine's load: another checkpoint costs no load.
  const checkpoint = await openCheckpointDirectory(target.directory);
  if (!checkpoint.ok) return err(checkpoint.error, checkpoint.message);
  if (canonicalJson(checkpoint.value.sha256) !== canonicalJson(manifest.model.source_sha256))
    return err(
      "model_mismatch",
      `${target.directory} is not the run's model: its verified file digests are not run.json's model.source_sha256 (${String(manifest.fingerprint.model)})`,
    );
  const local = await LocalEngineChat.create({ modelDirectory: target.directory });
  if (!local.ok) return local;
  const described = await local.value.describe(AbortSignal.timeout(30_000));
  const sameModel = local.value.modelName === manifest.fingerprint.model;
  const sameFiles = canonicalJson(described.source_sha256) === canonicalJson(manifest.model.source_sha256);
  if (!sameModel || !sameFiles) {
    await local.value.close();
    return err(
      "model_mismatch",
      `${target.directory} is not the run's model: it loads ${local.value.modelName}${sameModel ? " with other file digests" : ""}, run.json records ${String(manifest.fingerprint.model)}`,
    );
  }
  const label = stringField(described, "proposal_source");
  return ok({
    backend: local.value,
    identity: {
      kind: "local-engine",
      endpoint: null,
      modelDirectory: target.directory,
      model: local.value.modelName,
      syntheticLabel: local.value.synthetic ? label : null,
    },
  });
}

/** One turn to send: its task and the replayed turn. */
export interface TurnToSend {
  readonly task: string;
  readonly taskTimeoutMs: number;
  readonly turn: RecordedModelTurn;
}

/** Every turn of the run, in run order (tasks by key, turns in order). */
export function allTurns(tasks: readonly RegenerationTask[]): TurnToSend[] {
  return [...tasks]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .flatMap((task) => task.turns.map((turn) => ({ task: task.key, taskTimeoutMs: task.taskTimeoutMs, turn })));
}

/** --sample N (SAMPLE_RULE): the N turns whose SHA-256 of `TASK_KEY#TURN` is smallest, in run order. */
export function sampleTurns(turns: readonly TurnToSend[], size: number): TurnToSend[] {
  if (size >= turns.length) return [...turns];
  const ranked = turns
    .map((turn, index) => ({ index, rank: sha256Hex(`${turn.task}#${turn.turn.turn}`) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.index - b.index))
    .slice(0, size)
    .map((entry) => entry.index)
    .sort((a, b) => a - b);
  return ranked.map((index) => turns[index]!);
}

/** The text a response is compared as (BENCH_REGENERATION_NORMALIZATION). */
export function comparableResponse(reply: {
  readonly content: string;
  readonly toolCalls: readonly ProposedToolCall[];
}): string {
  return canonicalJson({
    content: reply.content,
    toolCalls: reply.toolCalls.map((call) => ({ name: call.name, arguments: call.argumentsText })),
  });
}

type RegeneratedTurn = BenchRegenerationJson["turns"][number];

/** One turn's regenerated result against the recorded one (null: not sent). */
export function compareRegeneratedTurn(sent: TurnToSend, result: ChatTurnResult | null): RegeneratedTurn {
  const { turn } = sent;
  const base = {
    task: sent.task,
    turn: turn.turn,
    recordedOutcome: turn.recorded.kind === "response" ? "response" : turn.recorded.error,
  };
  if (result === null || turn.recorded.kind !== "response")
    return {
      ...base,
      regeneratedOutcome: "not_asked",
      compared: false,
      identical: false,
      requestIdentical: null,
      firstDifferenceOffset: null,
      recorded: null,
      regenerated: null,
    };
  const recordedText = comparableResponse(turn.recorded);
  const regeneratedText = result.ok ? comparableResponse(result) : null;
  const requestIdentical = canonicalJson(result.exchange.request) === canonicalJson(turn.recorded.exchangeRequest);
  const offset = regeneratedText === null ? 0 : firstDifferingOffset(recordedText, regeneratedText);
  const identical = requestIdentical && offset === null;
  return {
    ...base,
    regeneratedOutcome: result.ok ? "response" : result.error,
    compared: true,
    identical,
    requestIdentical,
    firstDifferenceOffset: offset,
    recorded: identical ? null : boundedText(recordedText),
    regenerated: identical ? null : boundedText(regeneratedText ?? `(${result.ok ? "" : result.message})`),
  };
}

export interface RegenerationOptions {
  readonly backend: RegenerationBackend;
  readonly strict: boolean;
  /** --sample N; undefined: every request. */
  readonly sample?: number;
  /** Requests in flight at once (an endpoint with parallel slots answers them together). */
  readonly jobs: number;
  readonly tasksSha256: string;
  readonly tracesSha256: string;
  readonly now?: () => Date;
  readonly onTurn?: (turn: RegeneratedTurn, done: number, total: number) => void;
}

/** Sends the turns again and returns the record (not yet written). */
export async function regenerateRun(
  tasks: readonly RegenerationTask[],
  options: RegenerationOptions,
): Promise<Result<BenchRegenerationJson, BenchErrorCode>> {
  const every = allTurns(tasks);
  const answered = every.filter((sent) => sent.turn.recorded.kind === "response" && sent.turn.complete);
  if (answered.length === 0)
    return err(
      "nothing_to_regenerate",
      "nothing to regenerate: the run records no model response the replay could rebuild the request of",
    );
  const chosen = options.sample === undefined ? every : sampleTurns(every, options.sample);
  const started = performance.now();
  let done = 0;
  const compared = await mapWithConcurrency(chosen, options.jobs, async (sent) => {
    const askable = sent.turn.recorded.kind === "response" && sent.turn.complete;
    const result = askable
      ? await options.backend.backend.complete({
          ...sent.turn.request,
          signal: AbortSignal.timeout(sent.taskTimeoutMs),
        })
      : null;
    const entry = compareRegeneratedTurn(sent, result);
    done += 1;
    options.onTurn?.(entry, done, chosen.length);
    return entry;
  });
  const m = compared.filter((t) => t.compared).length;
  const n = compared.filter((t) => t.identical).length;
  return ok({
    schema: 1,
    kind: "quixbugs-regeneration",
    regeneratedAt: (options.now ?? (() => new Date()))().toISOString(),
    tasksSha256: options.tasksSha256,
    tracesSha256: options.tracesSha256,
    backend: options.backend.identity,
    normalization: BENCH_REGENERATION_NORMALIZATION,
    strict: options.strict,
    sample: options.sample === undefined ? null : { size: chosen.length, of: every.length, rule: SAMPLE_RULE },
    compared: m,
    identical: n,
    notCompared: compared.length - m,
    outcome: n === m ? "reproduced" : "not_reproduced",
    seconds: Math.round(((performance.now() - started) / 1000) * 100) / 100,
    turns: compared,
  });
}

/** Writes regeneration.json (the last regeneration), the one it replaces appended to regenerations.ndjson first. */
export function writeBenchRegeneration(
  runDirectory: string,
  record: BenchRegenerationJson,
): Result<string, BenchErrorCode> {
  return replaceRunRecord(
    runDirectory,
    RUN_FILES.regeneration,
    RUN_FILES.regenerationHistory,
    record,
    record.regeneratedAt,
  );
}

/** The digest of a run's traces the record is tied to: SHA-256 over the sorted `path\0sha256\n` lines. */
export function tracesDigest(traces: ReadonlyMap<string, { readonly text: string }>): string {
  return sha256Hex(
    [...traces.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, trace]) => `${path}\0${sha256Hex(trace.text)}\n`)
      .join(""),
  );
}
