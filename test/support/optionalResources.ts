// Resources that a fresh clone does not have: the normative spec text and the real QuixBugs
// data set, which live in a folder beside the checkout in development and CI (../shared) and
// nowhere on a user's machine. Tests that need one run when it is present and are otherwise
// reported by node's test runner as skipped, with the reason (never counted as passed).
// CI sets TCA_REQUIRE_SHARED=1: then a missing resource is not a skip but a failing test.
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { PACKAGE_ROOT } from "../../src/recording/runtimeIdentity.ts";
import { defaultDatasetDir } from "../../src/bench/dataset/dataset.ts";

/** Where the shared folder is looked for: $TCA_SHARED_DIR, else ../shared beside the checkout. */
export function sharedDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.TCA_SHARED_DIR;
  return configured !== undefined && configured !== "" ? resolve(configured) : resolve(PACKAGE_ROOT, "..", "shared");
}

export function requireShared(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TCA_REQUIRE_SHARED === "1";
}

/**
 * A resource that may be absent: its path, and `skip` (the reason, for node:test's `skip`
 * option) or false. With TCA_REQUIRE_SHARED=1 `skip` is always false, so the test runs and
 * fails on the missing resource instead of being skipped.
 */
export interface OptionalResource {
  readonly path: string;
  readonly skip: string | false;
}

function resource(path: string, present: boolean, what: string, env: NodeJS.ProcessEnv): OptionalResource {
  if (present || requireShared(env)) return { path, skip: false };
  return { path, skip: `${what} not found at ${path} (set TCA_SHARED_DIR, or put shared/ beside the checkout)` };
}

/** The Lab's spec text (shared/spec/lab-16-build-a-tiny-coding-agent.txt). */
export function specText(env: NodeJS.ProcessEnv = process.env): OptionalResource {
  const path = join(sharedDir(env), "spec", "lab-16-build-a-tiny-coding-agent.txt");
  return resource(path, existsSync(path), "the Lab spec", env);
}

/** The benchmark's normative document (shared/spec/controlled-coding-agent-quixbugs.txt). */
export function benchSpecText(env: NodeJS.ProcessEnv = process.env): OptionalResource {
  const path = join(sharedDir(env), "spec", "controlled-coding-agent-quixbugs.txt");
  return resource(path, existsSync(path), "the benchmark's document", env);
}

/**
 * The real QuixBugs data set (40 programs): $TCA_SHARED_DIR/quixbugs when that is set, else
 * the benchmark's own default (the fetched copy in the user's cache, else ../shared/quixbugs).
 */
export function realQuixBugs(env: NodeJS.ProcessEnv = process.env): OptionalResource {
  const path =
    env.TCA_SHARED_DIR !== undefined && env.TCA_SHARED_DIR !== ""
      ? join(sharedDir(env), "quixbugs")
      : defaultDatasetDir(env);
  const present = existsSync(path) && statSync(path).isDirectory();
  const reason = "the QuixBugs data set (tca bench quixbugs fetch-dataset fetches it)";
  return resource(path, present, reason, env);
}

/** The project's own small data set in QuixBugs layout (test/fixtures/quixbugs-mini), always present. */
export const MINI_DATASET_DIR = resolve(PACKAGE_ROOT, "test", "fixtures", "quixbugs-mini");
