// The scripted baseline of Part 7 as one call: the six fixed proposals through runLab, watched
// for processes the whole time, so the run's own audit says whether any process (and so any
// model worker) was started. The CLI and the tests use this same function.
import { BASELINE_PROPOSALS } from "../constants/labConstants.ts";
import { runLab, type LabRunResult } from "./labRun.ts";
import { watchProcesses } from "./processWatch.ts";
import type { Result } from "../core/result.ts";
import { ScriptedSource } from "../sources/scriptedSource.ts";
import type { WorkspaceErrorCode } from "../workspace/errorCodes.ts";

export async function runScriptedBaseline(
  runDirectory: string,
  cancellation?: AbortSignal,
): Promise<Result<LabRunResult, WorkspaceErrorCode>> {
  const watch = watchProcesses();
  try {
    return await runLab({
      runDirectory,
      source: new ScriptedSource(BASELINE_PROPOSALS),
      kind: "scripted_baseline",
      cancellation,
      processWatch: watch,
    });
  } finally {
    watch.stop();
  }
}
