// What a command says when the user presses Ctrl-C: at once, that it is cancelling; at the end,
// that it was cancelled (exit 130, the shell's code for SIGINT), what was kept, and the next step.
// The texts are pure, so tests check them without sending signals; exitOnInterrupt is the one
// handler of the commands that cannot continue where they stopped.
import { existsSync, mkdirSync, rmdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { formatCommandError } from "./commandError.ts";
import { tcaCommand, type InvocationFacts } from "./invocation.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  acquireRunFolderLock,
  describeHolder,
  THIS_PROCESS,
  type LockFacts,
  type RunLockErrorCode,
} from "../core/runFolderLock.ts";

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
  /** The command line that does the whole thing again (spelled by tcaCommand), or continues it (with `kept`). */
  readonly rerun: string;
  /** For a command whose output is kept and continued (a bench run on SIGTERM): what was kept. */
  readonly kept?: string;
  /** The signals handled (default both); a command that stops gracefully on Ctrl-C handles SIGTERM only. */
  readonly signals?: readonly ("SIGINT" | "SIGTERM")[];
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
      rule.kept !== undefined
        ? formatCommandError(
            rule.command,
            "cancelled",
            `stopped by ${signal === "SIGINT" ? "Ctrl-C" : "SIGTERM"}; ${rule.kept}; continue with: ${rule.rerun}`,
          )
        : partial !== null && removed === null
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
  const signals = rule.signals ?? ["SIGINT", "SIGTERM"];
  if (signals.includes("SIGINT")) process.once("SIGINT", onInt);
  if (signals.includes("SIGTERM")) process.once("SIGTERM", onTerm);
  return () => {
    process.removeListener("SIGINT", onInt);
    process.removeListener("SIGTERM", onTerm);
  };
}

/** A run folder this command holds: its lock, and release(), which also removes the folders it created while still empty. */
export interface HeldRunFolder {
  readonly release: () => void;
}

/**
 * One writer per run folder (src/core/runFolderLock.ts), for every command that writes one: the
 * folder is created when `create` says so and it is missing (its parents too: the caller has
 * applied the output rule already), its lock taken, a stale lock's takeover reported in one line
 * on stderr, and the lock released on every way out: release() on the command's own paths, the
 * process's exit on process.exit (exitOnInterrupt's Ctrl-C and SIGTERM) and after an unhandled
 * error. A refusal (run_folder_locked, run_lock_invalid) leaves the folder as it was.
 */
export function holdRunFolder(
  command: string,
  folder: string,
  options: { readonly create?: boolean; readonly facts?: LockFacts; readonly stderr?: (line: string) => void } = {},
): Result<HeldRunFolder, RunLockErrorCode> {
  const created = options.create === true && !existsSync(folder) ? mkdirSync(folder, { recursive: true }) : undefined;
  const removeCreated = (): void => {
    if (created === undefined) return;
    // Deepest first, up to the first folder this command made; a folder with anything in it stays.
    for (let dir = folder; ; dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        return;
      }
      if (dir === created) return;
    }
  };
  const lock = acquireRunFolderLock(folder, command, options.facts ?? THIS_PROCESS);
  if (!lock.ok) {
    removeCreated();
    return err(lock.error, lock.message);
  }
  if (lock.value.tookOverFrom !== null)
    (options.stderr ?? ((line) => process.stderr.write(line)))(
      `tca ${command}: took over the writer's lock of ${folder} left by ${describeHolder(lock.value.tookOverFrom)}, which is no longer running\n`,
    );
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener("exit", release);
    lock.value.release();
    removeCreated();
  };
  process.once("exit", release);
  return ok({ release });
}
