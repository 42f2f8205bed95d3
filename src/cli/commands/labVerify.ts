// tca lab verify RUN_OR_CHECKS_DIR [--regenerate --model-directory DIR] [--strict] [--json]:
// prints the verdict re-derived from the folder by the same functions `tca report` uses
// (deriveRunVerdictCheckingModel for a Lab run: the model directory a model trial names is opened now;
// deriveChecksVerdict for a checks root), with the harness digests compared with this harness's
// (--strict: another harness version is not accepted), and with --regenerate
// re-asks the model every recorded request (src/lab/labRegeneration.ts) and records the result in
// regeneration.json. Exit 0 only when the evidence holds (the verdict may still be NOT VERIFIED:
// a valid record of a failure); 1 when it is EVIDENCE INVALID or INCOMPLETE, or when --strict
// finds another harness version or a regenerated response that differs; 2 when refused (nothing was asked or written).
import { labelledVerdict, resultLabel } from "../../core/resultLabel.ts";
import { resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { LAB_REFUSED } from "./labRefusals.ts";
import { inputDirectory } from "../pathArguments.ts";
import { modelDirectoryArgument } from "../labPathArguments.ts";
import { exitOnInterrupt, holdRunFolder } from "../interruption.ts";
import { tcaCommand } from "../invocation.ts";
import { detectRunKind } from "../../report/runKind.ts";
import { labVerdict } from "../../report/labVerdict.ts";
import { checksVerdict } from "../../report/checksReport.ts";
import type { Verdict } from "../../report/reportDocument.ts";
import { deriveRunVerdictCheckingModel, RUN_VERDICT_HEADLINES } from "../../verdicts/runVerdict.ts";
import { CHECKS_FILE, deriveChecksVerdict } from "../../verdicts/checksVerdict.ts";
import { harnessHashes } from "../../recording/runtimeIdentity.ts";
import { readJsonObjectUnder } from "../../core/safeRead.ts";
import { regenerationSummary, type RegenerationRecord } from "../../verdicts/labRegenerationRecord.ts";
import { differenceExcerpts, regenerationOutcomeLine } from "../../core/responseComparison.ts";

const CHECKS_SUMMARY_MAX_BYTES = 64 * 1024 * 1024;
/** Options as commander parses them for `tca lab verify` (src/cli/commands/lab.ts registers them). */
export interface LabVerifyFlags {
  regenerate?: boolean;
  modelDirectory?: string;
  strict?: boolean;
  json?: boolean;
}

/** Every line of a regeneration's output, each labelled SYNTHETIC when the model was a synthetic checkpoint. */
export function regenerationLines(record: RegenerationRecord, recordPath: string): string[] {
  const label = record.model_directory.synthetic_label;
  const tag = label === null ? "" : `[SYNTHETIC checkpoint: ${label}] `;
  const lines = [
    `model directory: ${record.model_directory.path} (${record.model_directory.model_name}; verified by ${record.model_directory.verified_by})`,
    `normalization: ${record.normalization}`,
    `${regenerationSummary({ ...record, model_directory: { ...record.model_directory, synthetic_label: null } })}${
      record.not_compared > 0
        ? ` (${record.not_compared} request(s) not compared: their recorded outcome is no model response)`
        : ""
    }`,
  ];
  for (const turn of record.turns) {
    if (!turn.compared || turn.identical) continue;
    const offset = turn.first_difference_offset ?? 0;
    lines.push(
      `proposal ${turn.proposal} (request #${turn.request_event_id}): differs at byte ` +
        `${offset} (recorded ${turn.recorded_outcome}, regenerated ${turn.regenerated_outcome})`,
      ...differenceExcerpts(turn.recorded?.text ?? null, turn.regenerated?.text ?? null, offset),
    );
  }
  lines.push(
    regenerationOutcomeLine(record.outcome, record.strict),
    `recorded in ${recordPath} (a record: it never makes a verdict valid by itself)`,
  );
  return lines.map((line) => `${tag}${line}`);
}

function verdictLines(kind: "lab run" | "checks", verdict: Verdict): string[] {
  return [`${kind}: ${verdict.headline}`, ...verdict.details.map((line) => `  ${line}`)];
}

export async function runLabVerify(
  directoryArgument: string,
  flags: LabVerifyFlags,
  setExitCode: SetExitCode,
): Promise<void> {
  const json = flags.json === true;
  const refuse = (code: string, message: string): void => refusal(setExitCode, LAB_REFUSED)(code, message, { json });
  if (flags.regenerate !== true && flags.modelDirectory !== undefined)
    return refuse("usage_error", "--model-directory and the model it names belong to --regenerate");
  const checked = inputDirectory("the run directory", resolve(directoryArgument));
  if (!checked.ok) return refuse(checked.error, checked.message);
  const directory = checked.value;
  const kind = detectRunKind(directory);
  if (!kind.ok) return refuse(kind.error, `${directoryArgument}: ${kind.message}`);
  if (kind.value === "bench")
    return refuse("not_a_lab_run", `${directoryArgument} is a bench run: tca bench quixbugs verify-run verifies it`);

  if (kind.value === "checks") {
    if (flags.regenerate === true)
      return refuse(
        "nothing_to_regenerate",
        "nothing to regenerate: scripted proposals (a checks root holds only scripted check runs)",
      );
    const derived = deriveChecksVerdict(directory);
    // checks.json records the harness aggregate only: compared with this harness's, never shown as it.
    const recorded = readJsonObjectUnder(directory, CHECKS_FILE, CHECKS_SUMMARY_MAX_BYTES)?.["harness_sha256"];
    const current = harnessHashes().aggregate_sha256;
    const sameHarness = recorded === current;
    const valid =
      (derived.kind === "all_passed" || derived.kind === "failed") && (flags.strict !== true || sameHarness);
    const words = checksVerdict(derived);
    const shown = {
      ...words,
      details: [
        ...words.details,
        sameHarness
          ? `harness: made by this harness version (aggregate sha256 ${current})`
          : `harness: made by another harness version: checks.json records aggregate sha256 ` +
            `${typeof recorded === "string" ? recorded : "none"}, this harness is ${current}`,
      ],
    };
    const { kind: verdict, headline, problems } = derived;
    const strict = flags.strict === true;
    const answer = { ok: true, directory, kind: "checks", verdict, headline, problems, sameHarness, strict, valid };
    process.stdout.write(
      json
        ? `${JSON.stringify({ ...answer, passes: valid }, null, 2)}\n`
        : `${verdictLines("checks", shown).join("\n")}\n`,
    );
    setExitCode(valid ? 0 : 1);
    return;
  }

  let modelDirectory: string | null = null;
  if (flags.regenerate === true && flags.modelDirectory !== undefined) {
    const checked = modelDirectoryArgument(flags.modelDirectory);
    if (!checked.ok) return refuse(checked.error, checked.message);
    modelDirectory = resolve(checked.value);
  }
  // The model directory a model trial names is opened now (lab-replay): a relabelled run is not a model trial.
  const verdict = await deriveRunVerdictCheckingModel(directory);
  let record: RegenerationRecord | null = null;
  let recordPath: string | null = null;
  if (flags.regenerate === true) {
    // regeneration.json is written into the run: one writer at a time, nothing written if stopped.
    const held = holdRunFolder("lab verify", directory);
    if (!held.ok) return refuse(held.error, held.message);
    const uninstall = exitOnInterrupt({
      command: "lab verify",
      partial: () => null,
      rerun: tcaCommand(process.argv.slice(2)),
    });
    try {
      // The regeneration (a model load) is loaded only when asked for.
      const { regenerateLabRun, writeRegenerationRecord } = await import("../../lab/labRegeneration.ts");
      const regenerated = await regenerateLabRun({
        runDirectory: directory,
        modelDirectory,
        records: verdict.records,
        manifest: verdict.manifest,
        strict: flags.strict === true,
      });
      if (!regenerated.ok) return refuse(regenerated.error, regenerated.message);
      record = regenerated.value;
      recordPath = writeRegenerationRecord(directory, record);
    } finally {
      uninstall();
      held.value.release();
    }
  }
  const strictFailure = record !== null && record.strict && record.outcome !== "reproduced";
  const otherHarness = flags.strict === true && verdict.harness?.sameVersion !== true;
  const valid =
    !strictFailure && !otherHarness && (verdict.kind === "verified_success" || verdict.kind === "not_verified");
  const headline = strictFailure ? RUN_VERDICT_HEADLINES.evidence_invalid : RUN_VERDICT_HEADLINES[verdict.kind];
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          ok: true,
          directory,
          kind: "lab",
          verdict: strictFailure ? "evidence_invalid" : verdict.kind,
          headline,
          // What made the proposals, re-derived: the word the printed verdict line carries first.
          label: resultLabel(verdict.source),
          problems: verdict.problems,
          model: verdict.modelTrial,
          harness: verdict.harness,
          strict: flags.strict === true,
          valid,
          passes: valid,
          regeneration: record,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const lines = verdictLines("lab run", labVerdict(verdict));
    if (record !== null && recordPath !== null) lines.push(...regenerationLines(record, recordPath));
    if (strictFailure)
      lines.push(
        `verdict: ${labelledVerdict(verdict.source, headline)} (a regenerated response differs and --strict was given)`,
      );
    if (otherHarness) lines.push("strict: made by another harness version, so not accepted");
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  setExitCode(valid ? 0 : 1);
}
