// Progress of a Lab run on stderr, read from the run's own audit.jsonl as it grows: the CLI needs
// no hook into the controller or the engine, and shows only what the evidence already records.
// Until the audit's `source_load` event the model is being verified, converted and loaded (the run
// folder and its first events exist before the load starts); a `request` event
// starts a generation; a `generation` event ends it with its token count. While a generation runs,
// the worker's progress messages (passed in through `progress()`, never read from or written to
// the evidence) add tokens so far and tok/s (src/cli/liveGeneration.ts); the kept line per
// generation still comes from the audit. Quiet when stderr is not a terminal (src/cli/progress.ts).
import { formatCount, formatDuration, formatMilliseconds, formatTokenRate } from "../core/numberFormat.ts";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { readAuditLine } from "../recording/auditLog.ts";
import { StringDecoder } from "node:string_decoder";
import { statusLine, type StatusLine, type StatusLineOptions } from "./progress.ts";
import { describeLiveCounts, foldProgress, type LiveGeneration, type ProgressNotice } from "./liveGeneration.ts";

export interface RunProgressState {
  readonly events: number;
  readonly proposal: number | null;
  /** When (on the watcher's clock) the open generation's request was seen; null when none runs. */
  readonly generatingSince: number | null;
  readonly lastType: string | null;
  /** The model is loaded (the audit's source_load, written after loading, or a first request). */
  readonly loaded: boolean;
}

export const INITIAL_RUN_PROGRESS: RunProgressState = {
  events: 0,
  proposal: null,
  generatingSince: null,
  lastType: null,
  loaded: false,
};

export interface GenerationFigures {
  readonly proposal: number;
  readonly outputTokens: number | null;
  readonly elapsedMs: number;
}

/** Folds one audit line into the state; returns the finished generation's figures when it ends one. */
export function foldAuditLine(
  state: RunProgressState,
  line: string,
  observedAtMs: number,
): { state: RunProgressState; finished: GenerationFigures | null } {
  // The one strict reader, a line at a time: a line that is not a record of the catalog (half
  // written, damaged, of an older format) changes nothing here; the verdict says what is wrong.
  const read = readAuditLine(line, state.events + 1);
  if (!read.ok) return { state, finished: null };
  const record = read.record;
  const type = record.type;
  const proposal = record.proposal ?? state.proposal;
  const next = {
    events: state.events + 1,
    proposal,
    generatingSince: state.generatingSince,
    lastType: type,
    loaded: state.loaded || type === "source_load" || type === "request",
  };
  if (type === "request") return { state: { ...next, generatingSince: observedAtMs }, finished: null };
  if (record.type !== "generation") return { state: next, finished: null };
  const elapsedMs = record.data.elapsed_ms;
  // The source's own call metadata (not fixed by the format): a token count when it gives one.
  const tokens = record.data.metadata["outputTokens"];
  const outputTokens = typeof tokens === "number" ? tokens : null;
  return { state: { ...next, generatingSince: null }, finished: { proposal: proposal ?? 0, outputTokens, elapsedMs } };
}

/** Whole seconds for a status line ("7 s"); never negative. */
function seconds(ms: number): string {
  return `${Math.max(0, ms / 1000).toFixed(0)} s`;
}

/**
 * The status line: what the run is doing now, with the seconds it has taken so far; `live`, the
 * running generation's progress, adds its tokens so far and tok/s.
 */
export function describeRunProgress(
  state: RunProgressState,
  runElapsedMs: number,
  command = "lab model",
  live: LiveGeneration | null = null,
): string {
  if (live !== null) {
    // The audit's request event may not be read yet: the call's own elapsed time stands in.
    const since =
      state.generatingSince !== null && state.proposal === live.proposal
        ? runElapsedMs - state.generatingSince
        : live.elapsedMs;
    return `${command}: proposal ${String(live.proposal ?? "?")}: ${describeLiveCounts(live)}, ${seconds(since)} (run ${seconds(runElapsedMs)})`;
  }
  if (!state.loaded) return `${command}: verifying, converting and loading the model… ${seconds(runElapsedMs)}`;
  if (state.generatingSince !== null)
    return `${command}: proposal ${String(state.proposal ?? "?")}: generating… ${seconds(runElapsedMs - state.generatingSince)} (run ${seconds(runElapsedMs)})`;
  const what = state.lastType === "source_load" ? "model loaded" : (state.lastType ?? "running");
  return `${command}: ${state.proposal === null ? "" : `proposal ${state.proposal}: `}${what} (run ${seconds(runElapsedMs)})`;
}

/** One kept line per generation: tokens and tokens per second. */
export function describeGeneration(figures: GenerationFigures, command = "lab model"): string {
  const secs = figures.elapsedMs / 1000;
  const tokens = figures.outputTokens === null ? "" : `${formatCount(figures.outputTokens)} tokens in `;
  // Output tokens over the call's time: the live line's measure too (liveGeneration.ts decodeRate).
  const formatted = figures.outputTokens === null ? null : formatTokenRate(figures.outputTokens, secs);
  const rate = formatted === null ? "" : ` (${formatted})`;
  return `${command}: proposal ${figures.proposal}: ${tokens}${formatDuration(secs)}${rate}`;
}

export interface RunProgressWatch {
  /** Reads what the audit gained since the last poll and redraws the line (also called by the timer). */
  poll(): void;
  /** A progress notice from the running generation (LocalModelSource's onGenerationProgress). */
  progress(notice: ProgressNotice): void;
  /** Whether anything is shown (false when not a terminal or with --json: no progress needs asking for). */
  readonly active: boolean;
  stop(): void;
}

/**
 * Watches `<runDirectory>/audit.jsonl` every `pollMs` while a run is in flight. Nothing at all
 * (no timer, no reads) when the status line would be quiet.
 */
export function watchRunProgress(
  runDirectory: string,
  options: StatusLineOptions & { pollMs?: number; command?: string } = {},
): RunProgressWatch {
  const stream = options.stream ?? process.stderr;
  const quiet = stream.isTTY !== true || options.json === true;
  if (quiet) return { poll() {}, progress() {}, active: false, stop() {} };
  const line: StatusLine = statusLine({ ...options, intervalMs: 0 });
  const now = options.now ?? (() => performance.now());
  const started = now();
  let state = INITIAL_RUN_PROGRESS;
  let live: LiveGeneration | null = null;
  let offset = 0;
  let pending = "";
  const decoder = new StringDecoder("utf8");
  const poll = (): void => {
    pending += readNewBytes(join(runDirectory, "audit.jsonl"), offset, decoder, (n) => (offset += n));
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const text of lines) {
      const folded = foldAuditLine(state, text, now() - started);
      state = folded.state;
      if (folded.finished !== null) {
        if (live !== null && live.proposal === folded.finished.proposal) live = null;
        line.done(describeGeneration(folded.finished, options.command));
      }
    }
    redraw();
  };
  const redraw = (): void => line.update(describeRunProgress(state, now() - started, options.command, live));
  const timer = setInterval(poll, options.pollMs ?? 500);
  timer.unref();
  let stopped = false;
  return {
    poll,
    progress(notice) {
      if (stopped) return;
      live = foldProgress(live, notice);
      redraw();
    },
    active: true,
    stop() {
      clearInterval(timer);
      // The last generation's line too, when the run ended between two polls.
      if (!stopped) poll();
      stopped = true;
      line.done();
    },
  };
}

function readNewBytes(path: string, offset: number, decoder: StringDecoder, advance: (n: number) => void): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return "";
  }
  try {
    if (!fstatSync(fd).isFile()) return "";
    const buffer = Buffer.alloc(64 * 1024);
    let text = "";
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      if (n <= 0) break;
      offset += n;
      advance(n);
      text += decoder.write(buffer.subarray(0, n));
    }
    return text;
  } finally {
    closeSync(fd);
  }
}

export interface ElapsedWatch {
  /** A progress notice from the one call: the line shows its tokens so far. */
  progress(notice: ProgressNotice): void;
  readonly active: boolean;
  stop(finalLine?: string): void;
}

/**
 * A status line for one call with no events to read (tca model generate): elapsed time, and the
 * call's tokens so far once progress notices arrive (`describe` gets the folded progress).
 */
export function watchElapsed(
  describe: (elapsedMs: number, live: LiveGeneration | null) => string,
  options: StatusLineOptions & { pollMs?: number } = {},
): ElapsedWatch {
  const stream = options.stream ?? process.stderr;
  if (stream.isTTY !== true || options.json === true) return { progress() {}, active: false, stop() {} };
  const line = statusLine({ ...options, intervalMs: 0 });
  const now = options.now ?? (() => performance.now());
  const started = now();
  let live: LiveGeneration | null = null;
  let stopped = false;
  const redraw = (): void => line.update(describe(now() - started, live));
  redraw();
  const timer = setInterval(redraw, options.pollMs ?? 500);
  timer.unref();
  return {
    progress(notice) {
      if (stopped) return;
      live = foldProgress(live, notice);
      redraw();
    },
    active: true,
    stop(finalLine) {
      clearInterval(timer);
      stopped = true;
      line.done(finalLine);
    },
  };
}

/** The status line of `tca model generate`: loading, then the call's tokens so far and tok/s. */
export function describeGenerateProgress(elapsedMs: number, loaded: boolean, live: LiveGeneration | null): string {
  if (live !== null)
    return `model generate: ${describeLiveCounts(live)}, ${seconds(live.elapsedMs)} (total ${seconds(elapsedMs)})`;
  return loaded
    ? `model generate: generating… ${seconds(elapsedMs)}`
    : `model generate: verifying and loading the model… ${seconds(elapsedMs)}`;
}

/** The kept line after `tca model generate`: load time, tokens and tokens per second of its one call. */
export function describeGeneratedCall(result: Readonly<Record<string, unknown>>): string {
  const timings =
    typeof result["timings_ms"] === "object" && result["timings_ms"] !== null
      ? (result["timings_ms"] as Record<string, unknown>)
      : {};
  const load =
    typeof timings["supervised_load"] === "number"
      ? `loaded in ${formatMilliseconds(timings["supervised_load"])}; `
      : "";
  const call = typeof timings["call"] === "number" ? timings["call"] : 0;
  const tokens = typeof result["output_tokens"] === "number" ? result["output_tokens"] : null;
  return `model generate: ${load}${describeGeneration({ proposal: 1, outputTokens: tokens, elapsedMs: call }, "").replace(/^: proposal 1: /, "")}`;
}
