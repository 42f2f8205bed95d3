// tca bench quixbugs run: options, the backend (an OpenAI-compatible endpoint after its preflight,
// or the local engine), the data set check (from its cache when it may be: datasetCheckCache.ts),
// the run with its progress, and the summary with the next step. Split out of bench.ts.
import type { Command } from "commander";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { inputDirectory, outputFolder, type PathErrorCode } from "../pathArguments.ts";
import { err, type Result } from "../../core/result.ts";
import {
  benchCancelledText,
  CANCELLED_EXIT_CODE,
  cancellingNotice,
  exitOnInterrupt,
  holdRunFolder,
  resumeCommand,
} from "../interruption.ts";
import { prepareBenchEnvironment, type BenchEnvironment } from "../../bench/benchEnvironment.ts";
import { DATASET_CHECK_CACHE_FOLDER } from "../../bench/grading/datasetCheckCache.ts";
import {
  checkDatasetCached,
  checkRunOptions,
  datasetCheckLine,
  datasetCheckStartLine,
  DEFAULT_PREFLIGHT_TIMEOUT_S,
  openBackend,
  runLabel,
  runOutputFolder,
  type BenchRunFlags,
  type BenchRunSettings,
  type DatasetCheckEvent,
} from "../../bench/benchRunSetup.ts";
import { formatDuration } from "../../core/numberFormat.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { runBenchmark } from "../../bench/benchmarkRun.ts";
import { fixedWithGuardrailHits } from "../../bench/results/guardrailFlags.ts";
import { defaultJobs } from "../../core/concurrency.ts";
import { AGENT_BUDGET } from "../../bench/agent/conditions.ts";
import { defaultDatasetDir, projectCacheDir } from "../../bench/dataset/dataset.ts";
import { BarProgress, LineProgress } from "../../bench/runs/progressDisplay.ts";
import {
  benchResultSource,
  endpointWarnings,
  pct,
  summarize,
  tasksFixedPhrase,
} from "../../bench/results/resultsSummary.ts";
import { labelledVerdict } from "../../core/resultLabel.ts";
import { describeHostHardware } from "../../bench/runs/hostHardware.ts";
import { RUN_FILES } from "../../bench/runs/runDirectory.ts";
import { formatVerifyTable } from "../../bench/grading/verifyDataset.ts";
import type { SupervisedProgress } from "../../model/worker/supervisor.ts";
import { describeLiveCounts, foldProgress, type LiveGeneration } from "../liveGeneration.ts";
import { fail } from "./benchOptions.ts";

const DATASET_CHECK_FILE = "dataset-check.json";

interface RunFlags extends BenchRunFlags {
  dataset?: string;
  recheckDataset?: boolean;
  json?: boolean;
}

/** The data set check's lines on stderr: one redrawn line on a terminal, a line per tenth in a log. */
function datasetCheckPrinter(
  json: boolean,
  pace: { readonly jobs: number; readonly testTimeoutS: number },
): (event: DatasetCheckEvent) => void {
  const started = Date.now();
  const tty = process.stderr.isTTY === true && !json;
  return (event) => {
    if (json) return;
    if (event.kind === "cached")
      process.stderr.write(
        `data set check: passed at ${event.cached.checkedAt} for this exact data set and sandbox (cached in ${event.cached.file}); not run again (--recheck-dataset runs it)\n`,
      );
    else if (event.kind === "cache_unusable") process.stderr.write(`data set check: cache ${event.reason}\n`);
    else if (event.kind === "started")
      process.stderr.write(
        `${wrapLine(datasetCheckStartLine({ root: event.root, programs: event.programs, ...pace }), MAX_COLUMNS, "  ").join("\n")}\n`,
      );
    else {
      const { record, done, all } = event;
      const line = `data set check: ${done}/${all} programs (${formatDuration((Date.now() - started) / 1000)}), last ${record.program}: ${record.ok ? "ok" : "FAILED"}`;
      if (tty)
        process.stderr.write(`\r${line.slice(0, MAX_COLUMNS - 1).padEnd(MAX_COLUMNS - 1)}${done === all ? "\n" : ""}`);
      else if (!record.ok || done === all || done % Math.max(1, Math.ceil(all / 10)) === 0)
        process.stderr.write(line + "\n");
    }
  };
}

/**
 * --out of a run, by the one output rule (outputFolder): created if missing, never its parents.
 * --resume alone continues a run, so its folder must exist (a typo must not start a new run).
 * With --shard-count, --out holds the shard folders and every task of a scheduler's array runs
 * the same line, --resume included: the first one creates --out and its shard folder, a requeued
 * one continues its shard.
 */
export function runOutArgument(out: string, resume: boolean, sharded: boolean): Result<string, PathErrorCode> {
  if (!resume || sharded) return outputFolder("--out", out);
  const found = inputDirectory("--out", out);
  if (!found.ok && found.error === "path_not_found")
    return err(found.error, `${found.message}, so there is no run to resume (without --resume a new run starts there)`);
  return found;
}

/**
 * A --model-directory that is not there, with the two commands that make one at that very path
 * (the bench rehearsal checkpoint, or the pinned model); a wrong kind, an unreadable folder, a
 * dangling link or a missing parent (where both commands would be refused) keeps its own message.
 * fail() spells the commands for where the user is.
 */
export function modelDirectoryHint(
  checked: { readonly error: PathErrorCode; readonly message: string },
  directory: string,
): string {
  if (checked.error !== "path_not_found" || !existsSync(dirname(directory))) return checked.message;
  if (checked.message.endsWith("missing target")) return checked.message;
  return `${checked.message} (make one there: tca model make-bench-rehearsal-checkpoint --directory ${directory} for the bench rehearsal model, or tca model acquire --directory ${directory} for the pinned model)`;
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
    .option(
      "--preflight-timeout <seconds>",
      `openai: how long the endpoint check before the run waits for the server to answer (default ${DEFAULT_PREFLIGHT_TIMEOUT_S})`,
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
      const checked = checkRunOptions(flags, process.env, defaultJobs());
      if (!checked.ok) return fail(setExitCode, checked.error, checked.message, json);
      const settings = checked.value;
      const { shard } = settings;
      const programs = settings.programs;
      const timeout = settings.testTimeoutMs / 1000;
      // A bad --out is refused before the sandbox, the data set or the endpoint is touched.
      if (flags.out !== undefined) {
        const out = runOutArgument(resolve(flags.out), flags.resume === true, flags.shardCount !== undefined);
        if (!out.ok) return fail(setExitCode, out.error, out.message, json);
      }
      if (flags.backend === "local" && flags.modelDirectory !== undefined) {
        const model = inputDirectory("--model-directory", resolve(flags.modelDirectory));
        if (!model.ok)
          return fail(
            setExitCode,
            "model_directory_invalid",
            modelDirectoryHint(model, resolve(flags.modelDirectory)),
            json,
          );
      }
      const env = await prepareBenchEnvironment(
        flags.dataset ?? defaultDatasetDir(),
        { timeoutMs: timeout * 1000 },
        programs,
      );
      if (!env.ok) return fail(setExitCode, env.error, env.message, json);
      const { outDir } = runOutputFolder(flags, shard, new Date());
      // One writer per run folder: held from here (before the endpoint and the data set check, so
      // a second writer is refused at once) to the end; the folder made for it goes again if the
      // run fails before writing anything in it.
      const held = holdRunFolder("bench quixbugs run", outDir, { create: true });
      if (!held.ok) return fail(setExitCode, held.error, held.message, json);
      try {
        await runHeld(flags, settings, env.value, outDir, setExitCode);
      } finally {
        held.value.release();
      }
    });
}

/** The run itself, in a folder this process holds (holdRunFolder). */
async function runHeld(
  flags: RunFlags,
  settings: BenchRunSettings,
  environment: BenchEnvironment,
  outDir: string,
  setExitCode: SetExitCode,
): Promise<void> {
  const json = flags.json === true;
  const { conditions, jobs, shard, repeats, temperature } = settings;
  const programs = settings.programs;
  const timeout = settings.testTimeoutMs / 1000;
  const env = { value: environment };
  if (!flags.resume && existsSync(join(outDir, RUN_FILES.manifest))) {
    return fail(
      setExitCode,
      "run_dir_invalid",
      `${outDir} already holds a run; pass --resume to continue it or choose another --out`,
      json,
    );
  }
  // Until the run starts, Ctrl-C and SIGTERM stop at once: nothing was written (the folder made
  // for the run goes again) and the lock is released on the way out.
  let uninstall = exitOnInterrupt({
    command: "bench quixbugs run",
    partial: () => null,
    rerun: tcaCommand(process.argv.slice(2)),
  });
  try {
    // On a terminal the bar also shows the local engine's running call (tokens so far, tok/s).
    const showsBar = process.stderr.isTTY === true && !json;
    let bar: BarProgress | null = null;
    let live: LiveGeneration | null = null;
    const onGenerationProgress = (p: SupervisedProgress): void => {
      live = foldProgress(live, p);
      bar?.generation(describeLiveCounts(live));
    };
    const opened = await openBackend(flags, settings, {
      notify: (line) => process.stderr.write(`${line}\n`),
      ...(showsBar ? { onGenerationProgress } : {}),
    });
    if (!opened.ok) return fail(setExitCode, opened.error, opened.message, json);
    const { backend, description, modelName, thinking } = opened.value;
    try {
      // The data set check runs before any agent: all selected buggy programs fail, all fixes pass.
      // The run folder's own dataset-check.json is never believed on --resume (it would pass a
      // data set changed in place): only the keyed cache may skip the check (datasetCheckCache.ts).
      const checkPath = join(outDir, DATASET_CHECK_FILE);
      const checkedSet = await checkDatasetCached(
        env.value,
        { ...(programs ? { programs } : {}), includeSlow: flags.includeSlow === true, timeoutMs: timeout * 1000 },
        {
          jobs,
          recheck: flags.recheckDataset === true,
          cacheDir: join(projectCacheDir(), DATASET_CHECK_CACHE_FOLDER),
          onEvent: datasetCheckPrinter(json, { jobs, testTimeoutS: timeout }),
        },
      );
      const check = checkedSet.report;
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
      // From here Ctrl-C stops gracefully; SIGTERM (a scheduler's preemption or time limit) at
      // once, keeping the finished tasks, with the command that continues them.
      uninstall();
      uninstall = exitOnInterrupt({
        command: "bench quixbugs run",
        partial: () => null,
        kept: `finished tasks are kept in ${outDir}; the running ones are redone on resume`,
        rerun: resumeCommand(process.argv.slice(2), outDir),
        signals: ["SIGTERM"],
      });
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
          ...(settings.hardware !== undefined ? { hardwareLabel: settings.hardware } : {}),
          datasetCheck: datasetCheckLine(check, checkedSet.note),
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
      const label = runLabel(description);
      if (json) {
        process.stdout.write(
          JSON.stringify(
            {
              ok: true,
              outDir,
              pipelineCheck: label.kind !== "model_result",
              ...(label.kind === "rehearsal" ? { rehearsal: true } : {}),
              summary,
            },
            null,
            2,
          ) + "\n",
        );
      } else {
        // The terminal summary carries the same label as results.md and the report.
        // The result line first, its source named before the numbers (src/core/resultLabel.ts).
        process.stdout.write(
          `bench run: ${labelledVerdict(benchResultSource(description), tasksFixedPhrase(result.value.results))}\n`,
        );
        if (label.line !== null) process.stdout.write(`${wrapLine(label.line, MAX_COLUMNS, "  ").join("\n")}\n`);
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
        process.stdout.write(`next step: ${reportCommand(outDir)}\n`);
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
  } finally {
    uninstall();
  }
}
