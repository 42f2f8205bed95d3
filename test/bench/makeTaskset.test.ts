// make-taskset end to end through the CLI, in the real sandbox, on the project's own mini data
// set (always present): byte-identical output for one seed, exactly one changed line per program,
// every mutant failing public cases, a set that verify-dataset and run accept, refusals that
// change nothing, and an exclusive --out. The real data set (when ../shared is there): one seed.
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { after, describe } from "node:test";
import { tca, TCA_BIN, type CliResult } from "../support/tcaCli.ts";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MINI_DATASET_DIR, realQuixBugs } from "../support/optionalResources.ts";
import { startRoutedServer } from "./scriptedChatServer.ts";
import { prepareBenchEnvironment } from "../../src/bench/benchEnvironment.ts";
import { makeTaskset } from "../../src/bench/tasksets/makeTaskset.ts";
import { selectMutants } from "../../src/bench/tasksets/mutantSelection.ts";
import { FAILURE_CHECK_CPU_FLOOR_S } from "../../src/bench/grading/trustedGrader.ts";
import { verifyDataset } from "../../src/bench/grading/verifyDataset.ts";

/** Every file under root, relative path → bytes. */
function tree(root: string, rel = ""): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) for (const [p, b] of tree(root, path)) found.set(p, b);
    else found.set(path, readFileSync(join(root, path)));
  }
  return found;
}

function changedLines(a: Buffer, b: Buffer): number[] {
  const x = a.toString("utf8").split("\n");
  const y = b.toString("utf8").split("\n");
  const out: number[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) out.push(i + 1);
  return out;
}

interface ManifestProgram {
  program: string;
  operator: string;
  line: number;
  before: string;
  after: string;
  outcome: string;
  publicCases: { failing: number; total: number };
  heldOutCases: { failing: number; total: number } | null;
  publicOnly: boolean;
  sameAsQuixBugs: boolean;
}
interface Manifest {
  seed: number;
  source: { name: string; sha256: string };
  programs: ManifestProgram[];
  skipped: { program: string; reason: string }[];
  files: { path: string; bytes: number; sha256: string }[];
}

const sha = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

// The expensive fixtures, made once per file and shared by the tests that only read them: the
// CLI's seed-7 set of the mini data set (about 2 CPU-s of sandboxed grading per set; the first
// test checks it in full, two others read it: a run on it, and its gcd planted in a copy) and
// one bench environment (its sandbox self-test) for the in-process selections.
const shared = mkdtempSync(join(tmpdir(), "tca-taskset-shared-"));
after(() => rmSync(shared, { recursive: true, force: true }));

let seven: Promise<{ readonly dir: string; readonly made: CliResult }> | undefined;
/** `make-taskset --dataset <mini> --seed 7 --jobs 2`, as the first test types it. */
function seedSevenSet(): Promise<{ readonly dir: string; readonly made: CliResult }> {
  const dir = join(shared, "seed-7");
  seven ??= tca([
    "bench",
    "quixbugs",
    "make-taskset",
    "--dataset",
    MINI_DATASET_DIR,
    "--seed",
    "7",
    "--out",
    dir,
    "--jobs",
    "2",
  ]).then((made) => ({ dir, made }));
  return seven;
}

let environment: ReturnType<typeof prepareBenchEnvironment> | undefined;
function miniEnvironment(): ReturnType<typeof prepareBenchEnvironment> {
  environment ??= prepareBenchEnvironment(MINI_DATASET_DIR);
  return environment;
}

/** The properties every generated set must have, checked against its source data set. */
function checkGeneratedSet(source: string, out: string, seed: number): Manifest {
  const manifest = JSON.parse(readFileSync(join(out, "taskset.json"), "utf8")) as Manifest;
  assert.equal(manifest.seed, seed);
  assert.match(manifest.source.sha256, /^[0-9a-f]{64}$/);
  assert.equal(statSync(out).mode & 0o777, 0o700, "owner-only");
  const generated = tree(out);
  const original = tree(source);
  // The manifest lists every file but itself, with its real hash.
  assert.deepEqual(
    manifest.files.map((f) => f.path).sort(),
    [...generated.keys()].filter((p) => p !== "taskset.json").sort(),
  );
  for (const f of manifest.files) assert.equal(f.sha256, sha(generated.get(f.path) ?? Buffer.alloc(0)), f.path);
  const programs = new Set(manifest.programs.map((p) => p.program));
  // Everything but the buggy programs (and the source's own description) is the source's, byte for byte.
  for (const [path, bytes] of original) {
    if (path === "SOURCE.md" || path === "fetched.json") continue;
    const m = /^python_programs\/([a-z0-9_]+)\.py$/.exec(path);
    if (m && (programs.has(m[1] ?? "") || manifest.skipped.some((s) => s.program === m[1]))) continue;
    assert.ok(generated.get(path)?.equals(bytes), `${path} is copied byte for byte`);
  }
  assert.match(generated.get("SOURCE.md")?.toString("utf8") ?? "", /QuixBugs[\s\S]*MIT/);
  for (const p of manifest.programs) {
    const mutant = generated.get(`python_programs/${p.program}.py`);
    const reference = original.get(`correct_python_programs/${p.program}.py`);
    assert.ok(mutant && reference, p.program);
    assert.deepEqual(changedLines(reference, mutant), [p.line], `${p.program}: exactly the manifest's line differs`);
    assert.equal(reference.toString("utf8").split("\n")[p.line - 1], p.before);
    assert.equal(mutant.toString("utf8").split("\n")[p.line - 1], p.after);
    assert.ok(
      p.publicCases.failing >= 1 && p.publicCases.failing <= p.publicCases.total,
      `${p.program} fails at least one public case`,
    );
    assert.equal(p.publicOnly, p.heldOutCases === null || p.heldOutCases.failing === 0);
  }
  for (const s of manifest.skipped) assert.ok(!generated.has(`python_programs/${s.program}.py`) && s.reason.length > 0);
  return manifest;
}

// The tests are independent (each its own scratch folder; the shared fixtures above are only
// read): two at a time, so the mini data set's tests overlap the real data set's long one.
describe("make-taskset", { concurrency: 2 }, () => {
  sandboxTest(
    "make-taskset on the mini data set: one seed, byte-identical sets; one changed line per program; verify-dataset passes on it",
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-"));
      try {
        const { dir: aDir, made: a } = await seedSevenSet();
        assert.equal(a.code, 0, a.err);
        assert.match(a.out, /programs covered: 5\/5/);
        assert.match(a.out, /failing public cases per mutant: /);
        // The newcomer's next step: run an agent on the new set (the run makes its own new folder).
        const next = a.out.slice(a.out.indexOf("next step: "));
        assert.equal(
          next.replace(/ \\\n {6}/g, " "),
          "next step: an agent on the new set (URL, NAME: your OpenAI-compatible server and its model)\n" +
            `  node ${TCA_BIN} bench quixbugs run --dataset ${aDir} --endpoint URL --model NAME\n`,
        );
        const b = await tca([
          "bench",
          "quixbugs",
          "make-taskset",
          "--dataset",
          MINI_DATASET_DIR,
          "--seed",
          "7",
          "--out",
          join(scratch, "b"),
          "--jobs",
          "1",
        ]);
        assert.equal(b.code, 0, b.err);
        const ta = tree(aDir);
        const tb = tree(join(scratch, "b"));
        assert.deepEqual([...ta.keys()].sort(), [...tb.keys()].sort());
        for (const [path, bytes] of ta) assert.ok(tb.get(path)?.equals(bytes), `${path} is byte-identical across runs`);
        const manifest = checkGeneratedSet(MINI_DATASET_DIR, aDir, 7);
        assert.equal(manifest.programs.length, 5);
        // Another seed gives another set (the seed is used, not ignored).
        const c = await tca([
          "bench",
          "quixbugs",
          "make-taskset",
          "--dataset",
          MINI_DATASET_DIR,
          "--seed",
          "8",
          "--out",
          join(scratch, "c"),
          "--jobs",
          "2",
        ]);
        assert.equal(c.code, 0, c.err);
        const other = JSON.parse(readFileSync(join(scratch, "c", "taskset.json"), "utf8")) as Manifest;
        assert.notDeepEqual(
          other.programs.map((p) => [p.line, p.after]),
          manifest.programs.map((p) => [p.line, p.after]),
        );
        // The generated set is a data set: every mutant fails, every reference fix passes.
        const v = await tca(["bench", "quixbugs", "verify-dataset", "--dataset", aDir, "--json", "--jobs", "2"]);
        assert.equal(v.code, 0, v.out);
        const report = JSON.parse(v.out) as {
          ok: boolean;
          programs: number;
          buggyFailing: number;
          fixesPassing: number;
        };
        assert.deepEqual([report.ok, report.programs, report.buggyFailing, report.fixesPassing], [true, 5, 5, 5]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );

  sandboxTest(
    "make-taskset validates a mutant on the data set check's budget: a looping bitcount mutant stops at the reference-derived per-case budget, not the grading one's 15 CPU-s",
    async () => {
      const env = await miniEnvironment();
      assert.ok(env.ok, env.ok ? "" : env.message);
      const { sandbox, dataset } = env.value;
      const only = { ...dataset, programs: dataset.programs.filter((p) => p.name === "bitcount") };
      // Seed 25 tries the mini bitcount's `n >>= 1` removed first: a loop on every input but 0.
      const selected = await selectMutants(sandbox, only, { seed: 25, jobs: 1 });
      assert.ok(selected.ok);
      const [s] = selected.value;
      assert.ok(s?.kind === "mutant", JSON.stringify(s));
      assert.deepEqual([s.mutant.operator, s.mutant.line, s.mutant.outcome], ["remove_assignment", 6, "timeout"]);
      // Every public case but bitcount(0) loops; the run stops at the first loop, the rest never run.
      assert.deepEqual(s.mutant.publicCases, { failing: 5, total: 6 });
      // The reference's slowest bitcount case takes milliseconds: the budget is the floor, far below 15.
      assert.equal(s.mutant.caseCpuSeconds, FAILURE_CHECK_CPU_FLOOR_S);
      assert.ok(s.mutant.caseCpuSeconds < sandbox.limits.caseCpuSeconds);
      // The same rule as the data set check's, from one function: verify-dataset records the same budget.
      const report = await verifyDataset(sandbox, only, { jobs: 1 });
      assert.equal(report.records[0]?.buggyCaseCpuSeconds, s.mutant.caseCpuSeconds);
    },
  );

  sandboxTest("make-taskset skips a candidate equal to QuixBugs' own bug when another candidate is valid", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-same-"));
    try {
      const { dir: firstDir, made: first } = await seedSevenSet();
      assert.equal(first.code, 0, first.err);
      const chosen = (JSON.parse(readFileSync(join(firstDir, "taskset.json"), "utf8")) as Manifest).programs.find(
        (p) => p.program === "gcd",
      );
      assert.ok(chosen && !chosen.sameAsQuixBugs);
      // A data set whose own gcd bug is exactly the mutant seed 7 picked: seed 7 must now pick another.
      const planted = join(scratch, "planted");
      cpSync(MINI_DATASET_DIR, planted, { recursive: true });
      copyFileSync(join(firstDir, "python_programs", "gcd.py"), join(planted, "python_programs", "gcd.py"));
      const second = await tca([
        "bench",
        "quixbugs",
        "make-taskset",
        "--dataset",
        planted,
        "--seed",
        "7",
        "--out",
        join(scratch, "second"),
        "--jobs",
        "2",
      ]);
      assert.equal(second.code, 0, second.err);
      const again = (
        JSON.parse(readFileSync(join(scratch, "second", "taskset.json"), "utf8")) as Manifest
      ).programs.find((p) => p.program === "gcd");
      assert.ok(again && !again.sameAsQuixBugs);
      assert.notDeepEqual([again.line, again.after], [chosen.line, chosen.after]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  sandboxTest("make-taskset refuses bad input with one line in the project's form, and creates nothing", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-bad-"));
    try {
      const out = join(scratch, "out");
      for (const seed of ["-1", "1.5", "abc", "", "+3", "1e3", "99999999999999999"]) {
        const r = await tca([
          "bench",
          "quixbugs",
          "make-taskset",
          "--dataset",
          MINI_DATASET_DIR,
          "--seed",
          seed,
          "--out",
          out,
        ]);
        assert.equal(r.code, 1, `seed ${JSON.stringify(seed)}`);
        assert.match(r.err, /^tca bench quixbugs make-taskset: invalid_option: --seed .*\n$/);
        assert.equal(existsSync(out), false);
      }
      const noLayout = join(scratch, "not-quixbugs");
      mkdirSync(noLayout);
      writeFileSync(join(noLayout, "conftest.py"), "");
      const layout = await tca([
        "bench",
        "quixbugs",
        "make-taskset",
        "--dataset",
        noLayout,
        "--seed",
        "1",
        "--out",
        out,
      ]);
      assert.equal(layout.code, 1);
      assert.match(
        layout.err,
        /^tca bench quixbugs make-taskset: dataset_invalid: .*not-quixbugs has no python_programs\n$/,
      );
      const missing = await tca([
        "bench",
        "quixbugs",
        "make-taskset",
        "--dataset",
        join(scratch, "nowhere"),
        "--seed",
        "1",
        "--out",
        out,
      ]);
      assert.match(missing.err, /^tca bench quixbugs make-taskset: dataset_missing: /);
      assert.equal(existsSync(out), false);
      const noParent = await tca([
        "bench",
        "quixbugs",
        "make-taskset",
        "--dataset",
        MINI_DATASET_DIR,
        "--seed",
        "1",
        "--out",
        join(scratch, "no", "such"),
      ]);
      // The one output rule: the folder is made, never its parents; the refusal gives the mkdir.
      assert.equal(
        noParent.err,
        `tca bench quixbugs make-taskset: path_not_found: --out ${join(scratch, "no", "such")}: its parent ${join(scratch, "no")} does not exist (create it first, e.g. mkdir -p ${join(scratch, "no")})\n`,
      );
      // An existing --out, a folder or a file, is refused and left exactly as it was.
      mkdirSync(join(scratch, "taken"));
      writeFileSync(join(scratch, "taken", "mine.txt"), "keep");
      writeFileSync(join(scratch, "file"), "keep");
      for (const taken of [join(scratch, "taken"), join(scratch, "file")]) {
        const r = await tca([
          "bench",
          "quixbugs",
          "make-taskset",
          "--dataset",
          MINI_DATASET_DIR,
          "--seed",
          "1",
          "--out",
          taken,
        ]);
        assert.equal(r.code, 1);
        assert.match(
          r.err,
          /^tca bench quixbugs make-taskset: output_exists: --out .* exists; it is never overwritten \(make-taskset writes a new folder and replaces nothing\)\n$/,
        );
      }
      assert.equal(readFileSync(join(scratch, "taken", "mine.txt"), "utf8"), "keep");
      assert.deepEqual(readdirSync(join(scratch, "taken")), ["mine.txt"]);
      assert.equal(readFileSync(join(scratch, "file"), "utf8"), "keep");
      // Nothing staged is left behind by any refusal.
      assert.deepEqual(
        readdirSync(scratch).filter((n) => n.startsWith(".partial")),
        [],
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  sandboxTest("make-taskset's --out is exclusive: two runs racing for one folder, exactly one writes it", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-race-"));
    try {
      const out = join(scratch, "set");
      const args = (seed: string): string[] => [
        "bench",
        "quixbugs",
        "make-taskset",
        "--dataset",
        MINI_DATASET_DIR,
        "--seed",
        seed,
        "--out",
        out,
        "--jobs",
        "1",
      ];
      const [r1, r2] = await Promise.all([tca(args("1")), tca(args("2"))]);
      assert.deepEqual([r1.code, r2.code].sort(), [0, 1], `${r1.err}${r2.err}`);
      const loser = r1.code === 1 ? r1 : r2;
      assert.match(loser.err, /^tca bench quixbugs make-taskset: output_exists: /);
      const winnerSeed = r1.code === 0 ? 1 : 2;
      checkGeneratedSet(MINI_DATASET_DIR, out, winnerSeed);
      assert.deepEqual(readdirSync(scratch), ["set"]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  sandboxTest(
    "run and compare accept a generated set unchanged and name it: a scripted model that writes the reference fix fixes the generated bug",
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-run-"));
      const fixed = readFileSync(join(MINI_DATASET_DIR, "correct_python_programs", "gcd.py"), "utf8");
      const server = await startRoutedServer(() => ({ content: "```python\n" + fixed + "```" }));
      try {
        const { dir: set, made } = await seedSevenSet();
        assert.equal(made.code, 0, made.err);
        const r = await tca([
          "bench",
          "quixbugs",
          "run",
          "--endpoint",
          server.endpoint,
          "--model",
          "scripted",
          "--conditions",
          "A",
          "--programs",
          "gcd",
          "--out",
          join(scratch, "run"),
          "--json",
          "--jobs",
          "1",
          "--dataset",
          set,
        ]);
        assert.equal(r.code, 0, r.err);
        const summary = JSON.parse(r.out) as { summary: { condition: string; fixed: number }[] };
        assert.deepEqual(
          summary.summary.map((s) => [s.condition, s.fixed]),
          [["A", 1]],
        );
        // The run names the task set (seed and manifest hash) in run.json, results.md and compare.
        const manifestSha = sha(readFileSync(join(set, "taskset.json")));
        const env = (
          JSON.parse(readFileSync(join(scratch, "run", "run.json"), "utf8")) as {
            environment: { datasetSource: string; taskset: { seed: number; manifestSha256: string } };
          }
        ).environment;
        assert.deepEqual([env.taskset.seed, env.taskset.manifestSha256], [7, manifestSha]);
        assert.match(
          env.datasetSource,
          new RegExp(`^generated task set seed 7 \\(taskset\\.json sha256 ${manifestSha.slice(0, 12)}\\)`),
        );
        assert.match(readFileSync(join(scratch, "run", "results.md"), "utf8"), /data set: generated task set seed 7 /);
        const compared = await tca(["bench", "quixbugs", "compare", join(scratch, "run")]);
        assert.match(
          compared.out,
          /^- R1: .* on generated task set seed 7 \(taskset\.json sha256 [0-9a-f]{12}\), from QuixBugs \(/m,
        );
        // The set is part of the run's fingerprint: the same run resumed on QuixBugs' own programs
        // (the mini set) is another benchmark, refused before anything runs.
        assert.deepEqual(
          (
            JSON.parse(readFileSync(join(scratch, "run", "run.json"), "utf8")) as {
              fingerprint: { taskset?: { seed: number } };
            }
          ).fingerprint.taskset?.seed,
          7,
        );
        const mixed = await tca([
          "bench",
          "quixbugs",
          "run",
          "--endpoint",
          server.endpoint,
          "--model",
          "scripted",
          "--conditions",
          "A",
          "--programs",
          "gcd",
          "--out",
          join(scratch, "run"),
          "--json",
          "--jobs",
          "1",
          "--dataset",
          MINI_DATASET_DIR,
          "--resume",
        ]);
        assert.notEqual(mixed.code, 0);
        assert.match(`${mixed.out}${mixed.err}`, /run_dir_invalid/);
      } finally {
        await server.close();
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );

  const real = realQuixBugs();
  sandboxTest(
    "make-taskset on the real QuixBugs data set, seed 1: every program covered or listed with a reason, each mutant one line, verify-dataset passes",
    { skip: real.skip },
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-real-"));
      try {
        const r = await tca([
          "bench",
          "quixbugs",
          "make-taskset",
          "--dataset",
          real.path,
          "--seed",
          "1",
          "--out",
          join(scratch, "set"),
          "--jobs",
          "2",
        ]);
        assert.equal(r.code, 0, r.err);
        const manifest = checkGeneratedSet(real.path, join(scratch, "set"), 1);
        assert.equal(manifest.programs.length + manifest.skipped.length, 40);
        assert.ok(manifest.programs.length >= 36, `only ${manifest.programs.length}/40 covered`);
        assert.ok(new Set(manifest.programs.map((p) => p.operator)).size >= 8, "at least 8 operator classes used");
        const v = await tca([
          "bench",
          "quixbugs",
          "verify-dataset",
          "--dataset",
          join(scratch, "set"),
          "--json",
          "--jobs",
          "2",
        ]);
        const report = JSON.parse(v.out) as {
          ok: boolean;
          buggyFailing: number;
          fixesPassing: number;
          programs: number;
        };
        assert.deepEqual(
          [v.code, report.ok, report.buggyFailing, report.fixesPassing],
          [0, true, manifest.programs.length, manifest.programs.length],
        );
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );

  sandboxTest(
    "a program without a valid mutant is listed with its reason, never dropped silently; with none at all nothing is written",
    async () => {
      const env = await miniEnvironment();
      assert.ok(env.ok, env.ok ? "" : env.message);
      // No candidate may be graded: every program must come back skipped, each with its reason.
      const selected = await selectMutants(env.value.sandbox, env.value.dataset, { seed: 1, jobs: 2, maxTries: 0 });
      assert.ok(selected.ok);
      assert.deepEqual(
        selected.value.map((s) => s.kind),
        ["skipped", "skipped", "skipped", "skipped", "skipped"],
      );
      for (const s of selected.value) {
        assert.ok(s.kind === "skipped");
        assert.ok(s.skipped.candidates > 0);
        assert.match(
          s.skipped.reason,
          new RegExp(`^no valid mutant among 0 tried of ${s.skipped.candidates} candidates`),
        );
      }
      const scratch = mkdtempSync(join(tmpdir(), "tca-taskset-none-"));
      try {
        const made = await makeTaskset(env.value.sandbox, env.value.dataset, {
          out: join(scratch, "set"),
          seed: 1,
          jobs: 2,
          maxTries: 0,
        });
        assert.equal(made.ok ? "" : made.error, "taskset_failed");
        assert.match(
          made.ok ? "" : made.message,
          /no program of .* has a valid mutant \(bitcount: no valid mutant among 0 tried/,
        );
        assert.deepEqual(readdirSync(scratch), []);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});
