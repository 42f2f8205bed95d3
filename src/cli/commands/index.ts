// The command groups, loaded lazily: a call imports only the module of the group it names, so
// that `tca expr eval …` does not load the model engine, the sandbox or the report builder.
// Each group lives in its own file so that the rooms stay apart. The group names and
// descriptions are plain data in ../commandGroups.json, which bin/tca.js also reads to answer
// `tca --help` and `tca --version` without loading any TypeScript.
import type { Command } from "commander";
import commandGroups from "../commandGroups.json" with { type: "json" };

/** Commands report their exit status through this callback instead of calling process.exit. */
export type SetExitCode = (code: number) => void;

export interface CommandGroup {
  readonly name: string;
  readonly description: string;
}

export const COMMAND_GROUPS: readonly CommandGroup[] = commandGroups.groups;

/** Registers one group's real commands. The import specifiers are literals, never derived from input. */
export async function registerCommandGroup(program: Command, name: string, setExitCode: SetExitCode): Promise<boolean> {
  switch (name) {
    case "expr":
      (await import("./expr.ts")).registerExprCommands(program, setExitCode);
      return true;
    case "proposal":
      (await import("./proposal.ts")).registerProposalCommands(program, setExitCode);
      return true;
    case "lab":
      (await import("./lab.ts")).registerLabCommands(program, setExitCode);
      return true;
    case "model": {
      const model = program.command("model").description(groupDescription("model"));
      const [artifacts, engine] = await Promise.all([import("./modelArtifacts.ts"), import("./modelEngine.ts")]);
      artifacts.registerModelArtifactCommands(model, setExitCode);
      engine.registerModelEngineCommands(model, setExitCode);
      return true;
    }
    case "bench":
      (await import("./bench.ts")).registerBenchCommands(program, setExitCode);
      return true;
    case "report":
      (await import("./report.ts")).registerReportCommands(program, setExitCode);
      return true;
    case "engine":
      (await import("./engine.ts")).registerEngineCommands(program, setExitCode);
      return true;
    default:
      return false;
  }
}

/** A group that is not loaded appears in the top-level help with its description only. */
export function registerGroupPlaceholder(program: Command, group: CommandGroup): void {
  program.command(group.name).description(group.description).allowUnknownOption().helpOption(false);
}

export function groupDescription(name: string): string {
  return COMMAND_GROUPS.find((g) => g.name === name)?.description ?? "";
}

/** Every group, eagerly (tests that inspect the whole command tree). */
export async function registerCommands(program: Command, setExitCode: SetExitCode): Promise<void> {
  for (const group of COMMAND_GROUPS) await registerCommandGroup(program, group.name, setExitCode);
}
