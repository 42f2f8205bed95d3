// The local-model proposal source: every proposal is one supervised generation in the model
// worker (chat template, tokenization, input budget, greedy generation, decoding of the new
// tokens). It never substitutes text when generation fails: failures come back as
// model_error, time_limit, cancelled or context_limit. Labelled "synthetic-pipeline-check"
// for synthetic checkpoints, "model" otherwise.
import type { ProposalOutcome, ProposalRequest, ProposalSource } from "../controller/proposalSource.ts";
import { systemClock, type MonotonicClock } from "../core/clock.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  ModelSupervisor,
  type LoadedWorker,
  type SupervisedProgress,
  type SupervisorOptions,
} from "../model/worker/supervisor.ts";
import { checkpointOutputNote } from "../model/synthetic/syntheticManifest.ts";

export interface LocalModelSourceOptions {
  readonly modelDirectory: string;
  /** Monotonic overall deadline (same clock as `clock`); loading must finish before it. */
  readonly overallDeadlineMs: number;
  readonly clock?: MonotonicClock;
  readonly supervisor?: Omit<SupervisorOptions, "clock">;
  /**
   * Live token counts of each running generation, for a terminal's status line (the CLI passes
   * it only when it shows one). Not recorded and not shown to the model; see supervisor.generate.
   */
  readonly onGenerationProgress?: (progress: GenerationProgressNotice) => void;
  /** Aborting it (Ctrl-C) stops the load at once: the worker is killed, the result is cancelled. */
  readonly signal?: AbortSignal;
}

export type GenerationProgressNotice = SupervisedProgress & { readonly proposalNumber: number };

export class LocalModelSource implements ProposalSource {
  readonly label: string;
  private closed = false;

  private constructor(
    private readonly supervisor: ModelSupervisor,
    private readonly loaded: LoadedWorker,
    private readonly onGenerationProgress?: (progress: GenerationProgressNotice) => void,
  ) {
    this.label = loaded.label;
  }

  static async create(
    options: LocalModelSourceOptions,
  ): Promise<Result<LocalModelSource, "time_limit" | "model_error" | "cancelled">> {
    const supervisor = new ModelSupervisor({ ...options.supervisor, clock: options.clock ?? systemClock });
    const loaded = await supervisor.load(
      options.modelDirectory,
      options.overallDeadlineMs,
      options.signal === undefined ? {} : { signal: options.signal },
    );
    if (!loaded.ok) {
      await supervisor.close();
      return err(loaded.error, loaded.message);
    }
    return ok(new LocalModelSource(supervisor, loaded.value, options.onGenerationProgress));
  }

  describe(): Readonly<Record<string, unknown>> {
    return {
      proposal_source: this.label,
      synthetic: this.loaded.synthetic,
      ...(this.loaded.synthetic ? { note: checkpointOutputNote(this.loaded.label) } : {}),
      ...this.loaded.identity,
      supervised_load_ms: Math.round(this.loaded.loadMs),
    };
  }

  async propose(request: ProposalRequest, signal: AbortSignal): Promise<ProposalOutcome> {
    if (this.closed) return { kind: "model_error", message: "the source is closed", metadata: {} };
    const notify = this.onGenerationProgress;
    const outcome = await this.supervisor.generate(
      { kind: "messages", messages: request.messages },
      {
        overallDeadlineMs: request.deadlineMs,
        signal,
        ...(notify !== undefined
          ? {
              onProgress: (progress: SupervisedProgress) =>
                notify({ ...progress, proposalNumber: request.proposalNumber }),
            }
          : {}),
      },
    );
    const base = { proposalSource: this.label, callElapsedMs: Math.round(outcome.elapsedMs) };
    switch (outcome.kind) {
      case "result": {
        const r = outcome.report;
        return {
          kind: "text",
          text: r.text,
          metadata: {
            ...base,
            inputTokens: r.inputTokens,
            outputTokens: r.outputTokens,
            rawOutputIds: r.rawOutputIds,
            inputIds: r.inputIds,
            stopCause: r.stopCause,
            timingsMs: r.timingsMs,
            prefixTokensReused: r.prefixTokensReused,
            threads: r.threads,
            workerPeakRssBytes: r.peakRssBytes,
          },
        };
      }
      case "context_limit":
        return {
          kind: "context_limit",
          inputTokens: outcome.inputTokens,
          metadata: { ...base, inputTokens: outcome.inputTokens },
        };
      case "model_error":
        return { kind: "model_error", message: outcome.message, metadata: base };
      case "time_limit":
        return { kind: "time_limit", metadata: base };
      case "cancelled":
        return { kind: "cancelled", metadata: base };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.supervisor.close();
  }
}
