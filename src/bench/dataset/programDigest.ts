// One program's grading inputs as one digest: the buggy program, the reference fix (the source of
// held-out expectations) and every support file its tests read. Each task's trace records it at
// task_start, so verify-run can refuse to re-grade against a data set that is not the one the run
// was graded on (another copy, an edited test file, a "fixed" buggy program).
import { createHash } from "node:crypto";
import {
  buggySource,
  referenceFixSource,
  supportFiles,
  targetPath,
  type QuixDataset,
  type QuixProgram,
} from "./dataset.ts";

export function programDigest(dataset: QuixDataset, program: QuixProgram): string {
  const files = [
    { path: targetPath(program.name), content: buggySource(dataset, program.name) },
    { path: `correct_python_programs/${program.name}.py`, content: referenceFixSource(dataset, program.name) },
    ...supportFiles(dataset, program),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.path}\0${createHash("sha256").update(file.content).digest("hex")}\n`);
  return hash.digest("hex");
}
