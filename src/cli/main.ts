// The thin command layer: every command lives in its own module under src/cli/commands/
// and only parses arguments, calls library code and prints. No logic a test cannot reach
// without the CLI belongs here.
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index.ts";

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command("tca")
    .description("tiny-coding-agent: a controlled coding agent (Lab 16) and the QuixBugs benchmark")
    .exitOverride()
    .showHelpAfterError();
  let exitCode = 0;
  registerCommands(program, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
  return exitCode;
}
