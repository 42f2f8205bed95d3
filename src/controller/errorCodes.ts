// Codes the controller itself produces (authorization and the run's own rechecks). Parse and
// contract codes live in src/proposal, expression codes in src/expr, file codes in src/workspace.
export const CONTROLLER_ERROR_CODES = [
  /** replace or test before a successful read of toy_math.py (a TASK.txt read does not count). */
  "read_required",
  /** the proposal's version is not the current workspace version. */
  "stale_version",
  /** finish without a passing public test bound to the current (version, sha256). */
  "tests_not_passing",
  /** a managed file changed, was replaced, linked or is not what the controller recorded. */
  "workspace_conflict",
  /** the observation (required fields) does not fit in 2,048 bytes. */
  "observation_limit",
] as const;
export type ControllerErrorCode = (typeof CONTROLLER_ERROR_CODES)[number];
