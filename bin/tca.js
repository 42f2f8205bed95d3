#!/usr/bin/env node
// The `tca` command. The project runs its TypeScript sources through tsx (a runtime
// dependency), so this file works right after `npm install` with no build step.
// `tca --help` and `tca --version` are answered here, from package.json and the plain-data
// group table, without loading tsx (which is most of the start-up time); the same table builds
// the same help in src/cli/main.ts, and a test compares the two outputs.
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === "--help" || only === "-h" || only === "--version" || only === "-V") {
  const readJson = (relative) => JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8"));
  const { version } = readJson("../package.json");
  if (only === "--version" || only === "-V") {
    process.stdout.write(`${version}\n`);
  } else {
    const { Command } = await import("commander");
    const table = readJson("../src/cli/commandGroups.json");
    const program = new Command(table.program.name).description(table.program.description).version(version, "-V, --version", "print the version");
    for (const group of table.groups) program.command(group.name).description(group.description).allowUnknownOption().helpOption(false);
    program.outputHelp();
  }
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../src/cli/main.ts");
  process.exitCode = await main(argv);
}
