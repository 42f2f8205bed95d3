// Runs past one machine: --shard-count with JOB_COMPLETION_INDEX (a Kubernetes Indexed Job),
// shards as separate processes joined by merge, --repeats with pass@k / pass^k, and the example
// Job manifest checked with a YAML parser against the CLI's own options.
import { test } from "node:test";
import { sandboxPackages } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { parseAllDocuments } from "yaml";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import { planTasks, resolveShard } from "../../src/bench/runs/taskPlan.ts";
import { mergeRuns } from "../../src/bench/runs/runMerge.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { summarizeRepeats } from "../../src/bench/results/repeatStatistics.ts";
import { readTaskResults, resultKey } from "../../src/bench/runs/runDirectory.ts";
import type { OutcomeClass, TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { registerBenchCommands } from "../../src/cli/commands/bench.ts";
import { AGENT_BUDGET } from "../../src/bench/agent/conditions.ts";
import { benchSetup, MINI_DATASET_DIR, referenceFix } from "./benchFixtures.ts";
import { SCRIPTED_MODEL_ID, startRoutedServer } from "./scriptedChatServer.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const MANIFEST = fileURLToPath(new URL("../../examples/kubernetes/quixbugs-indexed-job.yaml", import.meta.url));
const SLURM_ARRAY = fileURLToPath(new URL("../../examples/slurm/quixbugs-array.sbatch", import.meta.url));
const SLURM_MERGE = fileURLToPath(new URL("../../examples/slurm/quixbugs-merge.sbatch", import.meta.url));

function tca(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "JOB_COMPLETION_INDEX"));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TCA, ...args],
      { maxBuffer: 16 * 1024 * 1024, env: { ...base, ...env } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, out: stdout, err: stderr });
      },
    );
  });
}

test("--shard-count takes the shard from JOB_COMPLETION_INDEX (0-based); bad combinations are invalid_option", () => {
  assert.deepEqual(resolveShard({ shardCount: "4" }, { JOB_COMPLETION_INDEX: "0" }), {
    ok: true,
    value: { index: 1, count: 4, from: "kubernetes" },
  });
  assert.deepEqual(resolveShard({ shardCount: "4" }, { JOB_COMPLETION_INDEX: "3" }), {
    ok: true,
    value: { index: 4, count: 4, from: "kubernetes" },
  });
  assert.deepEqual(resolveShard({ shard: "2/3" }, {}), { ok: true, value: { index: 2, count: 3, from: "flag" } });
  assert.deepEqual(resolveShard({}, { JOB_COMPLETION_INDEX: "1" }), { ok: true, value: undefined });
  for (const [flags, env] of [
    [{ shardCount: "4" }, { JOB_COMPLETION_INDEX: "4" }],
    [{ shardCount: "4" }, {}],
    [{ shardCount: "4" }, { JOB_COMPLETION_INDEX: "-1" }],
    [{ shardCount: "0" }, { JOB_COMPLETION_INDEX: "0" }],
    [{ shardCount: "x" }, { JOB_COMPLETION_INDEX: "0" }],
    [{ shard: "1/2", shardCount: "2" }, { JOB_COMPLETION_INDEX: "0" }],
    [{ shard: "3/2" }, {}],
  ] as const) {
    const r = resolveShard(flags, env);
    assert.equal(r.ok ? "ok" : r.error, "invalid_option", JSON.stringify([flags, env]));
  }
});

test("--shard-count takes the shard from a Slurm job array: the array task id is the 0-based shard index, also for one task resubmitted alone", () => {
  const array = (id: number): Record<string, string> => ({
    SLURM_ARRAY_TASK_ID: String(id),
    SLURM_ARRAY_TASK_MIN: "0",
    SLURM_ARRAY_TASK_MAX: "3",
    SLURM_ARRAY_TASK_COUNT: "4",
    SLURM_ARRAY_JOB_ID: "17",
  });
  for (const id of [0, 1, 2, 3]) {
    assert.deepEqual(resolveShard({ shardCount: "4" }, array(id)), {
      ok: true,
      value: { index: id + 1, count: 4, from: "slurm" },
    });
    assert.deepEqual(resolveShard({ shardCount: "4", shardFrom: "slurm" }, array(id)), {
      ok: true,
      value: { index: id + 1, count: 4, from: "slurm" },
    });
  }
  // sbatch --array=2 … (one failed task, resubmitted): MIN = MAX = 2, COUNT = 1; still shard 3 of 4.
  assert.deepEqual(
    resolveShard(
      { shardCount: "4" },
      { SLURM_ARRAY_TASK_ID: "2", SLURM_ARRAY_TASK_MIN: "2", SLURM_ARRAY_TASK_MAX: "2", SLURM_ARRAY_TASK_COUNT: "1" },
    ),
    { ok: true, value: { index: 3, count: 4, from: "slurm" } },
  );
  // A stepped array covers some of the slices; each id is still its own slice.
  assert.deepEqual(
    resolveShard(
      { shardCount: "7" },
      {
        SLURM_ARRAY_TASK_ID: "4",
        SLURM_ARRAY_TASK_MIN: "0",
        SLURM_ARRAY_TASK_MAX: "6",
        SLURM_ARRAY_TASK_COUNT: "4",
        SLURM_ARRAY_TASK_STEP: "2",
      },
    ),
    { ok: true, value: { index: 5, count: 7, from: "slurm" } },
  );
  // Both schedulers' variables: the flag decides; without it, an error that names the flag.
  const both = { ...array(1), JOB_COMPLETION_INDEX: "3" };
  assert.deepEqual(resolveShard({ shardCount: "4", shardFrom: "kubernetes" }, both), {
    ok: true,
    value: { index: 4, count: 4, from: "kubernetes" },
  });
  assert.deepEqual(resolveShard({ shardCount: "4", shardFrom: "slurm" }, both), {
    ok: true,
    value: { index: 2, count: 4, from: "slurm" },
  });
  const ambiguous = resolveShard({ shardCount: "4" }, both);
  assert.ok(!ambiguous.ok && ambiguous.error === "invalid_option" && /--shard-from/.test(ambiguous.message));
  const cases: [Parameters<typeof resolveShard>[0], Record<string, string>, RegExp][] = [
    [{ shardCount: "4" }, array(4), /outside 0\.\.3/],
    [{ shardCount: "4" }, { ...array(0), SLURM_ARRAY_TASK_MAX: "4" }, /reaches task id 4/],
    [{ shardCount: "4" }, { ...array(0), SLURM_ARRAY_TASK_COUNT: "5" }, /5 tasks, more than --shard-count 4/],
    [{ shardCount: "4" }, { SLURM_ARRAY_TASK_ID: "x" }, /SLURM_ARRAY_TASK_ID/],
    [{ shardCount: "4" }, { SLURM_ARRAY_TASK_ID: "-1" }, /SLURM_ARRAY_TASK_ID/],
    [{ shardCount: "4", shardFrom: "slurm" }, { JOB_COMPLETION_INDEX: "0" }, /SLURM_ARRAY_TASK_ID/],
    [{ shardCount: "4", shardFrom: "kubernetes" }, array(0), /JOB_COMPLETION_INDEX/],
    [{ shardCount: "4", shardFrom: "pbs" }, array(0), /slurm or kubernetes/],
    [{ shardFrom: "slurm" }, array(0), /needs --shard-count/],
    [{ shardCount: "4" }, {}, /neither is set/],
  ];
  for (const [flags, env, message] of cases) {
    const r = resolveShard(flags, env);
    assert.ok(!r.ok, JSON.stringify([flags, env]));
    assert.equal(r.error, "invalid_option");
    assert.match(r.message, message);
  }
});

test("planTasks with repeats: keys name the repeat, and shards partition every (task, repeat)", () => {
  const all = planTasks(["gcd", "pascal"], ["A"], undefined, 3);
  assert.deepEqual(
    all.map((t) => t.key),
    ["A-gcd", "A-gcd.r2", "A-gcd.r3", "A-pascal", "A-pascal.r2", "A-pascal.r3"],
  );
  const shards = [1, 2, 3, 4].map((index) =>
    planTasks(["gcd", "pascal"], ["A"], { index, count: 4 }, 3).map((t) => t.key),
  );
  assert.deepEqual(shards.flat().sort(), all.map((t) => t.key).sort());
  assert.equal(new Set(shards.flat()).size, all.length);
  assert.equal(resultKey({ taskId: "A-gcd" }), "A-gcd");
  assert.equal(resultKey({ taskId: "A-gcd", repeat: 1 }), "A-gcd");
  assert.equal(resultKey({ taskId: "A-gcd", repeat: 2 }), "A-gcd.r2");
});

function fake(program: string, repeat: number, outcome: OutcomeClass): TaskResult {
  return {
    taskId: `A-${program}`,
    program,
    condition: "A",
    outcome,
    stopReason: "agent_done",
    claimedFixed: true,
    falseFixed: outcome !== "fixed",
    turns: 1,
    promptTokens: 0,
    completionTokens: 0,
    tokens: 0,
    usageReported: false,
    seconds: 1,
    guardrails: {
      testRuns: 0,
      blockedWrites: 0,
      blockedReads: 0,
      testEditAttempts: 0,
      referenceReadAttempts: 0,
      toolErrors: 0,
      refusedStopAttempts: 0,
    },
    grade: {
      outcome: outcome === "fixed" ? "passed" : "failed",
      counts: { passed: 0, failed: 0, errors: 0, skipped: 0 },
      seconds: 0,
      summary: "",
    },
    changed: true,
    finalSha256: "",
    specialCasing: null,
    servedModel: null,
    repeat,
  };
}

test("pass@k and pass^k per condition, over programs with k graded repeats, with Wilson intervals", () => {
  const results = [
    fake("p1", 1, "fixed"),
    fake("p1", 2, "fixed"),
    fake("p2", 1, "fixed"),
    fake("p2", 2, "wrong_fix"),
    fake("p3", 1, "no_change"),
    fake("p3", 2, "wrong_fix"),
    // A model error leaves p4 without a second verdict: not in pass@k / pass^k.
    fake("p4", 1, "wrong_fix"),
    fake("p4", 2, "model_error"),
  ];
  const [a] = summarizeRepeats(results);
  assert.ok(a);
  assert.equal(a.k, 2);
  assert.equal(a.programs, 3);
  assert.equal(a.passAtK, 2 / 3);
  assert.equal(a.passHatK, 1 / 3);
  // Wilson 95% for 2 of 3 and 1 of 3, computed by hand: centre (p + z²/2n)/(1 + z²/n), half-width z·sqrt(p(1-p)/n + z²/4n²)/(1 + z²/n).
  assert.deepEqual(
    a.passAtKCi95.map((x) => x.toFixed(3)),
    ["0.208", "0.939"],
  );
  assert.deepEqual(
    a.passHatKCi95.map((x) => x.toFixed(3)),
    ["0.061", "0.792"],
  );
  assert.deepEqual(a.perRepeatFixedRate, [2 / 4, 1 / 3]);
  assert.deepEqual(summarizeRepeats(results.filter((r) => r.repeat === 1)), []);
});

test(
  "shards as separate processes (JOB_COMPLETION_INDEX 0 and 1) merge into the same results as one run; --repeats samples one seed per repeat",
  { skip: sandboxPackages().skip },
  async () => {
    const { dataset } = benchSetup();
    const fix = referenceFix(dataset, "gcd");
    const server = await startRoutedServer((body) =>
      JSON.stringify(body.messages).includes("python_programs/gcd.py")
        ? { content: "```python\n" + fix + "```" }
        : { content: "I cannot fix this." },
    );
    const base = mkdtempSync(join(tmpdir(), "tca-scale-"));
    try {
      const common = [
        "bench",
        "quixbugs",
        "run",
        "--endpoint",
        server.endpoint,
        "--model",
        SCRIPTED_MODEL_ID,
        "--conditions",
        "A",
        "--programs",
        "gcd,pascal",
        "--dataset",
        MINI_DATASET_DIR,
        "--jobs",
        "1",
        "--repeats",
        "2",
        "--temperature",
        "0.7",
      ];
      const [s0, s1] = await Promise.all(
        [0, 1].map((i) =>
          tca([...common, "--shard-count", "2", "--out", join(base, "indexed")], { JOB_COMPLETION_INDEX: String(i) }),
        ),
      );
      assert.equal(s0?.code, 0, s0?.err);
      assert.equal(s1?.code, 0, s1?.err);
      const single = await tca([...common, "--out", join(base, "single")]);
      assert.equal(single.code, 0, single.err);
      const merged = await tca([
        "bench",
        "quixbugs",
        "merge",
        "--out",
        join(base, "merged"),
        join(base, "indexed", "shard-1-of-2"),
        join(base, "indexed", "shard-2-of-2"),
      ]);
      assert.equal(merged.code, 0, merged.err);
      const outcomes = (dir: string): string[] => {
        const r = readTaskResults(dir);
        return r.ok ? r.value.map((x) => `${resultKey(x)}:${x.outcome}`).sort() : ["unreadable"];
      };
      assert.deepEqual(outcomes(join(base, "merged")), [
        "A-gcd.r2:fixed",
        "A-gcd:fixed",
        "A-pascal.r2:no_change",
        "A-pascal:no_change",
      ]);
      assert.deepEqual(outcomes(join(base, "merged")), outcomes(join(base, "single")));
      const shardTasks = [1, 2].map((i) => outcomes(join(base, "indexed", `shard-${i}-of-2`)).length);
      assert.deepEqual(shardTasks, [2, 2]);
      // Each shard knows where its index came from and records it.
      const shardRecords = [1, 2].map(
        (i) =>
          (JSON.parse(readFileSync(join(base, "indexed", `shard-${i}-of-2`, "run.json"), "utf8")) as { shard: unknown })
            .shard,
      );
      assert.deepEqual(shardRecords, [
        { index: 1, count: 2, from: "kubernetes" },
        { index: 2, count: 2, from: "kubernetes" },
      ]);
      // Repeat r was sampled with seed r - 1 at the requested temperature (the preflight request is the one without a seed choice).
      const taskRequests = server.requests.filter((b) => !JSON.stringify(b.messages).includes("connection check"));
      assert.deepEqual([...new Set(taskRequests.map((b) => `${String(b.seed)}@${String(b.temperature)}`))].sort(), [
        "0@0.7",
        "1@0.7",
      ]);
      const md = readFileSync(join(base, "merged", "results.md"), "utf8");
      assert.match(md, /## Repeats: pass@2 and pass\^2/);
      assert.match(md, /\| A · one-shot, no tools \| 2 \| 50\.0% \|/);
      assert.match(readFileSync(join(base, "merged", "results.md"), "utf8"), /tasks: 4 of 4/);
    } finally {
      await server.close();
      rmSync(base, { recursive: true, force: true });
    }
  },
);

test("the example Kubernetes Indexed Job parses as YAML and its arguments are the CLI's own options", () => {
  // skip-rule: needs no sandbox: reads the manifest's argv, runs nothing
  const docs = parseAllDocuments(readFileSync(MANIFEST, "utf8"));
  assert.equal(docs.length, 1);
  const doc = docs[0]!;
  assert.deepEqual(doc.errors, []);
  const job = doc.toJS() as {
    apiVersion: string;
    kind: string;
    spec: {
      completionMode: string;
      completions: number;
      parallelism: number;
      template: { spec: { restartPolicy: string; containers: { command: string[]; args: string[] }[] } };
    };
  };
  assert.equal(job.apiVersion, "batch/v1");
  assert.equal(job.kind, "Job");
  assert.equal(job.spec.completionMode, "Indexed");
  assert.ok(["Never", "OnFailure"].includes(job.spec.template.spec.restartPolicy));
  const container = job.spec.template.spec.containers[0]!;
  assert.deepEqual(container.command, ["node", "bin/tca.js"]);
  const args = container.args;
  assert.deepEqual(args.slice(0, 3), ["bench", "quixbugs", "run"]);
  assert.ok(
    args.every((a) => typeof a === "string"),
    "every argument is a string (numbers quoted)",
  );
  // --shard-count matches completions, so every index 0..completions-1 is a valid shard.
  assert.equal(Number(args[args.indexOf("--shard-count") + 1]), job.spec.completions);
  assert.ok(job.spec.parallelism <= job.spec.completions);
  assert.equal(args.includes("--shard"), false);
  // Every --option is one the run command defines.
  const program = new Command();
  registerBenchCommands(program, () => {});
  const run = program.commands
    .find((c) => c.name() === "bench")
    ?.commands.find((c) => c.name() === "quixbugs")
    ?.commands.find((c) => c.name() === "run");
  assert.ok(run);
  const known = new Set(run.options.map((o) => o.long));
  for (const a of args.filter((x) => x.startsWith("--"))) assert.ok(known.has(a), `${a} is a run option`);
});

/** The command's options (long names) as commander defines them, for checking example files. */
function commandOptions(...path: string[]): Set<string> {
  const program = new Command();
  registerBenchCommands(program, () => {});
  let command: Command | undefined = program;
  for (const name of path) command = command?.commands.find((c) => c.name() === name);
  assert.ok(command, path.join(" "));
  return new Set(command.options.map((o) => o.long ?? ""));
}

test("the example Slurm array: the shard count set once (submit.sh's TCA_SHARDS), a time limit that covers the budget, options the CLI defines", () => {
  // skip-rule: needs no sandbox: reads the sbatch files' text, runs nothing (clusterExamples.test.ts runs them)
  const text = readFileSync(SLURM_ARRAY, "utf8");
  const submit = readFileSync(fileURLToPath(new URL("../../examples/slurm/submit.sh", import.meta.url)), "utf8");
  const directive = (name: string): string => {
    const m = new RegExp(`^#SBATCH --${name}=(\\S+)$`, "m").exec(text);
    assert.ok(m, `#SBATCH --${name}`);
    return m[1] ?? "";
  };
  // One place: submit.sh's default; the array's ids and both jobs' shard count come from it.
  const defaultCount = /^: "\$\{TCA_SHARDS:=(\d+)\}"$/m.exec(submit);
  assert.ok(defaultCount, "submit.sh sets the default TCA_SHARDS");
  const shardCount = Number(defaultCount[1]);
  assert.equal(/^#SBATCH --array/m.test(text), false, "no second shard count in the array file");
  assert.match(submit, /--array="0-\$\(\(TCA_SHARDS - 1\)\)"/);
  assert.match(submit, /^export TCA_SHARDS$/m);
  const command = text.slice(text.indexOf("exec node bin/tca.js")).replace(/\\\n/g, " ");
  const words = command.split(/\s+/).filter((w) => w !== "");
  assert.equal(words[words.indexOf("--shard-count") + 1], '"$TCA_SHARDS"');
  assert.equal(words[words.indexOf("--shard-from") + 1], "slurm");
  assert.ok(words.includes("--resume"), "a requeued or resubmitted task continues its shard");
  assert.deepEqual(words.slice(0, 6), ["exec", "node", "bin/tca.js", "bench", "quixbugs", "run"]);
  const known = commandOptions("bench", "quixbugs", "run");
  for (const w of words.filter((x) => x.startsWith("--"))) assert.ok(known.has(w), `${w} is a run option`);
  // The time limit covers a shard's worst case at the default count: 160 tasks / n shards,
  // --jobs (= cpus) at a time, each at most the task budget plus one grading run at the default 60 s test timeout.
  const [h, m, sec] = directive("time").split(":").map(Number) as [number, number, number];
  const cpus = Number(directive("cpus-per-task"));
  const waves = Math.ceil(160 / shardCount / cpus);
  assert.ok(
    h * 3600 + m * 60 + sec >= waves * (AGENT_BUDGET.taskTimeoutMs / 1000 + 60),
    `time limit ${directive("time")} for ${waves} waves`,
  );
  const merge = readFileSync(SLURM_MERGE, "utf8");
  assert.equal(/shard-\d/.test(merge), false, "the merge names no fixed shard count");
  assert.match(merge, /shard-\$i-of-\$TCA_SHARDS/);
  assert.ok(commandOptions("bench", "quixbugs", "merge").has("--out"));
  assert.match(submit, /--dependency="afterok:\$array"/);
});

test("merge copies only trace and diff names the harness writes; a recorded path cannot leave the run", async () => {
  const base = mkdtempSync(join(tmpdir(), "tca-merge-attack-"));
  try {
    const shard = join(base, "s1");
    mkdirSync(join(shard, "traces"), { recursive: true });
    writeFileSync(join(base, "secret.ndjson"), "outside\n");
    writeFileSync(join(shard, "traces", "A-gcd.attempt-2.ndjson"), "{}\n");
    writeFileSync(
      join(shard, "run.json"),
      JSON.stringify({
        schema: 1,
        kind: "quixbugs-run",
        createdAt: "x",
        fingerprint: { model: "m" },
        model: { label: "m" },
        conditions: ["A"],
        programs: ["gcd", "pascal"],
        shard: null,
        environment: {},
      }),
    );
    const ok = { ...fake("gcd", 1, "fixed"), attempt: 2, tracePath: "traces/A-gcd.attempt-2.ndjson" };
    const evil = {
      ...fake("pascal", 1, "wrong_fix"),
      taskId: "A-pascal",
      tracePath: "traces/../../secret.ndjson",
      diffPath: "/etc/passwd",
    };
    writeFileSync(join(shard, "tasks.ndjson"), [ok, evil].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const merged = mergeRuns([shard], join(base, "merged"));
    assert.ok(merged.ok);
    assert.ok(existsSync(join(base, "merged", "traces", "A-gcd.attempt-2.ndjson")));
    assert.deepEqual(readdirSync(join(base, "merged", "traces")), ["A-gcd.attempt-2.ndjson"]);
    assert.deepEqual(readdirSync(join(base, "merged", "diffs")), []);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test(
  "a resume with another shard than the run's is refused (run_dir_invalid), asking the model nothing",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox, dataset } = benchSetup();
    const server = await startRoutedServer(() => ({ content: "No idea." }));
    const out = mkdtempSync(join(tmpdir(), "tca-shard-resume-"));
    try {
      const o = {
        dataset,
        sandbox,
        backend: new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "m" }),
        modelDescription: { label: "m" },
        modelName: "m",
        conditions: ["A" as const],
        programs: ["gcd", "pascal"],
        outDir: out,
        jobs: 1,
        testTimeoutMs: 60_000,
        includeSlow: false,
        environment: {},
      };
      assert.ok((await runBenchmark({ ...o, resume: false, shard: { index: 1, count: 2 } })).ok);
      const before = server.requests.length;
      const other = await runBenchmark({ ...o, resume: true, shard: { index: 2, count: 2 } });
      assert.equal(other.ok ? "" : other.error, "run_dir_invalid");
      const none = await runBenchmark({ ...o, resume: true });
      assert.equal(none.ok ? "" : none.error, "run_dir_invalid");
      assert.equal(server.requests.length, before);
    } finally {
      await server.close();
      rmSync(out, { recursive: true, force: true });
    }
  },
);
