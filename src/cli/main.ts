// The thin command layer: every command lives in its own module under src/cli/commands/
// and only parses arguments, calls library code and prints. No logic a test cannot reach
// without the CLI belongs here. Only the group that argv names is loaded (start-up time);
// the others appear in the help as placeholders with their descriptions.
import { Command, CommanderError } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import commandGroups from "./commandGroups.json" with { type: "json" };
import { COMMAND_GROUPS, registerCommandGroup, registerGroupPlaceholder } from "./commands/index.ts";
import { commanderMessage, commandPath, commandPathFromArgv, formatCommandError, setActiveCommand } from "./commandError.ts";

export const VERSION: string = packageJson.version;

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command(commandGroups.program.name)
    .description(commandGroups.program.description)
    .version(VERSION, "-V, --version", "print the version")
    .exitOverride()
    .showHelpAfterError("(add --help for usage)");
  // Commander's own argument errors in the one error form; subcommands inherit this setting.
  program.configureOutput({
    outputError: (text, write) => write(formatCommandError(commandPathFromArgv(program, argv) || "", "usage_error", commanderMessage(text)).replace(/^tca : /, "tca: ")),
  });
  program.hook("preAction", (_program, actionCommand) => {
    setActiveCommand(commandPath(actionCommand));
  });
  let exitCode = 0;
  const setExitCode = (code: number): void => {
    exitCode = code;
  };
  const requested = argv[0] === "help" ? argv[1] : argv[0];
  for (const group of COMMAND_GROUPS) {
    if (group.name === requested) await registerCommandGroup(program, group.name, setExitCode);
    else registerGroupPlaceholder(program, group);
  }
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
