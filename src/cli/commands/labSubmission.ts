// tca lab submission: submission.md from the evidence of the runs given, written beside the baseline
// run unless --out says where.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { newOutput } from "../pathArguments.ts";
import { submissionPathProblem } from "../labPathArguments.ts";
import { defaultSubmissionPath } from "../downloadHints.ts";
import { LAB_REFUSED } from "./labRefusals.ts";

/** Options as commander parses them for `tca lab submission` (src/cli/commands/lab.ts registers them). */
export interface LabSubmissionOptions {
  baseline: string;
  model?: string;
  extension: string[];
  blocked?: string;
  checks?: string;
  predictions?: string;
  out?: string;
}

export async function runLabSubmission(options: LabSubmissionOptions, setExitCode: SetExitCode): Promise<void> {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  // --blocked says no trial could run: a trial given beside it would be dropped or contradicted.
  if (options.blocked !== undefined && (options.model !== undefined || options.extension.length > 0))
    return refuse(
      "usage_error",
      `--blocked says the model stage could not run, but ${options.model !== undefined ? `--model ${resolve(options.model)}` : "--extension"} ` +
        `gives a trial: give --model (and --extension) for a trial that ran, or --blocked REASON alone`,
    );
  // Beside the runs, never into the current directory (often the git checkout) unless asked.
  const pathProblem = submissionPathProblem({
    baseline: resolve(options.baseline),
    model: options.model ? resolve(options.model) : null,
    extensions: options.extension.map((directory) => resolve(directory)),
    checks: options.checks ? resolve(options.checks) : null,
    predictions: options.predictions ? resolve(options.predictions) : null,
  });
  if (pathProblem !== null) return refuse(pathProblem.error, pathProblem.message);
  const checkedOut = newOutput(
    "--out",
    resolve(options.out ?? defaultSubmissionPath(resolve(options.baseline))),
    "choose another path with --out FILE",
  );
  if (!checkedOut.ok) return refuse(checkedOut.error, checkedOut.message);
  const out = checkedOut.value;
  const { buildSubmissionCheckingModels } = await import("../../verdicts/submission/writeSubmission.ts");
  const built = await buildSubmissionCheckingModels({
    baselineDirectory: resolve(options.baseline),
    modelDirectory: options.model ? resolve(options.model) : null,
    checksDirectory: options.checks ? resolve(options.checks) : null,
    predictionsPath: options.predictions ? resolve(options.predictions) : null,
    blockedReason: options.blocked ?? null,
    extensionDirectories: options.extension.map((directory) => resolve(directory)),
  });
  if (!built.ok) return refuse(built.error, built.message);
  writeFileSync(out, built.value, { flag: "wx", mode: 0o600 });
  process.stdout.write(`submission written: ${out}\n`);
}
