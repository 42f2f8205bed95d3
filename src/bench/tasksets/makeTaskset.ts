// make-taskset: a data set in QuixBugs layout whose buggy programs are new one-line mutants of the
// reference fixes (mutantSelection.ts), everything else copied byte for byte from the source
// data set, with a manifest (taskset.json) and a SOURCE.md. The output folder is claimed first
// (an exclusive, owner-only mkdir, so a second run or an existing folder is refused before any
// work), the set is written into a staging folder beside it and renamed over the still-empty
// claim only when complete: a reader never sees half a set, and nothing existing is replaced
// (rename onto a folder that is no longer empty fails). Nothing in the manifest depends on the
// machine, the time or the paths, so one seed gives byte-identical sets anywhere.
import { readFileSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { sha256Hex } from "../../core/digest.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { targetPath, type QuixDataset } from "../dataset/dataset.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { FAILURE_CHECK_CPU_FLOOR_S, FAILURE_CHECK_CPU_MULTIPLE, GRADER_ID } from "../grading/trustedGrader.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import {
  MAX_TRIES_PER_PROGRAM,
  selectMutants,
  TASKSET_HELD_OUT_SEED,
  type ChosenMutant,
  type ProgramSelection,
  type SkippedProgram,
} from "./mutantSelection.ts";
import { summarizeTaskset, type TasksetSummary } from "./tasksetSummary.ts";

export const TASKSET_MANIFEST = "taskset.json";
/** Files of the source set that describe it, not the new one: never copied. */
const NOT_COPIED = new Set(["SOURCE.md", "fetched.json", TASKSET_MANIFEST]);

export interface MakeTasksetOptions {
  readonly out: string;
  readonly seed: number;
  readonly jobs: number;
  readonly maxTries?: number;
  readonly onProgram?: (selection: ProgramSelection, done: number, total: number) => void;
  /** Told the staging folder's path once it exists, so a Ctrl-C handler can remove it with the claim. */
  readonly onStaging?: (path: string) => void;
}

export interface MakeTasksetResult {
  readonly out: string;
  readonly manifestSha256: string;
  readonly summary: TasksetSummary;
  readonly skipped: readonly SkippedProgram[];
}

interface TreeFile {
  readonly path: string;
  readonly content: Buffer;
}

/** Every regular file under root (POSIX relative paths, sorted); a link or special file is refused. */
async function readTree(root: string): Promise<Result<TreeFile[], BenchErrorCode>> {
  const files: TreeFile[] = [];
  const walk = async (rel: string): Promise<string | null> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        const problem = await walk(path);
        if (problem !== null) return problem;
      } else if (e.isFile()) files.push({ path, content: await readFile(join(root, path)) });
      else return path;
    }
    return null;
  };
  const odd = await walk("");
  if (odd !== null)
    return err(
      "dataset_invalid",
      `${join(root, odd)} is not a regular file or folder; a task set copies regular files only`,
    );
  return ok(files);
}

/** The data set's identity: SHA-256 of its sorted "sha256  path" lines. */
export function treeSha256(files: readonly TreeFile[]): string {
  return sha256Hex(
    [...files]
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .map((f) => `${sha256Hex(f.content)}  ${f.path}\n`)
      .join(""),
  );
}

function sourceText(name: string, seed: number, manifestFiles: number, covered: number, programs: number): string {
  return `# A generated QuixBugs-layout task set (seed ${seed})

Written by \`tca bench quixbugs make-taskset --seed ${seed}\` from the data set \`${name}\`, which derives
from **QuixBugs** (jkoppel/QuixBugs, MIT licence, Copyright 2017-2019 James Koppel; its \`LICENSE\`
is copied here when the source set has one).

Everything but the buggy programs is the source set's, byte for byte: the tests, the test data,
\`node.py\`, \`conftest.py\` and \`correct_python_programs/\`. Each buggy program
\`python_programs/<name>.py\` is new: the reference fix with exactly one line changed by one named
mutation operator (flip a comparison, change an operator or a constant, swap operands, an
off-by-one loop bound, negate a condition, remove a conditional, an assignment or a statement,
swap break/continue, use the wrong variable), chosen in an order fixed by the seed and kept only
if the trusted grader, in the sandbox, saw it fail at least one public case.

${covered} of ${programs} programs have a mutant. \`${TASKSET_MANIFEST}\` names, per program, the operator, the line
before and after, the failing public and held-out cases, and the programs without a valid mutant
with the reason; it lists the SHA-256 of all ${manifestFiles} other files.
`;
}

function mutantRecord(m: ChosenMutant): Record<string, unknown> {
  return {
    program: m.program,
    operator: m.operator,
    line: m.line,
    before: m.before,
    after: m.after,
    outcome: m.outcome,
    publicCases: m.publicCases,
    heldOutCases: m.heldOutCases,
    publicOnly: m.publicOnly,
    sameAsQuixBugs: m.sameAsQuixBugs,
    candidates: m.candidates,
    tried: m.tried,
  };
}

export async function makeTaskset(
  config: SandboxConfig,
  dataset: QuixDataset,
  options: MakeTasksetOptions,
): Promise<Result<MakeTasksetResult, BenchErrorCode>> {
  const { out } = options;
  if (
    await lstat(out).then(
      () => true,
      () => false,
    )
  )
    return err("output_exists", `${out} exists; make-taskset writes a new folder and replaces nothing`);
  const parent = await lstat(dirname(out)).catch(() => null);
  if (parent === null || !parent.isDirectory())
    return err("invalid_option", `the parent folder of --out, ${dirname(out)}, does not exist`);
  const source = await readTree(dataset.root);
  if (!source.ok) return source;
  try {
    await mkdir(out, { mode: 0o700 });
  } catch {
    return err(
      "output_exists",
      `${out} could not be created as a new folder (it appeared meanwhile, or the parent is not writable)`,
    );
  }
  let staging: string | null = null;
  let committed = false;
  try {
    const selected = await selectMutants(config, dataset, {
      seed: options.seed,
      jobs: options.jobs,
      ...(options.maxTries !== undefined ? { maxTries: options.maxTries } : {}),
      ...(options.onProgram ? { onProgram: options.onProgram } : {}),
    });
    if (!selected.ok) return selected;
    const byName = (a: { program: string }, b: { program: string }): number =>
      a.program < b.program ? -1 : a.program > b.program ? 1 : 0;
    const mutants = selected.value.flatMap((s) => (s.kind === "mutant" ? [s.mutant] : [])).sort(byName);
    const skipped = selected.value.flatMap((s) => (s.kind === "skipped" ? [s.skipped] : [])).sort(byName);
    if (mutants.length === 0)
      return err(
        "taskset_failed",
        `no program of ${dataset.root} has a valid mutant (${skipped.map((s) => `${s.program}: ${s.reason}`).join("; ")})`,
      );
    // A program without a mutant keeps its tests and reference but gets no buggy file, so the
    // set simply does not list it (loadDataset enumerates python_programs/).
    const replaced = new Set(dataset.programs.map((p) => targetPath(p.name)));
    const files: TreeFile[] = source.value.filter((f) => !NOT_COPIED.has(f.path) && !replaced.has(f.path));
    for (const m of mutants) files.push({ path: targetPath(m.program), content: m.source });
    const summary = summarizeTaskset(mutants, skipped);
    files.push({
      path: "SOURCE.md",
      content: Buffer.from(
        sourceText(basename(dataset.root), options.seed, files.length + 1, mutants.length, dataset.programs.length),
      ),
    });
    files.sort((a, b) => (a.path < b.path ? -1 : 1));
    const manifest = {
      kind: "tca-quixbugs-taskset",
      schema: 1,
      seed: options.seed,
      source: {
        name: basename(dataset.root),
        sha256: treeSha256(source.value),
        files: source.value.length,
        derivesFrom: "jkoppel/QuixBugs (MIT)",
      },
      validation: {
        grader: GRADER_ID,
        heldOutSeed: TASKSET_HELD_OUT_SEED,
        maxTriesPerProgram: options.maxTries ?? MAX_TRIES_PER_PROGRAM,
        // The rule of the mutants' per-case budget (the data set check's), not the budgets it gave
        // on this machine: those are measured, and nothing in the manifest depends on the host.
        caseCpuBudget: { referenceMultiple: FAILURE_CHECK_CPU_MULTIPLE, floorSeconds: FAILURE_CHECK_CPU_FLOOR_S },
      },
      summary,
      programs: mutants.map(mutantRecord),
      skipped,
      files: files.map((f) => ({ path: f.path, bytes: f.content.length, sha256: sha256Hex(f.content) })),
    };
    const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
    staging = await mkdtemp(join(dirname(out), ".partial-taskset-"));
    options.onStaging?.(staging);
    for (const f of [...files, { path: TASKSET_MANIFEST, content: Buffer.from(manifestText) }]) {
      const target = join(staging, ...f.path.split("/"));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, f.content, { flag: "wx", mode: 0o600 });
    }
    // The commit point: the staged set replaces the empty folder claimed above, or nothing happens.
    try {
      await rename(staging, out);
    } catch {
      return err("output_exists", `${out} is no longer the empty folder this command created; nothing was replaced`);
    }
    staging = null;
    committed = true;
    return ok({ out, manifestSha256: sha256Hex(manifestText), summary, skipped });
  } catch (e) {
    return err("taskset_failed", `writing the task set failed (${e instanceof Error ? e.message : String(e)})`);
  } finally {
    if (staging !== null) await rm(staging, { recursive: true, force: true });
    // The claim goes only if it is still the empty folder this command made (rmdir refuses otherwise).
    if (!committed) await rmdir(out).catch(() => undefined);
  }
}

export interface TasksetIdentity {
  readonly seed: number;
  readonly manifestSha256: string;
  readonly sourceSha256: string;
}

/** A generated set's identity (its seed and manifest hash), or null for a data set that is not one. */
export function readTasksetIdentity(root: string): TasksetIdentity | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, TASKSET_MANIFEST));
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { kind, seed, source } = parsed as Record<string, unknown>;
  if (kind !== "tca-quixbugs-taskset" || typeof seed !== "number" || typeof source !== "object" || source === null)
    return null;
  const sourceSha256 = (source as Record<string, unknown>).sha256;
  return typeof sourceSha256 === "string" ? { seed, manifestSha256: sha256Hex(bytes), sourceSha256 } : null;
}
