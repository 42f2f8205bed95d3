// Test helper: a tiny synthetic checkpoint in a fresh temporary directory (and the derived
// cache next to it), removed by the returned cleanup.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";

export interface TinyCheckpoint {
  readonly root: string;
  readonly directory: string;
  cleanup(): Promise<void>;
}

export async function makeTinyCheckpoint(seed = 7, name = "tiny"): Promise<TinyCheckpoint> {
  const root = await mkdtemp(path.join(os.tmpdir(), "tca-engine-test-"));
  const directory = path.join(root, name);
  const made = await makeTestCheckpoint({ directory, size: "tiny", seed });
  if (!made.ok) throw new Error(`could not write the tiny checkpoint: ${made.error}`);
  return { root, directory, cleanup: () => rm(root, { recursive: true, force: true }) };
}
