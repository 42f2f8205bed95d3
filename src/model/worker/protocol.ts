// The bounded message protocol between the supervisor (controller process) and the model
// worker (child process): one JSON object per line, each line capped in bytes on both
// sides before parsing, and every field validated after parsing. Anything else is a
// protocol violation, which the supervisor turns into model_error and a killed worker.
// A generate request that carries progressIntervalMs is answered with throttled progress lines
// before its final message (display only; docs/local-engine.md, "Progress").
import type { ChatMessage } from "../../core/chatMessage.ts";
import {
  GENERATION_PROFILE_NAMES,
  GENERATION_PROFILES,
  type GenerationProfileName,
} from "../engine/generationSettings.ts";
import { isRecord } from "../../core/isRecord.ts";

export const MAX_REQUEST_BYTES = 256 * 1024;
export const MAX_RESPONSE_BYTES = 256 * 1024;
export const MAX_MESSAGE_TEXT_BYTES = 64 * 1024;
export const MAX_INPUT_IDS = 32 * 1024;
/** Output ids a report may carry: the largest profile's bound on new tokens. */
export const MAX_OUTPUT_IDS = Math.max(...Object.values(GENERATION_PROFILES).map((p) => p.maxNewTokens));
/** Bounds on the progress interval a generate request may ask for (docs/local-engine.md). */
export const MIN_PROGRESS_INTERVAL_MS = 10;
export const MAX_PROGRESS_INTERVAL_MS = 60_000;

/**
 * Tokens so far in a running generation, for a terminal's status line only: never evidence,
 * never shown to the model. Prefill counts input tokens evaluated in this call (the reused
 * prefix excluded) out of `total`; decode counts new tokens (the first one is sampled at the
 * end of prefill, so decode starts at 1).
 */
export type GenerationProgress =
  | { readonly phase: "prefill"; readonly tokens: number; readonly total: number }
  | { readonly phase: "decode"; readonly tokens: number };

export type GenerationInput =
  | { readonly kind: "messages"; readonly messages: readonly ChatMessage[] }
  | { readonly kind: "ids"; readonly ids: readonly number[] };

/**
 * Optional request fields, absent in every Lab message: `profile` names the generation
 * profile (absent = "lab"); a generate request's profile must equal the loaded one.
 * `maxNewTokens` asks for fewer new tokens than the profile's bound (1..bound).
 */
export type WorkerRequest =
  | { readonly type: "load"; readonly modelDirectory: string; readonly profile?: GenerationProfileName }
  | {
      readonly type: "generate";
      readonly id: number;
      readonly input: GenerationInput;
      readonly reusePrefix: boolean;
      readonly profile?: GenerationProfileName;
      readonly maxNewTokens?: number;
      /** Present only when the supervisor's caller wants progress: the worker's minimum gap between progress messages. */
      readonly progressIntervalMs?: number;
    }
  | { readonly type: "cancel"; readonly id: number };

export interface GenerationReport {
  readonly inputIds: number[];
  readonly inputTokens: number;
  readonly rawOutputIds: number[];
  readonly outputTokens: number;
  readonly text: string;
  readonly stopCause: string;
  readonly prefixTokensReused: number;
  readonly timingsMs: Record<string, number>;
  readonly threads: unknown;
  /** The worker's peak resident set size so far (bytes). */
  readonly peakRssBytes: number;
}

export type WorkerResponse =
  | {
      readonly type: "loaded";
      readonly label: string;
      readonly synthetic: boolean;
      readonly identity: Record<string, unknown>;
    }
  | ({ readonly type: "progress"; readonly id: number } & GenerationProgress)
  | { readonly type: "result"; readonly id: number; readonly report: GenerationReport }
  | { readonly type: "context_limit"; readonly id: number; readonly inputTokens: number }
  | { readonly type: "cancelled"; readonly id: number }
  | { readonly type: "error"; readonly id: number | null; readonly error: string; readonly message: string };

const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isIdArray = (v: unknown, max: number): v is number[] => Array.isArray(v) && v.length <= max && v.every(isId);
const isShortString = (v: unknown, max: number): v is string => typeof v === "string" && Buffer.byteLength(v) <= max;

function parseLine(line: string, maxBytes: number): Record<string, unknown> | null {
  if (Buffer.byteLength(line) > maxBytes) return null;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

const isProfileName = (v: unknown): v is GenerationProfileName =>
  (GENERATION_PROFILE_NAMES as readonly unknown[]).includes(v);

/** The optional profile fields, copied only when present (so Lab requests parse exactly as before). */
function profileFields(
  m: Record<string, unknown>,
  withMaxNewTokens: boolean,
): { profile?: GenerationProfileName; maxNewTokens?: number } | null {
  const out: { profile?: GenerationProfileName; maxNewTokens?: number } = {};
  if (m.profile !== undefined) {
    if (!isProfileName(m.profile)) return null;
    out.profile = m.profile;
  }
  if (m.maxNewTokens !== undefined) {
    const bound = GENERATION_PROFILES[out.profile ?? "lab"].maxNewTokens;
    if (!withMaxNewTokens || !isId(m.maxNewTokens) || m.maxNewTokens < 1 || m.maxNewTokens > bound) return null;
    out.maxNewTokens = m.maxNewTokens;
  }
  return out;
}

export function parseWorkerRequest(line: string): WorkerRequest | null {
  const m = parseLine(line, MAX_REQUEST_BYTES);
  if (m === null) return null;
  if (m.type === "load" && isShortString(m.modelDirectory, 4096)) {
    const extra = profileFields(m, false);
    return extra === null ? null : { type: "load", modelDirectory: m.modelDirectory, ...extra };
  }
  if (m.type === "cancel" && isId(m.id)) return { type: "cancel", id: m.id };
  if (m.type === "generate" && isId(m.id) && typeof m.reusePrefix === "boolean" && isRecord(m.input)) {
    const input = m.input;
    const profile = profileFields(m, true);
    if (profile === null) return null;
    if (
      m.progressIntervalMs !== undefined &&
      !(
        isId(m.progressIntervalMs) &&
        m.progressIntervalMs >= MIN_PROGRESS_INTERVAL_MS &&
        m.progressIntervalMs <= MAX_PROGRESS_INTERVAL_MS
      )
    )
      return null;
    const extra =
      m.progressIntervalMs === undefined ? profile : { ...profile, progressIntervalMs: m.progressIntervalMs };
    if (input.kind === "ids" && isIdArray(input.ids, MAX_INPUT_IDS)) {
      return {
        type: "generate",
        id: m.id,
        reusePrefix: m.reusePrefix,
        input: { kind: "ids", ids: input.ids },
        ...extra,
      };
    }
    if (input.kind === "messages" && Array.isArray(input.messages) && input.messages.length <= 8) {
      const messages: ChatMessage[] = [];
      for (const msg of input.messages) {
        if (
          !isRecord(msg) ||
          (msg.role !== "system" && msg.role !== "user") ||
          !isShortString(msg.content, MAX_MESSAGE_TEXT_BYTES)
        )
          return null;
        messages.push({ role: msg.role, content: msg.content });
      }
      return {
        type: "generate",
        id: m.id,
        reusePrefix: m.reusePrefix,
        input: { kind: "messages", messages },
        ...extra,
      };
    }
  }
  return null;
}

function parseReport(r: unknown): GenerationReport | null {
  if (!isRecord(r)) return null;
  if (
    !isIdArray(r.inputIds, MAX_INPUT_IDS) ||
    !isIdArray(r.rawOutputIds, MAX_OUTPUT_IDS) ||
    !isId(r.inputTokens) ||
    !isId(r.outputTokens)
  )
    return null;
  if (!isShortString(r.text, MAX_RESPONSE_BYTES) || !isShortString(r.stopCause, 64) || !isId(r.prefixTokensReused))
    return null;
  if (!isRecord(r.timingsMs) || !Object.values(r.timingsMs).every((v) => typeof v === "number" && Number.isFinite(v)))
    return null;
  if (!isId(r.peakRssBytes)) return null;
  return {
    inputIds: r.inputIds,
    inputTokens: r.inputTokens,
    rawOutputIds: r.rawOutputIds,
    outputTokens: r.outputTokens,
    text: r.text,
    stopCause: r.stopCause,
    prefixTokensReused: r.prefixTokensReused,
    timingsMs: r.timingsMs as Record<string, number>,
    threads: r.threads,
    peakRssBytes: r.peakRssBytes,
  };
}

/** A progress message: exactly its own keys, counts within the protocol's bounds. */
function parseProgress(m: Record<string, unknown>): WorkerResponse | null {
  if (!isId(m.id) || !isId(m.tokens) || m.tokens < 1) return null;
  const keys = Object.keys(m).sort().join(",");
  if (
    m.phase === "prefill" &&
    keys === "id,phase,tokens,total,type" &&
    isId(m.total) &&
    m.tokens <= m.total &&
    m.total <= MAX_INPUT_IDS
  ) {
    return { type: "progress", id: m.id, phase: "prefill", tokens: m.tokens, total: m.total };
  }
  if (m.phase === "decode" && keys === "id,phase,tokens,type" && m.tokens <= MAX_OUTPUT_IDS)
    return { type: "progress", id: m.id, phase: "decode", tokens: m.tokens };
  return null;
}

export function parseWorkerResponse(line: string): WorkerResponse | null {
  const m = parseLine(line, MAX_RESPONSE_BYTES);
  if (m === null) return null;
  switch (m.type) {
    case "loaded":
      return isShortString(m.label, 64) && typeof m.synthetic === "boolean" && isRecord(m.identity)
        ? { type: "loaded", label: m.label, synthetic: m.synthetic, identity: m.identity }
        : null;
    case "progress":
      return parseProgress(m);
    case "result": {
      const report = parseReport(m.report);
      return isId(m.id) && report !== null ? { type: "result", id: m.id, report } : null;
    }
    case "context_limit":
      return isId(m.id) && isId(m.inputTokens) ? { type: "context_limit", id: m.id, inputTokens: m.inputTokens } : null;
    case "cancelled":
      return isId(m.id) ? { type: "cancelled", id: m.id } : null;
    case "error":
      return (m.id === null || isId(m.id)) && isShortString(m.error, 64) && isShortString(m.message, 1024)
        ? { type: "error", id: m.id, error: m.error, message: m.message }
        : null;
    default:
      return null;
  }
}

/**
 * Splits a byte stream into lines, refusing any line longer than `maxBytes` before it is
 * complete (so an endless line cannot grow memory without bound).
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  constructor(private readonly maxBytes: number) {}

  /** Returns the complete lines, or "oversized" once a line exceeds the cap. */
  push(chunk: Buffer): string[] | "oversized" {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      if (this.pendingBytes + piece.length > this.maxBytes) return "oversized";
      lines.push(Buffer.concat([...this.pending, piece]).toString("utf8"));
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (this.pendingBytes + rest.length > this.maxBytes) return "oversized";
    if (rest.length > 0) {
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
    return lines;
  }
}
