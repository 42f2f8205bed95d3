// tca bench quixbugs verify-run RUN, and the gate compare and merge pass every run through: the
// bench verdict (src/verdicts/benchVerdict.ts) over one read of the run, then, for verify-run, a
// re-grade of every task (src/bench/runRegrade.ts) against the run's own data set (the one
// run.json records, src/bench/dataset/datasetIdentity.ts). Argument parsing and printing only.
import { labelledVerdict } from "../../core/resultLabel.ts";
import { benchResultSource } from "../../bench/results/resultsSummary.ts";
import type { Command } from "commander";
import { resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { printCommandError } from "../commandError.ts";
import { formatProblem } from "../../recording/evidenceProblem.ts";
import { tcaCommand } from "../invocation.ts";
import { fail } from "./benchOptions.ts";
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
}

export function registerVerifyRunCommand(quix: Command, setExitCode: SetExitCode): void {
  quix
    .command("verify-run")
    .description(
      "re-grade every task of a run from its recorded diff and compare with what the run recorded; writes verification.json (the last verification) beside the run",
    )
    .argument("<run>", "run directory")
    .option(
      "--dataset <dir>",
      "QuixBugs folder (default: the one run.json records, found by its content); another content is refused",
    )
    .option("--jobs <n>", "tasks re-graded in parallel (default: core count, at most 8)")
    .option("--json", "print the re-grade as JSON")
    .action(async (run: string, flags: VerifyRunFlags) => {
      const json = flags.json === true;
      const jobs =
        flags.jobs === undefined ? defaultJobs() : /^[1-9]\d{0,2}$/.test(flags.jobs) ? Number(flags.jobs) : undefined;
      if (jobs === undefined) return fail(setExitCode, "invalid_option", "--jobs takes a positive integer", json);
      const dir = resolve(run);
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
      const inputs: RegradeInput[] = verdict.tasks.map((task) => ({
        task,
        taskStart: task.tracePath === undefined ? undefined : taskStartOf(snapshot.traces.get(task.tracePath)?.records),
        diff: task.diffPath === undefined ? undefined : snapshot.diffs.get(task.diffPath),
        testRuns: replayed.testRuns.get(resultKey(task)) ?? [],
      }));
      const tty = process.stderr.isTTY && !json;
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
      if (json)
        process.stdout.write(
          JSON.stringify(
            {
              ok: disagreeing.length === 0 && written.ok,
              run: dir,
              dataset: { root: env.value.dataset.root, choice: chosen.value.choice },
              verification: written.ok ? written.value : null,
              ...report,
            },
            null,
            2,
          ) + "\n",
        );
      else {
        for (const entry of disagreeing) process.stdout.write(`${entry.key}: ${entry.differences.join("; ")}\n`);
        if (disagreeing.length === 0)
          process.stdout.write(
            `verify-run: ${labelledVerdict(benchResultSource(manifest.model), `re-graded ${report.entries.length}/${report.entries.length} tasks: identical`)}\ntime: ${timing}\n${written.ok ? `verification: ${written.value}\nnext step: ${tcaCommand(["report", dir])}\n` : ""}`,
          );
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
            `${dir}: EVIDENCE INVALID: the re-grade disagrees with ${disagreeing.length} of ${report.entries.length} task record(s): ${disagreeing.map((entry) => entry.key).join(", ")}${graderNote}`,
          );
        return setExitCode(1);
      }
      setExitCode(0);
    });
}
