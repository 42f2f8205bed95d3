// tca model make-test-checkpoint | generate (issue 6). Thin layer: parses options, calls
// src/model/, prints. Output from synthetic checkpoints is labelled a pipeline check.
import path from "node:path";
import type { Command } from "commander";
import { makeTestCheckpoint } from "../../model/synthetic/makeTestCheckpoint.ts";
import { SYNTHETIC_SIZES, type SyntheticSize } from "../../model/synthetic/syntheticManifest.ts";
import { generateOnce, readInputIdsFile } from "../../model/worker/generateOnce.ts";
import type { GenerationInput } from "../../model/worker/protocol.ts";
import type { SetExitCode } from "./index.ts";

function fail(setExitCode: SetExitCode, code: string, message: string): void {
  process.stderr.write(`error: ${code}: ${message}\n`);
  setExitCode(1);
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

export function registerModelEngineCommands(program: Command, setExitCode: SetExitCode): void {
  program
    .command("make-test-checkpoint")
    .description("write a random-weight Qwen2 checkpoint in the pinned layout (synthetic: for tests and benchmarks only)")
    .requiredOption("--directory <dir>", "a new directory to create")
    .requiredOption("--size <size>", "tiny (a few MB) or full (the exact pinned shapes, ~988 MB)")
    .option("--seed <n>", "random seed (default 0)", "0")
    .action(async (options: { directory: string; size: string; seed: string }) => {
      if (!(SYNTHETIC_SIZES as readonly string[]).includes(options.size)) return fail(setExitCode, "input_invalid", "--size must be tiny or full");
      if (!/^\d{1,10}$/.test(options.seed)) return fail(setExitCode, "input_invalid", "--seed must be a non-negative integer");
      const result = await makeTestCheckpoint({
        directory: path.resolve(options.directory),
        size: options.size as SyntheticSize,
        seed: Number(options.seed),
        ...(options.size === "full" ? { onProgress: progressPrinter("writing weights") } : {}),
      });
      if (!result.ok) return fail(setExitCode, result.error, result.message);
      process.stdout.write(
        `${JSON.stringify({ directory: path.resolve(options.directory), synthetic: true, label: result.value.label, size: result.value.size, seed: result.value.seed, parameters: result.value.parameters }, null, 2)}\n`,
      );
    });

  program
    .command("generate")
    .description("generate once under the supervisor with the Lab's settings and print one JSON object")
    .requiredOption("--model-directory <dir>", "a verified pinned model directory or a synthetic checkpoint")
    .option("--system <text>", "system message (with --user)")
    .option("--user <text>", "user message (with --system)")
    .option("--input-ids <file>", "JSON array of token ids; skips the chat template")
    .action(async (options: { modelDirectory: string; system?: string; user?: string; inputIds?: string }) => {
      let input: GenerationInput;
      if (options.inputIds !== undefined) {
        if (options.system !== undefined || options.user !== undefined) return fail(setExitCode, "input_invalid", "use either --input-ids or --system/--user");
        const ids = await readInputIdsFile(path.resolve(options.inputIds));
        if (!ids.ok) return fail(setExitCode, ids.error, ids.message);
        input = { kind: "ids", ids: ids.value };
      } else {
        if (options.system === undefined || options.user === undefined) return fail(setExitCode, "input_invalid", "give --system and --user, or --input-ids");
        input = { kind: "messages", messages: [{ role: "system", content: options.system }, { role: "user", content: options.user }] };
      }
      const result = await generateOnce({ modelDirectory: path.resolve(options.modelDirectory), input });
      if (!result.ok) return fail(setExitCode, result.error, result.message);
      process.stdout.write(`${JSON.stringify(result.value)}\n`);
    });
}
