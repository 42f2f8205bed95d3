#!/usr/bin/env node
// The `tca` command. It runs the compiled lib/ when that build is fresh, else the TypeScript
// sources through tsx (a runtime dependency), so it works with or without a build step.
// `tca --help` and `tca --version` are answered here, from package.json and the plain-data
// group table, without loading tsx (which is most of the start-up time); the same table builds
// the same help in src/cli/main.ts, and a test compares the two outputs.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === "--help" || only === "-h" || only === "--version" || only === "-V") {
  const readJson = (relative) => JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8"));
  if (process.env.TCA_STARTUP_TRACE === "1") process.stderr.write("tca: start-up: bin/tca.js alone\n");
  const { version } = readJson("../package.json");
  if (only === "--version" || only === "-V") {
    process.stdout.write(`${version}\n`);
  } else {
    const { Command } = await import("commander");
    const table = readJson("../src/cli/commandGroups.json");
    const program = new Command(table.program.name)
      .description(table.program.description)
      .version(version, "-V, --version", "print the version");
    // The same help width as src/cli/main.ts: 100 columns, or a narrower terminal's width.
    const columns = process.stdout.columns;
    program.configureHelp({
      helpWidth: Math.min(100, columns !== undefined && columns > 0 ? columns : 100),
      minWidthToWrap: 20,
    });
    for (const group of table.groups)
      program.command(group.name).description(group.description).allowUnknownOption().helpOption(false);
    program.outputHelp();
  }
} else {
  // Every other command runs lib/ (src compiled to JavaScript by `npm run prepare`) when that
  // build is present and matches src/ byte for byte, else src/ through tsx exactly as without a
  // build: a fresh clone before prepare, an install without esbuild, and a developer who edits
  // src/ without rebuilding all get correct (only slower) runs, never stale code.
  // TCA_NO_COMPILED=1 forces src/ through tsx; TCA_STARTUP_TRACE=1 says on stderr which ran and why.
  const root = fileURLToPath(new URL("..", import.meta.url));
  const { compiledBuildStatus } = await import("./compiledBuild.js");
  const { hashTreeOnce } = await import("./treeHashOnce.js");
  const build =
    process.env.TCA_NO_COMPILED === "1"
      ? { fresh: false, reason: "TCA_NO_COMPILED=1" }
      : compiledBuildStatus(root, hashTreeOnce);
  if (process.env.TCA_STARTUP_TRACE === "1") {
    process.stderr.write(
      build.fresh ? "tca: start-up: compiled lib/\n" : `tca: start-up: src/ through tsx (${build.reason})\n`,
    );
  }
  if (build.fresh) {
    // The bundled command (lib/_cli/, compiledBuild.js's CLI_BUNDLE_DIRECTORY): the per-file
    // lib/cli/main.js runs the same code from a hundred files, which costs a start more CPU.
    const { main } = await import("../lib/_cli/main.js");
    process.exitCode = await main(argv);
  } else {
    const { register } = await import("tsx/esm/api");
    register();
    const { main } = await import("../src/cli/main.ts");
    process.exitCode = await main(argv);
  }
}
