// Real evidence for the report tests, produced by the project's own runLab and ScriptedSource
// (never hand-written audit lines): a baseline run, a run with a denied proposal and injected
// markup in proposal texts, a synthetic pipeline-check-labelled run, and a checks root.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASELINE_PROPOSALS, REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { runLab, type RunKind } from "../../src/lab/labRun.ts";
import { runAllChecks, type CheckRow } from "../../src/lab/checkRunner.ts";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import type { ProposalOutcome, ProposalRequest, ProposalSource } from "../../src/controller/proposalSource.ts";
import { ScriptedSource, type ScriptedStep } from "../../src/sources/scriptedSource.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

export function freshRoot(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `tca-report-${prefix}-`));
}

export async function scriptedRun(
  root: string,
  name: string,
  steps: readonly ScriptedStep[],
  kind: RunKind,
): Promise<string> {
  const runDirectory = join(root, name);
  const result = await runLab({ runDirectory, source: new ScriptedSource(steps), kind });
  if (!result.ok) throw new Error(`fixture run failed: ${result.error}`);
  return runDirectory;
}

export function baselineRun(root: string): Promise<string> {
  return scriptedRun(root, "baseline", BASELINE_PROPOSALS, "scripted_baseline");
}

/** Markup a hostile model might emit; the page must show it as text and never run it. */
export const INJECTED_SCRIPT = "<script>window.__pwned=1</script>";
export const INJECTED_IMG = '<img src=x onerror="window.__pwned=2;alert(2)">';
export const INJECTED_CLOSE = "</script><script>window.__pwned=3</script>";

/** Proposal 1 is denied (replace before read), 3 and 5 carry markup (invalid), 6 commits an edit. */
export const HOSTILE_STEPS: readonly string[] = [
  JSON.stringify({ action: "replace", function: "clamp", old: "x", new: "lo", version: 0 }),
  '{"action":"read","file":"toy_math.py"}',
  `${INJECTED_SCRIPT}${INJECTED_IMG} {"action":"test"}`,
  '{"action":"read","file":"toy_math.py"}',
  JSON.stringify({ action: "read", file: INJECTED_CLOSE }),
  JSON.stringify({ action: "replace", function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 }),
];

export function hostileRun(root: string): Promise<string> {
  return scriptedRun(root, "hostile", HOSTILE_STEPS, "model_trial");
}

/**
 * A stand-in for a synthetic-checkpoint model source: the scripted texts, reported with token
 * counts the way a model source reports them (metadata.inputTokens, outputTokens, rawOutputIds),
 * and labelled as the synthetic pipeline check. The real synthetic-checkpoint source is not
 * wired into the Lab yet; the report must honour the label whatever produced the text.
 */
class SyntheticStandInSource implements ProposalSource {
  readonly label = "synthetic-pipeline-check";
  readonly #inner: ScriptedSource;
  constructor(steps: readonly string[]) {
    this.#inner = new ScriptedSource(steps);
  }
  describe(): Readonly<Record<string, unknown>> {
    return {
      ...this.#inner.describe(),
      proposal_source: "synthetic-pipeline-check",
      model: { synthetic: true, note: "report test stand-in" },
    };
  }
  async propose(request: ProposalRequest): Promise<ProposalOutcome> {
    const outcome = await this.#inner.propose(request);
    if (outcome.kind !== "text") return outcome;
    const outputIds = Array.from({ length: Math.ceil(outcome.text.length / 4) }, (_, i) => i);
    return {
      ...outcome,
      metadata: {
        inputTokens: 300 + 40 * request.proposalNumber,
        outputTokens: outputIds.length,
        rawOutputIds: outputIds,
      },
    };
  }
  async close(): Promise<void> {}
}

export async function pipelineCheckRun(root: string): Promise<string> {
  const runDirectory = join(root, "pipeline-check");
  const result = await runLab({
    runDirectory,
    source: new SyntheticStandInSource(BASELINE_PROPOSALS),
    kind: "synthetic_pipeline_check",
  });
  if (!result.ok) throw new Error(`fixture run failed: ${result.error}`);
  return runDirectory;
}

/**
 * A real pipeline check: `tca lab model`'s runModelTrial on a tiny random-weight synthetic
 * checkpoint (real tokenizer, template, supervised worker and generation; no download).
 */
export async function syntheticModelRun(root: string): Promise<string> {
  const modelDirectory = join(root, "tiny-checkpoint");
  const made = await makeTestCheckpoint({ directory: modelDirectory, size: "tiny", seed: 7 });
  if (!made.ok) throw new Error(`checkpoint fixture failed: ${made.error}`);
  const trial = await runModelTrial({
    runDirectory: join(root, "synthetic-model"),
    modelDirectory,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    ...workerFromBuild(),
  });
  if (!trial.ok) throw new Error(`model trial fixture failed: ${trial.error}: ${trial.message}`);
  return trial.value.run.runDirectory;
}

/** The checks.json shape `tca lab checks` writes (src/cli/commands/lab.ts). */
export function writeChecksJson(root: string, rows: readonly CheckRow[]): void {
  const failed = rows.filter((row) => !row.passed).length;
  writeFileSync(
    join(root, "checks.json"),
    JSON.stringify(
      {
        schema: "tca.checks/1",
        root,
        total: rows.length,
        passed: rows.length - failed,
        failed,
        process_watch: { processes_started: 0, threads_started: 0, native_addons_loaded: 0 },
        checks: rows,
      },
      null,
      2,
    ),
  );
}

/**
 * A real checks root: every check of the spec's table, run by the project's check runner (the
 * checks verdict re-derives every row from its run directory, so a partial root is EVIDENCE
 * INVALID). With `withFailure`, the unknown_action check's run directory is replaced by the
 * oversized_proposal check's run, and checks.json records what that shows (observed
 * proposal_too_large, a failed row): the only way to get an honestly failed row from a correct
 * harness, to exercise failures-first.
 */
export async function checksRun(root: string, withFailure: boolean): Promise<string> {
  const checksRoot = join(root, "checks");
  mkdirSync(checksRoot);
  const rows: CheckRow[] = await runAllChecks(checksRoot);
  if (withFailure) {
    rmSync(join(checksRoot, "unknown_action"), { recursive: true });
    cpSync(join(checksRoot, "oversized_proposal"), join(checksRoot, "unknown_action"), { recursive: true });
    const index = rows.findIndex((row) => row.id === "unknown_action");
    const row = rows[index]!;
    rows[index] = { ...row, observed: "proposal_too_large", passed: false, stopReason: "script_exhausted" };
  }
  writeChecksJson(checksRoot, rows);
  return checksRoot;
}
