// The thin command layer: every command lives in its own module under src/cli/commands/
// and only parses arguments, calls library code and prints. No logic a test cannot reach
// without the CLI belongs here. Only the group that argv names is loaded (start-up time);
// the others appear in the help as placeholders with their descriptions.
import { Command, CommanderError } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import commandGroups from "./commandGroups.json" with { type: "json" };
import { COMMAND_GROUPS, registerCommandGroup, registerGroupPlaceholder } from "./commands/index.ts";
import {
  commanderMessage,
  commandPath,
  commandPathFromArgv,
  formatCommandError,
  setActiveCommand,
} from "./commandError.ts";

export const VERSION: string = packageJson.version;

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command(commandGroups.program.name)
    .description(commandGroups.program.description)
    .version(VERSION, "-V, --version", "print the version")
    .exitOverride();
  // Help fits 100 columns (a narrower terminal: its width), and long command names still get
  // their descriptions wrapped (commander's default stops wrapping below 40 free columns).
  // bin/tca.js answers a bare --help with the same settings; subcommands inherit them.
  program.configureHelp({ helpWidth: helpWidth(), minWidthToWrap: 20 });
  // Commander's own argument errors in the one error form, one line: the pointer to --help is in
  // it (commander's showHelpAfterError would add a second line); subcommands inherit this setting.
  program.configureOutput({
    outputError: (text, write) => {
      const path = commandPathFromArgv(program, argv);
      const help = ["tca", ...(path === "" ? [] : [path]), "--help"].join(" ");
      write(
        formatCommandError(path, "usage_error", `${commanderMessage(text)} (see ${help})`).replace(/^tca : /, "tca: "),
      );
    },
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
    // A failure no command handles is still one line in the one form, never a stack trace
    // (TCA_DEBUG=1 adds the stack for whoever fixes it); exit 70 is EX_SOFTWARE.
    process.stderr.write(
      formatCommandError(
        commandPathFromArgv(program, argv),
        "unexpected_error",
        `${describeUnexpected(error)} (a bug in tca; please report it)`,
      ).replace(/^tca : /, "tca: "),
    );
    if (process.env["TCA_DEBUG"] === "1" && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    return 70;
  }
  return exitCode;
}

/** 100 columns, or the terminal's width when it is narrower (the same rule as bin/tca.js). */
export function helpWidth(columns: number | undefined = process.stdout.columns): number {
  return Math.min(100, columns !== undefined && columns > 0 ? columns : 100);
}

/** The error's own words and, for a system error, its code and path (Node puts them on the error). */
function describeUnexpected(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const system = error as NodeJS.ErrnoException;
  if (typeof system.code === "string" && typeof system.path === "string")
    return `${system.code}: ${system.path}: ${system.syscall ?? "system call"} failed`;
  return error.message;
}
