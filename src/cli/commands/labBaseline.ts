// tca lab baseline: the six scripted proposals in a fresh run directory, then the verdict
// re-derived from its audit. Loaded only when `tca lab baseline` runs (src/cli/commands/lab.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { unusedPath } from "../pathArguments.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { runScriptedBaseline } from "../../lab/scriptedBaseline.ts";
import { formatRunSummary, type NextStep } from "../../lab/runSummary.ts";
import { deriveRunVerdict } from "../../verdicts/runVerdict.ts";
import { LAB_REFUSED, runErrorMessage } from "./labRefusals.ts";

/** Options as commander parses them for `tca lab baseline` (src/cli/commands/lab.ts registers them). */
export interface LabBaselineOptions {
  run?: string;
  json?: boolean;
}

export async function runLabBaseline(options: LabBaselineOptions, setExitCode: SetExitCode): Promise<void> {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  const runDirectory = options.run ? resolve(options.run) : join(mkdtempSync(join(tmpdir(), "tca-baseline-")), "run");
  const cancel = new AbortController();
  const onSigint = (): void => cancel.abort();
  process.once("SIGINT", onSigint);
  try {
    const result = await runScriptedBaseline(runDirectory, cancel.signal);
    if (!result.ok) {
      return refuse(result.error, runErrorMessage(result.error, result.message, runDirectory));
    }
    // The exit status follows the verdict derived from the audit, never final.json alone; the
    // summary shows that same verdict (derived once).
    const verdict = deriveRunVerdict(result.value.runDirectory);
    process.stdout.write(
      options.json
        ? `${JSON.stringify(result.value.final, null, 2)}\n`
        : formatRunSummary(result.value.final, result.value.runDirectory, {
            nextSteps: baselineNextSteps(result.value.runDirectory),
            verdict,
          }),
    );
    setExitCode(verdict.kind === "verified_success" ? 0 : 1);
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

/** The baseline's next steps: see the run, then the negative checks beside it. */
function baselineNextSteps(runDirectory: string): NextStep[] {
  return [
    { what: "the run as an HTML page", command: reportCommand(runDirectory) },
    {
      what: "every negative check",
      command: tcaCommand(["lab", "checks", "--root", unusedPath(join(dirname(runDirectory), "checks"))]),
    },
  ];
}
