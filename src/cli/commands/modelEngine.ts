// tca model make-test-checkpoint | generate (issue 6). Thin layer: parses options, calls
// src/model/, prints. Output from synthetic checkpoints is labelled a pipeline check.
import path from "node:path";
import type { Command } from "commander";
import { makeTestCheckpoint } from "../../model/synthetic/makeTestCheckpoint.ts";
import {
  SYNTHETIC_MANIFEST_NAME,
  SYNTHETIC_SIZES,
  type SyntheticSize,
} from "../../model/synthetic/syntheticManifest.ts";
import { readFile } from "node:fs/promises";
import { makeRehearsalCheckpoint } from "../../model/rehearsal/makeRehearsalCheckpoint.ts";
import type { RehearsalSet } from "../../model/rehearsal/rehearsalWeights.ts";
import { tokenizeWithCheckpoint, type TokenizeInput } from "../../model/tokenizer/tokenizeText.ts";
import { generateOnce, readInputIdsFile } from "../../model/worker/generateOnce.ts";
import { describeGenerateProgress, describeGeneratedCall, watchElapsed } from "../runProgress.ts";
import type { ProgressNotice } from "../liveGeneration.ts";
import type { GenerationInput } from "../../model/worker/protocol.ts";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { inputDirectory, inputFile, newOutput, unusedPath } from "../pathArguments.ts";
import { exitOnInterrupt } from "../interruption.ts";
import { CHECKOUT_ROOT, shellLines, tcaCommand } from "../invocation.ts";
import { consentNeedsFlag } from "../downloadHints.ts";
import { formatCount } from "../../core/numberFormat.ts";

/** A new checkpoint folder: nothing there yet (destination_exists) and its parent a folder. */
function newCheckpointDirectory(directory: string): { ok: true } | { ok: false; error: string; message: string } {
  const checked = newOutput("--directory", directory, "choose a new --directory");
  if (checked.ok) return { ok: true };
  return {
    ok: false,
    error: checked.error === "output_exists" ? "destination_exists" : checked.error,
    message: checked.message,
  };
}

/** --model-directory must be a folder before anything loads; the code stays the engine's. */
function modelDirectoryGiven(directory: string): { ok: true } | { ok: false; error: string; message: string } {
  const checked = inputDirectory("--model-directory", directory);
  return checked.ok ? { ok: true } : { ok: false, error: "model_directory_invalid", message: checked.message };
}

function fail(setExitCode: SetExitCode, code: string, message: string): void {
  refusal(setExitCode, 1)(code, message);
}

function progressPrinter(label: string): (done: number, total: number) => void {
  let lastTenth = -1;
  return (done, total) => {
    const tenth = Math.floor((done / total) * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      process.stderr.write(`${label}: ${tenth * 10}%\n`);
    }
  };
}

/**
 * What a checkpoint's maker prints (make-test-checkpoint, make-rehearsal-checkpoint,
 * make-bench-rehearsal-checkpoint): where it is, what it is (its manifest has the rest), and the
 * one command that uses it, with a run folder that does not exist yet (unusedPath) and --yes where
 * the trial's consent cannot be asked (off a terminal). No JSON dump: the manifest is the record.
 */
export function checkpointText(directory: string, kind: RehearsalSet | "synthetic", parameters: number): string {
  const beside = path.dirname(directory);
  const labTrial = (runName: string): string =>
    tcaCommand([
      "lab",
      "model",
      "--run",
      unusedPath(path.join(beside, runName)),
      "--model-directory",
      directory,
      ...(consentNeedsFlag() ? ["--yes"] : []),
      "--without-predictions",
    ]);
  const next =
    kind === "lab"
      ? labTrial("rehearsal-run")
      : kind === "synthetic"
        ? labTrial("pipeline-run")
        : tcaCommand([
            "bench",
            "quixbugs",
            "run",
            "--backend",
            "local",
            "--model-directory",
            directory,
            "--dataset",
            path.join(CHECKOUT_ROOT, "test", "fixtures", "quixbugs-mini"),
            "--out",
            unusedPath(path.join(beside, "bench-rehearsal-run")),
          ]);
  const what = {
    lab: ["rehearsal checkpoint", "a Lab trial on it (labelled REHEARSAL)"],
    bench: ["rehearsal checkpoint", "the benchmark on the mini data set (labelled REHEARSAL)"],
    synthetic: ["synthetic checkpoint (random weights)", "a Lab trial on it (a pipeline check, never a model result)"],
  }[kind];
  return [
    `${what[0]} written to ${directory}`,
    `  ${formatCount(parameters)} parameters; its record: ${path.join(directory, SYNTHETIC_MANIFEST_NAME)}`,
    `next step: ${what[1]}`,
    ...shellLines(next),
    "",
  ].join("\n");
}

export function registerModelEngineCommands(program: Command, setExitCode: SetExitCode): void {
  program
    .command("make-test-checkpoint")
    .description(
      "write a random-weight Qwen2 checkpoint in the pinned layout (synthetic: for tests and benchmarks only)",
    )
    .requiredOption("--directory <dir>", "a new directory to create")
    .requiredOption("--size <size>", "tiny (a few MB) or full (the exact pinned shapes, ~988 MB)")
    .option("--seed <n>", "random seed (default 0)", "0")
    .option(
      "--tokenizer <kind>",
      "synthetic (default: the project's small BPE) or qwen2.5 (the stand-in derived from installed packages)",
      "synthetic",
    )
    .action(async (options: { directory: string; size: string; seed: string; tokenizer: string }) => {
      if (!(SYNTHETIC_SIZES as readonly string[]).includes(options.size))
        return fail(setExitCode, "input_invalid", "--size must be tiny or full");
      if (!/^\d{1,10}$/.test(options.seed))
        return fail(setExitCode, "input_invalid", "--seed must be a non-negative integer");
      if (options.tokenizer !== "synthetic" && options.tokenizer !== "qwen2.5")
        return fail(setExitCode, "input_invalid", "--tokenizer must be synthetic or qwen2.5");
      const destination = newCheckpointDirectory(path.resolve(options.directory));
      if (!destination.ok) return fail(setExitCode, destination.error, destination.message);
      // Ctrl-C: the folder did not exist (checked above), so all of it is this command's partial
      // output; it goes, rather than stay as weights without a manifest.
      const uninstall = exitOnInterrupt({
        command: "model make-test-checkpoint",
        partial: () => path.resolve(options.directory),
        rerun: tcaCommand(process.argv.slice(2)),
      });
      const result = await makeTestCheckpoint({
        directory: path.resolve(options.directory),
        size: options.size as SyntheticSize,
        seed: Number(options.seed),
        tokenizer: options.tokenizer === "qwen2.5" ? "qwen2.5-stand-in" : "synthetic-bpe",
        ...(options.size === "full" ? { onProgress: progressPrinter("writing weights") } : {}),
      });
      uninstall();
      if (!result.ok) return fail(setExitCode, result.error, result.message);
      process.stdout.write(checkpointText(path.resolve(options.directory), "synthetic", result.value.parameters));
    });

  program
    .command("generate")
    .description("generate once under the supervisor with the Lab's settings and print one JSON object")
    .requiredOption("--model-directory <dir>", "a verified pinned model directory or a synthetic checkpoint")
    .option("--system <text>", "system message (with --user)")
    .option("--user <text>", "user message (with --system)")
    .option("--input-ids <file>", "JSON array of token ids; skips the chat template")
    .action(async (options: { modelDirectory: string; system?: string; user?: string; inputIds?: string }) => {
      const model = modelDirectoryGiven(path.resolve(options.modelDirectory));
      if (!model.ok) return fail(setExitCode, model.error, model.message);
      let input: GenerationInput;
      if (options.inputIds !== undefined) {
        if (options.system !== undefined || options.user !== undefined)
          return fail(setExitCode, "input_invalid", "use either --input-ids or --system/--user");
        const idsFile = inputFile("--input-ids", path.resolve(options.inputIds));
        if (!idsFile.ok) return fail(setExitCode, "input_invalid", idsFile.message);
        const ids = await readInputIdsFile(path.resolve(options.inputIds));
        if (!ids.ok) return fail(setExitCode, ids.error, ids.message);
        input = { kind: "ids", ids: ids.value };
      } else {
        if (options.system === undefined || options.user === undefined)
          return fail(setExitCode, "input_invalid", "give --system and --user, or --input-ids");
        input = {
          kind: "messages",
          messages: [
            { role: "system", content: options.system },
            { role: "user", content: options.user },
          ],
        };
      }
      // Loading and one generation can take a minute on the full-size model: say so on a terminal.
      let loaded = false;
      const progress = watchElapsed((ms, live) => describeGenerateProgress(ms, loaded, live));
      const result = await generateOnce({
        modelDirectory: path.resolve(options.modelDirectory),
        input,
        onLoaded: () => (loaded = true),
        // Progress is asked of the worker only when a terminal shows it.
        ...(progress.active ? { onProgress: (notice: ProgressNotice) => progress.progress(notice) } : {}),
      });
      progress.stop(result.ok ? describeGeneratedCall(result.value) : undefined);
      if (!result.ok) return fail(setExitCode, result.error, result.message);
      process.stdout.write(`${JSON.stringify(result.value)}\n`);
    });

  const rehearsalCommands: readonly [string, RehearsalSet, string][] = [
    [
      "make-rehearsal-checkpoint",
      "lab",
      "write the rehearsal model (trained in-project on scripted transcripts; proves the model path, says nothing about any real model)",
    ],
    [
      "make-bench-rehearsal-checkpoint",
      "bench",
      "write the bench rehearsal model (trained in-project on the mini data set's agent transcripts; proves the benchmark's model path, says nothing about any real model)",
    ],
  ];
  for (const [name, set, description] of rehearsalCommands) {
    program
      .command(name)
      .description(description)
      .requiredOption("--directory <dir>", "a new directory to create")
      .action(async (options: { directory: string }) => {
        const destination = newCheckpointDirectory(path.resolve(options.directory));
        if (!destination.ok) return fail(setExitCode, destination.error, destination.message);
        const result = await makeRehearsalCheckpoint({ directory: path.resolve(options.directory), set });
        if (!result.ok) return fail(setExitCode, result.error, result.message);
        process.stderr.write(
          "REHEARSAL model: trained in-project on scripted transcripts; it proves the model path\n  and says nothing about any real model's ability.\n",
        );
        process.stdout.write(checkpointText(path.resolve(options.directory), set, result.value.parameters));
      });
  }

  program
    .command("tokenize")
    .description("print the token ids a checkpoint's tokenizer gives a text, or its chat template for --system/--user")
    .requiredOption("--model-directory <dir>", "a verified pinned model directory or a synthetic checkpoint")
    .option("--text <text>", "text to encode without special tokens")
    .option("--file <file>", "a UTF-8 file to encode without special tokens")
    .option("--system <text>", "system message (with --user): the rendered chat template is encoded")
    .option("--user <text>", "user message (with --system)")
    .action(
      async (options: { modelDirectory: string; text?: string; file?: string; system?: string; user?: string }) => {
        const given = [
          options.text !== undefined,
          options.file !== undefined,
          options.system !== undefined || options.user !== undefined,
        ].filter(Boolean).length;
        if (given !== 1)
          return fail(setExitCode, "input_invalid", "give exactly one of --text, --file, or --system with --user");
        const model = modelDirectoryGiven(path.resolve(options.modelDirectory));
        if (!model.ok) return fail(setExitCode, model.error, model.message);
        let input: TokenizeInput;
        if (options.system !== undefined || options.user !== undefined) {
          if (options.system === undefined || options.user === undefined)
            return fail(setExitCode, "input_invalid", "--system and --user go together");
          input = { kind: "chat", system: options.system, user: options.user };
        } else if (options.file !== undefined) {
          const file = inputFile("--file", path.resolve(options.file));
          if (!file.ok) return fail(setExitCode, "input_invalid", file.message);
          const bytes = await readFile(file.value).catch(() => null);
          if (bytes === null) return fail(setExitCode, "input_invalid", `--file ${file.value} could not be read`);
          const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
          let decoded: string;
          try {
            decoded = text.decode(bytes);
          } catch {
            return fail(setExitCode, "input_invalid", "--file is not valid UTF-8");
          }
          input = { kind: "text", text: decoded };
        } else {
          input = { kind: "text", text: options.text as string };
        }
        const result = await tokenizeWithCheckpoint(path.resolve(options.modelDirectory), input);
        if (!result.ok) return fail(setExitCode, result.error, result.message);
        process.stdout.write(`${JSON.stringify(result.value)}\n`);
      },
    );
}
