// Held-out cases for one program and seed: generated inputs, with expected values confirmed by
// two implementations, the data set's reference fix and this project's independent one, each
// run on them in its OWN sandbox (never one that runs a candidate). Computed once per data set,
// program and seed in a process, so a benchmark pays for each program once. A generated input
// on which the reference fix raises or hangs, or on which the two disagree, is left out (and
// counted; disagreements are recorded).
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { referenceFixSource, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import { generateHeldOutInputs } from "./heldOutGenerators.ts";
import { valueMatches } from "./caseResults.ts";
import type { GradingCase } from "./publicCases.ts";
import { runOnInputs } from "./gradingRuns.ts";
import type { HeldOutCases, HeldOutDisagreement } from "./trustedGrader.ts";

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

/** Inputs drawn per program before disagreements are dropped: the extra ones replace them. */
const DRAW_FACTOR = 2;
/** Disagreeing inputs kept (as tagged inputs) in the record, for the verify-dataset report. */
const DISAGREEMENTS_KEPT = 3;

let oracleSource: Buffer | undefined;

/** The project's independent implementations (independent_oracles.py, beside this module). */
export function independentOracleSource(): Buffer {
  oracleSource ??= readFileSync(new URL("./independent_oracles.py", import.meta.url));
  return oracleSource;
}

/**
 * Expected values for held-out inputs, each confirmed twice: the reference fix and this
 * project's independent implementation each run on the inputs in a sandbox of their own (never
 * one that runs a candidate), and an input is kept only when the reference's answer passes the
 * very comparison a candidate's must pass against the independent answer. An input where they
 * disagree is dropped and counted (with the first few recorded), never used; one where the
 * reference raises or hangs is dropped as before. Inputs are drawn DRAW_FACTOR times over, in
 * the seed's order, and the first `count` kept ones are used: deterministic for the seed, and
 * the full count whenever enough inputs agree.
 */
export async function confirmHeldOut(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  seed: number,
  count: number,
  reference: Buffer | string,
  oracle: Buffer | string,
): Promise<HeldOutCases | null> {
  const generated = generateHeldOutInputs(program.name, seed, count * DRAW_FACTOR);
  if (!generated) return null;
  const inputs = generated.map((g) => g.input);
  // The reference fix is trusted data, but it can still hang or raise on an input outside what
  // its tests exercise: such inputs are dropped.
  const [ref, ind] = await Promise.all([
    runOnInputs(config, dataset, program, reference, inputs),
    runOnInputs(config, dataset, program, oracle, inputs),
  ]);
  if (ref.output.malformed || ref.output.importError || ind.output.malformed || ind.output.importError) return null;
  const cases: GradingCase[] = [];
  let dropped = 0;
  let disagreements = 0;
  const disagreeing: HeldOutDisagreement[] = [];
  for (const [i, g] of generated.entries()) {
    if (cases.length === count) break;
    const r = ref.output.results.get(i);
    const o = ind.output.results.get(i);
    if (r?.status !== "ok" || r.value === undefined) {
      dropped++;
    } else if (o?.status !== "ok" || o.value === undefined || !valueMatches(r.value, o.value, g.compare)) {
      disagreements++;
      if (disagreeing.length < DISAGREEMENTS_KEPT)
        disagreeing.push({
          input: g.input,
          reference: r.value,
          independent: o?.status === "ok" ? (o.value ?? "") : `(${o?.status ?? "no result"})`,
        });
    } else {
      // The independent answer is the expected value: for an exact comparison it is the
      // reference's too; for sqrt it is the true root the docstring's interval is built on.
      cases.push({ label: `${cases.length + 1}`, input: g.input, expected: o.value, compare: g.compare });
    }
  }
  // A data set whose program merely shares an upstream name (another signature): the reference
  // raised on every input, so there is nothing held out to ask.
  return cases.length === 0 ? null : { seed, cases, dropped, disagreements, disagreeing };
}

function computeHeldOut(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  seed: number,
  count: number,
): Promise<HeldOutCases | null> {
  return confirmHeldOut(
    config,
    dataset,
    program,
    seed,
    count,
    referenceFixSource(dataset, program.name),
    independentOracleSource(),
  );
}

/** The program's held-out cases for this seed, or null when its inputs are not generated. */
export function heldOutCases(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  seed: number,
  count = HELD_OUT_CASES_PER_PROGRAM,
): Promise<HeldOutCases | null> {
  const key = `${dataset.root}\u0000${program.name}\u0000${seed}\u0000${count}`;
  let found = cache.get(key);
  if (!found) {
    found = computeHeldOut(config, dataset, program, seed, count);
    cache.set(key, found);
    void found.catch(() => cache.delete(key));
  }
  return found;
}
