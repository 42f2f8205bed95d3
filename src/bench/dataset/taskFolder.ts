// A fresh temporary task folder on the host: only the target program (with the given bytes)
// and its test support files. Reference fixes and legacy *_test.py drivers are never written.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { supportFiles, targetPath, type QuixDataset, type QuixProgram, type TaskFile } from "./dataset.ts";

export interface TaskFolder {
  /** The folder bound at /task inside the sandbox. */
  readonly dir: string;
  remove(): void;
}

export function writeTaskFiles(dir: string, files: readonly TaskFile[]): void {
  for (const file of files) {
    const abs = join(dir, ...file.path.split("/"));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, file.content);
  }
}

export function createTaskFolder(
  dataset: QuixDataset,
  program: QuixProgram,
  targetContent: Buffer | string,
): TaskFolder {
  const outer = mkdtempSync(join(tmpdir(), `tca-task-${program.name}-`));
  const dir = join(outer, "task");
  mkdirSync(dir);
  writeTaskFiles(dir, [
    ...supportFiles(dataset, program),
    { path: targetPath(program.name), content: Buffer.from(targetContent) },
  ]);
  return { dir, remove: () => rmSync(outer, { recursive: true, force: true }) };
}
