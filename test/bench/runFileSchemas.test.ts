// The bench run folder's JSON files against their one TypeBox definition (src/bench/runs/runFileSchemas.ts),
// the same schemas/bench-*.schema.json are generated from: what an honest bench run writes (run.json, every
// tasks.ndjson record, results.json, and verify-run's verification.json) is valid, by the definition and by
// the committed file; a drifted file (an unknown field, a wrong type, a missing field) is not. For tsc, the
// writer's own types (RunManifest, TaskResult, GradeRecord, GuardrailCounts) have the definition's keys,
// required where the definition requires them.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import {
  ResultsJsonSchema,
  RunJsonSchema,
  TaskRecordSchema,
  VerificationJsonSchema,
  type RunJson,
  type TaskRecord,
} from "../../src/bench/runs/runFileSchemas.ts";
import type { RunManifest } from "../../src/bench/runs/runDirectory.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import type { GradeRecord } from "../../src/bench/grading/gradeRecord.ts";
import type { GuardrailCounts } from "../../src/bench/agent/guardrailCounts.ts";
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import { MINI_DATASET_DIR } from "./benchFixtures.ts";
import { realBenchRun } from "../evidence/regradeRunFixture.ts";

// ---- for tsc: the writer's types and the definitions have the same fields, required alike.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
type SameFields<A, B> = Same<keyof A, keyof B> extends true ? Same<RequiredKeys<A>, RequiredKeys<B>> : false;
const fieldsAgree: [
  SameFields<RunJson, RunManifest>,
  SameFields<TaskRecord, TaskResult>,
  SameFields<TaskRecord["grade"], GradeRecord>,
  SameFields<TaskRecord["guardrails"], GuardrailCounts>,
] = [true, true, true, true];
void fieldsAgree;

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tca-bench-run-files-"));
after(() => rmSync(root, { recursive: true, force: true }));

const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false });
const schemaOf = (name: string): object =>
  JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), "utf8")) as object;
const committedAjv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const files = {
  run: { definition: ajv.compile(RunJsonSchema), committed: committedAjv.compile(schemaOf("bench-run.schema.json")) },
  task: {
    definition: ajv.compile(TaskRecordSchema),
    committed: committedAjv.compile(schemaOf("bench-task-record.schema.json")),
  },
  results: {
    definition: ajv.compile(ResultsJsonSchema),
    committed: committedAjv.compile(schemaOf("bench-results.schema.json")),
  },
  verification: {
    definition: ajv.compile(VerificationJsonSchema),
    committed: committedAjv.compile(schemaOf("bench-verification.schema.json")),
  },
};
type Name = keyof typeof files;
const errorsOf = (validate: ValidateFunction): string => JSON.stringify(validate.errors);

function assertValid(name: Name, value: unknown): void {
  for (const [which, validate] of Object.entries(files[name]))
    assert.ok(validate(value), `${name} by its ${which} schema: ${errorsOf(validate)}`);
}
function assertInvalid(name: Name, value: unknown, keyword: string): void {
  for (const [which, validate] of Object.entries(files[name])) {
    assert.equal(validate(value), false, `${name} drifted but valid by its ${which} schema`);
    assert.ok(
      validate.errors?.some((e) => e.keyword === keyword),
      `${name} (${which}): expected a ${keyword} error, got ${errorsOf(validate)}`,
    );
  }
}

let honest = "";
let written: { run: Record<string, unknown>; tasks: Record<string, unknown>[]; results: Record<string, unknown> };
let verification: Record<string, unknown> = {};
const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

before(async () => {
  if (sandboxPackages().skip !== false) return;
  honest = await realBenchRun(root, "honest");
  written = {
    run: readJson(join(honest, "run.json")),
    tasks: readFileSync(join(honest, "tasks.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>),
    results: readJson(join(honest, "results.json")),
  };
  const code = await new Promise<number>((resolve) =>
    execFile(
      process.execPath,
      [TCA, "bench", "quixbugs", "verify-run", honest, "--dataset", MINI_DATASET_DIR, "--jobs", "2"],
      { timeout: 300_000 },
      (error) => resolve(error === null ? 0 : typeof error.code === "number" ? error.code : 1),
    ),
  );
  assert.equal(code, 0, "verify-run of the honest run");
  verification = readJson(join(honest, "verification.json"));
});

test("what an honest bench run writes is valid: run.json, every task record, results.json, verification.json", () => {
  assertValid("run", written.run);
  assert.equal(written.tasks.length, 3);
  for (const task of written.tasks) assertValid("task", task);
  assert.deepEqual(
    written.tasks.map((t) => t["outcome"]).sort(),
    ["fixed", "no_change", "wrong_fix"],
    "the fixture's three outcomes",
  );
  assertValid("results", written.results);
  assertValid("verification", verification);
  assert.equal(verification["identical"], 3);
});

test("a drifted run.json is invalid: an unknown field, a wrong type, a missing field", () => {
  assertInvalid("run", { ...written.run, datasetIdentity: "planted" }, "additionalProperties");
  assertInvalid("run", { ...written.run, conditions: ["E"] }, "enum");
  assertInvalid("run", { ...written.run, shard: { index: 0, count: "2" } }, "type");
  const { fingerprint: _removed, ...withoutFingerprint } = written.run;
  assertInvalid("run", withoutFingerprint, "required");
});

test("a drifted task record is invalid: an unknown field, a wrong type, a missing field, inside the grade too", () => {
  const [task] = written.tasks;
  assert.ok(task !== undefined);
  assertInvalid("task", { ...task, verdict: "fixed" }, "additionalProperties");
  assertInvalid("task", { ...task, turns: "1" }, "type");
  assertInvalid("task", { ...task, outcome: "passed" }, "enum");
  const { finalSha256: _removed, ...withoutDigest } = task;
  assertInvalid("task", withoutDigest, "required");
  const grade = task["grade"] as Record<string, unknown>;
  assertInvalid(
    "task",
    { ...task, grade: { ...grade, counts: { ...(grade["counts"] as object), extra: 1 } } },
    "additionalProperties",
  );
  assertInvalid("task", { ...task, finalSha256: "not a digest" }, "pattern");
});

test("a drifted results.json or verification.json is invalid", () => {
  assertInvalid("results", { ...written.results, complete: "yes" }, "type");
  const tasks = written.results["tasks"] as Record<string, unknown>[];
  assertInvalid("results", { ...written.results, tasks: [{ ...tasks[0], injected: true }] }, "additionalProperties");
  assertInvalid("verification", { ...verification, kind: "quixbugs-run" }, "const");
  const entries = verification["tasks"] as Record<string, unknown>[];
  assertInvalid("verification", { ...verification, tasks: [{ ...entries[0], identical: "true" }] }, "type");
});
