// The scripted baseline, checked from the evidence it leaves (never assumed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import {
  BASELINE_PROPOSALS,
  HELD_OUT_FIXTURES,
  INITIAL_TOY_MATH_PY,
  REPAIR_EXPRESSIONS,
} from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit, readJson } from "./labRunTestSupport.ts";

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

test("the baseline trace shows 4 public failures, 2 commits, 4 passes, finish, 8 held-out passes", async () => {
  const root = freshRoot("baseline");
  const source = new ScriptedSource(BASELINE_PROPOSALS);
  const result = await runLab({ runDirectory: join(root, "run"), source, kind: "scripted_baseline" });
  assert.ok(result.ok);
  const runDirectory = result.value.runDirectory;
  const audit = readAudit(runDirectory);
  const observations = audit
    .filter((r) => r.type === "observation")
    .map((r) => r.data["observation"] as Record<string, unknown>);
  assert.equal(observations.length, 6);

  const firstTest = observations[1];
  assert.equal(firstTest?.["action"], "test");
  assert.equal(firstTest?.["passed"], 0);
  assert.equal(firstTest?.["total"], 4);

  const commits = audit.filter((r) => r.type === "edit_committed");
  assert.equal(commits.length, 2);
  assert.deepEqual(
    observations.slice(2, 4).map((o) => [o["status"], o["old_version"], o["version"]]),
    [
      ["edit_committed", 0, 1],
      ["edit_committed", 1, 2],
    ],
  );

  const secondTest = observations[4];
  assert.equal(secondTest?.["passed"], 4);
  assert.equal(observations[5]?.["status"], "finish_accepted");

  const final = readJson(join(runDirectory, "final.json"));
  const evaluation = final["final_evaluation"] as Record<string, unknown>;
  assert.equal(final["stop_reason"], "finish_accepted");
  assert.equal(evaluation["status"], "completed");
  assert.equal(evaluation["public_passed"], 4);
  assert.equal(evaluation["held_out_passed"], 8);
  assert.equal(final["verified_success"], true);
  assert.equal(final["invalid_proposals"], 0);

  // The finish receipt and the final snapshot name the same (version, sha256), and it is the repaired file.
  const expected = `def clamp(x, lo, hi):\n    return ${REPAIR_EXPRESSIONS.clamp}\n\ndef total(unit, qty, fee):\n    return ${REPAIR_EXPRESSIONS.total}\n`;
  const onDisk = readFileSync(join(runDirectory, "workspace", "toy_math.py"), "utf8");
  assert.equal(onDisk, expected);
  assert.deepEqual(final["finish"], { version: 2, sha256: sha256(expected) });
  assert.equal(evaluation["sha256"], sha256(expected));

  // Backups: the initial source and version 1, each exactly once.
  assert.deepEqual(readdirSync(join(runDirectory, "backups")).sort(), ["toy_math.v0.py", "toy_math.v1.py"]);
  assert.equal(readFileSync(join(runDirectory, "backups", "toy_math.v0.py"), "utf8"), INITIAL_TOY_MATH_PY);

  // No model was invoked: every record is labelled scripted, and the manifest says so.
  assert.ok(audit.every((r) => r.source === "scripted"));
  const manifest = readJson(join(runDirectory, "manifest.json"));
  assert.deepEqual(manifest["labels"], {
    kind: "scripted_baseline",
    scripted: true,
    synthetic_pipeline_check: false,
    model_invoked_expected: false,
  });
  assert.equal((manifest["proposal_source"] as Record<string, unknown>)["proposal_source"], "scripted");
  assert.equal(source.requests.length, 6);
});

test("held-out fixtures never reach a request or an observation", async () => {
  const root = freshRoot("heldout");
  const result = await runLab({
    runDirectory: join(root, "run"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  assert.ok(result.ok);
  const visible = readAudit(result.value.runDirectory)
    .filter((r) => ["request", "observation", "generation"].includes(r.type))
    .map((r) => JSON.stringify(r.data))
    .join("\n");
  for (const fixture of HELD_OUT_FIXTURES) {
    assert.ok(
      !visible.includes(JSON.stringify(fixture.inputs)),
      `held-out inputs ${JSON.stringify(fixture.inputs)} leaked`,
    );
  }
});

test("run directories and evidence files are owner-only", async () => {
  const root = freshRoot("modes");
  const result = await runLab({
    runDirectory: join(root, "run"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  assert.ok(result.ok);
  const dir = result.value.runDirectory;
  for (const name of ["", "workspace", "backups"])
    assert.equal(statSync(join(dir, name)).mode & 0o777, 0o700, name || "run");
  for (const name of [
    "audit.jsonl",
    "manifest.json",
    "final.json",
    "workspace/toy_math.py",
    "workspace/TASK.txt",
    "backups/toy_math.v0.py",
  ]) {
    assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
  }
});

test("a run that exhausts its proposals with correct code reports correctness apart from the stop", async () => {
  const root = freshRoot("exhaust");
  const steps = [
    BASELINE_PROPOSALS[0],
    BASELINE_PROPOSALS[2],
    BASELINE_PROPOSALS[3],
    '{"action":"test"}',
    '{"action":"test"}',
    '{"action":"read","file":"TASK.txt"}',
  ].map(String);
  const result = await runLab({
    runDirectory: join(root, "run"),
    source: new ScriptedSource(steps),
    kind: "negative_check",
  });
  assert.ok(result.ok);
  const final = result.value.final;
  assert.equal(final.stop_reason, "proposal_limit");
  assert.equal(final.final_evaluation["status"], "completed");
  assert.equal(final.final_evaluation["public_passed"], 4);
  assert.equal(final.final_evaluation["held_out_passed"], 8);
  assert.equal(final.finish, null);
  assert.equal(final.verified_success, false);
});

test("an accepted finish on code that fails held-out cases is not a verified success", async () => {
  const root = freshRoot("heldoutfail");
  // Passes the four public cases, fails held-out ones: clamp ignores lo when x < lo unless lo is 0.
  const steps = [
    '{"action":"read","file":"toy_math.py"}',
    '{"action":"replace","function":"clamp","old":"x","new":"0 if x < lo else hi if x > hi else x","version":0}',
    '{"action":"replace","function":"total","old":"unit + qty + fee","new":"unit * qty + fee","version":1}',
    '{"action":"test"}',
    '{"action":"finish","version":2}',
  ];
  const result = await runLab({
    runDirectory: join(root, "run"),
    source: new ScriptedSource(steps),
    kind: "negative_check",
  });
  assert.ok(result.ok);
  assert.equal(result.value.final.stop_reason, "finish_accepted");
  assert.equal(result.value.final.final_evaluation["public_passed"], 4);
  assert.ok((result.value.final.final_evaluation["held_out_passed"] as number) < 8);
  assert.equal(result.value.final.verified_success, false);
});

test("the baseline starts no process at all: no model worker, no subprocess", async () => {
  const { createRequire, syncBuiltinESMExports } = await import("node:module");
  const childProcess = createRequire(import.meta.url)("node:child_process") as Record<string, unknown>;
  const names = ["spawn", "spawnSync", "fork", "exec", "execFile", "execSync", "execFileSync"];
  const originals = new Map(names.map((name) => [name, childProcess[name]]));
  const started: string[] = [];
  for (const name of names) {
    const original = originals.get(name) as (...args: unknown[]) => unknown;
    childProcess[name] = (...args: unknown[]) => {
      started.push(`${name} ${String(args[0])}`);
      return original(...args);
    };
  }
  // Named ESM imports of node:child_process follow the CommonJS object only after this call.
  syncBuiltinESMExports();
  try {
    const root = freshRoot("no-process");
    const result = await runLab({
      runDirectory: join(root, "run"),
      source: new ScriptedSource(BASELINE_PROPOSALS),
      kind: "scripted_baseline",
    });
    assert.ok(result.ok);
    assert.equal(result.value.final.verified_success, true);
  } finally {
    for (const [name, original] of originals) childProcess[name] = original;
    syncBuiltinESMExports();
  }
  assert.deepEqual(started, []);
});
