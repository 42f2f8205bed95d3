// A `tca` with only the report command registered, for the CLI tests to spawn (the lead wires
// the command into src/cli/commands/index.ts; this entry keeps the tests independent of that).
import { Command } from "commander";
import { registerReportCommands } from "../../src/cli/commands/report.ts";

const program = new Command("tca").exitOverride();
let exitCode = 0;
registerReportCommands(program, (code) => {
  exitCode = code;
});
program
  .parseAsync(process.argv.slice(2), { from: "user" })
  .then(() => {
    process.exitCode = exitCode;
  })
  .catch(() => {
    process.exitCode = 2;
  });
