// Each Lab verdict problem code is the verdict's answer to one forgery: the forgeries here are the
// ones no other test makes, each asserted by its code (and where it lies: file, line, event), and the
// last test holds the table to the tests: every code of LAB_PROBLEM_MEANINGS is asserted somewhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/digest.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import { checkManifestAgainstSpec } from "../../src/verdicts/labManifestCheck.ts";
import { LAB_PROBLEM_CODES, type LabProblem } from "../../src/verdicts/labProblems.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { readRunEvidence } from "../../src/verdicts/submission/runEvidence.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import { assertNoSuccess, copyRun, editJson, editRecords, readRecords } from "./forgery.ts";
import { assertProblem } from "./labProblemAssert.ts";

const root = freshRoot("lab-problem-codes");
const made = await runScriptedBaseline(join(root, "baseline"));
assert.ok(made.ok);
const baseline = made.value.runDirectory;
let copies = 0;
const forge = (): string => copyRun(baseline, join(root, `forged-${++copies}`));

function lineOf(run: string, type: string, proposal?: number): number {
  return (
    readRecords(run).findIndex(
      (record) => record.type === type && (proposal === undefined || record.proposal === proposal),
    ) + 1
  );
}

test("the honest baseline has no problem, so every code below is the forgery's", () => {
  assert.deepEqual(deriveRunVerdict(baseline).problems, []);
});

test("final.json's labels rewritten: labels_differ, on final.json", () => {
  const run = forge();
  editJson(run, "final.json", (final) => {
    (final.labels as Record<string, unknown>).scripted = false;
  });
  assertNoSuccess(
    run,
    "labels_differ",
    /^labels_differ: final\.json: labels differ from the audit's run_started labels$/,
  );
});

test("manifest.json's system instruction rewritten (digest too): manifest_prompt_differs", () => {
  const run = forge();
  editJson(run, "manifest.json", (manifest) => {
    const prompt = manifest.prompt as Record<string, unknown>;
    prompt.system_instruction = "Do anything.";
    prompt.system_instruction_sha256 = sha256Hex("Do anything.");
  });
  assertNoSuccess(run, "manifest_prompt_differs", /^manifest_prompt_differs: manifest\.json: the system instruction/);
});

test("more proposals than the budget: proposal_budget_exceeded, on audit.jsonl (the manifest check itself)", () => {
  const verdict = deriveRunVerdict(baseline);
  const problems: LabProblem[] = [];
  checkManifestAgainstSpec(verdict.manifest!, verdict.records, 7, (problem) => problems.push(problem));
  assert.deepEqual(problems.map(formatProblem), [
    "proposal_budget_exceeded: audit.jsonl: 7 proposals, the budget is 6",
  ]);
  const within: LabProblem[] = [];
  checkManifestAgainstSpec(verdict.manifest!, verdict.records, 6, (problem) => within.push(problem));
  assert.deepEqual(within, []);
});

test("run_started's initial state names another source: replay_initial_state_differs, on its line", () => {
  const run = forge();
  editRecords(run, (records) => {
    const initial = records[0]!.data.initial_state as Record<string, unknown>;
    initial.sourceSha256 = "0".repeat(64);
  });
  assertNoSuccess(run, "replay_initial_state_differs", /^replay_initial_state_differs: audit\.jsonl \(run_started\): /);
});

test("the first generation deleted (records renumbered): replay_text_missing at the validation", () => {
  const run = forge();
  editRecords(
    run,
    (records) => records.filter((record) => !(record.type === "generation" && record.proposal === 1)),
    true,
  );
  const line = lineOf(run, "validation", 1);
  assertNoSuccess(
    run,
    "replay_text_missing",
    new RegExp(`^replay_text_missing: audit\\.jsonl:${line} \\(validation\\): proposal 1: `),
  );
});

test("a dispatch of another action than the validated one: replay_dispatch_differs", () => {
  const run = forge();
  editRecords(run, (records) => {
    const dispatch = records.find((record) => record.type === "dispatch" && record.proposal === 1)!;
    dispatch.data.action = { action: "read", file: "TASK.txt" };
  });
  const line = lineOf(run, "dispatch", 1);
  const verdict = deriveRunVerdict(run);
  assert.equal(verdict.kind, "evidence_invalid");
  const problem = verdict.problems.find((p) => p.code === "replay_dispatch_differs");
  assert.deepEqual(problem && [problem.file, problem.line, problem.event], ["audit.jsonl", line, "dispatch"]);
});

test("the final_evaluation record deleted (renumbered): final_evaluation_unrecorded, and record_missing", () => {
  const run = forge();
  editRecords(run, (records) => records.filter((record) => record.type !== "final_evaluation"), true);
  const verdict = deriveRunVerdict(run);
  assertProblem(verdict.problems, "final_evaluation_unrecorded", /^final_evaluation_unrecorded: final\.json: /);
  assertProblem(
    verdict.problems,
    "record_missing",
    /^record_missing: audit\.jsonl \(final_evaluation\): no final_evaluation record/,
  );
});

test("the final evaluation's counts rewritten in the audit and final.json: final_evaluation_recount", () => {
  const run = forge();
  editRecords(run, (records) => {
    const evaluation = records.find((record) => record.type === "final_evaluation")!;
    evaluation.data.held_out_passed = 7;
  });
  editJson(run, "final.json", (final) => {
    (final.final_evaluation as Record<string, unknown>).held_out_passed = 7;
  });
  assertNoSuccess(
    run,
    "final_evaluation_recount",
    /^final_evaluation_recount: audit\.jsonl \(final_evaluation\): the final evaluation records 4\/4 public and 7\/8 held-out, re-evaluating workspace\/toy_math\.py gives 4 and 8$/,
  );
});

test("the final evaluation names another version: final_version_differs", () => {
  const run = forge();
  editRecords(run, (records) => {
    const evaluation = records.find((record) => record.type === "final_evaluation")!;
    (evaluation.data.snapshot as Record<string, unknown>).version = 1;
  });
  assertNoSuccess(
    run,
    "final_version_differs",
    /^final_version_differs: audit\.jsonl \(final_evaluation\): the final evaluation names version 1 /,
  );
});

test("the final toy_math.py replaced by a failing one: verified_success_differs beside final_source_differs", () => {
  const run = forge();
  const path = join(run, "workspace", "toy_math.py");
  writeFileSync(path, readFileSync(path, "utf8").replace("return", "return  "));
  const verdict = deriveRunVerdict(run);
  assertProblem(verdict.problems, "final_source_differs");
  assertProblem(
    verdict.problems,
    "verified_success_differs",
    /^verified_success_differs: audit\.jsonl: its records claim verified_success true, re-deriving it gives false$/,
  );
});

test("more than 40 problems: the rest counted as problems_omitted, the last listed", () => {
  const run = forge();
  writeFileSync(join(run, "manifest.json"), `${JSON.stringify({ schema: "tca.manifest/1" })}\n`);
  editJson(run, "final.json", (final) => {
    for (const key of Object.keys(final)) if (key !== "schema") final[key] = null;
  });
  for (const name of readdirSync(join(run, "backups"))) writeFileSync(join(run, "backups", name), "x");
  // Backups of versions the replay never rebuilt: one backup_unexpected each.
  for (let version = 10; version < 20; version++) writeFileSync(join(run, "backups", `toy_math.v${version}.py`), "x");
  const verdict = deriveRunVerdict(run);
  assert.equal(verdict.kind, "evidence_invalid");
  const omitted = verdict.problems.at(-1)!;
  assert.equal(omitted.code, "problems_omitted", JSON.stringify(verdict.problems.map(formatProblem)));
  assert.match(omitted.detail, /^\d+ more problem\(s\)$/);
  assert.match(formatProblem(omitted), /^problems_omitted: \d+ more problem\(s\)$/, "no empty file slot");
  assert.equal(verdict.problems.length, 41);
});

test("a missing evidence file past the 40-problem cap is still listed (file_missing), so submission.md refuses it as missing", () => {
  const run = forge();
  // 45 copies of a generation record after the stop: two replay_order_differs each, all found
  // before final.json and manifest.json are looked for.
  editRecords(
    run,
    (records) => {
      const stop = records.findIndex((record) => record.type === "stop");
      const generation = records.find((record) => record.type === "generation")!;
      const copies = Array.from({ length: 45 }, () => ({ ...generation }));
      return [...records.slice(0, stop + 1), ...copies, ...records.slice(stop + 1)];
    },
    true,
  );
  rmSync(join(run, "final.json"));
  rmSync(join(run, "manifest.json"));
  const verdict = deriveRunVerdict(run);
  assert.equal(verdict.kind, "evidence_invalid");
  const shown = JSON.stringify(verdict.problems.map(formatProblem));
  assert.deepEqual(
    verdict.problems.slice(0, 40).map((problem) => problem.code),
    Array.from({ length: 40 }, () => "replay_order_differs"),
    shown,
  );
  // The two missing files come after the cap's 40, before the count of what was dropped, and
  // are not in that count: 90 replay problems, 40 listed, 50 dropped.
  assert.deepEqual(verdict.problems.slice(40, 42).map(formatProblem), [
    "file_missing: final.json: missing, although the audit records that the run finished",
    "file_missing: manifest.json: missing, although the audit records the run started",
  ]);
  assert.equal(verdict.problems.length, 43, shown);
  assert.equal(verdict.problems[42]!.code, "problems_omitted");
  assert.equal(verdict.problems[42]!.detail, "50 more problem(s)");
  const evidence = readRunEvidence("baseline", run);
  assert.equal(evidence.ok ? "read" : evidence.error, "run_evidence_missing");
  assert.match(evidence.ok ? "" : evidence.message, /^baseline run: file_missing: final\.json: missing/);
});

test("every Lab problem code is asserted by a test (a new code without a forgery fails here)", () => {
  const texts: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(new URL("..", import.meta.url).pathname);
  const all = texts.join("\n");
  // Asserted as a code argument ("code") or in a printed form ("code: file…" or /^code: file…/).
  const untested = LAB_PROBLEM_CODES.filter(
    (code) => !all.includes(`"${code}"`) && !all.includes(`"${code}: `) && !all.includes(`^${code}: `),
  );
  assert.deepEqual(untested, []);
});
