// tca lab predict: the five answers of Part 1, from a file or the terminal, recorded before any trial.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { inputFile, newOutput } from "../pathArguments.ts";
import { modelDirectoryArgument } from "../labPathArguments.ts";
import { PREDICTION_QUESTIONS } from "../../constants/labConstants.ts";
import { parseAnswers, predictionsPath, recordPredictions } from "../../recording/predictions.ts";
import { LAB_REFUSED } from "./labRefusals.ts";

/** Options as commander parses them for `tca lab predict` (src/cli/commands/lab.ts registers them). */
export interface LabPredictOptions {
  modelDirectory?: string;
  predictions?: string;
  answers?: string;
}

export async function runLabPredict(options: LabPredictOptions, setExitCode: SetExitCode): Promise<void> {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  let path: string;
  if (options.predictions) {
    const out = newOutput("--predictions", resolve(options.predictions), "choose a new file with --predictions FILE");
    if (!out.ok) return refuse(out.error === "output_exists" ? "predictions_exist" : out.error, out.message);
    path = out.value;
  } else if (options.modelDirectory) {
    const directory = modelDirectoryArgument(resolve(options.modelDirectory));
    if (!directory.ok) return refuse(directory.error, directory.message);
    path = predictionsPath(directory.value);
  } else {
    return refuse("usage_error", "give --model-directory DIR or --predictions FILE");
  }
  const answersFile = options.answers ? inputFile("--answers", resolve(options.answers)) : null;
  if (answersFile !== null && !answersFile.ok) return refuse(answersFile.error, answersFile.message);
  let answers: { answer: string; answeredAt: Date }[];
  let form: "interactive" | "answers_file";
  if (answersFile !== null) {
    const parsed = parseAnswers(readFileSync(answersFile.value, "utf8"));
    if (!parsed.ok) {
      return refuse(parsed.error, `${answersFile.value}: ${parsed.message}`);
    }
    const now = new Date();
    answers = parsed.value.map((answer) => ({ answer, answeredAt: now }));
    form = "answers_file";
  } else {
    // Lines are read through the async iterator so piped answers are queued, not lost.
    const { createInterface } = await import("node:readline/promises");
    const prompt = createInterface({ input: process.stdin, terminal: false });
    const lines = prompt[Symbol.asyncIterator]();
    answers = [];
    try {
      for (const [i, question] of PREDICTION_QUESTIONS.entries()) {
        let answer = "";
        while (answer.trim() === "") {
          process.stdout.write(`${i + 1}. ${question}\n> `);
          const next = await lines.next();
          if (next.done === true) {
            process.stderr.write("\n");
            return refuse("input_incomplete", "input ended before all five answers were given; nothing was recorded");
          }
          answer = String(next.value);
        }
        answers.push({ answer: answer.trim(), answeredAt: new Date() });
      }
    } finally {
      prompt.close();
    }
    form = "interactive";
  }
  const recorded = recordPredictions(path, answers, form);
  if (!recorded.ok) {
    return refuse(recorded.error, `${path}: ${recorded.message}`);
  }
  process.stdout.write(`predictions recorded: ${path} (${recorded.value.recorded_at})\n`);
}
