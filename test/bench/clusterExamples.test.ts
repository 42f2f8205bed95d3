// The cluster examples' own command lines, run as a scheduler would run them, on a fresh output
// location that does not exist yet (issue 35: both examples failed on their first run, and
// `npm run test:slurm`, outside npm test, did not notice). Slurm: examples/slurm/submit.sh runs
// unchanged, with a stand-in sbatch first on PATH (test/support/fakeSlurm/sbatch: each array
// task runs the sbatch file with Slurm's variables set, the merge job after them if they all
// completed). Kubernetes: the Indexed Job's container command and arguments, each index with
// its JOB_COMPLETION_INDEX, then the merge the file's comment gives. Both against the scripted
// model on 127.0.0.1 and the mini data set (5 programs, condition A), so a change to the output
// rule, the shard options or the examples breaks this test, not a user's first cluster run.
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { MINI_DATASET_DIR } from "./benchFixtures.ts";
import { SCRIPTED_MODEL_ID, startRoutedServer, type ScriptedTurn } from "./scriptedChatServer.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FAKE_SLURM = fileURLToPath(new URL("../support/fakeSlurm", import.meta.url));
const SUBMIT = join(ROOT, "examples/slurm/submit.sh");
const ARRAY = join(ROOT, "examples/slurm/quixbugs-array.sbatch");
const MANIFEST = join(ROOT, "examples/kubernetes/quixbugs-indexed-job.yaml");
const PROGRAMS = readdirSync(join(MINI_DATASET_DIR, "python_programs")).map((f) => f.replace(/\.py$/, ""));

/**
 * Condition A (one shot): the reference fix for every program (a buggy program left as it is may
 * loop until the test timeout, which would make this test slow, not better).
 */
function model(body: Record<string, unknown>): ScriptedTurn {
  const messages = body.messages as { content?: string | null }[];
  const text = messages.map((m) => m.content ?? "").join("\n");
  const program = /python_programs\/([A-Za-z_]+)\.py/.exec(text)?.[1];
  if (program === undefined || !PROGRAMS.includes(program)) return { content: "OK" };
  const fix = readFileSync(join(MINI_DATASET_DIR, "correct_python_programs", `${program}.py`), "utf8");
  return { content: "```python\n" + fix + "```" };
}

function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Task ids recorded in a run folder's tasks.ndjson, sorted. */
function taskIds(runDir: string): string[] {
  return readFileSync(join(runDir, "tasks.ndjson"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => (JSON.parse(l) as { taskId: string }).taskId)
    .sort();
}

/** The environment without any scheduler's variables of the machine running the tests. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("SLURM_") && k !== "JOB_COMPLETION_INDEX"),
  );
  return { ...base, ...extra };
}

function states(fakeSlurm: string): Record<string, string> {
  const dir = join(fakeSlurm, "state");
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), "utf8").trim()]));
}

sandboxTest(
  "the Slurm example, submitted with submit.sh unchanged, runs its shards into a TCA_OUT that does not exist yet and merges them; a resubmitted task redoes nothing",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "tca-slurm-example-"));
    const server = await startRoutedServer(model);
    try {
      const fake = join(root, "fake-slurm");
      const out = join(root, "runs", "qwen3-8b");
      mkdirSync(join(root, "runs"));
      const env = cleanEnv({
        PATH: `${FAKE_SLURM}${delimiter}${process.env.PATH ?? ""}`,
        FAKE_SLURM_DIR: fake,
        XDG_CACHE_HOME: join(root, "cache"),
        TCA_ENDPOINT: server.endpoint,
        TCA_MODEL: SCRIPTED_MODEL_ID,
        TCA_OUT: out,
        TCA_DATASET: MINI_DATASET_DIR,
        TCA_CONDITIONS: "A",
        // The one place the shard count is set; not the default 4, so a 4 left anywhere shows.
        TCA_SHARDS: "2",
      });
      const submitted = await run("sh", [SUBMIT], env);
      const outputs = join(fake, "output");
      const jobOutput = (): string =>
        existsSync(outputs)
          ? readdirSync(outputs)
              .map((f) => `${f}: ${readFileSync(join(outputs, f), "utf8").slice(-600)}`)
              .join("\n")
          : "";
      assert.equal(submitted.code, 0, submitted.stderr);
      assert.match(submitted.stdout, /^array job 100 \(2 tasks\), merge job \d+ after it/);
      assert.deepEqual(
        Object.values(states(fake)),
        ["COMPLETED", "COMPLETED", "COMPLETED"],
        `job states ${JSON.stringify(states(fake))}; output: ${jobOutput()}`,
      );
      assert.deepEqual(readdirSync(out).sort(), ["merged", "shard-1-of-2", "shard-2-of-2"]);
      const all = PROGRAMS.map((p) => `A-${p}`).sort();
      assert.deepEqual(taskIds(join(out, "merged")), all);
      const shard2 = taskIds(join(out, "shard-2-of-2"));
      const shard2Run = JSON.parse(readFileSync(join(out, "shard-2-of-2", "run.json"), "utf8")) as { shard: unknown };
      assert.deepEqual(shard2Run.shard, { index: 2, count: 2, from: "slurm" });

      // Array task 1 resubmitted alone, the way the file's comment says: --resume continues shard 2 and redoes nothing.
      const asked = server.requests.length;
      const again = await run("sbatch", ["--parsable", "--array=1", ARRAY], env);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(states(fake)[`${again.stdout.trim()}_1`], "COMPLETED", jobOutput());
      assert.deepEqual(taskIds(join(out, "shard-2-of-2")), shard2);
      const newPrompts = server.requests
        .slice(asked)
        .filter((r) => /python_programs\//.test(JSON.stringify(r.messages ?? "")));
      assert.equal(newPrompts.length, 0, "a finished task was asked again");
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
);

sandboxTest(
  "the Slurm example with TCA_OUT under a missing folder: every array task refuses with the mkdir that makes it, and the merge never runs",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "tca-slurm-example-"));
    const server = await startRoutedServer(model);
    try {
      const fake = join(root, "fake-slurm");
      const env = cleanEnv({
        PATH: `${FAKE_SLURM}${delimiter}${process.env.PATH ?? ""}`,
        FAKE_SLURM_DIR: fake,
        XDG_CACHE_HOME: join(root, "cache"),
        TCA_ENDPOINT: server.endpoint,
        TCA_MODEL: SCRIPTED_MODEL_ID,
        TCA_OUT: join(root, "no-such-storage", "qwen3-8b"),
        TCA_DATASET: MINI_DATASET_DIR,
        TCA_CONDITIONS: "A",
        TCA_SHARDS: "2",
      });
      const submitted = await run("sh", [SUBMIT], env);
      assert.equal(submitted.code, 0, submitted.stderr);
      const found = states(fake);
      assert.deepEqual(
        Object.entries(found)
          .map(([job, state]) => `${job.includes("_") ? "array task" : "merge"} ${state}`)
          .sort(),
        ["array task FAILED", "array task FAILED", "merge DependencyNeverSatisfied"],
      );
      const task0 = readFileSync(join(fake, "output", "100_0.out"), "utf8");
      assert.ok(
        task0.includes(`mkdir -p ${join(root, "no-such-storage")}`),
        `the refusal names the mkdir: ${task0.slice(-400)}`,
      );
      assert.equal(existsSync(join(root, "no-such-storage")), false, "no parent was created");
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
);

sandboxTest(
  "the Kubernetes example's container command, run once per completion index into an --out that does not exist yet, then merged as its comment says",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "tca-k8s-example-"));
    const server = await startRoutedServer(model);
    try {
      const [doc] = parseAllDocuments(readFileSync(MANIFEST, "utf8"));
      assert.ok(doc !== undefined && !Array.isArray(doc));
      const job = doc.toJS() as {
        spec: {
          completions: number;
          template: { spec: { containers: { command: string[]; args: string[] }[] } };
        };
      };
      const container = job.spec.template.spec.containers[0];
      assert.ok(container);
      // What differs on this machine: the server, the model name, the data set, the volume and
      // (for time) one condition; every other argument stays as the file has it.
      const out = join(root, "runs", "qwen3-8b");
      mkdirSync(join(root, "runs"));
      const replaced: Record<string, string> = {
        "--endpoint": server.endpoint,
        "--model": SCRIPTED_MODEL_ID,
        "--dataset": MINI_DATASET_DIR,
        "--out": out,
        "--conditions": "A",
      };
      const args = container.args.map((a, i) => replaced[container.args[i - 1] ?? ""] ?? a);
      for (const option of Object.keys(replaced)) assert.ok(container.args.includes(option), option);
      const [program, ...programArgs] = container.command;
      assert.equal(program, "node");
      const env = cleanEnv({ XDG_CACHE_HOME: join(root, "cache") });
      // All pods at once (parallelism = completions): the first ones race to create --out.
      const pods = await Promise.all(
        Array.from({ length: job.spec.completions }, (_, index) =>
          run(process.execPath, [...programArgs, ...args], { ...env, JOB_COMPLETION_INDEX: String(index) }),
        ),
      );
      pods.forEach((pod, index) => assert.equal(pod.code, 0, `index ${index}: ${pod.stderr.slice(-800)}`));
      const shards = readdirSync(out)
        .filter((name) => name.startsWith("shard-"))
        .map((name) => join(out, name));
      assert.equal(shards.length, job.spec.completions);
      const merged = await run(
        process.execPath,
        ["bin/tca.js", "bench", "quixbugs", "merge", "--out", join(out, "all"), ...shards],
        env,
      );
      assert.equal(merged.code, 0, merged.stderr);
      assert.deepEqual(taskIds(join(out, "all")), PROGRAMS.map((p) => `A-${p}`).sort());
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
);
