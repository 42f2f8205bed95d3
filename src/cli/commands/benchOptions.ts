// The bench commands' shared option parsing and error printing (bench.ts, benchRun.ts).
import { refusal } from "../commandError.ts";
import { localizedHints } from "../invocation.ts";
import type { SetExitCode } from "./index.ts";

// One parser for every bench command (src/bench/benchRunSetup.ts, where the run's options are checked).
export { positiveInt, programList } from "../../bench/benchRunSetup.ts";

/** A bench command's refusal (exit 1); a hint naming another tca command is spelled to work from the user's folder (invocation.ts). */
export function fail(setExitCode: SetExitCode, code: string, message: string, json: boolean): void {
  refusal(setExitCode, 1)(code, json ? message : localizedHints(message), { json });
}

export interface VerifyFlags {
  dataset?: string;
  json?: boolean;
  jobs?: string;
  includeSlow?: boolean;
  testTimeout?: string;
  programs?: string;
}
