// The observations the agent has been shown, in order, each tied to the audit event that
// recorded it. The request assembler selects from this log; held-out fixtures never enter it.
import type { Observation } from "./controllerWorkspace.ts";

export type ObservationKind =
  "source_read" | "task_read" | "edit_receipt" | "no_change" | "test_result" | "finish" | "error";

export interface LoggedObservation {
  readonly eventId: number;
  readonly proposalNumber: number;
  readonly kind: ObservationKind;
  /** The exact JSON observation object returned to the agent. */
  readonly observation: Observation;
  /** True when this record was injected by a check, not produced by a tool (see lab checks). */
  readonly synthetic?: boolean;
}

export function classifyObservation(observation: Observation): ObservationKind {
  // An interrupted edit that reconciliation found committed is a committed edit receipt.
  if (!observation.ok)
    return observation.error === "edit_interrupted" && observation.reconciled === "committed"
      ? "edit_receipt"
      : "error";
  switch (observation.action) {
    case "read":
      return observation.file === "toy_math.py" ? "source_read" : "task_read";
    case "replace":
      return observation.status === "no_change" ? "no_change" : "edit_receipt";
    case "test":
      return "test_result";
    case "finish":
      return "finish";
  }
}
