// tca bench quixbugs make-taskset --dataset DIR --seed N --out DIR2: a new task set in QuixBugs
// layout, one seeded one-line mutant of each reference fix, validated by the trusted grader in
// the sandbox (src/bench/tasksets/). Argument checks and printing only.
import { resolve } from "node:path";
import type { Command } from "commander";
import { prepareBenchEnvironment } from "../../bench/benchEnvironment.ts";
import { defaultDatasetDir } from "../../bench/dataset/dataset.ts";
import { makeTaskset } from "../../bench/tasksets/makeTaskset.ts";
import { parseSeed } from "../../bench/tasksets/seededOrder.ts";
import { formatTasksetSummary } from "../../bench/tasksets/tasksetSummary.ts";
import { defaultJobs } from "../../core/concurrency.ts";
import { refusal } from "../commandError.ts";
import { newOutput } from "../pathArguments.ts";
import { exitOnInterrupt } from "../interruption.ts";
import { shellLines, tcaCommand } from "../invocation.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import { rmdirSync, rmSync } from "node:fs";
import type { SetExitCode } from "./index.ts";

interface MakeTasksetFlags {
  dataset?: string;
  seed: string;
  out: string;
  jobs?: string;
  json?: boolean;
}

export function registerMakeTasksetCommand(quix: Command, setExitCode: SetExitCode): void {
  quix
    .command("make-taskset")
    .description(
      "write a new task set in QuixBugs layout: each buggy program a seeded one-line mutant of the reference fix, validated in the sandbox",
    )
    .option("--dataset <dir>", "the QuixBugs folder to derive from (default: as verify-dataset)")
    .requiredOption("--seed <n>", "a non-negative integer; the same seed gives a byte-identical set")
    .requiredOption("--out <dir>", "the new folder to create (must not exist)")
    .option("--jobs <n>", "programs validated in parallel (default: core count, at most 8)")
    .option("--json", "print one JSON document")
    .action(async (flags: MakeTasksetFlags) => {
      const json = flags.json === true;
      const refuse = refusal(setExitCode, 1);
      const fail = (code: string, message: string): void => {
        // With --json the document on stdout, and the line on stderr as well.
        if (json) refuse(code, message, { json });
        refuse(code, message);
      };
      const seed = parseSeed(flags.seed);
      if (seed === null)
        return fail(
          "invalid_option",
          `--seed ${JSON.stringify(flags.seed)} is not a non-negative integer (decimal digits, at most 2^53 - 1)`,
        );
      const jobs =
        flags.jobs === undefined ? defaultJobs() : /^[1-9]\d{0,2}$/.test(flags.jobs) ? Number(flags.jobs) : null;
      if (jobs === null)
        return fail("invalid_option", `--jobs ${JSON.stringify(flags.jobs)} is not a positive integer`);
      // Refused before the sandbox self-test: an existing --out or a missing parent never costs a
      // minute. The one output rule (pathArguments.ts): the folder is made, never its parents.
      const checkedOut = newOutput(
        "--out",
        resolve(flags.out),
        "make-taskset writes a new folder and replaces nothing",
      );
      if (!checkedOut.ok) return fail(checkedOut.error, checkedOut.message);
      const out = checkedOut.value;
      const env = await prepareBenchEnvironment(flags.dataset ?? defaultDatasetDir());
      if (!env.ok) return fail(env.error, env.message);
      const started = performance.now();
      // Ctrl-C: the claimed --out and the staging folder go, so a rerun is not refused output_exists.
      let staging: string | null = null;
      const uninstall = exitOnInterrupt({
        command: "bench quixbugs make-taskset",
        partial: () => out,
        removePartial: () => {
          if (staging !== null) rmSync(staging, { recursive: true, force: true });
          // Only the empty claim (rmdir refuses a folder with files): a set already renamed into place stays.
          rmdirSync(out);
        },
        rerun: tcaCommand(process.argv.slice(2)),
      });
      const made = await makeTaskset(env.value.sandbox, env.value.dataset, {
        out,
        seed,
        jobs,
        onStaging: (path) => (staging = path),
        onProgram: (s, done, total) => {
          if (json) return;
          const what =
            s.kind === "mutant"
              ? `${s.mutant.program} ${s.mutant.operator} line ${s.mutant.line} (${s.mutant.publicCases.failing}/${s.mutant.publicCases.total} public failing)`
              : `${s.skipped.program} skipped: ${s.skipped.reason}`;
          process.stderr.write(`${done}/${total} ${what}\n`);
        },
      });
      uninstall();
      if (!made.ok) return fail(made.error, made.message);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      if (json) {
        process.stdout.write(
          `${JSON.stringify({ ok: true, out: made.value.out, manifestSha256: made.value.manifestSha256, seconds, summary: made.value.summary, skipped: made.value.skipped })}\n`,
        );
      } else {
        const lines = [
          `task set (seed ${seed}) written to ${made.value.out} in ${seconds} s`,
          `  taskset.json sha256 ${made.value.manifestSha256}`,
          ...formatTasksetSummary(made.value.summary)
            .split("\n")
            .flatMap((line) => wrapLine(line, MAX_COLUMNS, "  ")),
        ];
        for (const s of made.value.skipped) lines.push(`no mutant: ${s.program}: ${s.reason}`);
        // The set is already validated by the grader; what is left is to run an agent on it (with
        // no --out, a run gets a new folder of its own under bench-runs/).
        lines.push(
          "next step: an agent on the new set (URL, NAME: your OpenAI-compatible server and its model)",
          ...shellLines(
            tcaCommand([
              "bench",
              "quixbugs",
              "run",
              "--dataset",
              made.value.out,
              "--endpoint",
              "URL",
              "--model",
              "NAME",
            ]),
          ),
        );
        process.stdout.write(`${lines.join("\n")}\n`);
      }
      setExitCode(0);
    });
}
