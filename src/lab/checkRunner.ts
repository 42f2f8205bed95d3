// Runs the negative checks (and the positive no_change checks), each in its own fresh run
// directory through runLab with a scripted source, and reports expected vs observed codes and
// whether the controller's source, version and backups were left as they were.
import { readAuditLog } from "../recording/auditLog.ts";
import { join } from "node:path";
import { ManualClock } from "../core/clock.ts";
import { parseToyMathSource } from "../expr/index.ts";
import { ScriptedSource } from "../sources/scriptedSource.ts";
import { INITIAL_TOY_MATH_PY } from "../constants/labConstants.ts";
import { listBackups, overwriteSource, readSourceBytes, type TamperTarget } from "./externalTamper.ts";
import { runLab, type LabRunResult } from "./labRun.ts";
import { NEGATIVE_CHECKS, type CheckPlan, type NegativeCheck, type Observed } from "./negativeChecks.ts";
import { POSITIVE_CHECKS } from "./positiveChecks.ts";
import type { CheckRow } from "./checkRow.ts";
import { sha256Hex } from "../core/digest.ts";

export type { CheckRow } from "./checkRow.ts";

interface CheckIdentity {
  readonly id: string;
  readonly description: string;
  readonly expected: string;
}

/** The row of a check whose run could not even start: nothing observed, nothing to compare. */
function failedToRunRow(check: CheckIdentity, code: string, message: string): CheckRow {
  return {
    id: check.id,
    description: check.description,
    expected: check.expected,
    observed: code,
    unchanged: "n/a",
    passed: false,
    problems: [message],
    runDirectory: null,
    stopReason: null,
  };
}

/** The row of a check that ran: it passes only with the expected code, unchanged state and no problem. */
function ranCheckRow(
  check: CheckIdentity,
  observed: string | null,
  unchanged: boolean,
  problems: readonly string[],
  run: LabRunResult,
): CheckRow {
  return {
    id: check.id,
    description: check.description,
    expected: check.expected,
    observed,
    unchanged: unchanged ? "yes" : "no",
    passed: observed === check.expected && unchanged && problems.length === 0,
    problems,
    runDirectory: run.runDirectory,
    stopReason: run.final.stop_reason,
  };
}

interface StateCapture {
  readonly version: number;
  readonly recordedSha256: string;
  readonly diskSha256: string | null;
  readonly backups: readonly string[];
}

export async function runNegativeCheck(check: NegativeCheck, root: string): Promise<CheckRow> {
  const clock = new ManualClock(0);
  const cancel = new AbortController();
  let target: TamperTarget | null = null;
  const context = {
    clock,
    cancel,
    target: (): TamperTarget => {
      if (target === null) throw new Error("the run directory does not exist yet");
      return target;
    },
  };
  const plan: CheckPlan = check.plan(context);
  let before: StateCapture | null = null;
  let after: StateCapture | null = null;
  let workspaceRef: LabRunResult["workspace"] | null = null;
  const capture = (): StateCapture => {
    if (target === null || workspaceRef === null) throw new Error("capture before creation");
    const state = workspaceRef.state();
    const bytes = readSourceBytes(target);
    return {
      version: state.version,
      recordedSha256: state.sourceSha256,
      diskSha256: bytes === null ? null : sha256Hex(bytes),
      backups: listBackups(target.runDirectory),
    };
  };
  const runDirectory = join(root, check.id);
  const result = await runLab({
    runDirectory,
    source: new ScriptedSource(plan.steps),
    kind: "negative_check",
    clock,
    cancellation: cancel.signal,
    workspaceHooks: plan.workspaceHooks,
    controllerHooks: {
      ...plan.controllerHooks,
      afterObservation: async (n, observation) => {
        await plan.controllerHooks?.afterObservation?.(n, observation);
        if (n === check.deniedProposal - 1) before = capture();
      },
    },
    afterCreate: (workspace) => {
      workspaceRef = workspace;
      target = { workspaceDirectory: workspace.paths.workspace, runDirectory: workspace.paths.run };
      plan.afterCreate?.();
      if (check.deniedProposal === 1) before = capture();
    },
    beforeFinalEvaluation: () => {
      after = capture();
      plan.beforeFinalEvaluation?.();
    },
  });
  if (!result.ok) {
    return failedToRunRow(check, result.error, result.message);
  }
  const observed = observe(plan.observe, result.value, check.deniedProposal);
  const problems = [...(plan.verify?.(result.value) ?? [])];
  const unchanged = before !== null && after !== null && sameSource(before, after);
  if (before === null) problems.push("the denied proposal was never reached");
  if (before !== null && after !== null && !sameBackups(before, after, plan.preparedBackupAllowed === true)) {
    problems.push("backups changed across the denied proposal");
  }
  return ranCheckRow(check, observed, unchanged, problems, result.value);
}

function sameSource(a: StateCapture, b: StateCapture): boolean {
  return a.version === b.version && a.recordedSha256 === b.recordedSha256 && a.diskSha256 === b.diskSha256;
}

/** Backups never disappear; a new one is allowed only where the denied step prepared it before its guard. */
function sameBackups(a: StateCapture, b: StateCapture, preparedBackupAllowed: boolean): boolean {
  const kept = a.backups.every((name) => b.backups.includes(name));
  const added = b.backups.length - a.backups.length;
  return kept && (added === 0 || (preparedBackupAllowed && added === 1));
}

function observe(kind: Observed, run: LabRunResult, deniedProposal: number): string | null {
  switch (kind) {
    case "stop_reason":
      return run.final.stop_reason;
    case "final_status":
      return String(run.final.final_evaluation["status"]);
    case "last_error": {
      const last = [...run.loop.log].reverse().find((entry) => entry.synthetic !== true);
      return last && !last.observation.ok ? last.observation.error : null;
    }
    case "late_discarded": {
      const audit = readAuditLog(run.runDirectory);
      if (!audit.ok) return null;
      const records = audit.log.records;
      const late = records.some((r) => r.type === "late_proposal_discarded" && r.proposal === deniedProposal);
      const validated = records.some((r) => r.type === "validation" && r.proposal === deniedProposal);
      return late && !validated ? "late_proposal_discarded" : null;
    }
  }
}

/**
 * Source-validator checks: whole files the wrapper validator must refuse. Each runs in its own
 * fresh, disposable run (Part 7): an outside actor writes the file into the workspace, the
 * controller's integrity check refuses the read (workspace_conflict), and the validator is run on
 * the bytes actually on disk, which it must refuse with the listed code. The controller's
 * recorded source digest and version must stay the initial ones.
 */
export const SOURCE_VALIDATOR_CHECKS: readonly { id: string; description: string; source: string; expected: string }[] =
  [
    {
      id: "altered_signature",
      description: "altered function signature",
      source: INITIAL_TOY_MATH_PY.replace("def clamp(x, lo, hi)", "def clamp(x, hi, lo)"),
      expected: "signature_mismatch",
    },
    {
      id: "extra_statement",
      description: "extra statement in a function body",
      source: INITIAL_TOY_MATH_PY.replace("    return x\n", "    y = 1\n    return x\n"),
      expected: "statement_not_allowed",
    },
    {
      id: "unexpected_source_content",
      description: "unexpected module-level content",
      source: `${INITIAL_TOY_MATH_PY}print(1)\n`,
      expected: "module_expression_not_allowed",
    },
  ];

export async function runSourceValidatorCheck(
  check: (typeof SOURCE_VALIDATOR_CHECKS)[number],
  root: string,
): Promise<CheckRow> {
  const description = `${check.description} (source validator, in a fresh workspace)`;
  const seen: { onDisk: Buffer | null } = { onDisk: null };
  const result = await runLab({
    runDirectory: join(root, check.id),
    source: new ScriptedSource(['{"action":"read","file":"toy_math.py"}']),
    kind: "negative_check",
    clock: new ManualClock(0),
    afterCreate: (workspace) =>
      overwriteSource(
        { workspaceDirectory: workspace.paths.workspace, runDirectory: workspace.paths.run },
        check.source,
      ),
    beforeFinalEvaluation: (workspace) => {
      seen.onDisk = readSourceBytes({
        workspaceDirectory: workspace.paths.workspace,
        runDirectory: workspace.paths.run,
      });
    },
  });
  if (!result.ok) {
    return failedToRunRow({ ...check, description }, result.error, result.message);
  }
  const bytes = seen.onDisk;
  const verdict = bytes === null ? null : parseToyMathSource(bytes);
  const observed = verdict === null ? null : verdict.ok ? "accepted" : verdict.error;
  const state = result.value.workspace.state();
  const unchanged = state.version === 0 && state.sourceSha256 === sha256Hex(INITIAL_TOY_MATH_PY);
  const problems: string[] = [];
  if (bytes === null || bytes.toString("utf8") !== check.source)
    problems.push("the workspace file does not hold the written source");
  const last = result.value.loop.log.at(-1)?.observation;
  const lastError = last === undefined || last.ok ? undefined : last.error;
  if (lastError !== "workspace_conflict")
    problems.push(`the read of the changed file was not refused as workspace_conflict (${String(lastError)})`);
  if (result.value.final.verified_success) problems.push("verified_success must be false");
  return ranCheckRow({ ...check, description }, observed, unchanged, problems, result.value);
}

export async function runAllChecks(root: string): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  for (const check of SOURCE_VALIDATOR_CHECKS) rows.push(await runSourceValidatorCheck(check, root));
  for (const check of NEGATIVE_CHECKS) rows.push(await runNegativeCheck(check, root));
  for (const check of POSITIVE_CHECKS) rows.push(await check.run(root));
  return rows;
}
