// tca bench quixbugs verify-run RUN, and the gate compare and merge pass every run through: the
// bench verdict (src/verdicts/benchVerdict.ts) over one read of the run, then, for verify-run, a
// re-grade of every task (src/bench/runRegrade.ts) against the run's own data set (the one
// run.json records, src/bench/dataset/datasetIdentity.ts), and with --regenerate every recorded
// model request sent again (src/bench/runs/runRegeneration.ts). Argument parsing and printing only.
import { labelledVerdict } from "../../core/resultLabel.ts";
import { benchResultSource } from "../../bench/results/resultsSummary.ts";
import type { Command } from "commander";
import { resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { printCommandError } from "../commandError.ts";
import { inputDirectory } from "../pathArguments.ts";
import { formatProblem } from "../../recording/evidenceProblem.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { exitOnInterrupt, holdRunFolder } from "../interruption.ts";
import { fail } from "./benchOptions.ts";
import { endpointApiKey } from "../../bench/benchRunSetup.ts";
import { isRecord } from "../../core/isRecord.ts";
import { prepareBenchEnvironment } from "../../bench/benchEnvironment.ts";
import { defaultDatasetDir, QUIXBUGS_COMMIT } from "../../bench/dataset/dataset.ts";
import { chooseVerifyDataset, datasetContent, parseDatasetIdentity } from "../../bench/dataset/datasetIdentity.ts";
import { QUIXBUGS_MANIFEST, verifyDirectory } from "../../bench/dataset/datasetFetch.ts";
import { regradeRun, taskStartOf, writeVerification, type RegradeInput } from "../../bench/runRegrade.ts";
import { GRADER_ID } from "../../bench/grading/trustedGrader.ts";
import { defaultJobs } from "../../core/concurrency.ts";
import { deriveBenchVerdict, replayWithDataset, type BenchVerdict } from "../../verdicts/benchVerdict.ts";
import { resultKey, type RunManifest } from "../../bench/runs/runDirectory.ts";
import type { MergeInput } from "../../bench/runs/runMerge.ts";
import type { BenchRegenerationJson } from "../../bench/runs/runFileSchemas.ts";
import {
  openRegenerationBackend,
  regenerateRun,
  tracesDigest,
  writeBenchRegeneration,
  type RegenerationBackend,
  type RegenerationTarget,
  type RegenerationTask,
} from "../../bench/runs/runRegeneration.ts";
import { differenceExcerpts, regenerationOutcomeLine, regeneratedSummary } from "../../core/responseComparison.ts";

/** The run's per-task time budget: each regenerated request gets as long as the task had. */
function budgetTimeoutMs(manifest: RunManifest): number {
  const budget = manifest.fingerprint.budget;
  return isRecord(budget) && typeof budget.taskTimeoutMs === "number" && budget.taskTimeoutMs > 0
    ? budget.taskTimeoutMs
    : 30 * 60 * 1000;
}

/** A run that passed the bench verdict, with the snapshot it was derived from. */
export interface VerifiedRun {
  readonly dir: string;
  readonly verdict: BenchVerdict;
  readonly manifest: RunManifest;
}

/** The verdict of each run; the first EVIDENCE INVALID one is refused, naming the run and its first problems. */
export function verifiedRuns(
  dirs: readonly string[],
): { ok: true; value: VerifiedRun[] } | { ok: false; error: "evidence_invalid" | "invalid_option"; message: string } {
  if (dirs.length === 0) return { ok: false, error: "invalid_option", message: "name at least one run directory" };
  const out: VerifiedRun[] = [];
  for (const dir of dirs) {
    const verdict = deriveBenchVerdict(dir);
    if (verdict.kind === "evidence_invalid" || verdict.manifest === null) {
      const shown = verdict.problems.slice(0, 3).map(formatProblem).join("; ");
      return {
        ok: false,
        error: "evidence_invalid",
        message: `${dir}: EVIDENCE INVALID (${verdict.problems.length} problem(s)): ${shown}`,
      };
    }
    out.push({ dir, verdict, manifest: verdict.manifest });
  }
  return { ok: true, value: out };
}

/** merge's input from a verified run: the snapshot's records and file bytes, never a second read. */
export function mergeInputOf(run: VerifiedRun): MergeInput {
  const { snapshot } = run.verdict;
  return {
    dir: run.dir,
    manifest: run.manifest,
    tasks: run.verdict.tasks,
    file: (rel) => snapshot.traces.get(rel)?.text ?? snapshot.diffs.get(rel),
  };
}

interface VerifyRunFlags {
  dataset?: string;
  jobs?: string;
  json?: boolean;
  regenerate?: boolean;
  endpoint?: string;
  modelDirectory?: string;
  sample?: string;
  strict?: boolean;
  apiKeyEnv?: string;
}

/** What --regenerate asks for, every option checked before the run is read. */
type RegenerateRequest = { readonly target: RegenerationTarget; readonly sample?: number; readonly strict: boolean };

function regenerateRequest(
  flags: VerifyRunFlags,
): { ok: true; value: RegenerateRequest | null } | { ok: false; message: string } {
  if (flags.regenerate !== true) {
    const stray = (
      [
        ["--endpoint", flags.endpoint],
        ["--model-directory", flags.modelDirectory],
        ["--sample", flags.sample],
        ["--strict", flags.strict],
        ["--api-key-env", flags.apiKeyEnv],
      ] as const
    ).find(([, value]) => value !== undefined);
    return stray === undefined
      ? { ok: true, value: null }
      : { ok: false, message: `${stray[0]} belongs to --regenerate` };
  }
  if (flags.endpoint === undefined && flags.modelDirectory === undefined)
    return {
      ok: false,
      message:
        "--regenerate needs --endpoint URL (a run made through an OpenAI-compatible server) or --model-directory DIR (a run of the local engine)",
    };
  if (flags.endpoint !== undefined && flags.modelDirectory !== undefined)
    return { ok: false, message: "--regenerate takes --endpoint URL or --model-directory DIR, not both" };
  if (flags.sample !== undefined && !/^[1-9]\d{0,5}$/.test(flags.sample))
    return { ok: false, message: "--sample takes a positive integer (the number of requests to send)" };
  if (flags.apiKeyEnv !== undefined && flags.endpoint === undefined)
    return {
      ok: false,
      message: "--api-key-env belongs to --regenerate --endpoint URL (the local engine takes no key)",
    };
  let target: RegenerationTarget;
  if (flags.endpoint !== undefined) {
    // The run's own rule for the key (--api-key-env VAR, else OPENAI_API_KEY): sent, never recorded.
    const key = endpointApiKey(flags.apiKeyEnv, process.env);
    if (!key.ok) return { ok: false, message: key.message };
    target = { kind: "endpoint", endpoint: flags.endpoint, ...(key.value !== undefined ? { apiKey: key.value } : {}) };
  } else target = { kind: "model_directory", directory: resolve(flags.modelDirectory!) };
  return {
    ok: true,
    value: {
      target,
      strict: flags.strict === true,
      ...(flags.sample !== undefined ? { sample: Number(flags.sample) } : {}),
    },
  };
}

/** The regeneration's terminal lines, each labelled SYNTHETIC when the model was a synthetic checkpoint. */
export function benchRegenerationLines(record: BenchRegenerationJson, recordPath: string | null): string[] {
  const label = record.backend.syntheticLabel;
  const tag = label === null ? "" : `[SYNTHETIC checkpoint: ${label}] `;
  const through =
    record.backend.endpoint !== null
      ? `endpoint ${record.backend.endpoint} (model ${record.backend.model})`
      : `local engine on ${record.backend.modelDirectory ?? "?"} (${record.backend.model})`;
  const lines = [
    `regenerated through ${through}${record.sample === null ? "" : `; --sample: ${record.sample.size} of ${record.sample.of} requests (${record.sample.rule})`}`,
    `normalization: ${record.normalization}`,
    `${regeneratedSummary(record.identical, record.compared, null)}${
      record.notCompared > 0
        ? ` (${record.notCompared} request(s) not compared: their recorded outcome is no model response)`
        : ""
    } in ${record.seconds.toFixed(1)} s`,
  ];
  for (const turn of record.turns) {
    if (!turn.compared || turn.identical) continue;
    const offset = turn.firstDifferenceOffset ?? 0;
    lines.push(
      `${turn.task} turn ${turn.turn}: ${turn.requestIdentical === false ? "the request sent differs from the recorded exchange's request; " : ""}${turn.firstDifferenceOffset === null ? "response identical" : `differs at byte ${offset}`} (regenerated ${turn.regeneratedOutcome})`,
      ...differenceExcerpts(turn.recorded?.text ?? null, turn.regenerated?.text ?? null, offset),
    );
  }
  lines.push(
    regenerationOutcomeLine(record.outcome, record.strict),
    ...(recordPath === null ? [] : [`recorded in ${recordPath} (a record: it never makes a verdict valid by itself)`]),
  );
  return lines.map((line) => `${tag}${line}`);
}

export function registerVerifyRunCommand(quix: Command, setExitCode: SetExitCode): void {
  quix
    .command("verify-run")
    .description(
      "re-grade every task of a run from its recorded diff and compare with what the run recorded; writes verification.json (the last verification) beside the run; with --regenerate also re-asks the model every recorded request (regeneration.json)",
    )
    .argument("<run>", "run directory")
    .option(
      "--dataset <dir>",
      "QuixBugs folder (default: the one run.json records, found by its content); another content is refused",
    )
    .option("--jobs <n>", "tasks re-graded in parallel (default: core count, at most 8)")
    .option("--json", "print the re-grade as JSON")
    .option(
      "--regenerate",
      "send every recorded model request again and compare each response with the recorded one; writes regeneration.json",
    )
    .option("--endpoint <url>", "with --regenerate: the OpenAI-compatible server to ask (a run made through one)")
    .option("--model-directory <dir>", "with --regenerate: the run's checkpoint, asked through the local engine")
    .option(
      "--sample <n>",
      "with --regenerate: send a deterministic sample of n requests (the same n for the same run)",
    )
    .option("--strict", "with --regenerate: any regenerated response that differs makes the run EVIDENCE INVALID")
    .option(
      "--api-key-env <var>",
      "with --regenerate --endpoint: environment variable holding the server's API key (default OPENAI_API_KEY; never recorded)",
    )
    .action(async (run: string, flags: VerifyRunFlags) => {
      const json = flags.json === true;
      const regenerate = regenerateRequest(flags);
      if (!regenerate.ok) return fail(setExitCode, "invalid_option", regenerate.message, json);
      const jobs =
        flags.jobs === undefined ? defaultJobs() : /^[1-9]\d{0,2}$/.test(flags.jobs) ? Number(flags.jobs) : undefined;
      if (jobs === undefined) return fail(setExitCode, "invalid_option", "--jobs takes a positive integer", json);
      const dir = resolve(run);
      // verification.json is written into the run folder: one writer at a time (a run going on
      // there, or another verify-run, is refused before the run is read, so a run being written is
      // never judged half-written). Ctrl-C or SIGTERM before the end writes nothing.
      const held = inputDirectory("run", dir).ok ? holdRunFolder("bench quixbugs verify-run", dir) : null;
      if (held !== null && !held.ok) return fail(setExitCode, held.error, held.message, json);
      const gate = verifiedRuns([dir]);
      if (!gate.ok) return fail(setExitCode, gate.error, gate.message, json);
      const { verdict, manifest } = gate.value[0]!;
      const testTimeoutMs =
        typeof manifest.fingerprint.testTimeoutMs === "number" ? manifest.fingerprint.testTimeoutMs : 60_000;
      // The run's own data set (run.json's identity) unless --dataset names one with the same
      // content; any other is refused here, before anything is re-graded or written.
      const recordedDataset = parseDatasetIdentity(manifest.dataset);
      const chosen = chooseVerifyDataset(
        "identity" in recordedDataset ? recordedDataset.identity : null,
        dir,
        flags.dataset,
        defaultDatasetDir(),
      );
      if (!chosen.ok) return fail(setExitCode, chosen.error, chosen.message, json);
      const env = await prepareBenchEnvironment(chosen.value.dataset.root, { timeoutMs: testTimeoutMs });
      if (!env.ok) return fail(setExitCode, env.error, env.message, json);
      if (!json) process.stderr.write(`data set: ${env.value.dataset.root} (${chosen.value.choice})\n`);
      // A run on the real QuixBugs is re-graded only against the pinned files (the hash manifest);
      // any data set is also checked per program against the digests the traces recorded.
      if (manifest.environment.datasetSource === `jkoppel/QuixBugs@${QUIXBUGS_COMMIT}`) {
        const pinned = await verifyDirectory(env.value.dataset.root, QUIXBUGS_MANIFEST);
        if (!pinned.ok)
          return fail(
            setExitCode,
            "dataset_check_failed",
            `${env.value.dataset.root} is not the pinned QuixBugs: ${pinned.message}`,
            json,
          );
      }
      // The replay again, now with the data set's own files (the test files a C or D agent read).
      const replayed = replayWithDataset(verdict, env.value.dataset);
      if (replayed.problems.length > 0)
        return fail(
          setExitCode,
          "evidence_invalid",
          `${dir}: EVIDENCE INVALID (${replayed.problems.length} problem(s)): ${replayed.problems.slice(0, 3).map(formatProblem).join("; ")}`,
          json,
        );
      const { snapshot } = verdict;
      // The backend is opened before anything is re-graded or written: a refusal changes nothing.
      const regenerationTasks: RegenerationTask[] = verdict.tasks.map((task) => ({
        key: resultKey(task),
        turns: replayed.modelTurns.get(resultKey(task)) ?? [],
        taskTimeoutMs: budgetTimeoutMs(manifest),
      }));
      let regeneration: RegenerationBackend | null = null;
      if (regenerate.value !== null) {
        const askable = regenerationTasks.some((task) =>
          task.turns.some((turn) => turn.complete && turn.recorded.kind === "response"),
        );
        if (!askable)
          return fail(
            setExitCode,
            "nothing_to_regenerate",
            `${dir}: nothing to regenerate: the run records no model response whose request the replay rebuilt${verdict.replay.predatesReplay > 0 ? " (its traces predate the replay)" : ""}`,
            json,
          );
        const opened = await openRegenerationBackend(manifest, regenerate.value.target);
        if (!opened.ok) return fail(setExitCode, opened.error, opened.message, json);
        regeneration = opened.value;
      }
      try {
        const inputs: RegradeInput[] = verdict.tasks.map((task) => ({
          task,
          taskStart:
            task.tracePath === undefined ? undefined : taskStartOf(snapshot.traces.get(task.tracePath)?.records),
          diff: task.diffPath === undefined ? undefined : snapshot.diffs.get(task.diffPath),
          testRuns: replayed.testRuns.get(resultKey(task)) ?? [],
        }));
        const tty = process.stderr.isTTY && !json;
        const uninstall = exitOnInterrupt({
          command: "bench quixbugs verify-run",
          partial: () => null,
          rerun: tcaCommand(process.argv.slice(2)),
        });
        const report = await regradeRun(inputs, {
          dataset: env.value.dataset,
          sandbox: env.value.sandbox,
          jobs,
          testTimeoutMs,
          includeSlow: manifest.fingerprint.includeSlow === true,
          onTask: (entry, done, total) => {
            if (tty) process.stderr.write(`\r${done}/${total} ${entry.key.padEnd(30)}`);
            else if (!json)
              process.stderr.write(`${done}/${total} ${entry.key} ${entry.identical ? "identical" : "DIFFERS"}\n`);
          },
        });
        if (tty) process.stderr.write("\n");
        const written = writeVerification(dir, snapshot.tasksSha256 ?? "", report, {
          grader: GRADER_ID,
          dataset: env.value.dataset.root,
          datasetSha256: datasetContent(env.value.dataset).sha256,
          datasetChoice: chosen.value.choice,
        });
        const disagreeing = report.entries.filter((entry) => !entry.identical);
        const timing = `${report.seconds.toFixed(1)} s; the run's own grading took ${report.recordedGradingSeconds.toFixed(1)} s of grader time`;
        if (!json) {
          for (const entry of disagreeing) process.stdout.write(`${entry.key}: ${entry.differences.join("; ")}\n`);
          if (disagreeing.length === 0)
            process.stdout.write(
              `verify-run: ${labelledVerdict(benchResultSource(manifest.model), `re-graded ${report.entries.length}/${report.entries.length} tasks: identical`)}\ntime: ${timing}\n${written.ok ? `verification: ${written.value}\n` : ""}`,
            );
        }
        // Re-asking the model after a re-grade that disagrees would add nothing: the run is already invalid.
        const regenerated =
          regeneration !== null && regenerate.value !== null && disagreeing.length === 0 && written.ok
            ? await regenerateRun(regenerationTasks, {
                backend: regeneration,
                strict: regenerate.value.strict,
                ...(regenerate.value.sample !== undefined ? { sample: regenerate.value.sample } : {}),
                jobs,
                tasksSha256: snapshot.tasksSha256 ?? "",
                tracesSha256: tracesDigest(snapshot.traces),
                onTurn: (turn, done, total) => {
                  if (tty)
                    process.stderr.write(
                      `\rregenerating ${done}/${total} ${`${turn.task} turn ${turn.turn}`.padEnd(30)}`,
                    );
                },
              })
            : null;
        if (tty && regenerated !== null) process.stderr.write("\n");
        const record = regenerated?.ok === true ? regenerated.value : null;
        const recordWritten = record === null ? null : writeBenchRegeneration(dir, record);
        uninstall();
        held?.value.release();
        const regenerationInvalid = record !== null && record.strict && record.outcome !== "reproduced";
        if (json)
          process.stdout.write(
            JSON.stringify(
              {
                ok: disagreeing.length === 0 && written.ok && !regenerationInvalid && regenerated?.ok !== false,
                run: dir,
                dataset: { root: env.value.dataset.root, choice: chosen.value.choice },
                verification: written.ok ? written.value : null,
                ...report,
                ...(regenerate.value !== null
                  ? {
                      regeneration:
                        record === null
                          ? null
                          : { ...record, path: recordWritten?.ok === true ? recordWritten.value : null },
                    }
                  : {}),
              },
              null,
              2,
            ) + "\n",
          );
        else {
          if (record !== null)
            for (const line of benchRegenerationLines(record, recordWritten?.ok === true ? recordWritten.value : null))
              process.stdout.write(`${line}\n`);
          if (disagreeing.length === 0 && written.ok) process.stdout.write(`next step: ${reportCommand(dir)}\n`);
        }
        if (!written.ok && disagreeing.length === 0) {
          if (!json) printCommandError(written.error, written.message);
          return setExitCode(1);
        }
        if (disagreeing.length > 0) {
          // A run graded by another version of the grader can disagree because the grader changed
          // (held-out inputs, comparisons): said, never hidden, and still a disagreement.
          const recordedGrader = manifest.environment["grader"];
          const graderNote =
            typeof recordedGrader === "string" && recordedGrader !== GRADER_ID
              ? ` (the run was graded by ${recordedGrader}, this checkout grades with ${GRADER_ID}: a difference may be the grader's change; verify with that version's checkout)`
              : "";
          if (!json)
            printCommandError(
              "evidence_invalid",
              `${dir}: EVIDENCE INVALID: the re-grade disagrees with ${disagreeing.length} of ${report.entries.length} task record(s): ${disagreeing.map((entry) => entry.key).join(", ")}${graderNote}${regeneration !== null ? "; the model was not re-asked" : ""}`,
            );
          return setExitCode(1);
        }
        if (regenerated !== null && !regenerated.ok) {
          if (!json) printCommandError(regenerated.error, regenerated.message);
          return setExitCode(1);
        }
        if (recordWritten !== null && !recordWritten.ok) {
          if (!json) printCommandError(recordWritten.error, recordWritten.message);
          return setExitCode(1);
        }
        if (regenerationInvalid) {
          if (!json)
            printCommandError(
              "evidence_invalid",
              `${dir}: EVIDENCE INVALID: --strict: ${record.compared - record.identical} of ${record.compared} regenerated response(s) differ from the recorded ones (${[...new Set(record.turns.filter((turn) => turn.compared && !turn.identical).map((turn) => turn.task))].join(", ")})`,
            );
          return setExitCode(1);
        }
        setExitCode(0);
      } finally {
        held?.value.release();
        await regeneration?.backend.close();
      }
    });
}
