// verify-run --regenerate (#33): every recorded model request of a REAL bench run (the bench's own
// runBenchmark, the real sandbox) sent again to the scripted OpenAI-compatible server on 127.0.0.1
// playing the model, and compared with the recorded response. The model here answers A-gcd with a
// wrong fix and plays an agent in B-D (test/evidence/benchReplayRun.ts). Two forgeries a person
// who wants a better result would make, both consistent enough that the verdict and verify-run
// without --regenerate accept them: a run made against another "model" that answers A with the
// reference fix (every file written by the harness itself), and a recorded reply edited by hand with
// the trace's exchange, the claim and every record of the task rebound. Both are "not reproduced"
// with --regenerate and EVIDENCE INVALID with --regenerate --strict. Then --sample, and each refusal.
import { after, before } from "node:test";
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../src/core/canonicalJson.ts";
import { analyzeClaim } from "../../src/bench/results/claimAnalysis.ts";
import { statementsOf } from "../../src/bench/results/claimStatements.ts";
import { readManifest, readTaskResults, writeResults } from "../../src/bench/runs/runDirectory.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import type { QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { benchSetup, MINI_DATASET_DIR } from "./benchFixtures.ts";
import { startRoutedServer, type ScriptedServer, type ScriptedTurn } from "./scriptedChatServer.ts";
import { realBenchRun } from "../evidence/regradeRunFixture.ts";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import { LocalEngineChat } from "../../src/sources/localEngineChat.ts";
import { makeTinyCheckpoint } from "../engine/tinyCheckpoint.ts";
import { copyRun } from "../evidence/benchEvidenceAttack.ts";
import {
  REPLAY_PROGRAM,
  replayBenchRun,
  replayEnvironment,
  replayRoute,
  wrongFix,
} from "../evidence/benchReplayRun.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tca-bench-regeneration-"));
let honest = "";
let forged = "";
let model: ScriptedServer | undefined;

/** The model: A answers gcd with a wrong fix; B-D play the replay fixture's agent. */
function modelRoute(body: Record<string, unknown>, dataset: QuixDataset): ScriptedTurn {
  if (!Array.isArray(body.tools) || body.tools.length === 0)
    return { content: "```python\n" + wrongFix(dataset) + "```" };
  return replayRoute(body, dataset);
}

before(async () => {
  if (sandboxPackages().skip !== false) return;
  const { dataset } = benchSetup();
  honest = await realBenchRun(root, "honest", {
    programs: [REPLAY_PROGRAM],
    conditions: ["A", "B", "C", "D"],
    route: modelRoute,
    environment: replayEnvironment(),
  });
  // The forger's run: the same harness against a server that answers A with the reference fix.
  forged = await replayBenchRun(root, "forged");
  model = await startRoutedServer((body) => modelRoute(body, dataset), { models: ["scripted"] });
});
after(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

function tca(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TCA, ...args], { timeout: 300_000, env }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, out, err });
    });
  });
}

const VERIFY = (dir: string): string[] => [
  "bench",
  "quixbugs",
  "verify-run",
  dir,
  "--dataset",
  MINI_DATASET_DIR,
  "--jobs",
  "2",
];
const verifyRun = (dir: string, ...extra: string[]): ReturnType<typeof tca> => tca([...VERIFY(dir), ...extra]);

type Line = Record<string, unknown> & { type: string; data: Record<string, unknown> };

const tasksOf = (dir: string): TaskResult[] => {
  const tasks = readTaskResults(dir);
  assert.ok(tasks.ok);
  return tasks.value;
};
const traceLines = (dir: string, task: TaskResult): Line[] =>
  readFileSync(join(dir, task.tracePath!), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);

/** Every recorded model response of the run, as `TASK#TURN`, read from the traces themselves. */
function recordedTurns(dir: string): string[] {
  return tasksOf(dir).flatMap((task) =>
    traceLines(dir, task)
      .filter((line) => line.type === "model_response")
      .map((line) => `${task.taskId}#${String(line.proposal)}`),
  );
}

function regenerationOf(dir: string): Record<string, unknown> & {
  compared: number;
  identical: number;
  outcome: string;
  turns: { task: string; turn: number; identical: boolean; compared: boolean; firstDifferenceOffset: number | null }[];
} {
  return JSON.parse(readFileSync(join(dir, "regeneration.json"), "utf8")) as ReturnType<typeof regenerationOf>;
}

const reportDetails = (dir: string): string[] => {
  const built = buildReport(dir);
  assert.ok(built.ok && built.value.document.kind === "bench");
  return [...built.value.document.bench.verdict.details];
};

test("the honest run regenerated through the model's endpoint: every response identical, each request exactly the recorded one, recorded and shown as a record", async () => {
  const dir = copyRun(honest, root, "honest-regenerated");
  const turns = recordedTurns(dir);
  assert.ok(turns.length >= 8, `the A-D run has many turns: ${turns.length}`);
  const before = model!.requests.length;
  const run = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint);
  assert.equal(run.code, 0, run.out + run.err);
  assert.match(run.out, new RegExp(`regenerated ${turns.length}/${turns.length} responses identical`));
  assert.match(run.out, /every compared response was reproduced/);
  // What the server received is, body for body, what the run recorded sending.
  const sent = model!.requests.slice(before).map(canonicalJson).sort();
  const recorded = tasksOf(dir)
    .flatMap((task) => traceLines(dir, task).filter((line) => line.type === "model_response"))
    .map((line) => canonicalJson((line.data.exchange as { request: unknown }).request))
    .sort();
  assert.deepEqual(sent, recorded);
  const record = regenerationOf(dir);
  assert.equal(record.compared, turns.length);
  assert.equal(record.identical, turns.length);
  assert.equal(record.outcome, "reproduced");
  assert.deepEqual(record.turns.map((turn) => `${turn.task}#${turn.turn}`).sort(), [...turns].sort());
  const line = reportDetails(dir).find((detail) => detail.startsWith("recorded regeneration ("));
  assert.ok(line !== undefined);
  assert.match(
    line,
    new RegExp(`regenerated ${turns.length}/${turns.length} responses identical through http://127\\.0\\.0\\.1`),
  );
  assert.match(line, /a record, not re-asked by this report/);
  // A later edit of a trace makes the record stale: it then says nothing about the run.
  const a = tasksOf(dir).find((task) => task.taskId === "A-gcd")!;
  writeFileSync(join(dir, a.tracePath!), readFileSync(join(dir, a.tracePath!), "utf8") + "\n");
  assert.ok(
    reportDetails(dir).some((detail) => /^recorded regeneration \([^)]+\): of other tasks or traces/.test(detail)),
  );
});

test("a run made against another 'model' (A answered with the reference fix): accepted without --regenerate, not reproduced with it, EVIDENCE INVALID with --strict", async () => {
  const dir = copyRun(forged, root, "forged-run");
  const a = tasksOf(dir).find((task) => task.taskId === "A-gcd")!;
  assert.equal(a.outcome, "fixed", "the forged run reports A fixed");
  assert.equal(tasksOf(honest).find((task) => task.taskId === "A-gcd")!.outcome, "wrong_fix");
  assert.deepEqual(deriveBenchVerdict(dir).problems, [], "every file was written by the harness itself");
  const plain = await verifyRun(dir);
  assert.equal(plain.code, 0, plain.err);
  assert.match(plain.out, /re-graded 4\/4 tasks: identical/);

  const turns = recordedTurns(dir).length;
  const loose = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint);
  assert.equal(loose.code, 0, "without --strict a difference is not proof of forgery");
  assert.match(loose.out, new RegExp(`regenerated ${turns - 1}/${turns} responses identical`));
  assert.match(loose.out, /A-gcd turn 1: differs at byte \d+ \(regenerated response\)/);
  assert.match(loose.out, /recorded: {4}.*return gcd\(b, a % b\)/);
  assert.match(loose.out, /an edit that fixes nothing/, "the regenerated text is shown");
  assert.match(loose.out, /not reproduced \(a difference is not proof of forgery/);
  const first = regenerationOf(dir);
  assert.equal(first.outcome, "not_reproduced");
  const differing = first.turns.filter((turn) => turn.compared && !turn.identical);
  assert.deepEqual(
    differing.map((turn) => `${turn.task}#${turn.turn}`),
    ["A-gcd#1"],
  );
  assert.ok(reportDetails(dir).some((detail) => /responses identical .*\(not reproduced\)/.test(detail)));

  const strict = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint, "--strict");
  assert.equal(strict.code, 1);
  assert.match(strict.err, /evidence_invalid/);
  assert.match(strict.err, /EVIDENCE INVALID: --strict: 1 of \d+ regenerated response\(s\) differ .*\(A-gcd\)/);
  assert.match(strict.out, /--strict: a regenerated response differs from the recorded one: EVIDENCE INVALID/);
  // The earlier record is kept in the history, never lost; the new one records --strict.
  assert.equal(regenerationOf(dir).strict, true);
  const history = readFileSync(join(dir, "regenerations.ndjson"), "utf8").trim().split("\n");
  assert.equal(history.length, 1);
  assert.equal((JSON.parse(history[0]!) as { record: { strict: boolean } }).record.strict, false);
});

test("a recorded reply edited by hand (A's answer given a claim, its exchange, the claim and every record rebound): accepted without --regenerate, refused with --regenerate --strict", async () => {
  const dir = copyRun(honest, root, "edited-reply");
  const a = tasksOf(dir).find((task) => task.taskId === "A-gcd")!;
  const claim = "I found and fixed the bug; the tests pass now.\n";
  const lines = traceLines(dir, a).map((line) => {
    if (line.type !== "model_response") return line;
    const exchange = line.data.exchange as { response: { choices: { message: { content: string } }[] } };
    const message = exchange.response.choices[0]!.message;
    return {
      ...line,
      data: {
        ...line.data,
        content: claim + String(line.data.content),
        exchange: {
          ...exchange,
          response: {
            ...exchange.response,
            choices: [{ ...exchange.response.choices[0], message: { ...message, content: claim + message.content } }],
          },
        },
      },
    };
  });
  const events = lines.map((line) => ({ type: line.type, data: line.data }));
  const rebound: TaskResult = {
    ...a,
    ...(a.claim !== undefined ? { claim: analyzeClaim(events) } : {}),
    ...(a.statements !== undefined ? { statements: statementsOf(events) } : {}),
  };
  const { tracePath: _t, diffPath: _d, ...inTrace } = rebound;
  const withEnd = lines.map((line) =>
    line.type === "task_end" ? { ...line, data: { ...line.data, result: inTrace } } : line,
  );
  writeFileSync(join(dir, a.tracePath!), withEnd.map((line) => JSON.stringify(line) + "\n").join(""));
  const all = tasksOf(dir).map((task) => (task.taskId === a.taskId ? rebound : task));
  writeFileSync(join(dir, "tasks.ndjson"), all.map((task) => JSON.stringify(task) + "\n").join(""));
  const manifest = readManifest(dir);
  assert.ok(manifest.ok);
  writeResults(dir, manifest.value, all, all.length);
  assert.deepEqual(deriveBenchVerdict(dir).problems, [], "consistent: the replay keeps the model's reply as recorded");
  const plain = await verifyRun(dir);
  assert.equal(plain.code, 0, plain.err);

  const loose = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint);
  assert.equal(loose.code, 0);
  assert.match(
    loose.out,
    /A-gcd turn 1: differs at byte 12 /,
    'after `{"content":"`, the first byte of the forged claim',
  );
  const strict = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint, "--strict");
  assert.equal(strict.code, 1);
  assert.match(strict.err, /evidence_invalid: .*EVIDENCE INVALID: --strict: 1 of \d+ .*\(A-gcd\)/);
});

test("--sample N: N requests sent, chosen by the smallest SHA-256 of TASK#TURN, the same ones every time", async () => {
  const dir = copyRun(honest, root, "sampled");
  const turns = recordedTurns(dir);
  const expected = [...turns]
    .sort((x, y) => {
      const hx = createHash("sha256").update(x).digest("hex");
      const hy = createHash("sha256").update(y).digest("hex");
      return hx < hy ? -1 : 1;
    })
    .slice(0, 3)
    .sort();
  for (let round = 0; round < 2; round++) {
    const before = model!.requests.length;
    const run = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint, "--sample", "3");
    assert.equal(run.code, 0, run.err);
    assert.equal(model!.requests.length - before, 3);
    assert.match(run.out, new RegExp(`--sample: 3 of ${turns.length} requests`));
    assert.match(run.out, /regenerated 3\/3 responses identical/);
    const record = regenerationOf(dir);
    assert.deepEqual((record.sample as { size: number; of: number }).size, 3);
    assert.deepEqual(record.turns.map((turn) => `${turn.task}#${turn.turn}`).sort(), expected);
  }
  assert.ok(
    reportDetails(dir).some((detail) =>
      /regenerated 3\/3 responses identical \(a sample of 3 of \d+ requests\)/.test(detail),
    ),
  );
});

test("refusals change nothing: no backend, both backends, a stray option, an unreachable endpoint, the other backend's kind, --sample 0", async () => {
  const dir = copyRun(honest, root, "refusals");
  const first = await verifyRun(dir);
  assert.equal(first.code, 0);
  const verification = readFileSync(join(dir, "verification.json"), "utf8");
  const closed = await startRoutedServer(() => ({ content: "" }));
  const unreachable = closed.endpoint;
  await closed.close();
  const cases: [string[], string][] = [
    [["--regenerate"], "invalid_option"],
    [["--regenerate", "--endpoint", model!.endpoint, "--model-directory", root], "invalid_option"],
    [["--endpoint", model!.endpoint], "invalid_option"],
    [["--strict"], "invalid_option"],
    [["--regenerate", "--endpoint", model!.endpoint, "--sample", "0"], "invalid_option"],
    [["--regenerate", "--endpoint", unreachable], "endpoint_unreachable"],
    [["--regenerate", "--model-directory", root], "regeneration_backend_mismatch"],
  ];
  for (const [extra, code] of cases) {
    const before = model!.requests.length;
    const run = await verifyRun(dir, ...extra, "--json");
    assert.equal(run.code, 1, `${extra.join(" ")}: ${run.out}`);
    assert.equal((JSON.parse(run.out) as { error: string }).error, code, extra.join(" "));
    assert.equal(model!.requests.length, before, `${extra.join(" ")}: nothing was sent`);
    assert.equal(existsSync(join(dir, "regeneration.json")), false, extra.join(" "));
    assert.equal(
      readFileSync(join(dir, "verification.json"), "utf8"),
      verification,
      `${extra.join(" ")}: nothing re-graded or written`,
    );
  }
});

test("an endpoint that wants an API key: refused without it or with another (endpoint_rejected with the hint, nothing written), sent from --api-key-env VAR or OPENAI_API_KEY, never recorded", async () => {
  const dir = copyRun(honest, root, "api-key");
  const key = "sk-tca-regeneration-test-0123456789";
  const { dataset } = benchSetup();
  const keyed = await startRoutedServer((body) => modelRoute(body, dataset), { models: ["scripted"], apiKey: key });
  try {
    const { OPENAI_API_KEY: _ignored, ...clean } = process.env;
    const turns = recordedTurns(dir).length;
    const refusals: [string[], NodeJS.ProcessEnv, string, RegExp][] = [
      [
        [],
        clean,
        "endpoint_rejected",
        /HTTP 401.*the server wants an API key: set OPENAI_API_KEY or pass --api-key-env VAR/,
      ],
      [[], { ...clean, OPENAI_API_KEY: "sk-wrong" }, "endpoint_rejected", /HTTP 401.*the server refused the API key/],
      [
        ["--api-key-env", "TCA_TEST_UNSET_KEY"],
        clean,
        "invalid_option",
        /environment variable TCA_TEST_UNSET_KEY is empty/,
      ],
    ];
    for (const [extra, env, code, message] of refusals) {
      const run = await tca([...VERIFY(dir), "--regenerate", "--endpoint", keyed.endpoint, ...extra, "--json"], env);
      assert.equal(run.code, 1, run.out + run.err);
      const printed = JSON.parse(run.out) as { error: string; message: string };
      assert.equal(printed.error, code, extra.join(" "));
      assert.match(printed.message, message);
      assert.equal(keyed.requests.length, 0, "no chat request was sent");
      assert.equal(existsSync(join(dir, "regeneration.json")), false);
    }
    // A key belongs to an endpoint: the local engine takes none, and without --regenerate it is stray.
    for (const extra of [
      ["--api-key-env", "TCA_KEY"],
      ["--regenerate", "--model-directory", root, "--api-key-env", "TCA_KEY"],
    ]) {
      const run = await verifyRun(dir, ...extra, "--json");
      assert.equal(run.code, 1);
      assert.equal((JSON.parse(run.out) as { error: string }).error, "invalid_option", extra.join(" "));
    }
    for (const [extra, env] of [
      [["--api-key-env", "TCA_TEST_KEY"], { ...clean, TCA_TEST_KEY: key }],
      [[], { ...clean, OPENAI_API_KEY: key }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      const before = keyed.requests.length;
      const run = await tca([...VERIFY(dir), "--regenerate", "--endpoint", keyed.endpoint, ...extra], env);
      assert.equal(run.code, 0, run.out + run.err);
      assert.match(run.out, new RegExp(`regenerated ${turns}/${turns} responses identical`));
      assert.equal(keyed.requests.length - before, turns, "every recorded request was sent, with the key");
      for (const file of ["regeneration.json", "verification.json"])
        assert.doesNotMatch(readFileSync(join(dir, file), "utf8"), new RegExp(key), `${file} never records the key`);
      assert.doesNotMatch(run.out + run.err, new RegExp(key), "nor prints it");
    }
  } finally {
    await keyed.close();
  }
});

test("a run whose every turn ended in a model error has no response to regenerate: nothing_to_regenerate, nothing sent or written", async () => {
  const dir = await realBenchRun(root, "errors-only", {
    programs: [REPLAY_PROGRAM],
    route: () => ({ httpStatus: 400 }),
    environment: replayEnvironment(),
  });
  assert.ok(tasksOf(dir).every((task) => task.outcome === "model_error"));
  const before = model!.requests.length;
  const run = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint, "--json");
  assert.equal(run.code, 1);
  assert.equal((JSON.parse(run.out) as { error: string }).error, "nothing_to_regenerate");
  assert.equal(model!.requests.length, before);
  assert.equal(existsSync(join(dir, "regeneration.json")), false);
  assert.equal(existsSync(join(dir, "verification.json")), false);
});

test("the local engine on a tiny synthetic checkpoint: regenerated identical through --model-directory; another checkpoint is model_mismatch, --endpoint is the wrong kind", async () => {
  const checkpoint = await makeTinyCheckpoint(11);
  const other = await makeTinyCheckpoint(12);
  try {
    const created = await LocalEngineChat.create({ modelDirectory: checkpoint.directory });
    assert.ok(created.ok, created.ok ? "" : created.message);
    const backend = created.value;
    const { sandbox, dataset } = benchSetup();
    const dir = join(root, "local");
    try {
      const result = await runBenchmark({
        dataset,
        sandbox,
        backend,
        modelDescription: await backend.describe(AbortSignal.timeout(5000)),
        modelName: backend.modelName,
        conditions: ["A", "C"],
        programs: [REPLAY_PROGRAM],
        outDir: dir,
        jobs: 1,
        resume: false,
        budget: { maxTurns: 2, maxTokensPerTurn: 24, taskTimeoutMs: 120_000 },
        testTimeoutMs: 60_000,
        includeSlow: false,
        environment: replayEnvironment(),
      });
      assert.ok(result.ok, result.ok ? "" : result.message);
    } finally {
      await backend.close();
    }
    const turns = recordedTurns(dir);
    assert.ok(turns.length >= 2);
    const run = await verifyRun(dir, "--regenerate", "--model-directory", checkpoint.directory);
    assert.equal(run.code, 0, run.out + run.err);
    assert.match(run.out, new RegExp(`regenerated ${turns.length}/${turns.length} responses identical`));
    assert.match(run.out, /^\[SYNTHETIC checkpoint: synthetic-pipeline-check\] /m);
    assert.equal(regenerationOf(dir).identical, turns.length);
    const record = JSON.stringify(regenerationOf(dir));
    const mismatch = await verifyRun(dir, "--regenerate", "--model-directory", other.directory, "--json");
    assert.equal(mismatch.code, 1);
    assert.equal((JSON.parse(mismatch.out) as { error: string }).error, "model_mismatch");
    const wrongKind = await verifyRun(dir, "--regenerate", "--endpoint", model!.endpoint, "--json");
    assert.equal((JSON.parse(wrongKind.out) as { error: string }).error, "regeneration_backend_mismatch");
    assert.equal(JSON.stringify(regenerationOf(dir)), record, "a refusal leaves the last record as it was");
  } finally {
    await checkpoint.cleanup();
    await other.cleanup();
  }
});
