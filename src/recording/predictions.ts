// The learner's predictions (Part 1), recorded with timestamps before any trial so they can be
// set next to the outcomes in submission.md. Written once, exclusively; never edited by a run.
import { parseBoundedJson } from "../core/boundedJson.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PREDICTION_QUESTIONS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { writeJsonExclusive } from "./evidenceFile.ts";

export const PREDICTIONS_FILE_NAME = "predictions.json";

export interface RecordedPrediction {
  readonly number: number;
  readonly question: string;
  readonly answer: string;
  readonly answered_at: string;
}

export interface PredictionsRecord {
  readonly schema: "tca.predictions/1";
  readonly recorded_at: string;
  readonly form: "interactive" | "answers_file";
  readonly predictions: readonly RecordedPrediction[];
}

export type PredictionsErrorCode =
  "predictions_exist" | "answers_invalid" | "predictions_missing" | "predictions_invalid";

const MAX_ANSWER_CHARS = 2000;

/** The default place: beside the acquisition ledger, in the model directory. */
export function predictionsPath(modelDirectory: string): string {
  return join(modelDirectory, PREDICTIONS_FILE_NAME);
}

/** Accepts a JSON array of five non-empty strings, or an object keyed "1".."5". */
export function parseAnswers(text: string): Result<string[], PredictionsErrorCode> {
  // Depth-checked before parsing: an answers file nested thousands deep is refused, never a crash.
  const bounded = parseBoundedJson(text, "the answers file");
  if (!bounded.ok)
    return err("answers_invalid", bounded.error === "json_too_deep" ? bounded.message : "the answers file is not JSON");
  const parsed = bounded.value;
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === "object" && parsed !== null
      ? PREDICTION_QUESTIONS.map((_, i) =>
          Object.hasOwn(parsed, String(i + 1)) ? (parsed as Record<string, unknown>)[String(i + 1)] : undefined,
        )
      : null;
  if (list === null || list.length !== PREDICTION_QUESTIONS.length)
    return err("answers_invalid", "give exactly five answers");
  const answers: string[] = [];
  for (const answer of list) {
    if (typeof answer !== "string" || answer.trim().length === 0)
      return err("answers_invalid", "every answer must be a non-empty string");
    if (answer.length > MAX_ANSWER_CHARS)
      return err("answers_invalid", `answers are limited to ${MAX_ANSWER_CHARS} characters`);
    answers.push(answer.trim());
  }
  return ok(answers);
}

export function recordPredictions(
  path: string,
  answers: readonly { readonly answer: string; readonly answeredAt: Date }[],
  form: PredictionsRecord["form"],
  now: Date = new Date(),
): Result<PredictionsRecord, PredictionsErrorCode> {
  if (existsSync(path))
    return err("predictions_exist", "predictions are already recorded there; they are never overwritten");
  if (answers.length !== PREDICTION_QUESTIONS.length) return err("answers_invalid", "give exactly five answers");
  const record: PredictionsRecord = {
    schema: "tca.predictions/1",
    recorded_at: now.toISOString(),
    form,
    predictions: PREDICTION_QUESTIONS.map((question, i) => ({
      number: i + 1,
      question,
      answer: answers[i]?.answer ?? "",
      answered_at: (answers[i]?.answeredAt ?? now).toISOString(),
    })),
  };
  writeJsonExclusive(path, record);
  return ok(record);
}

export function readPredictions(path: string): Result<PredictionsRecord, PredictionsErrorCode> {
  if (!existsSync(path)) return err("predictions_missing", "no predictions are recorded");
  try {
    const bounded = parseBoundedJson(readFileSync(path, "utf8"), "the predictions file");
    if (!bounded.ok)
      return err(
        "predictions_invalid",
        bounded.error === "json_too_deep" ? bounded.message : "the predictions file is not JSON",
      );
    const parsed = bounded.value as Partial<PredictionsRecord>;
    if (
      parsed.schema !== "tca.predictions/1" ||
      !Array.isArray(parsed.predictions) ||
      parsed.predictions.length !== PREDICTION_QUESTIONS.length
    ) {
      return err("predictions_invalid", "the predictions file is not a tca.predictions/1 record");
    }
    return ok(parsed as PredictionsRecord);
  } catch {
    return err("predictions_invalid", "the predictions file is not JSON");
  }
}
