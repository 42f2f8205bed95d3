// npm run bench:mutation [-- --dataset DIR] [--programs a,b] [--wide N] [--jobs N] — the held-out
// generators' mutation score. For every program, the task-set generator's one-line AST mutants
// of the reference fix (src/bench/tasksets/mutation_operators.py, called through
// mutationCandidates, never copied) are run, each in its own sandbox, on the public inputs, the
// held-out inputs (seed SEED) and N wide random inputs (the held-out generator with another seed,
// N confirmed cases). A mutant is EQUIVALENT when it fails no public case, no held-out case and
// gives, on every wide input where the reference answers and the independent implementation
// agrees, an answer the grader's own comparison accepts (differential testing). The table: mutants, equivalent, killed by
// public, killed only by held-out, survivors (non-equivalent, yet passing public and held-out:
// what the held-out generator misses). Slow (one sandbox per mutant): run it with nice.
// Then the KEPT mutants (test/fixtures/kept-mutants/<program>__<how>.py: wrong programs that
// held-out inputs drawn too narrowly once confirmed, issue #34), which must die on the public or
// held-out cases: one that survives is listed and the run exits 1.
import { mapWithConcurrency } from "../src/core/concurrency.ts";
import { defaultDatasetDir, loadDataset, referenceFixSource } from "../src/bench/dataset/dataset.ts";
import type { RunnerOutput } from "../src/bench/grading/caseResults.ts";
import { valueMatches } from "../src/bench/grading/caseResults.ts";
import { confirmHeldOut, heldOutCases, independentOracleSource } from "../src/bench/grading/heldOutCases.ts";
import { publicCases, type GradingCase } from "../src/bench/grading/publicCases.ts";
import { runOnInputs } from "../src/bench/grading/gradingRuns.ts";
import { resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { createSandboxConfig } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";
import { applyCandidate, mutationCandidates } from "../src/bench/tasksets/mutationCandidates.ts";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const KEPT_DIR = fileURLToPath(new URL("../test/fixtures/kept-mutants/", import.meta.url));
/** The kept mutants of a program: [file, source]. */
const keptMutants = (program: string): [string, string][] =>
  readdirSync(KEPT_DIR)
    .filter((f) => f.startsWith(`${program}__`) && f.endsWith(".py"))
    .sort()
    .map((f) => [f, readFileSync(`${KEPT_DIR}${f}`, "utf8")]);

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const ds = loadDataset(option("--dataset") ?? defaultDatasetDir());
const py = resolvePythonRuntime();
if (!ds.ok || !py.ok) throw new Error("bench setup: data set or python missing");
// A mutant that loops forever costs its per-case CPU limit once (the runner stops at the first
// case past it), so the limit is cut from 15 s to 1 s: every reference case graded here runs in
// well under that.
const sb = createSandboxConfig(py.value, { ...DEFAULT_SANDBOX_LIMITS, caseCpuSeconds: 1, timeoutMs: 40_000 });
if (!sb.ok) throw new Error(sb.message);
const sandbox = sb.value;
const dataset = ds.value;
const SEED = 20261201;
const WIDE_SEED = 777_000_111;
const WIDE = Number(option("--wide") ?? "300");
const JOBS = Number(option("--jobs") ?? "2");
const only = option("--programs")?.split(",");

interface Row {
  program: string;
  mutants: number;
  equivalent: number;
  killedByPublic: number;
  killedOnlyByHeldOut: number;
  survivors: number;
  survivorLines: string[];
  /** Each kept mutant: `file: killed by public | killed by held-out | SURVIVED`. */
  kept: string[];
}

/** Whether every case of the set passed in `output` (results at offset + k). */
function allPass(cases: readonly GradingCase[], offset: number, output: RunnerOutput): boolean {
  return cases.every((c, k) => {
    const r = output.results.get(offset + k);
    return r?.status === "ok" && r.value !== undefined && valueMatches(r.value, c.expected, c.compare);
  });
}

async function measure(programName: string): Promise<Row | string> {
  const program = dataset.programs.find((p) => p.name === programName);
  if (!program) return `${programName}: not in the data set`;
  const reference = referenceFixSource(dataset, programName);
  const candidates = await mutationCandidates(sandbox, programName, reference);
  if (!candidates.ok) return `${programName}: ${candidates.message}`;
  const pub = await publicCases(sandbox, dataset, program, false);
  if (!pub.ok) return `${programName}: ${pub.message}`;
  const held = (await heldOutCases(sandbox, dataset, program, SEED))?.cases ?? [];
  // The differential test's inputs and expected values: the reference's answers, confirmed by
  // the independent implementation exactly as held-out ones are (an input where the reference
  // raises, hangs or is wrong says nothing about a mutant and is left out).
  const wide =
    (await confirmHeldOut(sandbox, dataset, program, WIDE_SEED, WIDE, reference, independentOracleSource()))?.cases ??
    [];
  const row: Row = {
    program: programName,
    mutants: 0,
    equivalent: 0,
    killedByPublic: 0,
    killedOnlyByHeldOut: 0,
    survivors: 0,
    survivorLines: [],
    kept: [],
  };
  const inputs = [...pub.value.cases, ...held, ...wide].map((c) => c.input);
  await mapWithConcurrency(candidates.value, 1, async (candidate) => {
    const source = applyCandidate(reference, candidate);
    if (source === null) return;
    row.mutants++;
    const { output } = await runOnInputs(sandbox, dataset, program, source, inputs);
    if (!allPass(pub.value.cases, 0, output)) {
      row.killedByPublic++;
      return;
    }
    if (!allPass(held, pub.value.cases.length, output)) {
      row.killedOnlyByHeldOut++;
      return;
    }
    if (!allPass(wide, pub.value.cases.length + held.length, output)) {
      row.survivors++;
      row.survivorLines.push(`line ${candidate.line} ${candidate.op}: ${candidate.after.trim()}`);
    } else {
      row.equivalent++;
    }
  });
  for (const [file, source] of keptMutants(programName)) {
    const { output } = await runOnInputs(sandbox, dataset, program, source, inputs);
    row.kept.push(
      `${file}: ${!allPass(pub.value.cases, 0, output) ? "killed by public" : !allPass(held, pub.value.cases.length, output) ? "killed by held-out" : "SURVIVED"}`,
    );
  }
  return row;
}

const started = performance.now();
const names = dataset.programs.map((p) => p.name).filter((n) => !only || only.includes(n));
const results = await mapWithConcurrency(names, JOBS, async (name) => {
  const r = await measure(name);
  process.stderr.write(typeof r === "string" ? `${r}\n` : `${r.program}: ${r.mutants} mutants\n`);
  return r;
});
const rows = results.filter((r): r is Row => typeof r !== "string");
const header = ["program", "mutants", "equivalent", "killed_public", "killed_only_heldout", "survivors", "score"];
const score = (r: Omit<Row, "program" | "survivorLines" | "kept">): string => {
  // Share of the non-equivalent mutants that public misses which held-out kills.
  const open = r.killedOnlyByHeldOut + r.survivors;
  return open === 0 ? "-" : `${((100 * r.killedOnlyByHeldOut) / open).toFixed(0)}%`;
};
const table = rows.map((r) => [
  r.program,
  String(r.mutants),
  String(r.equivalent),
  String(r.killedByPublic),
  String(r.killedOnlyByHeldOut),
  String(r.survivors),
  score(r),
]);
const total = rows.reduce(
  (a, r) => ({
    mutants: a.mutants + r.mutants,
    equivalent: a.equivalent + r.equivalent,
    killedByPublic: a.killedByPublic + r.killedByPublic,
    killedOnlyByHeldOut: a.killedOnlyByHeldOut + r.killedOnlyByHeldOut,
    survivors: a.survivors + r.survivors,
  }),
  { mutants: 0, equivalent: 0, killedByPublic: 0, killedOnlyByHeldOut: 0, survivors: 0 },
);
table.push([
  "TOTAL",
  String(total.mutants),
  String(total.equivalent),
  String(total.killedByPublic),
  String(total.killedOnlyByHeldOut),
  String(total.survivors),
  score(total),
]);
const widths = header.map((_, i) => Math.max(header[i]!.length, ...table.map((row) => row[i]!.length)));
console.log(
  [header, ...table]
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n"),
);
console.log(
  `\nheld-out seed ${SEED}; differential test on ${WIDE} wide inputs per program (seed ${WIDE_SEED}); ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
for (const r of rows) for (const s of r.survivorLines) console.log(`survivor ${r.program}: ${s}`);
for (const r of results) if (typeof r === "string") console.log(`not measured: ${r}`);
const kept = rows.flatMap((r) => r.kept);
for (const line of kept) console.log(`kept mutant ${line}`);
if (kept.some((line) => line.endsWith("SURVIVED"))) process.exitCode = 1;
