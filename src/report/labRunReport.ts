// The report of a Lab run alone: the reader `tca report` uses once it has seen a Lab run, and
// that reportBuilder.ts lists for every kind. Nothing of the checks or bench readers is loaded.
import { readLabReport } from "./labReport.ts";
import type { RunReader, RunReaders } from "./reportFile.ts";

/** A Lab run's body: its report data with the recorded requests, the model check if one was made. */
export const readLabRunBody: RunReader = (directory, options) => ({
  kind: "lab",
  lab: readLabReport(directory, {
    includeRequests: true,
    ...(options.modelCheck === undefined ? {} : { modelCheck: options.modelCheck }),
  }),
});

export const LAB_RUN_READERS: RunReaders = { lab: readLabRunBody };
