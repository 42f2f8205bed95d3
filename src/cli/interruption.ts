// What a command says when the user presses Ctrl-C: at once, that it is cancelling; at the end,
// that it was cancelled (exit 130, the shell's code for SIGINT), what was kept, and the next step.
// Pure text, so tests check it without sending signals.

/** The exit status of a command stopped by Ctrl-C (128 + SIGINT). */
export const CANCELLED_EXIT_CODE = 130;

/** Printed the moment Ctrl-C arrives, before anything has stopped. */
export function cancellingNotice(command: string, what: string): string {
  return `tca ${command}: cancelling… (Ctrl-C) ${what}\n`;
}

/** Shell-safe rendering of one argument (single quotes unless it is plain). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The command that continues a cancelled bench run: the same arguments, with --out naming the
 * run's folder and --resume (an earlier --out or --resume is replaced, never doubled).
 */
export function resumeCommand(argv: readonly string[], outDir: string): string {
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
  return ["tca", ...kept, "--out", outDir, "--resume"].map(shellWord).join(" ");
}

/** The end of a cancelled bench run, instead of a summary that would read as complete. */
export function benchCancelledText(finishedTasks: number, outDir: string, argv: readonly string[]): string {
  return (
    `cancelled by Ctrl-C: ${finishedTasks} finished task${finishedTasks === 1 ? "" : "s"} recorded in ${outDir}; ` +
    "the tasks that were running are not graded and are redone on resume\n" +
    `continue with: ${resumeCommand(argv, outDir)}\n`
  );
}
