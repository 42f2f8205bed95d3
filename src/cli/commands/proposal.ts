// tca proposal (issue 3). Placeholder registration until the group is built; it adds no command.
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";

export function registerProposalCommands(program: Command, setExitCode: SetExitCode): void {
  void program;
  void setExitCode;
}
