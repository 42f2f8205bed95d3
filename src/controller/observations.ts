// Shapes of controller-made observations and the 2,048-byte observation cap.
import { boundObservation } from "../workspace/observation.ts";
import type { Observation, RejectedObservation } from "./controllerWorkspace.ts";

/** The spec's rejection: ok=false, the attempted action if parseable, a stable code, a short explanation, current version. */
export function rejection(
  action: RejectedObservation["action"],
  error: string,
  message: string,
  version: number,
): RejectedObservation {
  return { ok: false, action, error, message, version };
}

/**
 * Serialized observations must fit in 2,048 bytes. A required observation that cannot fit is
 * replaced by an observation_limit rejection (and the run stops) instead of being truncated,
 * so no safety-relevant field is ever silently dropped.
 */
export function boundedObservation(
  observation: Observation,
  version: number,
): { readonly fits: boolean; readonly observation: Observation } {
  // The same byte rule the workspace applies to its own observations (one implementation).
  if (boundObservation(observation).ok) return { fits: true, observation };
  return {
    fits: false,
    observation: rejection(
      observation.action,
      "observation_limit",
      "the observation does not fit in 2,048 bytes",
      version,
    ),
  };
}
