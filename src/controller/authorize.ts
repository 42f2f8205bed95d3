// Policy as a pure function: decides a schema-valid action against the controller's
// authoritative state. It knows nothing about files; the dispatcher executes what it allows.
import type { Action } from "../proposal/index.ts";
import type { ControllerErrorCode } from "./errorCodes.ts";

/** What the controller knows, as authority (never taken from the model). */
export interface AuthorizationState {
  /** A successful read of toy_math.py has happened in this run. */
  readonly sourceRead: boolean;
  /** The version the agent was last told through a source read or an edit receipt (null: none yet). */
  readonly knownVersion: number | null;
  /** The current workspace version and source digest. */
  readonly currentVersion: number;
  readonly currentSha256: string;
  /** The latest passing public test, bound to the exact snapshot it ran on. */
  readonly passingTest: { readonly version: number; readonly sha256: string } | null;
}

export type Decision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly error: Extract<ControllerErrorCode, "read_required" | "stale_version" | "tests_not_passing">;
      readonly message: string;
    };

const ALLOW: Decision = { allowed: true };

export function authorize(state: AuthorizationState, action: Action): Decision {
  switch (action.action) {
    case "read":
      return ALLOW;
    case "test":
      return state.sourceRead ? ALLOW : deny("read_required", "test requires a prior read of toy_math.py");
    case "replace":
      if (!state.sourceRead || state.knownVersion === null) {
        return deny("read_required", "replace requires a prior read of toy_math.py");
      }
      if (action.version !== state.currentVersion) {
        return deny("stale_version", `version ${action.version} is not the current version`);
      }
      return ALLOW;
    case "finish":
      if (action.version !== state.currentVersion) {
        return deny("stale_version", `version ${action.version} is not the current version`);
      }
      if (
        state.passingTest === null ||
        state.passingTest.version !== state.currentVersion ||
        state.passingTest.sha256 !== state.currentSha256
      ) {
        return deny("tests_not_passing", "no passing public test for the current version");
      }
      return ALLOW;
  }
}

function deny(error: Extract<Decision, { allowed: false }>["error"], message: string): Decision {
  return { allowed: false, error, message };
}
