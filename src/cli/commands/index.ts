// One line per command group; each group lives in its own file so that the rooms stay apart.
import { Command } from "commander";
import { registerExprCommands } from "./expr.ts";
import { registerProposalCommands } from "./proposal.ts";
import { registerLabCommands } from "./lab.ts";
import { registerModelArtifactCommands } from "./modelArtifacts.ts";
import { registerModelEngineCommands } from "./modelEngine.ts";
import { registerBenchCommands } from "./bench.ts";
import { registerReportCommands } from "./report.ts";

/** Commands report their exit status through this callback instead of calling process.exit. */
export type SetExitCode = (code: number) => void;

export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  registerExprCommands(program, setExitCode);
  registerProposalCommands(program, setExitCode);
  registerLabCommands(program, setExitCode);
  const model = program.command("model").description("pinned model artifacts and the local inference engine");
  registerModelArtifactCommands(model, setExitCode);
  registerModelEngineCommands(model, setExitCode);
  registerBenchCommands(program, setExitCode);
  registerReportCommands(program, setExitCode);
}
