// The JSON observations the workspace returns to the controller (and, through it, to the model),
// and the 2,048-byte cap every observation must respect (Part 5). Type aliases, not interfaces,
// so that they are assignable to plain JSON records (Readonly<Record<string, unknown>>). Messages name logical files
// only: no host paths, environment values or stack traces ever enter an observation.
import { CONTROLLER_LIMITS, type FunctionName, type ManagedFileName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CommitAbortCode, WorkspaceErrorCode } from "./errorCodes.ts";
import type { ExprErrorCode } from "../expr/index.ts";

export type Expressions = {
  readonly clamp: string;
  readonly total: string;
};

export type ReadObservation = {
  readonly ok: true;
  readonly action: "read";
  readonly file: ManagedFileName;
  readonly version: number;
  readonly sha256: string;
  readonly content: string;
  /** Present for toy_math.py only. */
  readonly expressions?: Expressions;
};

export type ReplaceObservation = {
  readonly ok: true;
  readonly action: "replace";
  readonly status: "edit_committed" | "no_change";
  readonly function: FunctionName;
  readonly old_version: number;
  readonly version: number;
  readonly sha256: string;
  readonly expressions: Expressions;
};

export type RejectionCode = WorkspaceErrorCode | ExprErrorCode | CommitAbortCode;

export type RejectionObservation = {
  readonly ok: false;
  readonly action: "read" | "replace";
  readonly error: RejectionCode;
  readonly message: string;
  readonly version: number;
};

export type Observation = ReadObservation | ReplaceObservation | RejectionObservation;

export function rejection(
  action: "read" | "replace",
  error: RejectionCode,
  message: string,
  version: number,
): RejectionObservation {
  return { ok: false, action, error, message, version };
}

/** An observation together with its exact serialized form (what the byte cap was measured on). */
export interface BoundedObservation<T> {
  readonly observation: T;
  readonly json: string;
  readonly bytes: number;
}

/**
 * Serializes `observation` with JSON.stringify and checks the 2,048-byte cap on the UTF-8 bytes.
 * Never truncates: a required observation that does not fit is an `observation_limit` error,
 * because silently dropping fields could drop safety-relevant ones.
 */
export function boundObservation<T>(
  observation: T,
  maxBytes: number = CONTROLLER_LIMITS.observationMaxBytes,
): Result<BoundedObservation<T>, "observation_limit"> {
  const json = JSON.stringify(observation);
  if (typeof json !== "string") return err("observation_limit", "observation is not serializable");
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > maxBytes) {
    return err("observation_limit", `observation is ${bytes} bytes; the limit is ${maxBytes}`);
  }
  return ok({ observation, json, bytes });
}

/** Returns `observation` when it fits, otherwise the (small, always fitting) observation_limit rejection. */
export function capObservation(observation: Observation, action: "read" | "replace", version: number): Observation {
  const bounded = boundObservation(observation);
  if (bounded.ok) return observation;
  return rejection(action, "observation_limit", "the required observation does not fit in 2048 bytes", version);
}
