// Child script of outputWidth.test.ts: walks every command's --help through main() in one process
// (tens of commands; a process each would take most of a minute) and prints one JSON object,
// command path -> help text. stdout is captured while main() runs and restored to print the result.
// Plain JavaScript on the compiled lib/ when it is fresh (test/support/projectModules.mjs), so the walk
// does not load tsx and transpile the whole CLI.
import { compiled } from "../support/projectModules.mjs";

const { main } = compiled ? await import("../../lib/cli/main.js") : await import("../../src/cli/main.ts");
async function captured(argv) {
  const write = process.stdout.write.bind(process.stdout);
  let text = "";
  process.stdout.write = (chunk) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  };
  try {
    await main(argv);
  } finally {
    process.stdout.write = write;
  }
  return text;
}
/** The subcommand names a help text lists under "Commands:". */
function subcommands(help) {
  const section = help.split("\nCommands:\n")[1] ?? "";
  return section
    .split("\n")
    .map((line) => /^ {2}([a-z][a-z0-9-]*)\b/.exec(line)?.[1])
    .filter((name) => name !== undefined && name !== "help");
}
const helps = {};
const queue = [[]];
while (queue.length > 0) {
  const path = queue.shift() ?? [];
  const help = await captured([...path, "--help"]);
  helps[path.join(" ")] = help;
  for (const name of subcommands(help)) queue.push([...path, name]);
}
process.stdout.write(JSON.stringify(helps) + "\n");
