// The supervisor lives in the controller process and owns the model worker: it spawns it
// in its own process group, exchanges bounded lines with it, and enforces deadlines. A call
// waits until the earlier of the 120-second call deadline and the overall deadline; loading
// is bounded by the overall deadline. On expiry, or on any protocol violation, the whole
// process group gets SIGKILL and anything the worker sends afterwards is discarded.
// A per-token callback inside the worker could not stop a hung load or a stuck native call;
// a process kill can. Progress lines from the worker (only for a call that asks) reach the
// call's onProgress after the order and rate checks in progressOrder.ts; they never move a
// deadline or settle a call.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONTROLLER_LIMITS } from "../../constants/labConstants.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { GENERATION_PROFILES, type GenerationProfileName } from "../engine/generationSettings.ts";
import { ProgressOrder } from "./progressOrder.ts";
import { systemClock, type MonotonicClock } from "../../core/clock.ts";
import {
  LineSplitter,
  MAX_PROGRESS_INTERVAL_MS,
  MAX_REQUEST_BYTES,
  MIN_PROGRESS_INTERVAL_MS,
  MAX_RESPONSE_BYTES,
  parseWorkerResponse,
  type GenerationInput,
  type GenerationProgress,
  type GenerationReport,
  type WorkerRequest,
  type WorkerResponse,
} from "./protocol.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = path.resolve(here, "../../..");
// This module is lib/…/supervisor.js when bin/tca.js runs the compiled build (checked fresh at
// start-up): the worker then runs the compiled modelWorker.js with plain node, no tsx.
const COMPILED = import.meta.url.endsWith(".js");
export const WORKER_SCRIPT = path.join(here, COMPILED ? "modelWorker.js" : "modelWorker.ts");
export const WORKER_ARGS: readonly string[] = COMPILED ? [WORKER_SCRIPT] : ["--import", "tsx", WORKER_SCRIPT];

export type SupervisorEvent =
  | { readonly kind: "spawned"; readonly pid: number }
  | { readonly kind: "killed"; readonly reason: string }
  | { readonly kind: "late_message_discarded"; readonly messageType: string }
  | { readonly kind: "protocol_violation"; readonly detail: string }
  | { readonly kind: "worker_exited"; readonly code: number | null; readonly signal: string | null };

export interface SupervisorOptions {
  /** Command and arguments of the worker; defaults to node with WORKER_ARGS (tsx for src/, plain node for lib/). */
  readonly command?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly clock?: MonotonicClock;
  readonly callDeadlineMs?: number;
  /** How long a cancelled call may take to acknowledge before the worker is killed. */
  readonly cancelGraceMs?: number;
  readonly maxResponseBytes?: number;
  /** The worker's minimum gap between progress messages for calls that ask for progress (default 250 ms). */
  readonly progressIntervalMs?: number;
  readonly onEvent?: (event: SupervisorEvent) => void;
}

export const DEFAULT_PROGRESS_INTERVAL_MS = 250;

/** What a call's `onProgress` receives: the worker's counts, the call's id and the supervisor's elapsed time for the call. */
export type SupervisedProgress = GenerationProgress & { readonly callId: number; readonly elapsedMs: number };

export interface LoadedWorker {
  readonly label: string;
  readonly synthetic: boolean;
  readonly identity: Record<string, unknown>;
  readonly loadMs: number;
}

export type SupervisedGeneration =
  | { readonly kind: "result"; readonly report: GenerationReport; readonly elapsedMs: number }
  | { readonly kind: "context_limit"; readonly inputTokens: number; readonly elapsedMs: number }
  | { readonly kind: "model_error"; readonly message: string; readonly elapsedMs: number }
  | { readonly kind: "time_limit"; readonly elapsedMs: number }
  | { readonly kind: "cancelled"; readonly elapsedMs: number };

export type SupervisorErrorCode = "time_limit" | "model_error" | "cancelled";

type Waiter = (event: { kind: "message"; message: WorkerResponse } | { kind: "failure"; message: string }) => boolean;

/** An `accept` answer for a message that belongs to the call but does not end it (progress). */
const CONSUMED: unique symbol = Symbol("consumed");

/** Environment for the worker: only what node and tsx need; no credentials pass through. */
export function workerEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // TCA_ENGINE_BINARY selects the llama.cpp binary; the OpenMP wait settings govern how a native
  // (OpenMP) build's idle threads wait, which matters when another process holds a core.
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TCA_ENGINE_BINARY", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"];
  const env: NodeJS.ProcessEnv = { NODE_NO_WARNINGS: "1" };
  for (const key of keep) if (source[key] !== undefined) env[key] = source[key];
  return env;
}

export class ModelSupervisor {
  private child: ChildProcess | null = null;
  private waiter: Waiter | null = null;
  private dead = false;
  private nextId = 1;
  private readonly clock: MonotonicClock;
  private diagnostics = "";

  constructor(private readonly options: SupervisorOptions = {}) {
    this.clock = options.clock ?? systemClock;
  }

  /** Process id of the worker (also its process group id), or null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** True while a started worker has not exited or been killed (a killed worker is never reused). */
  get alive(): boolean {
    return this.child !== null && !this.dead;
  }

  /** The last few KB the worker printed on stdout/stderr (trusted diagnostics, never model input). */
  get workerDiagnostics(): string {
    return this.diagnostics;
  }

  private emit(event: SupervisorEvent): void {
    this.options.onEvent?.(event);
  }

  private start(): Result<ChildProcess, "model_error"> {
    if (this.child !== null) return ok(this.child);
    const command = this.options.command ?? process.execPath;
    const args = this.options.args ?? WORKER_ARGS;
    let child: ChildProcess;
    try {
      child = spawn(command, [...args], {
        cwd: this.options.cwd ?? PROJECT_ROOT,
        env: workerEnvironment(),
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        detached: true, // its own process group, so one kill reaches every descendant
      });
    } catch {
      return err("model_error", "the model worker could not be started");
    }
    this.child = child;
    if (child.pid !== undefined) this.emit({ kind: "spawned", pid: child.pid });
    const keepTail = (chunk: Buffer): void => {
      this.diagnostics = (this.diagnostics + chunk.toString("utf8")).slice(-4096);
    };
    child.stdout?.on("data", keepTail);
    child.stderr?.on("data", keepTail);
    child.stdin?.on("error", () => undefined);
    const splitter = new LineSplitter(this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    const channel = child.stdio[3] as NodeJS.ReadableStream | null;
    channel?.on("data", (chunk: Buffer) => {
      if (this.dead) return;
      const lines = splitter.push(chunk);
      if (lines === "oversized") {
        this.violation("worker message exceeds the size cap");
        return;
      }
      for (const line of lines) {
        if (this.dead) return;
        const message = parseWorkerResponse(line);
        if (message === null) {
          this.violation("malformed worker message");
          return;
        }
        const waiter = this.waiter;
        if (waiter === null || !waiter({ kind: "message", message })) {
          this.emit({ kind: "late_message_discarded", messageType: message.type });
        }
      }
    });
    child.on("exit", (code, signal) => {
      this.emit({ kind: "worker_exited", code, signal });
      const wasDead = this.dead;
      this.dead = true;
      if (!wasDead) this.waiter?.({ kind: "failure", message: "the model worker exited" });
    });
    child.on("error", () => {
      if (!this.dead) this.waiter?.({ kind: "failure", message: "the model worker failed" });
      this.dead = true;
    });
    return ok(child);
  }

  private violation(detail: string): void {
    this.emit({ kind: "protocol_violation", detail });
    const waiter = this.waiter;
    this.kill("protocol_violation");
    waiter?.({ kind: "failure", message: `worker protocol violation: ${detail}` });
  }

  /** SIGKILL the worker's whole process group. Later messages are discarded. */
  kill(reason: string): void {
    const child = this.child;
    if (child === null || child.pid === undefined) return;
    if (!this.dead || child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    this.dead = true;
    this.emit({ kind: "killed", reason });
  }

  private send(request: WorkerRequest): boolean {
    const line = JSON.stringify(request) + "\n";
    if (Buffer.byteLength(line) > MAX_REQUEST_BYTES || this.child?.stdin === null || this.child?.stdin === undefined)
      return false;
    this.child.stdin.write(line);
    return true;
  }

  /**
   * Wait for a message accepted by `accept` (which returns a value, or undefined to pass),
   * a worker failure, or `deadlineAt`. Messages not accepted are discarded as late.
   */
  private waitFor<T>(
    deadlineAt: number,
    accept: (m: WorkerResponse) => T | typeof CONSUMED | undefined,
    onExpiry: () => T,
    onFailure: (message: string) => T,
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      let settled = false;
      const settle = (value: T): void => {
        if (settled) return;
        settled = true;
        cancelTimer();
        this.waiter = null;
        resolve(value);
      };
      const cancelTimer = this.clock.at(deadlineAt, () => settle(onExpiry()));
      this.waiter = (event) => {
        if (settled) return false;
        if (event.kind === "failure") {
          settle(onFailure(event.message));
          return true;
        }
        const value = accept(event.message);
        if (value === undefined) return false;
        if (value === CONSUMED) return true; // the deadline stays where it was
        settle(value);
        return true;
      };
    });
  }

  /**
   * Start the worker and load the model, bounded by the overall deadline. A load cannot be
   * interrupted inside the engine, so an abort (Ctrl-C) kills the worker's process group at once.
   */
  async load(
    modelDirectory: string,
    overallDeadlineMs: number,
    options: { readonly profile?: GenerationProfileName; readonly signal?: AbortSignal } = {},
  ): Promise<Result<LoadedWorker, SupervisorErrorCode>> {
    const started = this.clock.now();
    if (options.signal?.aborted === true) return err("cancelled", "cancelled before loading");
    if (started >= overallDeadlineMs) return err("time_limit", "the overall deadline has passed");
    const child = this.start();
    if (!child.ok) return child;
    // The profile field is sent only outside the Lab, so Lab messages are unchanged.
    const request: WorkerRequest =
      options.profile === undefined || options.profile === "lab"
        ? { type: "load", modelDirectory }
        : { type: "load", modelDirectory, profile: options.profile };
    if (this.dead || !this.send(request)) return err("model_error", "the model worker is not running");
    type LoadOutcome = Result<LoadedWorker, SupervisorErrorCode>;
    let cancelled = false;
    const wait = this.waitFor<LoadOutcome>(
      overallDeadlineMs,
      (m) => {
        if (m.type === "loaded")
          return ok({
            label: m.label,
            synthetic: m.synthetic,
            identity: m.identity,
            loadMs: this.clock.now() - started,
          });
        if (m.type === "error" && m.id === null) {
          this.kill("load_failed");
          return err("model_error", `loading failed (${m.error})`);
        }
        return undefined;
      },
      () => {
        this.kill("load_deadline");
        return err("time_limit", "loading did not finish before the overall deadline");
      },
      (message) => (cancelled ? err("cancelled", "cancelled while loading") : err("model_error", message)),
    );
    const onAbort = (): void => {
      if (cancelled) return;
      cancelled = true;
      const waiter = this.waiter;
      this.kill("load_cancelled");
      waiter?.({ kind: "failure", message: "cancelled" });
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await wait;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** One supervised generation: ends by the earlier of the call deadline and the overall deadline. */
  async generate(
    input: GenerationInput,
    options: {
      readonly overallDeadlineMs: number;
      readonly signal?: AbortSignal;
      readonly reusePrefix?: boolean;
      /** Sent only when given (Lab calls omit both). */
      readonly profile?: GenerationProfileName;
      readonly maxNewTokens?: number;
      /**
       * Asks the worker for progress (the request then carries progressIntervalMs). For a
       * terminal's status line only: it never extends a deadline or reaches the evidence.
       */
      readonly onProgress?: (progress: SupervisedProgress) => void;
    },
  ): Promise<SupervisedGeneration> {
    const started = this.clock.now();
    const elapsed = (): number => this.clock.now() - started;
    const deadlineAt = Math.min(
      started + (this.options.callDeadlineMs ?? CONTROLLER_LIMITS.perCallDeadlineMs),
      options.overallDeadlineMs,
    );
    if (options.signal?.aborted === true) return { kind: "cancelled", elapsedMs: 0 };
    if (started >= deadlineAt) return { kind: "time_limit", elapsedMs: 0 };
    if (this.child === null || this.dead)
      return { kind: "model_error", message: "the model worker is not running", elapsedMs: 0 };
    // One call at a time: the worker holds one KV cache and answers one request.
    if (this.waiter !== null) return { kind: "model_error", message: "a call is already in progress", elapsedMs: 0 };
    const id = this.nextId++;
    const progressIntervalMs = Math.min(
      MAX_PROGRESS_INTERVAL_MS,
      Math.max(MIN_PROGRESS_INTERVAL_MS, Math.round(this.options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS)),
    );
    const request: WorkerRequest = {
      type: "generate",
      id,
      input,
      reusePrefix: options.reusePrefix ?? true,
      ...(options.profile !== undefined ? { profile: options.profile } : {}),
      ...(options.maxNewTokens !== undefined ? { maxNewTokens: options.maxNewTokens } : {}),
      ...(options.onProgress !== undefined ? { progressIntervalMs } : {}),
    };
    const progressOrder = new ProgressOrder(
      progressIntervalMs,
      options.maxNewTokens ?? GENERATION_PROFILES[options.profile ?? "lab"].maxNewTokens,
    );
    if (!this.send(request)) {
      return { kind: "model_error", message: "request exceeds the size cap", elapsedMs: 0 };
    }
    let cancelling = false;
    let cancelTimer: (() => void) | null = null;
    const wait = this.waitFor<SupervisedGeneration>(
      deadlineAt,
      (m) => {
        if (!("id" in m) || m.id !== id) {
          if (m.type === "error" && m.id === null)
            return { kind: "model_error", message: `worker error (${m.error})`, elapsedMs: elapsed() };
          return undefined;
        }
        if (m.type === "progress") {
          // Progress is checked like any message: unasked-for, out of order or too fast kills the worker.
          const { type: _type, id: _id, ...progress } = m;
          const problem =
            options.onProgress === undefined
              ? "progress that was not asked for"
              : progressOrder.check(progress, elapsed());
          if (problem !== null) {
            this.emit({ kind: "protocol_violation", detail: problem });
            this.kill("protocol_violation");
            return cancelling
              ? { kind: "cancelled", elapsedMs: elapsed() }
              : { kind: "model_error", message: `worker protocol violation: ${problem}`, elapsedMs: elapsed() };
          }
          if (!cancelling) deliverProgress(options.onProgress, { ...progress, callId: id, elapsedMs: elapsed() });
          return CONSUMED;
        }
        if (cancelling) return { kind: "cancelled", elapsedMs: elapsed() };
        switch (m.type) {
          case "result":
            return { kind: "result", report: m.report, elapsedMs: elapsed() };
          case "context_limit":
            return { kind: "context_limit", inputTokens: m.inputTokens, elapsedMs: elapsed() };
          case "cancelled":
            return { kind: "cancelled", elapsedMs: elapsed() };
          case "error":
            return { kind: "model_error", message: `generation failed (${m.error})`, elapsedMs: elapsed() };
          default:
            return undefined;
        }
      },
      () => {
        if (cancelling) {
          this.kill("cancel_grace_expired");
          return { kind: "cancelled", elapsedMs: elapsed() };
        }
        this.kill("call_deadline");
        return { kind: "time_limit", elapsedMs: elapsed() };
      },
      (message) =>
        cancelling
          ? { kind: "cancelled", elapsedMs: elapsed() }
          : { kind: "model_error", message, elapsedMs: elapsed() },
    );
    const onAbort = (): void => {
      if (cancelling) return;
      cancelling = true;
      this.send({ type: "cancel", id });
      // The worker stops between prefill chunks or tokens; if it does not answer within the
      // grace period, the process group is killed.
      cancelTimer = this.clock.at(Math.min(this.clock.now() + (this.options.cancelGraceMs ?? 2000), deadlineAt), () => {
        if (this.waiter !== null) {
          this.kill("cancel_grace_expired");
          this.waiter({ kind: "failure", message: "cancelled" });
        }
      });
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await wait;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      (cancelTimer as (() => void) | null)?.();
    }
  }

  /** Stop the worker (kill its process group). Safe to call twice. */
  async close(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    if (!this.dead) {
      child.stdin?.end();
      this.kill("closed");
    }
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        setTimeout(resolve, 2000).unref();
      });
    }
  }
}

/** A display callback that throws must not disturb the call: progress is never part of the run. */
function deliverProgress(
  onProgress: ((progress: SupervisedProgress) => void) | undefined,
  progress: SupervisedProgress,
): void {
  try {
    onProgress?.(progress);
  } catch {
    // ignored on purpose
  }
}
