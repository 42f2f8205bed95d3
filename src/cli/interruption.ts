// What a command says when the user presses Ctrl-C: at once, that it is cancelling; at the end,
// that it was cancelled (exit 130, the shell's code for SIGINT), what was kept, and the next step.
// The texts are pure, so tests check them without sending signals; exitOnInterrupt is the one
// handler of the commands that cannot continue where they stopped.
import { existsSync, rmSync } from "node:fs";
import { formatCommandError } from "./commandError.ts";
import { tcaCommand, type InvocationFacts } from "./invocation.ts";

/** The exit status of a command stopped by Ctrl-C (128 + SIGINT). */
export const CANCELLED_EXIT_CODE = 130;

/** Printed the moment Ctrl-C arrives, before anything has stopped. */
export function cancellingNotice(command: string, what: string): string {
  return `tca ${command}: cancelling… (Ctrl-C) ${what}\n`;
}

/**
 * The command that continues a cancelled bench run: the same arguments, with --out naming the
 * run's folder and --resume (an earlier --out or --resume is replaced, never doubled).
 */
export function resumeCommand(argv: readonly string[], outDir: string, context?: InvocationFacts): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? "";
    if (word === "--resume") continue;
    if (word === "--out") {
      i += 1;
      continue;
    }
    if (word.startsWith("--out=")) continue;
    kept.push(word);
  }
  // Spelled to work from the folder the user is in: tca, npm run tca --, or node <checkout>/bin/tca.js.
  return tcaCommand([...kept, "--out", outDir, "--resume"], context);
}

/** The end of a cancelled bench run, instead of a summary that would read as complete. */
export function benchCancelledText(
  finishedTasks: number,
  outDir: string,
  argv: readonly string[],
  context?: InvocationFacts,
): string {
  return (
    `cancelled by Ctrl-C: ${finishedTasks} finished task${finishedTasks === 1 ? "" : "s"} recorded in ${outDir}; ` +
    "the tasks that were running are not graded and are redone on resume\n" +
    `continue with: ${resumeCommand(argv, outDir, context)}\n`
  );
}

/** The exit status of a command stopped by SIGTERM (128 + 15), as the shell reports it. */
export const TERMINATED_EXIT_CODE = 143;

export interface InterruptRule {
  /** The command path, e.g. "lab checks". */
  readonly command: string;
  /** What this command created and removes when stopped (a partial output), or null when it writes nothing. */
  readonly partial: () => string | null;
  /** Removes the partial output synchronously (it runs in the signal handler, just before exit). */
  readonly removePartial?: () => void;
  /** The command line that does the whole thing again (spelled by tcaCommand). */
  readonly rerun: string;
}

/**
 * The one line of a command stopped by Ctrl-C (or SIGTERM) that cannot continue where it stopped:
 * the tca error form (commandError.ts), what was removed, and the command that starts it again.
 */
export function interruptedText(
  command: string,
  signal: "SIGINT" | "SIGTERM",
  removed: string | null,
  rerun: string,
): string {
  const by = signal === "SIGINT" ? "Ctrl-C" : "SIGTERM";
  const left =
    removed === null ? "nothing was written" : `the partial output ${removed} was removed, nothing is left behind`;
  return formatCommandError(command, "cancelled", `stopped by ${by}; ${left}; run it again with: ${rerun}`);
}

/**
 * For the commands whose work cannot be continued (lab checks, verify-dataset, make-taskset,
 * model make-test-checkpoint): on SIGINT or SIGTERM the partial output is removed, the line above
 * printed, and the process exits 130 (143) at once, so no half-written folder blocks a rerun or
 * reads as a result. Child processes (sandboxes) die with this one (bwrap --die-with-parent).
 * `lab model` and `bench run` instead stop gracefully and keep a run that --resume or the
 * report continues (cancellingNotice, benchCancelledText). Returns the function that uninstalls it.
 */
export function exitOnInterrupt(rule: InterruptRule, exit: (code: number) => never = process.exit): () => void {
  const handle = (signal: "SIGINT" | "SIGTERM"): void => {
    const named = rule.partial();
    const partial = named !== null && existsSync(named) ? named : null;
    try {
      if (partial !== null) (rule.removePartial ?? (() => rmSync(partial, { recursive: true, force: true })))();
    } catch {
      // Reported below as not removed: the line then names what is left.
    }
    const removed = partial !== null && !existsSync(partial) ? partial : null;
    const text =
      partial !== null && removed === null
        ? formatCommandError(
            rule.command,
            "cancelled",
            `stopped by ${signal === "SIGINT" ? "Ctrl-C" : "SIGTERM"}; the partial output ${partial} could not be removed: remove it, then run it again with: ${rule.rerun}`,
          )
        : interruptedText(rule.command, signal, removed, rule.rerun);
    process.stderr.write(text);
    exit(signal === "SIGINT" ? CANCELLED_EXIT_CODE : TERMINATED_EXIT_CODE);
  };
  const onInt = (): void => handle("SIGINT");
  const onTerm = (): void => handle("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  return () => {
    process.removeListener("SIGINT", onInt);
    process.removeListener("SIGTERM", onTerm);
  };
}
