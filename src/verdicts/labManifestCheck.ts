// Compares a Lab run's manifest.json with what can be recomputed: the spec's constants (budgets,
// fixtures, initial files, system instruction, action contract), the audit (the proposal source
// label on every record, the proposal count) and itself (the harness aggregate over its file
// list). The harness file hashes themselves are recorded, not re-derived: the code that ran may
// be another version than the code that reads the run.
import { createHash } from "node:crypto";
import { sha256Hex } from "../core/digest.ts";
import { isRecord } from "../core/isRecord.ts";
import { ACTION_CONTRACT_TEXT } from "../controller/requestAssembler.ts";
import {
  CONTROLLER_LIMITS,
  HELD_OUT_FIXTURES,
  INITIAL_TOY_MATH_PY,
  PROPOSAL_LIMITS,
  PUBLIC_FIXTURES,
  SYSTEM_INSTRUCTION,
  TASK_TXT,
} from "../constants/labConstants.ts";
import type { LabAuditRecord as AuditRecord } from "../recording/labAuditEvents.ts";
import { labProblem, type LabProblem } from "./labProblems.ts";

type Json = Readonly<Record<string, unknown>>;

function object(value: unknown): Json {
  return isRecord(value) ? value : {};
}

/** The aggregate as runtimeIdentity.harnessHashes computes it: sha256 over sorted "path\0sha256\n". */
function harnessAggregate(files: Json): string | null {
  const names = Object.keys(files).sort();
  const aggregate = createHash("sha256");
  for (const name of names) {
    const digest = files[name];
    if (typeof digest !== "string") return null;
    aggregate.update(`${name}\0${digest}\n`);
  }
  return aggregate.digest("hex");
}

export function checkManifestAgainstSpec(
  manifest: Json,
  records: readonly AuditRecord[],
  proposalsUsed: number,
  report: (problem: LabProblem) => void,
): void {
  const name = "manifest.json";
  const says = (what: string, recorded: unknown, expected: unknown): void =>
    report(
      labProblem(
        "manifest_field_differs",
        name,
        `${what} is ${JSON.stringify(recorded) ?? "missing"}, recomputed ${JSON.stringify(expected)}`,
      ),
    );
  const budgets = object(manifest.budgets);
  const fixed: Readonly<Record<string, number>> = {
    max_proposals: CONTROLLER_LIMITS.maxProposals,
    max_consecutive_invalid: CONTROLLER_LIMITS.maxConsecutiveInvalid,
    per_call_deadline_ms: CONTROLLER_LIMITS.perCallDeadlineMs,
    max_input_tokens: CONTROLLER_LIMITS.maxInputTokens,
    max_new_tokens: CONTROLLER_LIMITS.maxNewTokens,
    observation_max_bytes: CONTROLLER_LIMITS.observationMaxBytes,
    proposal_max_bytes: PROPOSAL_LIMITS.maxBytes,
  };
  for (const [key, value] of Object.entries(fixed))
    if (budgets[key] !== value) says(`budgets.${key}`, budgets[key], value);
  // A model trial may run under a shorter overall budget (its own time window), never a longer one.
  const overall = budgets.overall_deadline_ms;
  if (typeof overall !== "number" || !(overall > 0 && overall <= CONTROLLER_LIMITS.overallDeadlineMs))
    says("budgets.overall_deadline_ms", overall, `at most ${CONTROLLER_LIMITS.overallDeadlineMs}`);
  if (proposalsUsed > CONTROLLER_LIMITS.maxProposals)
    report(
      labProblem(
        "proposal_budget_exceeded",
        "audit.jsonl",
        `${proposalsUsed} proposals, the budget is ${CONTROLLER_LIMITS.maxProposals}`,
      ),
    );

  const fixtures = object(manifest.fixtures);
  const expectedFixtures = {
    public_count: PUBLIC_FIXTURES.length,
    public_sha256: sha256Hex(JSON.stringify(PUBLIC_FIXTURES)),
    held_out_count: HELD_OUT_FIXTURES.length,
    held_out_sha256: sha256Hex(JSON.stringify(HELD_OUT_FIXTURES)),
  };
  for (const [key, value] of Object.entries(expectedFixtures))
    if (fixtures[key] !== value) says(`fixtures.${key}`, fixtures[key], value);
  const initial = object(manifest.initial_files);
  for (const [name, bytes] of [
    ["toy_math.py", INITIAL_TOY_MATH_PY],
    ["TASK.txt", TASK_TXT],
  ] as const) {
    if (object(initial[name]).sha256 !== sha256Hex(bytes))
      says(`initial_files.${name}.sha256`, object(initial[name]).sha256, sha256Hex(bytes));
  }
  const prompt = object(manifest.prompt);
  if (
    prompt.system_instruction !== SYSTEM_INSTRUCTION ||
    prompt.system_instruction_sha256 !== sha256Hex(SYSTEM_INSTRUCTION)
  )
    report(labProblem("manifest_prompt_differs", name, "the system instruction is not the spec's"));
  const contract = object(manifest.contract);
  if (contract.text !== ACTION_CONTRACT_TEXT || contract.sha256 !== sha256Hex(ACTION_CONTRACT_TEXT))
    report(labProblem("manifest_prompt_differs", name, "the action contract is not the harness's"));

  const label = object(manifest.proposal_source).label;
  const other = records.find((record) => record.source !== label);
  if (typeof label !== "string") says("proposal_source.label", label, "a label");
  else if (other !== undefined)
    report(
      labProblem(
        "source_label_differs",
        name,
        `the proposal source is ${JSON.stringify(label)}, audit event ${other.event_id} was recorded for ` +
          JSON.stringify(other.source),
      ),
    );

  const started = records.find((record) => record.type === "run_started");
  if (started !== undefined && started.data.run_kind !== object(manifest.labels).kind)
    says(
      "labels.kind",
      object(manifest.labels).kind,
      `run_started's run_kind ${JSON.stringify(started.data.run_kind)}`,
    );

  const harness = object(manifest.harness);
  const aggregate = harnessAggregate(object(harness.files));
  if (aggregate === null || harness.aggregate_sha256 !== aggregate)
    says("harness.aggregate_sha256", harness.aggregate_sha256, aggregate);
}
