// The dispatcher: an explicit, literal mapping of the four action names to trusted handlers.
// Nothing model-supplied is used as a property name, module name, path or command.
import { PUBLIC_FIXTURES } from "../constants/labConstants.ts";
import { evaluateFixtures } from "../expr/index.ts";
import type { Action } from "../proposal/index.ts";
import type { CommitGuard, ControllerWorkspace, Observation, RejectedObservation } from "./controllerWorkspace.ts";
import { rejection } from "./observations.ts";

/** What a dispatched action changes in the controller's state (applied by the loop only). */
export type DispatchEffect =
  | { readonly kind: "none" }
  | { readonly kind: "source_read"; readonly version: number }
  | { readonly kind: "edit_committed"; readonly version: number }
  | {
      readonly kind: "test_ran";
      readonly version: number;
      readonly sha256: string;
      readonly passed: number;
      readonly total: number;
    }
  | { readonly kind: "finish_accepted"; readonly version: number; readonly sha256: string }
  | { readonly kind: "stop"; readonly reason: "workspace_conflict" | "cancelled" | "time_limit" | "observation_limit" };

export interface DispatchContext {
  readonly workspace: ControllerWorkspace;
  readonly commitGuard: CommitGuard;
}

export interface Dispatched {
  readonly observation: Observation;
  readonly effect: DispatchEffect;
}

export function dispatchAction(action: Action, context: DispatchContext): Promise<Dispatched> {
  switch (action.action) {
    case "read":
      return dispatchRead(action, context);
    case "replace":
      return dispatchReplace(action, context);
    case "test":
      return dispatchTest(context);
    case "finish":
      return dispatchFinish(context);
  }
}

async function dispatchRead(
  action: Extract<Action, { action: "read" }>,
  { workspace }: DispatchContext,
): Promise<Dispatched> {
  const observation = await workspace.read(action.file);
  if (observation.ok && action.file === "toy_math.py") {
    return { observation, effect: { kind: "source_read", version: workspace.state().version } };
  }
  return { observation, effect: stopEffectOf(observation) };
}

async function dispatchReplace(
  action: Extract<Action, { action: "replace" }>,
  { workspace, commitGuard }: DispatchContext,
): Promise<Dispatched> {
  const observation = await workspace.replace(
    { function: action.function, old: action.old, new: action.new, version: action.version },
    commitGuard,
  );
  if (observation.ok && observation.action === "replace" && observation.status === "edit_committed") {
    return { observation, effect: { kind: "edit_committed", version: workspace.state().version } };
  }
  if (!observation.ok && observation.error === "edit_interrupted")
    return reconcileInterruptedEdit(observation, workspace);
  return { observation, effect: stopEffectOf(observation) };
}

/**
 * An interrupted edit has an uncertain outcome. Recovery inspects the bytes against the recorded
 * before/after hashes (never asking the model, never retrying the write): committed edits are
 * adopted once, uncommitted ones stay refused, unexpected bytes stop the run.
 */
async function reconcileInterruptedEdit(
  observation: RejectedObservation,
  workspace: ControllerWorkspace,
): Promise<Dispatched> {
  const reconciled = await workspace.reconcile();
  if (!reconciled.ok) {
    return {
      observation: { ...observation, reconciled: "conflict" },
      effect: { kind: "stop", reason: "workspace_conflict" },
    };
  }
  const { outcome, state } = reconciled.value;
  const told: RejectedObservation = { ...observation, reconciled: outcome, version: state.version };
  return outcome === "committed"
    ? {
        observation: { ...told, expressions: state.expressions },
        effect: { kind: "edit_committed", version: state.version },
      }
    : { observation: told, effect: { kind: "none" } };
}

async function dispatchTest({ workspace }: DispatchContext): Promise<Dispatched> {
  const snapshot = await workspace.snapshot();
  if (!snapshot.ok) {
    return {
      observation: rejection(
        "test",
        "workspace_conflict",
        "the source snapshot failed its integrity check",
        workspace.state().version,
      ),
      effect: { kind: "stop", reason: "workspace_conflict" },
    };
  }
  const { version, sha256, source } = snapshot.value;
  const evaluated = evaluateFixtures(source, PUBLIC_FIXTURES);
  if (!evaluated.ok) {
    // The fixture table is trusted and within limits; failing here is a harness fault.
    throw new Error(`public fixtures could not be evaluated: ${evaluated.error}`);
  }
  const cases = evaluated.value.map((record) => {
    if (record.error !== null)
      return { function: record.function, inputs: record.inputs, expected: record.expected, error: record.error.code };
    // A case without an error has its value (fixtureEvaluation); anything else is a harness fault.
    if (record.actual === null) throw new Error("a public case has neither a value nor an error");
    return { function: record.function, inputs: record.inputs, expected: record.expected, actual: record.actual };
  });
  const passed = evaluated.value.filter((record) => record.passed).length;
  const total = evaluated.value.length;
  return {
    observation: { ok: true, action: "test", version, sha256, passed, total, cases },
    effect: { kind: "test_ran", version, sha256, passed, total },
  };
}

async function dispatchFinish({ workspace }: DispatchContext): Promise<Dispatched> {
  // Authorization already bound the passing test to the current (version, sha256).
  const { version, sourceSha256 } = workspace.state();
  return {
    observation: { ok: true, action: "finish", status: "finish_accepted", version, sha256: sourceSha256 },
    effect: { kind: "finish_accepted", version, sha256: sourceSha256 },
  };
}

/**
 * Tool results that end the run: an integrity conflict, cancellation/deadline before commit, or
 * an observation the workspace could not fit in 2,048 bytes (Part 5: "return observation_limit
 * and stop"; the workspace already replaced it by the small observation_limit rejection).
 */
function stopEffectOf(observation: Observation): DispatchEffect {
  const code = observation.ok ? null : observation.error;
  if (code === "workspace_conflict" || code === "cancelled" || code === "time_limit" || code === "observation_limit") {
    return { kind: "stop", reason: code };
  }
  return { kind: "none" };
}
