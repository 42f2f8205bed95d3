// Where `tca report RUN_DIR` writes by default, in a module of its own that imports nothing of the
// report builder, so a command's next-step hint can ask whether that file is there already
// without loading the builder (src/cli/invocation.ts, reportCommand).
import { basename, dirname, join, resolve } from "node:path";

/** <parent>/<run dir name>.report.html: next to the run directory, never inside it. */
export function defaultReportPath(runDirectory: string): string {
  const directory = resolve(runDirectory);
  return join(dirname(directory), `${basename(directory)}.report.html`);
}
