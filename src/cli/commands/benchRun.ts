// tca bench quixbugs run: options, the backend (an OpenAI-compatible endpoint after its preflight,
// or the local engine), the data set check (from its cache when it may be: datasetCheckCache.ts),
// the run with its progress, and the summary with the next step. Split out of bench.ts.
import type { Command } from "commander";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { inputDirectory, outputFolder } from "../pathArguments.ts";
import { benchCancelledText, CANCELLED_EXIT_CODE, cancellingNotice, resumeCommand } from "../interruption.ts";
import { prepareBenchEnvironment, type BenchEnvironment } from "../../bench/benchEnvironment.ts";
import {
  datasetCheckKey,
  lookupDatasetCheck,
  storeDatasetCheck,
  DATASET_CHECK_CACHE_FOLDER,
  type DatasetCheckSelection,
} from "../../bench/grading/datasetCheckCache.ts";
import { formatDuration } from "../../core/numberFormat.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import { tcaCommand } from "../invocation.ts";
import { runBenchmark } from "../../bench/benchmarkRun.ts";
import { fixedWithGuardrailHits } from "../../bench/results/guardrailFlags.ts";
import { resolveShard } from "../../bench/runs/taskPlan.ts";
import { capabilityWarnings, preflightEndpoint, type PreflightReport } from "../../bench/agent/endpointPreflight.ts";
import {
  inProjectShapes,
  recognizeServedCheckpoint,
  servedCheckpointLabels,
} from "../../bench/agent/servedCheckpoint.ts";
import { defaultJobs } from "../../core/concurrency.ts";
import { AGENT_BUDGET, parseConditionList, type ConditionId } from "../../bench/agent/conditions.ts";
import { defaultDatasetDir, projectCacheDir } from "../../bench/dataset/dataset.ts";
import { BarProgress, LineProgress } from "../../bench/runs/progressDisplay.ts";
import {
  endpointWarnings,
  isPipelineCheck,
  isRehearsal,
  pct,
  PIPELINE_CHECK_LINE,
  REHEARSAL_LINE,
  summarize,
} from "../../bench/results/resultsSummary.ts";
import { describeHostHardware } from "../../bench/runs/hostHardware.ts";
import { parseThinking, thinkingRequestFields, type ThinkingMode } from "../../bench/agent/thinkingMode.ts";
import { RUN_FILES } from "../../bench/runs/runDirectory.ts";
import { formatVerifyTable, verifyDataset, type VerifyReport } from "../../bench/grading/verifyDataset.ts";
import type { ChatBackend } from "../../sources/openaiCompatibleChat.ts";
import { OpenAiCompatibleClient } from "../../sources/openaiCompatibleClient.ts";
import { LocalEngineChat } from "../../sources/localEngineChat.ts";
import type { SupervisedProgress } from "../../model/worker/supervisor.ts";
import { describeLiveCounts, foldProgress, type LiveGeneration } from "../liveGeneration.ts";
import { fail, positiveInt, programList, type VerifyFlags } from "./benchOptions.ts";

const DATASET_CHECK_FILE = "dataset-check.json";

interface RunFlags extends VerifyFlags {
  backend: string;
  endpoint?: string;
  model?: string;
  modelDirectory?: string;
  conditions: string;
  out?: string;
  resume?: boolean;
  shard?: string;
  apiKeyEnv?: string;
  disableThinking?: boolean;
  recheckDataset?: boolean;
  thinking?: string;
  hardware?: string;
  label?: string;
  shardCount?: string;
  shardFrom?: string;
  repeats?: string;
  temperature?: string;
  pipelineCheck?: boolean;
}

interface OpenedBackend {
  readonly backend: ChatBackend;
  readonly description: Readonly<Record<string, unknown>>;
  /** In the run's fingerprint: what --resume and merge compare. */
  readonly modelName: string;
  /** --thinking, for an OpenAI-compatible endpoint (in the fingerprint); undefined for the local engine. */
  readonly thinking?: ThinkingMode;
}

/** Creates the chosen backend and records its identity; errors as (code, message). */
async function openBackend(
  flags: RunFlags,
  conditions: readonly ConditionId[],
  temperature: number,
  onGenerationProgress?: (progress: SupervisedProgress) => void,
): Promise<{ ok: true; value: OpenedBackend } | { ok: false; error: string; message: string }> {
  if (flags.backend === "local") {
    if (flags.modelDirectory === undefined)
      return { ok: false, error: "invalid_option", message: "--backend local needs --model-directory DIR" };
    if (
      flags.endpoint !== undefined ||
      flags.model !== undefined ||
      flags.apiKeyEnv !== undefined ||
      flags.disableThinking ||
      flags.thinking !== undefined ||
      flags.pipelineCheck
    ) {
      return {
        ok: false,
        error: "invalid_option",
        message:
          "--endpoint, --model, --api-key-env, --thinking, --disable-thinking and --pipeline-check belong to --backend openai",
      };
    }
    const local = await LocalEngineChat.create({
      modelDirectory: flags.modelDirectory,
      ...(onGenerationProgress !== undefined ? { onGenerationProgress } : {}),
    });
    if (!local.ok) return local;
    const identity = await local.value.describe(AbortSignal.timeout(30_000));
    return {
      ok: true,
      value: {
        backend: local.value,
        description: { ...identity, label: flags.label ?? local.value.modelName },
        modelName: local.value.modelName,
      },
    };
  }
  if (flags.backend !== "openai")
    return { ok: false, error: "invalid_option", message: "--backend takes openai or local" };
  if (flags.endpoint === undefined || flags.model === undefined)
    return { ok: false, error: "invalid_option", message: "--backend openai needs --endpoint URL and --model NAME" };
  if (flags.modelDirectory !== undefined)
    return { ok: false, error: "invalid_option", message: "--model-directory belongs to --backend local" };
  let apiKey: string | undefined;
  if (flags.apiKeyEnv !== undefined) {
    apiKey = process.env[flags.apiKeyEnv];
    if (!apiKey)
      return { ok: false, error: "invalid_option", message: `environment variable ${flags.apiKeyEnv} is empty` };
  } else {
    // The OpenAI clients' convention; like --api-key-env, the key is sent and never recorded.
    apiKey = process.env.OPENAI_API_KEY || undefined;
  }
  const thinking = parseThinking(flags.thinking, flags.disableThinking === true);
  if (!thinking.ok) return thinking;
  const thinkingFields = thinkingRequestFields(thinking.value);
  const clientOptions = { endpoint: flags.endpoint, model: flags.model, temperature, ...(apiKey ? { apiKey } : {}) };
  const client = new OpenAiCompatibleClient({
    ...clientOptions,
    ...(thinkingFields ? { extraBody: thinkingFields } : {}),
  });
  // Before the data set check and before any task: a wrong model name, a missing /v1 or key,
  // a server without tool calling, or one that refuses the thinking field stops here with the
  // server's message and the likely fix.
  const preflight = await preflightEndpoint(client, {
    endpoint: flags.endpoint,
    model: flags.model,
    needsTools: conditions.some((c) => c !== "A"),
    apiKeySent: apiKey !== undefined,
    ...(thinkingFields
      ? { thinking: { mode: thinking.value, withoutField: new OpenAiCompatibleClient(clientOptions) } }
      : {}),
  });
  if (!preflight.ok) return preflight;
  for (const w of preflight.value.warnings) process.stderr.write(`warning: ${w}\n`);
  const identity = await client.describe(AbortSignal.timeout(30_000));
  for (const w of capabilityWarnings(
    identity.serverProps,
    conditions.some((c) => c !== "A"),
  ))
    process.stderr.write(`warning: ${w}\n`);
  const report: PreflightReport = preflight.value;
  // --pipeline-check: the served model is a random-weight checkpoint (npm run test:llama-server);
  // the run is labeled a pipeline check everywhere, as with --backend local on a synthetic one.
  // Without it, a server that reports the shape of one of this project's own checkpoints (the
  // rehearsal models, the tiny test one) gets the same labels as that checkpoint through
  // --backend local: a rehearsal served by llama-server is a REHEARSAL run, not a model result.
  const recognized = recognizeServedCheckpoint(identity.serverModels, flags.model, await inProjectShapes());
  if (recognized !== null)
    process.stderr.write(
      `note: the endpoint serves this project's ${recognized.name} checkpoint (recognized by its shape at /v1/models); the run is labelled ${recognized.kind === "rehearsal" ? "REHEARSAL" : "PIPELINE CHECK"}, not a model result\n`,
    );
  const labels = {
    ...(flags.pipelineCheck ? { synthetic: true } : {}),
    ...(recognized !== null ? servedCheckpointLabels(recognized) : {}),
  };
  return {
    ok: true,
    value: {
      backend: client,
      description: { ...identity, preflight: report, label: flags.label ?? flags.model, ...labels },
      modelName: flags.model,
      thinking: thinking.value,
    },
  };
}

/**
 * The data set check before a run, from the cache when a pass for this exact data set and sandbox
 * is there (src/bench/grading/datasetCheckCache.ts), else run with progress on stderr and cached
 * when it passes. `note` is what run.json's datasetCheck adds ("", or when the cached pass was made).
 */
async function checkDatasetCached(
  env: BenchEnvironment,
  selection: DatasetCheckSelection,
  jobs: number,
  recheck: boolean,
  json: boolean,
): Promise<{ report: VerifyReport; note: string }> {
  const cacheDir = join(projectCacheDir(), DATASET_CHECK_CACHE_FOLDER);
  const key = datasetCheckKey(env.sandbox, env.dataset, selection);
  if (!recheck) {
    const cached = lookupDatasetCheck(cacheDir, key, env.dataset.root);
    if (cached.hit) {
      if (!json)
        process.stderr.write(
          `data set check: passed at ${cached.value.checkedAt} for this exact data set and sandbox (cached in ${cached.value.file}); not run again (--recheck-dataset runs it)\n`,
        );
      return { report: cached.value.report, note: ` (cached pass of ${cached.value.checkedAt})` };
    }
    if (!json && !cached.reason.startsWith("no cached check"))
      process.stderr.write(`data set check: cache ${cached.reason}\n`);
  }
  const total = selection.programs?.length ?? env.dataset.programs.length;
  const started = Date.now();
  const tty = process.stderr.isTTY === true && !json;
  if (!json)
    process.stderr.write(
      `checking the data set in the sandbox: ${total} programs, buggy ones must fail and reference fixes pass (about 1 s per program per core)…\n`,
    );
  const report = await verifyDataset(env.sandbox, env.dataset, {
    jobs,
    includeSlow: selection.includeSlow,
    ...(selection.programs ? { programs: selection.programs } : {}),
    onRecord: (record, done, all) => {
      if (json) return;
      const line = `data set check: ${done}/${all} programs (${formatDuration((Date.now() - started) / 1000)}), last ${record.program}: ${record.ok ? "ok" : "FAILED"}`;
      // A terminal gets one line redrawn; a log gets a line per tenth of the programs and every failure.
      if (tty)
        process.stderr.write(`\r${line.slice(0, MAX_COLUMNS - 1).padEnd(MAX_COLUMNS - 1)}${done === all ? "\n" : ""}`);
      else if (!record.ok || done === all || done % Math.max(1, Math.ceil(all / 10)) === 0)
        process.stderr.write(line + "\n");
    },
  });
  if (report.ok) storeDatasetCheck(cacheDir, key, report);
  return { report, note: "" };
}

/** Registers `run` on the quixbugs command. */
export function registerRunCommand(quix: Command, setExitCode: SetExitCode): void {
  quix
    .command("run")
    .description(
      "run the benchmark against an OpenAI-compatible endpoint (llama-server, vLLM, Ollama, LM Studio) or the project's local engine",
    )
    .option(
      "--backend <kind>",
      "openai (an OpenAI-compatible endpoint) or local (the project's local engine)",
      "openai",
    )
    .option("--endpoint <url>", "openai: base URL including /v1, e.g. http://127.0.0.1:8080/v1")
    .option("--model <name>", "openai: model name sent in each request")
    .option(
      "--model-directory <dir>",
      "local: a verified pinned checkpoint or a synthetic one (tca model make-test-checkpoint)",
    )
    .option("--conditions <list>", "conditions to run", "A,B,C,D")
    .option("--programs <list>", "comma-separated subset of programs (default: all 40)")
    .option("--out <dir>", "run directory (default: bench-runs/quixbugs-<model>-<time>)")
    .option(
      "--jobs <n>",
      "tasks in parallel (default: core count, at most 8; 1 for --backend local, whose one engine serves one call at a time)",
    )
    .option("--resume", "continue the run in --out, skipping finished tasks")
    .option("--shard <i/n>", "run only the i-th of n deterministic slices")
    .option(
      "--shard-count <n>",
      "n slices, this one's index from its scheduler: SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); the run goes to <out>/shard-<i>-of-<n>",
    )
    .option(
      "--shard-from <scheduler>",
      "with --shard-count: take the index from slurm or kubernetes (default: whichever one's variable is set)",
    )
    .option(
      "--repeats <k>",
      "run every task k times (repeat r samples with seed r-1); tables add pass@k and pass^k",
      "1",
    )
    .option(
      "--pipeline-check",
      "openai: the served model has random weights; label the run a pipeline check, never a model result",
    )
    .option("--temperature <t>", "sampling temperature (default 0, greedy; use > 0 with --repeats)", "0")
    .option(
      "--dataset <dir>",
      "QuixBugs folder (default: the one fetch-dataset verified into your cache, else ../shared/quixbugs next to the repository)",
    )
    .option("--api-key-env <var>", "environment variable holding an API key (never recorded)")
    .option(
      "--thinking <mode>",
      "openai: off (default, as in the benchmark's document), on, or server-default (sends no chat_template_kwargs)",
    )
    .option("--disable-thinking", "the same as --thinking off (kept for older invocations)")
    .option("--label <text>", "label for tables (default: the model name)")
    .option(
      "--hardware <text>",
      'the server\'s hardware, as it should be reported (e.g. "RTX 4070 12 GB, llama.cpp b11461"); recorded in run.json and results.md',
    )
    .option("--include-slow", "include knapsack's --runslow case in grading")
    .option("--test-timeout <seconds>", "per test run timeout", "60")
    .option(
      "--recheck-dataset",
      "run the data set check even when a pass for this exact data set and sandbox is cached",
    )
    .option("--json", "print the summary as JSON; plain progress lines")
    .hook("preAction", (command) => {
      // Which options are required depends on --backend: missing ones are usage errors (exit 2),
      // as commander reports a missing required option.
      const o = command.opts<RunFlags>();
      if (o.backend === "local" && o.modelDirectory === undefined)
        command.error("error: --backend local requires --model-directory <dir>");
      if (o.backend === "openai" && (o.endpoint === undefined || o.model === undefined))
        command.error("error: --backend openai requires --endpoint <url> and --model <name>");
      if (o.backend !== "openai" && o.backend !== "local") command.error("error: --backend takes openai or local");
    })
    .action(async (flags: RunFlags) => {
      const json = flags.json === true;
      const conditions = parseConditionList(flags.conditions);
      const jobs = positiveInt(flags.jobs, flags.backend === "local" ? 1 : defaultJobs());
      const timeout = positiveInt(flags.testTimeout, 60);
      const shardChoice = resolveShard(flags, process.env);
      const repeats = positiveInt(flags.repeats, 1);
      const temperature =
        flags.temperature === undefined ? 0 : /^\d+(\.\d+)?$/.test(flags.temperature) ? Number(flags.temperature) : NaN;
      if (!conditions) return fail(setExitCode, "invalid_option", "--conditions takes a list of A, B, C, D", json);
      if (jobs === undefined || timeout === undefined)
        return fail(setExitCode, "invalid_option", "--jobs and --test-timeout take positive integers", json);
      if (!shardChoice.ok) return fail(setExitCode, shardChoice.error, shardChoice.message, json);
      const shard = shardChoice.value;
      if (repeats === undefined || repeats > 100)
        return fail(setExitCode, "invalid_option", "--repeats takes an integer 1..100", json);
      if (!(temperature >= 0 && temperature <= 2))
        return fail(setExitCode, "invalid_option", "--temperature takes a number 0..2", json);
      // One line in results.md: no control characters, a label's length.
      if (
        flags.hardware !== undefined &&
        (flags.hardware.trim() === "" || flags.hardware.length > 200 || /\p{Cc}/u.test(flags.hardware))
      )
        return fail(setExitCode, "invalid_option", "--hardware takes one line of text (1-200 characters)", json);
      // A bad --out is refused before the sandbox, the data set or the endpoint is touched.
      if (flags.out !== undefined) {
        const out =
          flags.resume === true
            ? inputDirectory("--out", resolve(flags.out))
            : outputFolder("--out", resolve(flags.out));
        if (!out.ok) return fail(setExitCode, out.error, out.message, json);
      }
      if (flags.backend === "local" && flags.modelDirectory !== undefined) {
        const model = inputDirectory("--model-directory", resolve(flags.modelDirectory));
        if (!model.ok) return fail(setExitCode, "model_directory_invalid", model.message, json);
      }
      const env = await prepareBenchEnvironment(flags.dataset ?? defaultDatasetDir(), { timeoutMs: timeout * 1000 });
      if (!env.ok) return fail(setExitCode, env.error, env.message, json);
      const programs = programList(flags.programs);
      const unknown = programs?.filter((p) => !env.value.dataset.programs.some((q) => q.name === p)) ?? [];
      if (unknown.length > 0)
        return fail(setExitCode, "unknown_program", `unknown programs: ${unknown.join(", ")}`, json);
      const nameForDir = flags.backend === "local" ? "local" : (flags.model ?? "model");
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const baseOut = resolve(
        flags.out ??
          join(
            "bench-runs",
            `quixbugs-${nameForDir.replace(/[^A-Za-z0-9._-]+/g, "_")}-${flags.shardCount !== undefined ? "indexed" : stamp}`,
          ),
      );
      // Every pod of an Indexed Job (every task of a Slurm array) gets the same arguments: each writes its own shard folder.
      const outDir =
        flags.shardCount !== undefined && shard ? join(baseOut, `shard-${shard.index}-of-${shard.count}`) : baseOut;
      if (!flags.resume && existsSync(join(outDir, RUN_FILES.manifest))) {
        return fail(
          setExitCode,
          "run_dir_invalid",
          `${outDir} already holds a run; pass --resume to continue it or choose another --out`,
          json,
        );
      }
      // On a terminal the bar also shows the local engine's running call (tokens so far, tok/s).
      const showsBar = process.stderr.isTTY === true && !json;
      let bar: BarProgress | null = null;
      let live: LiveGeneration | null = null;
      const onGenerationProgress = (p: SupervisedProgress): void => {
        live = foldProgress(live, p);
        bar?.generation(describeLiveCounts(live));
      };
      const opened = await openBackend(flags, conditions, temperature, showsBar ? onGenerationProgress : undefined);
      if (!opened.ok) return fail(setExitCode, opened.error, opened.message, json);
      const { backend, description, modelName, thinking } = opened.value;
      try {
        // The data set check runs before any agent: all selected buggy programs fail, all fixes pass.
        // The run folder's own dataset-check.json is never believed on --resume (it would pass a
        // data set changed in place): only the keyed cache may skip the check (datasetCheckCache.ts).
        const checkPath = join(outDir, DATASET_CHECK_FILE);
        const checked = await checkDatasetCached(
          env.value,
          { ...(programs ? { programs } : {}), includeSlow: flags.includeSlow === true, timeoutMs: timeout * 1000 },
          jobs,
          flags.recheckDataset === true,
          json,
        );
        const check = checked.report;
        const checkNote = checked.note;
        if (!check.ok) {
          process.stderr.write(formatVerifyTable(check) + "\n");
          return fail(setExitCode, "dataset_check_failed", "the data set check failed; refusing to benchmark", json);
        }
        mkdirSync(outDir, { recursive: true });
        writeFileSync(checkPath, JSON.stringify(check, null, 2) + "\n");
        const controller = new AbortController();
        const onSigint = (): void => {
          process.stderr.write(
            cancellingNotice("bench quixbugs run", "the running tasks stop and are not graded; finished ones are kept"),
          );
          controller.abort();
        };
        process.once("SIGINT", onSigint);
        const progress = showsBar ? (bar = new BarProgress()) : new LineProgress((l) => process.stderr.write(l + "\n"));
        const result = await runBenchmark({
          dataset: env.value.dataset,
          sandbox: env.value.sandbox,
          backend,
          modelDescription: description,
          modelName,
          conditions,
          ...(programs ? { programs } : {}),
          outDir,
          jobs,
          resume: flags.resume === true,
          ...(shard ? { shard } : {}),
          repeats,
          temperature,
          ...(thinking !== undefined ? { thinking } : {}),
          budget: AGENT_BUDGET,
          testTimeoutMs: timeout * 1000,
          includeSlow: flags.includeSlow === true,
          environment: {
            ...env.value.facts,
            clientHardware: describeHostHardware(),
            ...(flags.hardware !== undefined ? { hardwareLabel: flags.hardware } : {}),
            datasetCheck: `${check.buggyFailing}/${check.programs} buggy fail, ${check.fixesPassing}/${check.programs} fixes pass${checkNote}`,
            slowCases: check.excluded.join("; ") || "none excluded",
          },
          progress,
          signal: controller.signal,
        });
        process.removeListener("SIGINT", onSigint);
        if (!result.ok) return fail(setExitCode, result.error, result.message, json);
        // A cancelled run is not summarized as if complete: what was kept, and how to go on.
        if (controller.signal.aborted) {
          if (json)
            process.stdout.write(
              JSON.stringify(
                {
                  ok: false,
                  cancelled: true,
                  outDir,
                  finishedTasks: result.value.results.length,
                  resume: resumeCommand(process.argv.slice(2), outDir),
                },
                null,
                2,
              ) + "\n",
            );
          else process.stdout.write(benchCancelledText(result.value.results.length, outDir, process.argv.slice(2)));
          return setExitCode(CANCELLED_EXIT_CODE);
        }
        const summary = summarize(result.value.results);
        if (json) {
          process.stdout.write(
            JSON.stringify(
              {
                ok: true,
                outDir,
                pipelineCheck: isPipelineCheck(description),
                ...(isRehearsal(description) ? { rehearsal: true } : {}),
                summary,
              },
              null,
              2,
            ) + "\n",
          );
        } else {
          // The terminal summary carries the same label as results.md and the report.
          if (isPipelineCheck(description))
            process.stdout.write(
              `${wrapLine(isRehearsal(description) ? REHEARSAL_LINE : PIPELINE_CHECK_LINE, MAX_COLUMNS, "  ").join("\n")}\n`,
            );
          for (const s of summary) {
            process.stdout.write(
              `${s.label}: fixed ${pct(s.fixedRate)} (${s.fixed}/${s.graded} graded), false fixed ${s.falseFixed}${s.modelError > 0 ? `, model errors ${s.modelError} (not graded)` : ""}\n`,
            );
          }
          // As results.md and the report's headline: a "fixed" after refused attempts is counted, not hidden.
          const hits = fixedWithGuardrailHits(result.value.results);
          if (hits.fixed > 0)
            process.stdout.write(
              `guardrail hits: ${hits.flagged} of ${hits.fixed} fixed task(s) tried a refused action (flagged in results.md)\n`,
            );
          for (const w of endpointWarnings(result.value.results, description.serverProps))
            process.stderr.write(`warning: ${w}\n`);
          process.stdout.write(`results: ${join(outDir, RUN_FILES.resultsMd)}\n`);
          // The next step, spelled to work from the folder the user is in (src/cli/invocation.ts).
          process.stdout.write(`next step: ${tcaCommand(["report", outDir])}\n`);
        }
        // No task with a verdict: the run measured the endpoint, not the model.
        if (result.value.results.length > 0 && result.value.results.every((r) => r.outcome === "model_error")) {
          return fail(
            setExitCode,
            "model_errors_only",
            `every task (${result.value.results.length}) ended in a model error; see the traces' model_error events in ${outDir}`,
            false,
          );
        }
        setExitCode(0);
      } finally {
        // The local engine's worker process is stopped on every path.
        await backend.close();
      }
    });
}
