import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { parseAnswers, readPredictions, recordPredictions } from "../../src/recording/predictions.ts";
import { PREDICTION_QUESTIONS } from "../../src/constants/labConstants.ts";
import { freshRoot } from "./labRunTestSupport.ts";

const FIVE = ["no", "no", "format following", "yes", "denied, nothing changes"];

test("answers: an array of five or an object keyed 1-5; anything else is refused", () => {
  assert.deepEqual(parseAnswers(JSON.stringify(FIVE)), { ok: true, value: FIVE });
  assert.deepEqual(parseAnswers(JSON.stringify({ 1: "a", 2: "b", 3: "c", 4: "d", 5: "e" })), {
    ok: true,
    value: ["a", "b", "c", "d", "e"],
  });
  for (const bad of [
    "nope",
    "[]",
    JSON.stringify(FIVE.slice(0, 4)),
    JSON.stringify([...FIVE, "x"]),
    JSON.stringify(["", ...FIVE.slice(1)]),
    JSON.stringify([1, 2, 3, 4, 5]),
    JSON.stringify({ 1: "a" }),
    JSON.stringify(["x".repeat(2001), ...FIVE.slice(1)]),
  ]) {
    const parsed = parseAnswers(bad);
    assert.equal(parsed.ok ? null : parsed.error, "answers_invalid", bad.slice(0, 40));
  }
});

test("an answers or predictions file nested thousands deep is refused with its code (never a crash)", () => {
  const deep = `${"[".repeat(3000)}${"]".repeat(3000)}`;
  const answers = parseAnswers(deep);
  assert.ok(!answers.ok);
  assert.equal(answers.error, "answers_invalid");
  assert.match(answers.message, /nests deeper than/);
  const path = join(freshRoot("predictions-deep"), "predictions.json");
  writeFileSync(path, deep);
  const read = readPredictions(path);
  assert.ok(!read.ok);
  assert.equal(read.error, "predictions_invalid");
  assert.match(read.message, /nests deeper than/);
});

test("predictions are recorded once with timestamps, owner-only, and never overwritten", () => {
  const path = join(freshRoot("predict"), "predictions.json");
  const when = new Date("2026-11-30T01:00:00Z");
  const recorded = recordPredictions(
    path,
    FIVE.map((answer) => ({ answer, answeredAt: when })),
    "answers_file",
    when,
  );
  assert.ok(recorded.ok);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const read = readPredictions(path);
  assert.ok(read.ok);
  assert.deepEqual(
    read.value.predictions.map((p) => [p.number, p.question, p.answer, p.answered_at]),
    PREDICTION_QUESTIONS.map((q, i) => [i + 1, q, FIVE[i], when.toISOString()]),
  );
  const again = recordPredictions(
    path,
    FIVE.map((answer) => ({ answer, answeredAt: when })),
    "answers_file",
  );
  assert.equal(again.ok ? null : again.error, "predictions_exist");
  assert.equal(readPredictions(join(path, "..", "missing.json")).ok, false);
});

test("tca lab predict records from an answers file and from the interactive prompt", () => {
  const dir = freshRoot("predict-cli");
  const answers = join(dir, "answers.json");
  writeFileSync(answers, JSON.stringify(FIVE));
  const bin = new URL("../../bin/tca.js", import.meta.url).pathname;
  const fromFile = spawnSync(
    process.execPath,
    [bin, "lab", "predict", "--predictions", join(dir, "p1.json"), "--answers", answers],
    { encoding: "utf8" },
  );
  assert.equal(fromFile.status, 0, fromFile.stderr);
  assert.equal((JSON.parse(readFileSync(join(dir, "p1.json"), "utf8")) as { form: string }).form, "answers_file");
  const interactive = spawnSync(process.execPath, [bin, "lab", "predict", "--predictions", join(dir, "p2.json")], {
    encoding: "utf8",
    input: `${FIVE.join("\n")}\n`,
  });
  assert.equal(interactive.status, 0, interactive.stderr);
  assert.match(interactive.stdout, /1\. Will the model produce valid JSON/);
  const record = JSON.parse(readFileSync(join(dir, "p2.json"), "utf8")) as {
    form: string;
    predictions: { answer: string }[];
  };
  assert.equal(record.form, "interactive");
  assert.deepEqual(
    record.predictions.map((p) => p.answer),
    FIVE,
  );
  const noTarget = spawnSync(process.execPath, [bin, "lab", "predict", "--answers", answers], { encoding: "utf8" });
  assert.equal(noTarget.status, 2, noTarget.stderr);
  assert.ok(!existsSync(join(dir, "predictions.json")));
});
