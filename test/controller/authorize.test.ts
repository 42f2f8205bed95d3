import { test } from "node:test";
import assert from "node:assert/strict";
import { authorize, type AuthorizationState } from "../../src/controller/authorize.ts";

const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);
const fresh: AuthorizationState = {
  sourceRead: false,
  knownVersion: null,
  currentVersion: 0,
  currentSha256: SHA_A,
  passingTest: null,
};
const afterRead: AuthorizationState = { ...fresh, sourceRead: true, knownVersion: 0 };
const replaceAt = (version: number) => ({
  action: "replace" as const,
  function: "clamp" as const,
  old: "x",
  new: "lo",
  version,
});

test("reads are always allowed; test and replace need a source read", () => {
  assert.deepEqual(authorize(fresh, { action: "read", file: "TASK.txt" }), { allowed: true });
  assert.deepEqual(authorize(fresh, { action: "read", file: "toy_math.py" }), { allowed: true });
  assert.equal(denial(authorize(fresh, { action: "test" })), "read_required");
  assert.equal(denial(authorize(fresh, replaceAt(0))), "read_required");
  assert.deepEqual(authorize(afterRead, { action: "test" }), { allowed: true });
  assert.deepEqual(authorize(afterRead, replaceAt(0)), { allowed: true });
});

test("replace and finish at another version are stale", () => {
  const atTwo = { ...afterRead, currentVersion: 2, knownVersion: 2 };
  assert.equal(denial(authorize(atTwo, replaceAt(1))), "stale_version");
  assert.equal(denial(authorize(atTwo, replaceAt(3))), "stale_version");
  assert.equal(denial(authorize(atTwo, { action: "finish", version: 1 })), "stale_version");
});

test("finish needs a passing test bound to the current version AND digest", () => {
  const state = { ...afterRead, currentVersion: 2, knownVersion: 2 };
  assert.equal(denial(authorize(state, { action: "finish", version: 2 })), "tests_not_passing");
  assert.equal(
    denial(authorize({ ...state, passingTest: { version: 1, sha256: SHA_A } }, { action: "finish", version: 2 })),
    "tests_not_passing",
  );
  assert.equal(
    denial(authorize({ ...state, passingTest: { version: 2, sha256: SHA_B } }, { action: "finish", version: 2 })),
    "tests_not_passing",
  );
  assert.deepEqual(
    authorize({ ...state, passingTest: { version: 2, sha256: SHA_A } }, { action: "finish", version: 2 }),
    { allowed: true },
  );
});

test("a stale finish is reported as stale before missing tests", () => {
  assert.equal(
    denial(authorize({ ...afterRead, currentVersion: 1, knownVersion: 1 }, { action: "finish", version: 0 })),
    "stale_version",
  );
});

function denial(decision: ReturnType<typeof authorize>): string | null {
  return decision.allowed ? null : decision.error;
}
