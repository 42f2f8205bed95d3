// The one printed form of a refused or failed command, everywhere:
//   tca <command>: <code>: <message>
// <command> is the full command path ("lab baseline", "bench quixbugs run"), <code> a stable
// snake_case code from the room that refused, <message> one line naming the path or value that
// failed. Tests match this form; scripts can split on the first two ": ".
import type { Command } from "commander";

/**
 * Codes of the command layer itself: usage_error (the arguments did not parse, or options that
 * belong together are missing), output_exists (an output path the command would create exists;
 * nothing is overwritten), input_incomplete (interactive input ended early; nothing recorded),
 * path_not_found / path_wrong_kind / path_unreadable (a path argument is missing or a dangling
 * symlink, a file where a folder is expected or the reverse, or cannot be read: pathArguments.ts),
 * unexpected_error (a command failed in a way it does not handle: a bug, still one line).
 */
export const CLI_ERROR_CODES = [
  "usage_error",
  "output_exists",
  "input_incomplete",
  "path_not_found",
  "path_wrong_kind",
  "path_unreadable",
  "unexpected_error",
] as const;
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** One line; a message is never allowed to add lines of its own (they are joined with "; "). */
export function formatCommandError(command: string, code: string, message: string): string {
  const oneLine = message
    .trim()
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join("; ");
  return `tca ${command}: ${code}: ${oneLine}\n`;
}

// The command whose action is running, set by main.ts's preAction hook, so that a command
// module's error line needs only its code and message.
let activeCommand = "";

export function setActiveCommand(path: string): void {
  activeCommand = path;
}

/** Writes the error line of the running command to stderr (stdout stays for results, also --json ones). */
export function printCommandError(code: string, message: string, stream: NodeJS.WritableStream = process.stderr): void {
  stream.write(formatCommandError(activeCommand, code, message));
}

export interface RefusalOptions {
  /** --json: the refusal as {"ok":false,"error","message"} on stdout, for a script, instead of the line. */
  readonly json?: boolean;
  /** Where the line goes (default stderr); a test's stream. */
  readonly stream?: NodeJS.WritableStream;
}

/**
 * The one refusal of every command: the error line (printCommandError) and the exit status, in
 * one call that an action returns: `return refuse(code, message)`. `exitCode` is the command
 * group's status for a refused invocation (the Lab's 2, the benchmark's and the model's 1).
 */
export function refusal(
  setExitCode: (code: number) => void,
  exitCode: number,
): (code: string, message: string, options?: RefusalOptions) => void {
  return (code, message, options = {}) => {
    if (options.json === true) process.stdout.write(JSON.stringify({ ok: false, error: code, message }) + "\n");
    else printCommandError(code, message, options.stream);
    setExitCode(exitCode);
  };
}

/** The command path of a commander command without the program name: "bench quixbugs run". */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null && current.parent !== null; current = current.parent)
    names.unshift(current.name());
  return names.join(" ");
}

/**
 * The deepest command that argv names (before any option), for argument errors that commander
 * raises before an action runs: "tca bench quixbugs run --jobs" -> "bench quixbugs run".
 */
export function commandPathFromArgv(program: Command, argv: readonly string[]): string {
  const names: string[] = [];
  let current = program;
  for (const word of argv) {
    if (word.startsWith("-")) break;
    const next = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) break;
    names.push(next.name());
    current = next;
  }
  return names.length > 0 ? names.join(" ") : "";
}

/** Commander's own messages start with "error: "; the code says that already. */
export function commanderMessage(text: string): string {
  return text.replace(/^error:\s*/i, "").trim();
}
