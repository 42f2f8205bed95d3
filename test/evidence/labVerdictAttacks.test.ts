// The attack corpus of issue 23 against the Lab verdict, kept as tests. Each attack copies a real
// scripted baseline (VERIFIED SUCCESS, made by the harness), forges it as a faker would, keeping
// the recorded claims consistent with each other, and asserts that the re-derived verdict is
// EVIDENCE INVALID with the forgery named, that the report's headline is not a success, and that
// submission.md refuses the run. The untouched baseline stays VERIFIED SUCCESS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import type { ProposalSource } from "../../src/controller/proposalSource.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import { BASELINE_PROPOSALS, INITIAL_TOY_MATH_PY, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import type { LabProblemCode } from "../../src/verdicts/labProblems.ts";
import { assertProblem } from "./labProblemAssert.ts";
import {
  assertNoSuccess,
  copyRun,
  editJson,
  editRecords,
  observationOf,
  sed,
  swapFinalSource,
  type Record_,
} from "./forgery.ts";

const root = freshRoot("verdict-attacks");
const made = await runScriptedBaseline(join(root, "baseline"));
assert.ok(made.ok);
const baseline = made.value.runDirectory;
let copies = 0;
const forge = (): string => copyRun(baseline, join(root, `forged-${++copies}`));

const REPAIRED = readFileSync(join(baseline, "workspace", "toy_math.py"), "utf8");
/** Fails 2 of the 4 public cases (the fee is dropped). */
const WRONG_TOTAL = REPAIRED.replace(REPAIR_EXPRESSIONS.total, "unit * qty");
const byType =
  (type: string, proposal?: number) =>
  (record: Record_): boolean =>
    record.type === type && (proposal === undefined || record.proposal === proposal);

test("honest: an untouched baseline is VERIFIED SUCCESS in the verdict, the report and submission.md", () => {
  const verdict = deriveRunVerdict(baseline);
  assert.equal(verdict.kind, "verified_success");
  assert.deepEqual(verdict.problems, []);
  assert.equal(verdict.recomputed.finalSource?.grammar, "valid");
  assert.equal(verdict.recomputed.finalSource?.publicPassed, 4);
  assert.equal(verdict.recomputed.finalSource?.heldOutPassed, 8);
  assert.equal(verdict.recomputed.replay.finalVersion.version, 2);
  assert.equal(verdict.recomputed.replay.proposalsUsed, 6);
  assert.equal(readLabReport(baseline).verdict.headline, "SCRIPTED BASELINE · VERIFIED SUCCESS");
  const built = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(built.ok);
  assert.match(built.value, /verified_success is true/);
});

test("honest runs that end in other ways are re-derived without a problem and never verify", async () => {
  const closing: ProposalSource = {
    label: "model",
    describe: () => ({}),
    propose: () => Promise.resolve({ kind: "model_error", message: "the model failed", metadata: {} }),
    close: () => Promise.reject(new Error("the worker would not stop")),
  };
  const runs: [string, Parameters<typeof runLab>[0]][] = [
    [
      "harness_error",
      {
        runDirectory: join(root, "honest-fault"),
        source: new ScriptedSource(BASELINE_PROPOSALS),
        kind: "negative_check",
        controllerHooks: {
          afterObservation: (n) => {
            if (n === 3) throw new TypeError("injected harness fault");
          },
        },
      },
    ],
    [
      "invalid_proposal_limit",
      {
        runDirectory: join(root, "honest-invalid"),
        source: new ScriptedSource(["not json", '{"action":"finish","version":0}']),
        kind: "negative_check",
      },
    ],
    [
      "proposal_limit",
      {
        runDirectory: join(root, "honest-task-read"),
        source: new ScriptedSource(['{"action":"read","file":"TASK.txt"}', ...BASELINE_PROPOSALS.slice(0, 5)]),
        kind: "negative_check",
      },
    ],
    ["model_error", { runDirectory: join(root, "honest-close"), source: closing, kind: "model_trial" }],
  ];
  for (const [stopReason, options] of runs) {
    const made = await runLab(options);
    assert.ok(made.ok);
    assert.equal(made.value.final.stop_reason, stopReason);
    const verdict = deriveRunVerdict(made.value.runDirectory);
    assert.deepEqual(verdict.problems, [], stopReason);
    assert.equal(verdict.kind, "not_verified", stopReason);
  }
});

test("one-line sed: a wrong `total` with its digest rewritten everywhere is EVIDENCE INVALID", () => {
  const run = forge();
  swapFinalSource(run, WRONG_TOTAL);
  assertNoSuccess(run, "replay_version_differs", /replayed/);
  // What the verdict recomputed from the file itself: it fails 2 of 4 public cases.
  assert.equal(deriveRunVerdict(run).recomputed.finalSource?.publicPassed, 2);
  assert.equal(deriveRunVerdict(run).recomputed.verifiedSuccess, false);
});

test("a program outside the grammar (import os) never verifies, even with every digest rewritten", () => {
  const run = forge();
  swapFinalSource(run, `import os\n${REPAIRED}`);
  assertNoSuccess(run, "final_source_outside_grammar", /outside the grammar/);
  assert.equal(deriveRunVerdict(run).recomputed.finalSource?.allPass, false);
});

test("the last committed edit's digest changed (in the commit and its receipt) is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    for (const record of records.filter(byType("edit_committed", 4))) record.data.sha256 = "0".repeat(64);
  });
  assertNoSuccess(run, "replay_edit_differs", /the replayed edit gives/);
});

test("the test before the finish made to fail is EVIDENCE INVALID (the test is re-run on the rebuilt version)", () => {
  const run = forge();
  editRecords(run, (records) => {
    const test = observationOf(records.find(byType("observation", 5))!);
    test.passed = 3;
    (test.cases as { actual: number }[])[3]!.actual = 9;
  });
  assertNoSuccess(run, "replay_observation_differs", /test result differs from evaluating version 2/);
});

test("the finish's validation flipped to refused is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    records.find(byType("validation", 6))!.data = {
      ok: false,
      error: "unknown_action",
      message: "forged",
      attempted_action: "finish",
    };
  });
  assertNoSuccess(run, "replay_validation_differs", /re-validating the raw text says true/);
});

test("the finish's authorization flipped to denied is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    records.find(byType("authorization", 6))!.data = { allowed: false, error: "tests_not_passing", message: "forged" };
  });
  assertNoSuccess(run, "replay_authorization_differs", /the replayed authorizer says true/);
});

test("the finish's raw text replaced is EVIDENCE INVALID (the recorded action is not what the text parses to)", () => {
  for (const raw of ['{"action":"finish","version":1}', "I am done, please finish."]) {
    const run = forge();
    editRecords(run, (records) => {
      records.find(byType("generation", 6))!.data.raw_text = raw;
    });
    assertNoSuccess(run, "replay_validation_differs", /raw text/);
  }
});

test("a failed integrity check with the run going on as if it passed is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    records.find(byType("integrity_check", 6))!.data = {
      ok: false,
      at: "before_dispatch",
      message: "toy_math.py changed outside the controller",
    };
  });
  assertNoSuccess(run, "replay_authorization_differs", /without a passing integrity check/);
});

test("an edit's recorded expressions, or a read's, not those of the rebuilt version are EVIDENCE INVALID", () => {
  const committed = forge();
  editRecords(committed, (records) => {
    (records.find(byType("edit_committed", 4))!.data.expressions as Record<string, string>).total = "unit * qty";
  });
  assertNoSuccess(committed, "replay_edit_differs", /expressions are not those of the rebuilt version/);
  const read = forge();
  editRecords(read, (records) => {
    (observationOf(records.find(byType("observation", 1))!).expressions as Record<string, string>).clamp = "lo";
  });
  assertNoSuccess(read, "replay_observation_differs", /read's expressions/);
});

test("the run kind in the audit changed (a check run passed off as a baseline) is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    records.find(byType("run_started"))!.data.run_kind = "model_trial";
  });
  assertNoSuccess(run, "manifest_field_differs", /run_started's run_kind/);
});

test("read content that does not match its own digest is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    observationOf(records.find(byType("observation", 1))!).content = INITIAL_TOY_MATH_PY.replace(
      "return x",
      "return lo",
    );
  });
  assertNoSuccess(run, "replay_observation_differs", /read content/);
});

test("stop and final evaluation moved before the passing test (records renumbered) is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) => {
      const moved = records.filter((record) => record.type === "stop" || record.type === "final_evaluation");
      const rest = records.filter((record) => !moved.includes(record));
      const at = rest.findIndex(byType("request", 5));
      return [...rest.slice(0, at), ...moved, ...rest.slice(at)];
    },
    true,
  );
  assertNoSuccess(run, "replay_order_differs", /after the stop/);
});

test("the passing test's proposal deleted, records and proposals renumbered, counts fixed is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) =>
      records
        .filter((record) => record.proposal !== 5)
        .map((record) => (record.proposal === 6 ? { ...record, proposal: 5 } : record)),
    true,
  );
  editJson(run, "final.json", (final) => {
    final.proposals_used = 5;
  });
  assertNoSuccess(run, "replay_finish_differs", /a finish accepted without a passing test/);
});

test("final.json cases emptied, duplicated, or with one actual value changed is EVIDENCE INVALID", () => {
  const edits: ((cases: unknown[]) => unknown[])[] = [
    () => [],
    (cases) => [...cases, ...cases],
    (cases) => [cases[0], cases[0], ...cases.slice(2)],
    (cases) => cases.map((item, index) => (index === 11 ? { ...(item as object), actual: 20, passed: false } : item)),
  ];
  for (const edit of edits) {
    const run = forge();
    editJson(run, "final.json", (final) => {
      const evaluation = final.final_evaluation as { cases: unknown[] };
      evaluation.cases = edit(evaluation.cases);
    });
    assertNoSuccess(run, "final_cases_differ", /recorded case/);
  }
});

test("proposals_used or invalid_proposals changed in final.json is EVIDENCE INVALID", () => {
  for (const [key, value] of [
    ["proposals_used", 5],
    ["proposals_used", 7],
    ["invalid_proposals", 1],
  ] as const) {
    const run = forge();
    editJson(run, "final.json", (final) => {
      final[key] = value;
    });
    assertNoSuccess(run, "final_field_differs", new RegExp(`${key} is ${value}, recomputed`));
  }
});

test("the manifest's source label, budgets or harness hash changed is EVIDENCE INVALID", () => {
  const edits: [LabProblemCode, RegExp, (manifest: Record<string, unknown>) => void][] = [
    [
      "source_label_differs",
      /proposal source is "model"/,
      (m) => {
        (m.proposal_source as Record<string, unknown>).label = "model";
      },
    ],
    [
      "manifest_field_differs",
      /budgets\.max_proposals/,
      (m) => {
        (m.budgets as Record<string, unknown>).max_proposals = 8;
      },
    ],
    [
      "manifest_field_differs",
      /budgets\.overall_deadline_ms/,
      (m) => {
        (m.budgets as Record<string, unknown>).overall_deadline_ms = 3_600_000;
      },
    ],
    [
      "manifest_field_differs",
      /harness\.aggregate_sha256/,
      (m) => {
        (m.harness as Record<string, unknown>).aggregate_sha256 = "f".repeat(64);
      },
    ],
    [
      "manifest_field_differs",
      /fixtures\.held_out_count/,
      (m) => {
        (m.fixtures as Record<string, unknown>).held_out_count = 0;
      },
    ],
  ];
  for (const [code, mentions, edit] of edits) {
    const run = forge();
    editJson(run, "manifest.json", edit);
    assertNoSuccess(run, code, mentions);
  }
});

test("a backup changed or deleted is EVIDENCE INVALID", () => {
  const changed = forge();
  writeFileSync(join(changed, "backups", "toy_math.v1.py"), WRONG_TOTAL);
  assertNoSuccess(changed, "backup_differs", /backups\/toy_math\.v1\.py: does not hold the bytes of version 1/);
  const deleted = forge();
  rmSync(join(deleted, "backups", "toy_math.v0.py"));
  assertNoSuccess(deleted, "backup_missing", /backups\/toy_math\.v0\.py: missing/);
  const planted = forge();
  writeFileSync(join(planted, "backups", "toy_math.v7.py"), REPAIRED);
  assertNoSuccess(planted, "backup_unexpected", /not the backup of a version/);
});

test("CRLF line ends in the audit, final.json or the final source are EVIDENCE INVALID", () => {
  for (const name of ["audit.jsonl", "final.json", "manifest.json"]) {
    const run = forge();
    sed(run, [name], "\n", "\r\n");
    assertNoSuccess(run, "cr_byte", /CR byte/);
  }
  const source = forge();
  swapFinalSource(source, REPAIRED.replaceAll("\n", "\r\n"));
  assertNoSuccess(source);
});

test("an audit claim of success after a failing final evaluation (counts and flags rewritten) is EVIDENCE INVALID", () => {
  const run = forge();
  swapFinalSource(run, WRONG_TOTAL);
  editRecords(run, (records) => {
    const evaluation = records.find(byType("final_evaluation"))!;
    evaluation.data.public_passed = 4;
  });
  assertNoSuccess(run);
});

test("a final.json that is a link, a FIFO or a folder is named as such (never read, never called missing), and the run is never a success", () => {
  for (const [kind, plant, named] of [
    [
      "link",
      (path: string) => symlinkSync(join(baseline, "final.json"), path),
      /final\.json: .*(symbolic link|symlink)/i,
    ],
    ["fifo", (path: string) => execFileSync("mkfifo", [path]), /final\.json: .*FIFO/i],
    ["folder", (path: string) => mkdirSync(path), /final\.json: .*director/i],
  ] as const) {
    const run = forge();
    rmSync(join(run, "final.json"));
    plant(join(run, "final.json"));
    const verdict = deriveRunVerdict(run);
    assert.equal(verdict.kind, "evidence_invalid", kind);
    assertProblem(verdict.problems, "file_unreadable", named, kind);
    assert.ok(
      !verdict.problems.some((problem) => problem.code === "file_missing"),
      `${kind}: called missing: ${JSON.stringify(verdict.problems)}`,
    );
    assertNoSuccess(run);
  }
});
