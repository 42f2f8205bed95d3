// What a command says when the user presses Ctrl-C: at once, that it is cancelling; at the end,
// that it was cancelled (exit 130, the shell's code for SIGINT), what was kept, and the next step.
// Pure text, so tests check it without sending signals.
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
