// How to write a `tca …` command that works where the user is (issue 28, item 13). A hint that
// says `tca report DIR` is useless when `tca` is not on PATH, and `npm run tca -- …` fails from
// a folder outside the checkout; so the prefix is decided from how this process was started:
//   - through `npm run tca` from inside the checkout (npm sets npm_lifecycle_event and INIT_CWD,
//     the folder the user typed it in): `npm run tca -- …`, which works again from there;
//   - through a `tca` on PATH that is this very checkout's bin/tca.js: `tca …`;
//   - otherwise: `node /abs/path/bin/tca.js …`, which works from any folder.
// Only the terminal sees these hints; nothing here ever reaches a model or the evidence.
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { shellWord } from "../core/shellWord.ts";
import { defaultReportPath } from "../report/reportPath.ts";

/** The checkout this code runs from (src/cli/ or lib/cli/ are two levels below it). */
export const CHECKOUT_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const PACKAGE_ROOT = CHECKOUT_ROOT;
const BIN_PATH = join(PACKAGE_ROOT, "bin", "tca.js");

export interface InvocationFacts {
  /** process.argv[1]: the script path node was given (not resolved through links). */
  readonly script: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The first `tca` on PATH, or null. */
function tcaOnPath(pathVariable: string | undefined): string | null {
  for (const folder of (pathVariable ?? "").split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, "tca");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** A shell word: quoted only when it needs to be (one rule with the report's commands, src/core/shellWord.ts). */
export { shellWord };

/** The command prefix (without a trailing space) that runs this tca from where the user is. */
function currentFacts(): InvocationFacts {
  return { script: process.argv[1], env: process.env, cwd: process.cwd() };
}

export function tcaCommandPrefix(facts: InvocationFacts = currentFacts()): string {
  const realBin = realpathOrNull(BIN_PATH) ?? BIN_PATH;
  const userCwd = facts.env["INIT_CWD"];
  if (facts.env["npm_lifecycle_event"] === "tca" && userCwd !== undefined) {
    // `npm run` finds package.json upwards from where it is typed: it works again anywhere in the checkout.
    const realUserCwd = realpathOrNull(userCwd) ?? userCwd;
    if (inside(realpathOrNull(PACKAGE_ROOT) ?? PACKAGE_ROOT, realUserCwd)) return "npm run tca --";
  }
  // Under npm (run or exec) PATH has node_modules/.bin added: not the PATH the user's shell has.
  if (facts.script !== undefined && basename(facts.script) === "tca" && facts.env["npm_command"] === undefined) {
    const onPath = tcaOnPath(facts.env["PATH"]);
    if (onPath !== null && realpathOrNull(onPath) === realBin) return "tca";
  }
  return `node ${shellWord(realBin)}`;
}

/** One whole command: `tcaCommand(["report", dir])` → e.g. `node /checkout/bin/tca.js report /tmp/lab/run`. */
export function tcaCommand(args: readonly string[], facts?: InvocationFacts): string {
  return [tcaCommandPrefix(facts), ...args.map(shellWord)].join(" ");
}

/**
 * A library message that names a tca command ("tca bench quixbugs fetch-dataset downloads it"),
 * with the command spelled for where the user is; only the word "tca " before a command group is
 * rewritten, never the arguments or other mentions of the name.
 */
export function localizedHints(message: string, facts: InvocationFacts = currentFacts()): string {
  const prefix = tcaCommandPrefix(facts);
  if (prefix === "tca") return message;
  return message.replace(/(^|[\s(`])tca (?=(?:bench|engine|report|lab|model|expr|proposal) )/g, `$1${prefix} `);
}

/**
 * The next step "see it as an HTML page": `tca report DIR`, with --force when DIR's report is
 * already there (a resumed run, a re-verified one), since the plain command would be refused
 * with output_exists; the report is rebuilt from the evidence, so replacing it loses nothing.
 */
export function reportCommand(runDirectory: string): string {
  return tcaCommand(["report", runDirectory, ...(existsSync(defaultReportPath(runDirectory)) ? ["--force"] : [])]);
}

/**
 * A command to copy, as shell lines of at most `width` columns where it can: broken before an
 * option ("--x …") with a trailing " \" so that pasting the lines runs the same command. A single
 * word longer than the width (a long path) stays whole: a command is never cut inside a word.
 */
export function shellLines(command: string, width = 100, indent = "  "): string[] {
  const parts = command.split(/ (?=--)/);
  const lines: string[] = [];
  let current = `${indent}${parts[0] ?? ""}`;
  for (const part of parts.slice(1)) {
    if (current.length + 1 + part.length + 2 > width) {
      lines.push(`${current} \\`);
      current = `${indent}    ${part}`;
    } else current = `${current} ${part}`;
  }
  lines.push(current);
  return lines;
}
