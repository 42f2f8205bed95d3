// Re-asking the model (#33): every recorded `request` of a Lab run's audit is sent again, with its
// exact recorded messages, to the model loaded from a directory that verifies now, through the
// same model-side code the run used (LocalModelSource: the supervised worker, the verified chat
// template, the Lab's generation profile: greedy, the same stop ids and token limits). Each turn
// is sent with its own recorded history (a Lab request carries the whole history in its two
// messages), so one difference does not hide the rest. Each response is compared with the
// recorded generation's raw_text byte for byte, with NO normalization: the harness parses the raw
// text exactly as generated (Part 8's decoding rule strips nothing), so even a trailing space could
// change what the harness did, and the engine is greedy on one fixed build, so no noise is expected.
//
// The result is a record (regeneration.json), never a finding that makes a verdict valid: without
// --strict a difference is "not reproduced" (a server need not be deterministic); with --strict
// the CLI turns any difference into EVIDENCE INVALID.
import { renameSync, writeFileSync, appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../core/canonicalJson.ts";
import { sha256Hex } from "../core/digest.ts";
import { isRecord } from "../core/isRecord.ts";
import { err, ok, type Result } from "../core/result.ts";
import { systemClock } from "../core/clock.ts";
import { readFileUnder } from "../core/safeRead.ts";
import { boundedText, firstDifferingOffset, RESPONSE_TEXT_BOUND } from "../core/responseComparison.ts";
import { CONTROLLER_LIMITS } from "../constants/labConstants.ts";
import type { ChatMessage } from "../core/chatMessage.ts";
import type { LabAuditRecord as AuditRecord } from "../recording/labAuditEvents.ts";
import { openCheckpointDirectory } from "../model/loader/checkpointDirectory.ts";
import { LocalModelSource } from "../sources/localModelSource.ts";
import type { ProposalOutcome } from "../controller/proposalSource.ts";
import { DECODING_RULE, EFFECTIVE_GENERATION_CONFIG, GENERATION_PROFILES } from "../model/engine/generationSettings.ts";
import {
  REGENERATION_FILE,
  REGENERATION_HISTORY_FILE,
  REGENERATION_SCHEMA,
  REGENERATION_NORMALIZATION,
  type RegenerationRecord,
  type RegeneratedTurn,
} from "../verdicts/labRegenerationRecord.ts";

// The comparison is the one the bench regeneration uses too (src/core/responseComparison.ts).
export { firstDifferingOffset };

export type RegenerationErrorCode =
  | "model_directory_required"
  | "model_directory_rejected"
  | "nothing_to_regenerate"
  | "model_mismatch"
  | "settings_mismatch"
  | "model_load_failed"
  | "evidence_unreadable";

/** One recorded turn: the request as sent and what the run recorded coming back. */
export interface RecordedTurn {
  readonly proposal: number;
  readonly requestEventId: number;
  readonly messages: readonly ChatMessage[];
  /** The generation record's outcome, or "none" when the audit has no generation for it. */
  readonly outcome: string;
  readonly rawText: string | null;
}

function isChatMessage(value: unknown): value is ChatMessage {
  return isRecord(value) && (value.role === "system" || value.role === "user") && typeof value.content === "string";
}

/** The requests of the audit, each with the generation that answered it (same proposal, next generation record). */
export function recordedTurns(records: readonly AuditRecord[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const [index, record] of records.entries()) {
    if (record.type !== "request" || record.proposal === null) continue;
    const messages = record.data["messages"];
    if (!Array.isArray(messages) || !messages.every(isChatMessage)) continue;
    const answer = records
      .slice(index + 1)
      .find((r) => r.proposal === record.proposal && (r.type === "generation" || r.type === "request"));
    const generation = answer?.type === "generation" ? answer : undefined;
    const rawText = generation?.data["raw_text"];
    turns.push({
      proposal: record.proposal,
      requestEventId: record.event_id,
      messages,
      outcome: typeof generation?.data["outcome"] === "string" ? generation.data["outcome"] : "none",
      rawText: typeof rawText === "string" ? rawText : null,
    });
  }
  return turns;
}

/** Only outcomes that a model decides are compared: a recorded deadline, cancellation or crash is not a response. */
const COMPARABLE_OUTCOMES: readonly string[] = ["text", "context_limit"];

/** One turn's regenerated outcome against the recorded one. */
export function compareTurn(turn: RecordedTurn, regenerated: ProposalOutcome | null): RegeneratedTurn {
  const regeneratedText = regenerated?.kind === "text" ? regenerated.text : null;
  const base = {
    proposal: turn.proposal,
    request_event_id: turn.requestEventId,
    recorded_outcome: turn.outcome,
    regenerated_outcome: regenerated?.kind ?? "not_asked",
  };
  if (regenerated === null || !COMPARABLE_OUTCOMES.includes(turn.outcome))
    return {
      ...base,
      compared: false,
      identical: false,
      first_difference_offset: null,
      recorded: null,
      regenerated: null,
    };
  const sameKind = regenerated.kind === turn.outcome;
  const offset =
    sameKind && turn.outcome === "text"
      ? firstDifferingOffset(turn.rawText ?? "", regeneratedText ?? "")
      : sameKind
        ? null
        : 0;
  const identical = sameKind && offset === null;
  return {
    ...base,
    compared: true,
    identical,
    first_difference_offset: identical ? null : offset,
    recorded: identical ? null : boundedText(turn.rawText),
    regenerated: identical ? null : boundedText(regeneratedText),
  };
}

export interface RegenerationInput {
  readonly runDirectory: string;
  readonly modelDirectory: string | null;
  /** The audit records as the verdict read them (its strict reader). */
  readonly records: readonly AuditRecord[];
  readonly manifest: Readonly<Record<string, unknown>> | null;
  readonly strict: boolean;
  readonly now?: () => Date;
}

/** The run's recorded model identity (what the run says it loaded): weights and file digests. */
function recordedFileDigests(manifest: Readonly<Record<string, unknown>> | null): unknown {
  const trial = manifest?.["model_trial"];
  return isRecord(trial) ? trial["verified_file_sha256"] : undefined;
}

/** The generation settings a source records in the manifest (proposal_source), compared before any turn counts. */
const SETTING_KEYS = ["generation_config", "decoding_rule", "input_token_budget"] as const;

/**
 * What the Lab's worker reports for these keys (modelSession.ts loadedMessage, the "lab" profile):
 * checked before loading, so a run made with other settings is refused without the load's cost;
 * what the loaded worker itself reports is checked again after loading.
 */
const LAB_SETTINGS: Readonly<Record<(typeof SETTING_KEYS)[number], unknown>> = {
  generation_config: EFFECTIVE_GENERATION_CONFIG,
  decoding_rule: DECODING_RULE,
  input_token_budget: GENERATION_PROFILES.lab.maxInputTokens,
};

function settingsDifference(recorded: unknown, loaded: Readonly<Record<string, unknown>>): string | null {
  if (!isRecord(recorded)) return "the run records no proposal_source settings";
  for (const key of SETTING_KEYS)
    if (canonicalJson(recorded[key]) !== canonicalJson(loaded[key]))
      return `${key}: the run recorded ${canonicalJson(recorded[key]) ?? "nothing"}, the loaded model uses ${canonicalJson(loaded[key])}`;
  return null;
}

/**
 * Re-asks every recorded request and returns the record (not yet written). Refusals happen before
 * the model is loaded or anything is written: no model directory, a scripted run, a directory that
 * does not verify, one that is not the run's model.
 */
export async function regenerateLabRun(
  input: RegenerationInput,
): Promise<Result<RegenerationRecord, RegenerationErrorCode>> {
  const turns = recordedTurns(input.records);
  const sources = new Set(input.records.map((r) => r.source));
  if (sources.size === 1 && sources.has("scripted"))
    return err("nothing_to_regenerate", "nothing to regenerate: scripted proposals (no model was asked in this run)");
  if (turns.length === 0)
    return err("nothing_to_regenerate", "nothing to regenerate: the audit records no model request");
  if (input.modelDirectory === null)
    return err("model_directory_required", "--regenerate needs --model-directory DIR (the run's model, verified now)");

  const checkpoint = await openCheckpointDirectory(input.modelDirectory);
  if (!checkpoint.ok) return err("model_directory_rejected", `${checkpoint.error}: ${checkpoint.message}`);
  const synthetic = checkpoint.value.synthetic?.label ?? null;
  const recorded = recordedFileDigests(input.manifest);
  if (recorded === undefined)
    return err("model_mismatch", "the run records no model identity (manifest.json model_trial.verified_file_sha256)");
  if (canonicalJson(recorded) !== canonicalJson(checkpoint.value.sha256))
    return err(
      "model_mismatch",
      `the model directory is not the run's model: its verified file digests differ from manifest.json's model_trial.verified_file_sha256`,
    );

  const expected = settingsDifference(input.manifest?.["proposal_source"], LAB_SETTINGS);
  if (expected !== null) return err("settings_mismatch", `the run's settings are not the Lab engine's (${expected})`);

  const clock = systemClock;
  const source = await LocalModelSource.create({
    modelDirectory: checkpoint.value.directory,
    overallDeadlineMs: clock.now() + CONTROLLER_LIMITS.overallDeadlineMs,
    clock,
  });
  if (!source.ok) return err("model_load_failed", `${source.error}: ${source.message}`);
  const compared: RegeneratedTurn[] = [];
  try {
    const described = source.value.describe();
    const difference = settingsDifference(input.manifest?.["proposal_source"], described);
    if (difference !== null)
      return err("settings_mismatch", `the loaded model's settings are not the run's (${difference})`);
    for (const turn of turns) {
      if (!COMPARABLE_OUTCOMES.includes(turn.outcome)) {
        compared.push(compareTurn(turn, null));
        continue;
      }
      const signal = new AbortController().signal;
      const outcome = await source.value.propose(
        {
          proposalNumber: turn.proposal,
          messages: turn.messages,
          deadlineMs: clock.now() + CONTROLLER_LIMITS.perCallDeadlineMs,
        },
        signal,
      );
      compared.push(compareTurn(turn, outcome));
    }
  } finally {
    await source.value.close();
  }
  const m = compared.filter((t) => t.compared).length;
  const n = compared.filter((t) => t.identical).length;
  const audit = readFileUnder(input.runDirectory, "audit.jsonl", 64 * 1024 * 1024);
  if (!audit.ok) return err("evidence_unreadable", `audit.jsonl: ${audit.error}: ${audit.message}`);
  return ok({
    schema: REGENERATION_SCHEMA,
    regenerated_at: (input.now ?? (() => new Date()))().toISOString(),
    run_id: input.records[0]?.run_id ?? null,
    audit_sha256: sha256Hex(audit.value),
    model_directory: {
      path: checkpoint.value.directory,
      model_name: checkpoint.value.modelName,
      synthetic_label: synthetic,
      verified_by:
        synthetic === null ? "the pinned files (weights SHA-256 and blob ids)" : "its own synthetic manifest",
      verified_file_sha256: checkpoint.value.sha256,
    },
    normalization: REGENERATION_NORMALIZATION,
    strict: input.strict,
    compared: m,
    identical: n,
    not_compared: compared.length - m,
    outcome: n === m ? "reproduced" : "not_reproduced",
    turns: compared,
  });
}

/**
 * Writes the record as regeneration.json (the last regeneration); an earlier one is appended to
 * regenerations.ndjson first, so no regeneration's record is lost and none blocks a new one.
 */
export function writeRegenerationRecord(runDirectory: string, record: RegenerationRecord): string {
  const path = join(runDirectory, REGENERATION_FILE);
  if (existsSync(path)) {
    const earlier = readFileSync(path, "utf8");
    let line: string;
    try {
      line = JSON.stringify(JSON.parse(earlier));
    } catch {
      line = JSON.stringify({ unreadable_earlier_record: earlier.slice(0, RESPONSE_TEXT_BOUND) });
    }
    appendFileSync(join(runDirectory, REGENERATION_HISTORY_FILE), `${line}\n`, { mode: 0o600 });
  }
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { flag: "wx", mode: 0o600 });
  renameSync(temporary, path);
  return path;
}
