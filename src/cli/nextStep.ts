// The command a hint tells the user to run next, spelled so it works where they are (issue #28,
// item 13): `tca` when they started tca by that name (installed or linked on PATH), `npm run tca --`
// when the working directory is inside this checkout (npm finds its package.json from there),
// and `node <checkout>/bin/tca.js` anywhere else. Paths in hints are absolute, so any of the
// three works from the folder the user is in.
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** src/cli/nextStep.ts or lib/cli/nextStep.js: the checkout is two folders up either way. */
export const CHECKOUT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(real(root), real(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Shell-safe rendering of one word (single quotes unless it is plain). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

export interface InvocationContext {
  readonly cwd: string;
  /** process.argv[1]: the script node ran (bin/tca.js, or a `tca` link on PATH). */
  readonly script: string | undefined;
}

function currentContext(): InvocationContext {
  return { cwd: process.cwd(), script: process.argv[1] };
}

/** The words that start tca from `context`'s folder. */
export function tcaInvocation(context: InvocationContext = currentContext()): string {
  if (context.script !== undefined && basename(context.script) === "tca") return "tca";
  if (inside(context.cwd, CHECKOUT_ROOT)) return "npm run tca --";
  return `node ${shellWord(join(CHECKOUT_ROOT, "bin", "tca.js"))}`;
}

/** A full command line: the invocation, then the arguments, each shell-quoted. */
export function tcaCommand(args: readonly string[], context: InvocationContext = currentContext()): string {
  return [tcaInvocation(context), ...args.map(shellWord)].join(" ");
}

/**
 * A message from the library that names a tca command ("tca bench quixbugs fetch-dataset downloads
 * it"), with the invocation spelled for where the user is; only the words "tca " before a command
 * group are rewritten, never the arguments.
 */
export function localizedHints(message: string, context: InvocationContext = currentContext()): string {
  const invocation = tcaInvocation(context);
  if (invocation === "tca") return message;
  return message.replace(/(^|[\s(`])tca (?=(?:bench|engine|report|lab|model|expr|proposal) )/g, `$1${invocation} `);
}
