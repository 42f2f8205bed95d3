// The order in which a program's candidate mutants are tried, from the task set's seed alone.
// The generator is this project's own (SHA-256 in counter mode over the seed, the program's name
// and a counter), not Math.random and not a platform PRNG, so one seed gives the same order on
// any machine and any Node version. Each program has its own stream, so adding or removing a
// program from a data set never changes another program's mutant.
import { createHash } from "node:crypto";

/** A seed as the command line gives it: decimal digits only, at most 2^53 - 1. */
export function parseSeed(text: string): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** Uniform integers in [0, bound) from SHA-256(seed, stream, counter). */
export class SeededStream {
  private counter = 0;

  constructor(
    private readonly seed: number,
    private readonly stream: string,
  ) {}

  /** 48 uniform bits per draw; rejection keeps every value in [0, bound) equally likely. */
  below(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound <= 0 || bound > 2 ** 32)
      throw new RangeError(`bound ${bound} is not an integer in 1..2^32`);
    const span = 2 ** 48;
    const limit = span - (span % bound);
    for (;;) {
      const digest = createHash("sha256")
        .update(`tca-taskset\u0000${this.seed}\u0000${this.stream}\u0000${this.counter++}`)
        .digest();
      const value = digest.readUIntBE(0, 6);
      if (value < limit) return value % bound;
    }
  }

  /** A Fisher-Yates shuffle (a new array). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const held = out[i] as T;
      out[i] = out[j] as T;
      out[j] = held;
    }
    return out;
  }
}

/**
 * The try order: the operator classes shuffled, each class's candidates shuffled, then one of
 * each class in turn. Operators with many sites (a wrong variable has dozens) would otherwise
 * crowd out the rare ones (a swapped break) in the set's operator mix.
 */
export function seededTryOrder<T extends { readonly op: string }>(
  seed: number,
  program: string,
  candidates: readonly T[],
): T[] {
  const stream = new SeededStream(seed, program);
  const classes = [...new Set(candidates.map((c) => c.op))].sort();
  const groups = stream.shuffle(classes).map((op) => stream.shuffle(candidates.filter((c) => c.op === op)));
  const order: T[] = [];
  for (let round = 0; order.length < candidates.length; round++) {
    for (const group of groups) {
      const next = group[round];
      if (next !== undefined) order.push(next);
    }
  }
  return order;
}
