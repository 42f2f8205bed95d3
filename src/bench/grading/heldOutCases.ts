// Held-out cases for one program and seed: generated inputs, with expected values taken from
// the reference fix run on them in its OWN sandbox (never one that runs a candidate). Computed
// once per data set, program and seed in a process, so a benchmark pays for each program once.
// A generated input on which the reference fix raises or hangs is left out (and counted).
import { randomInt } from "node:crypto";
import { referenceFixSource, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import { generateHeldOutInputs } from "./heldOutGenerators.ts";
import type { GradingCase } from "./publicCases.ts";
import { runOnInputs, type HeldOutCases } from "./trustedGrader.ts";

/** Held-out cases per program per grade. */
export const HELD_OUT_CASES_PER_PROGRAM = 50;

/** A fresh seed for a run (recorded with every grade that uses it). */
export function newHeldOutSeed(): number {
  return randomInt(1, 2 ** 31 - 1);
}

let processSeed: number | undefined;

/** One seed per process (a benchmark run), so each program's held-out set is computed once. */
export function processHeldOutSeed(): number {
  processSeed ??= newHeldOutSeed();
  return processSeed;
}

const cache = new Map<string, Promise<HeldOutCases | null>>();

async function computeHeldOut(config: SandboxConfig, dataset: QuixDataset, program: QuixProgram, seed: number, count: number): Promise<HeldOutCases | null> {
  const generated = generateHeldOutInputs(program.name, seed, count);
  if (!generated) return null;
  // The reference fix is trusted data, but it can still hang or raise on an input outside what
  // its tests exercise (e.g. wrap with a word longer than the line): such inputs are dropped.
  const { output } = await runOnInputs(config, dataset, program, referenceFixSource(dataset, program.name), generated.map((g) => g.input));
  if (output.malformed || output.importError) return null;
  const cases: GradingCase[] = [];
  let dropped = 0;
  generated.forEach((g, i) => {
    const r = output.results.get(i);
    if (r?.status === "ok" && r.value !== undefined) cases.push({ label: `${cases.length + 1}`, input: g.input, expected: r.value, compare: g.compare });
    else dropped++;
  });
  // A data set whose program merely shares an upstream name (another signature): the reference
  // raised on every input, so there is nothing held out to ask.
  return cases.length === 0 ? null : { seed, cases, dropped };
}

/** The program's held-out cases for this seed, or null when its inputs are not generated. */
export function heldOutCases(config: SandboxConfig, dataset: QuixDataset, program: QuixProgram, seed: number, count = HELD_OUT_CASES_PER_PROGRAM): Promise<HeldOutCases | null> {
  const key = `${dataset.root}\u0000${program.name}\u0000${seed}\u0000${count}`;
  let found = cache.get(key);
  if (!found) {
    found = computeHeldOut(config, dataset, program, seed, count);
    cache.set(key, found);
    void found.catch(() => cache.delete(key));
  }
  return found;
}
