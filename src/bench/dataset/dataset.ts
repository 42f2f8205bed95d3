// The QuixBugs data set on disk (the Python half): which programs exist, which support files
// each program's tests need, and the bytes of each. Read-only: nothing here writes.
// The data set is never copied into this repository. The default location is the copy that
// `tca bench quixbugs fetch-dataset` verified into the user's cache, else ../shared/quixbugs
// beside the checkout (development and CI); users can always pass --dataset.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";

/** How a program's tests get their data: JSON lines, the Node class, or inline in the test. */
export type TestDataKind = "json" | "node" | "inline";

export interface QuixProgram {
  readonly name: string;
  readonly kind: TestDataKind;
}

export interface QuixDataset {
  readonly root: string;
  readonly programs: readonly QuixProgram[];
}

/** One file as it appears in a task folder: relative path (POSIX) and bytes. */
export interface TaskFile {
  readonly path: string;
  readonly content: Buffer;
}

/** Program names become file names; anything outside this pattern is refused. */
const PROGRAM_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The pinned upstream commit (jkoppel/QuixBugs, MIT) that fetch-dataset downloads. */
export const QUIXBUGS_COMMIT = "4257f44b0ff1181dedaedee6a447e133219fcebf";

/** Only the variables the cache location depends on. */
export interface CacheEnvironment {
  readonly XDG_CACHE_HOME?: string | undefined;
  readonly HOME?: string | undefined;
}

/** `$XDG_CACHE_HOME/tiny-coding-agent` (XDG base directories), else `~/.cache/tiny-coding-agent`. */
export function projectCacheDir(env: CacheEnvironment = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg !== undefined && xdg !== "" && xdg.startsWith("/")) return join(xdg, "tiny-coding-agent");
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  return join(home, ".cache", "tiny-coding-agent");
}

/** Where fetch-dataset puts the verified data set; the folder exists only once it is complete. */
export function fetchedDatasetDir(env: CacheEnvironment = process.env): string {
  return join(projectCacheDir(env), `quixbugs-${QUIXBUGS_COMMIT}`);
}

/** ../shared/quixbugs beside the repository root (development and CI). */
export function besideCheckoutDatasetDir(): string {
  // src/bench/dataset/dataset.ts -> repository root -> ../shared/quixbugs
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
  return resolve(repoRoot, "..", "shared", "quixbugs");
}

/** The benchmark's default --dataset: the fetched copy when there is one, else ../shared/quixbugs. */
export function defaultDatasetDir(env: CacheEnvironment = process.env): string {
  const fetched = fetchedDatasetDir(env);
  return existsSync(fetched) ? fetched : besideCheckoutDatasetDir();
}

export function targetPath(program: string): string {
  return `python_programs/${program}.py`;
}

export function testFilePath(program: string): string {
  return `python_testcases/test_${program}.py`;
}

export function loadDataset(root: string): Result<QuixDataset, BenchErrorCode> {
  const abs = resolve(root);
  if (!existsSync(abs)) {
    return err(
      "dataset_missing",
      `the data set folder ${abs} does not exist (tca bench quixbugs fetch-dataset downloads it; --dataset chooses another)`,
    );
  }
  if (!statSync(abs).isDirectory())
    return err("dataset_invalid", `the data set ${abs} is a file, not a folder (--dataset takes the QuixBugs folder)`);
  for (const required of [
    "conftest.py",
    "python_programs",
    "correct_python_programs",
    "python_testcases",
    "json_testcases",
  ]) {
    if (!existsSync(join(abs, required))) {
      return err("dataset_invalid", `the data set ${abs} has no ${required}`);
    }
  }
  const programs: QuixProgram[] = [];
  const names = readdirSync(join(abs, "python_programs"))
    .filter((f) => f.endsWith(".py"))
    .map((f) => f.slice(0, -3))
    // node.py is a helper; *_test.py are legacy drivers for upstream's tester.py, not programs.
    .filter((n) => n !== "node" && !n.endsWith("_test"))
    .sort();
  for (const name of names) {
    if (!PROGRAM_NAME.test(name)) {
      return err("dataset_invalid", `unexpected program file name: ${name}`);
    }
    for (const rel of [testFilePath(name), `correct_python_programs/${name}.py`]) {
      if (!existsSync(join(abs, rel))) {
        return err("dataset_invalid", `program ${name} has no ${rel}`);
      }
    }
    const testSource = readFileSync(join(abs, testFilePath(name)), "utf8");
    let kind: TestDataKind = "inline";
    if (existsSync(join(abs, "json_testcases", `${name}.json`))) {
      kind = "json";
    } else if (/^from node import Node$/m.test(testSource)) {
      kind = "node";
    }
    programs.push({ name, kind });
  }
  if (programs.length === 0) {
    return err("dataset_invalid", "the data set has no programs");
  }
  return ok({ root: abs, programs });
}

export function findProgram(dataset: QuixDataset, name: string): Result<QuixProgram, BenchErrorCode> {
  const found = dataset.programs.find((p) => p.name === name);
  return found ? ok(found) : err("unknown_program", `no program named ${JSON.stringify(name)}`);
}

/** The buggy program's bytes. */
export function buggySource(dataset: QuixDataset, program: string): Buffer {
  return readFileSync(join(dataset.root, targetPath(program)));
}

/** The reference fix's bytes. Only the dataset check and grading helpers may call this. */
export function referenceFixSource(dataset: QuixDataset, program: string): Buffer {
  return readFileSync(join(dataset.root, "correct_python_programs", `${program}.py`));
}

/**
 * The support files a program's tests need, excluding the target program itself:
 * conftest.py, the test file and its helpers/data. Never the reference fix, never the
 * legacy *_test.py drivers.
 */
export function supportFiles(dataset: QuixDataset, program: QuixProgram): TaskFile[] {
  const rels = ["conftest.py", testFilePath(program.name)];
  if (program.kind === "json") {
    rels.push("python_testcases/load_testdata.py", `json_testcases/${program.name}.json`);
  } else if (program.kind === "node") {
    rels.push("python_testcases/node.py");
  }
  return rels.map((path) => ({ path, content: readFileSync(join(dataset.root, path)) }));
}
