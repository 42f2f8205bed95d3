// tca model make-test-checkpoint/generate (issue 6). Placeholder registration until the group is built; it adds no command.
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";

export function registerModelEngineCommands(program: Command, setExitCode: SetExitCode): void {
  void program;
  void setExitCode;
}
