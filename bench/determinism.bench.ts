// npm run bench:determinism [-- --runs N] [--levels idle,cpu-2x,cpu-4x,memory] [--case-cpu S]
//   [--run-cpu S] [--memory-mb M] [--dataset DIR] [--programs a,b]
// Issue #34: a grade is a function of the program alone. Grades a fixed set of programs (reference
// fixes; wrong fixes, among them bitcount's looping one; the SIGSTOP, SIGCHLD and sleep attackers;
// a held-out hang) --runs times under each load level (bench/loadLevels.ts: idle, busy loops at 2x
// and 4x the cores, memory pressure), the levels interleaved round by round, and prints each
// program's grade per level and run, then every disagreement: any difference in what the grade
// decides (gradeDecisions: the outcome, the reason, every count, every case's status, public and
// held-out). Exits 1 when there is one. --case-cpu/--run-cpu lower the budgets (the run's idle
// budget is --run-cpu too) to keep a round short; the defaults are the grading budgets
// (15 CPU-s per case, 60 CPU-s and 60 idle seconds per run). Asserts nothing about speed.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { buggySource, defaultDatasetDir, loadDataset, referenceFixSource } from "../src/bench/dataset/dataset.ts";
import { heldOutCases } from "../src/bench/grading/heldOutCases.ts";
import { gradeDecisions, gradeProgram, type TrustedGrade } from "../src/bench/grading/trustedGrader.ts";
import { resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { cpuAccounting, createSandboxConfig } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";
import { standardLevels } from "./loadLevels.ts";

const FIXTURES = fileURLToPath(new URL("../test/fixtures/determinism/", import.meta.url));
const KEPT = fileURLToPath(new URL("../test/fixtures/kept-mutants/", import.meta.url));
const SEED = 20_341;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
function numberOption(name: string, fallback: number): number {
  const text = option(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: a positive number, not ${text}`);
  return n;
}

interface Subject {
  readonly label: string;
  readonly program: string;
  readonly source: () => Buffer | string;
}

const fixture = (dir: string, file: string) => () => readFileSync(`${dir}${file}`);

const runs = numberOption("runs", 3);
const caseCpu = numberOption("case-cpu", DEFAULT_SANDBOX_LIMITS.caseCpuSeconds);
const runCpu = numberOption("run-cpu", DEFAULT_SANDBOX_LIMITS.timeoutMs / 1000);
const memoryBytes = numberOption("memory-mb", 4096) * (1 << 20);
const ds = loadDataset(option("dataset") ?? defaultDatasetDir());
const py = resolvePythonRuntime();
if (!ds.ok) throw new Error(`bench setup: ${ds.message} (--dataset DIR)`);
if (!py.ok) throw new Error(`bench setup: ${py.message}`);
const sb = createSandboxConfig(py.value, {
  ...DEFAULT_SANDBOX_LIMITS,
  caseCpuSeconds: caseCpu,
  timeoutMs: runCpu * 1000,
});
if (!sb.ok) throw new Error(sb.message);
const sandbox = sb.value;
const dataset = ds.value;
if (!cpuAccounting(sandbox))
  console.log("warning: no cgroup CPU count here: the budgets fall back to /proc and wall time");

const SUBJECTS: readonly Subject[] = [
  { label: "bitcount (reference)", program: "bitcount", source: () => referenceFixSource(dataset, "bitcount") },
  { label: "gcd (reference)", program: "gcd", source: () => referenceFixSource(dataset, "gcd") },
  { label: "sqrt (reference)", program: "sqrt", source: () => referenceFixSource(dataset, "sqrt") },
  { label: "bitcount (QuixBugs' bug: loops)", program: "bitcount", source: () => buggySource(dataset, "bitcount") },
  { label: "bitcount (low 50 bits only)", program: "bitcount", source: fixture(KEPT, "bitcount__low_50_bits.py") },
  {
    label: "bitcount (held-out hang)",
    program: "bitcount",
    source: fixture(FIXTURES, "bitcount__loops_above_2_45.py"),
  },
  { label: "gcd (SIGSTOP supervisor)", program: "gcd", source: fixture(FIXTURES, "gcd__sigstop_burn.py") },
  { label: "gcd (SIGCHLD children)", program: "gcd", source: fixture(FIXTURES, "gcd__sigchld_children.py") },
  { label: "gcd (50 s sleep)", program: "gcd", source: fixture(FIXTURES, "gcd__sleep_50.py") },
];
const only = option("programs")?.split(",");
const subjects = SUBJECTS.filter((s) => !only || only.includes(s.program));
const wanted = option("levels")?.split(",");
const levels = standardLevels(memoryBytes).filter((l) => !wanted || wanted.includes(l.name));
if (levels.length === 0 || subjects.length === 0) throw new Error("no level or no program selected");

const programOf = (name: string) => {
  const p = dataset.programs.find((x) => x.name === name);
  if (!p) throw new Error(`no program ${name} in ${dataset.root}`);
  return p;
};
// Held-out cases once, before any load (the reference's own run on them is not what is measured).
const heldOut = new Map<string, Awaited<ReturnType<typeof heldOutCases>>>();
for (const s of subjects)
  if (!heldOut.has(s.program)) heldOut.set(s.program, await heldOutCases(sandbox, dataset, programOf(s.program), SEED));

interface Observation {
  readonly level: string;
  readonly run: number;
  readonly grade: TrustedGrade;
  readonly wall: number;
  readonly load: number;
}
const observed = new Map<string, Observation[]>(subjects.map((s) => [s.label, []]));
const levelLoad = new Map<string, number[]>();

console.log(
  `determinism: ${subjects.length} programs x ${runs} runs x ${levels.length} levels (${levels.map((l) => `${l.name}: ${l.description}`).join("; ")})`,
);
console.log(
  `budgets: ${caseCpu} CPU-s per case, ${runCpu} CPU-s and ${runCpu} idle s per run; held-out seed ${SEED}; data set ${dataset.root}`,
);
for (let run = 1; run <= runs; run++) {
  for (const level of levels) {
    const stop = await level.start();
    try {
      for (const s of subjects) {
        const t = performance.now();
        const grade = await gradeProgram(sandbox, dataset, programOf(s.program), s.source(), {
          heldOut: heldOut.get(s.program) ?? null,
        });
        const wall = (performance.now() - t) / 1000;
        const load = loadavg()[0] ?? 0;
        observed.get(s.label)?.push({ level: level.name, run, grade, wall, load });
        levelLoad.set(level.name, [...(levelLoad.get(level.name) ?? []), load]);
        console.log(
          `  run ${run} ${level.name.padEnd(7)} ${s.label.padEnd(34)} ${short(grade)}  (${wall.toFixed(1)} s wall, ${cpu(grade)} CPU-s, load ${load.toFixed(1)})`,
        );
      }
    } finally {
      await stop();
    }
  }
}

/** Case statuses run-length encoded for the table (PPPTMM → P3TM2); the comparison uses them whole. */
function rle(statuses: string): string {
  return statuses.replace(/(.)\1*/g, (m, c: string) => (m.length > 1 ? `${c}${m.length}` : c));
}

function short(g: TrustedGrade): string {
  const held = g.heldOut ? ` h${g.heldOut.passed}/${g.heldOut.total}:${rle(g.heldOut.statuses)}` : "";
  return `${g.outcome}${g.fixedPublic ? "*" : ""} ${g.counts.passed}/${g.counts.failed}/${g.counts.errors} ${rle(g.public.statuses)}${held}`;
}

function cpu(g: TrustedGrade): string {
  const total = (g.usage.public?.cpuSeconds ?? 0) + (g.usage.heldOut?.cpuSeconds ?? 0);
  return total.toFixed(2);
}

// The table: one row per program, one column per level, the distinct grades seen there (xN).
console.log(
  "\ngrades (outcome, * = fixed (public), passed/failed/errors, public case statuses, held-out passed/total:statuses)",
);
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(
  `load average (1 min) while grading: ${levels.map((l) => `${l.name} ${mean(levelLoad.get(l.name) ?? []).toFixed(1)}`).join(", ")}`,
);
let disagreements = 0;
for (const s of subjects) {
  const obs = observed.get(s.label) ?? [];
  const first = obs[0];
  if (!first) continue;
  const reference = JSON.stringify(gradeDecisions(first.grade));
  const cells = levels.map((l) => {
    const here = obs.filter((o) => o.level === l.name);
    const kinds = new Map<string, number>();
    for (const o of here) kinds.set(short(o.grade), (kinds.get(short(o.grade)) ?? 0) + 1);
    const walls = here.map((o) => o.wall);
    return `${l.name}: ${[...kinds].map(([k, n]) => `${k} x${n}`).join(" | ")} [${Math.min(...walls).toFixed(1)}-${Math.max(...walls).toFixed(1)} s]`;
  });
  console.log(`${s.label}\n    ${cells.join("\n    ")}`);
  for (const o of obs.slice(1)) {
    const d = gradeDecisions(o.grade);
    if (JSON.stringify(d) === reference) continue;
    disagreements++;
    const a = gradeDecisions(first.grade);
    const fields = Object.keys(d).filter((k) => JSON.stringify(d[k]) !== JSON.stringify(a[k]));
    console.log(
      `    DISAGREEMENT run ${o.run} ${o.level} vs run ${first.run} ${first.level}: ${fields.map((k) => `${k}: ${JSON.stringify(a[k])} -> ${JSON.stringify(d[k])}`).join("; ")}`,
    );
  }
}
const total = subjects.length * runs * levels.length;
console.log(`\n${total} grades, ${disagreements} disagreeing with their program's first grade`);
process.exitCode = disagreements === 0 ? 0 : 1;
