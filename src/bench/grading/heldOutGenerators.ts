// Input generators for held-out verification: for each program whose inputs can be generated,
// fresh inputs from a seeded generator (the seed is recorded with every grade). Their expected
// values come from running the reference fix on them in its own sandbox (heldOutCases.ts); a
// program special-cased to the public inputs fails them. Inputs reach past the public tests'
// (issue #34: ints past 2^53 and 2^64 where the docstring sets no bound, lists longer than the
// tests'), except where a reference fix is exponential (levenshtein, possible_change; knapsack's
// independent check tries every subset) or quadratic in the value (sieve, get_factors' trial
// division): there they stay small enough for the set to grade in about a second. Programs
// without a generator here are listed in HELD_OUT_NOT_GENERATED.
import type { CaseComparison, CaseInput } from "./publicCases.ts";

/** mulberry32: a tiny, well-known seeded generator (hand-written: 6 lines, no dependency). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
type Tagged = readonly unknown[];

const n = (x: number | bigint): Tagged => ["n", String(x)];
const f = (x: number): Tagged => ["f", String(x)];
const s = (x: string): Tagged => ["s", x];
const l = (xs: readonly Tagged[]): Tagged => ["l", xs];
const t = (xs: readonly Tagged[]): Tagged => ["t", xs];
const d = (pairs: readonly (readonly [Tagged, Tagged])[]): Tagged => ["d", pairs];
const node = (i: number): Tagged => ["node", i];
const ints = (xs: readonly number[]): Tagged => l(xs.map(n));

const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
/** A uniform integer of exactly `bits` bits (the top one set; 0 for 0 bits), exact past 2^53. */
function bigBits(r: Rng, bits: number): bigint {
  if (bits <= 0) return 0n;
  let v = 1n;
  for (let i = 1; i < bits; i++) v = (v << 1n) | (r() < 0.5 ? 1n : 0n);
  return v;
}
/** A nonnegative int: small ones often, else of a size from 1 to maxBits bits (far past 2^53). */
const wideNatural = (r: Rng, maxBits: number): bigint =>
  r() < 0.25 ? BigInt(int(r, 0, 64)) : bigBits(r, int(r, 1, maxBits));
const list = (r: Rng, len: number, lo: number, hi: number): number[] =>
  Array.from({ length: len }, () => int(r, lo, hi));
function shuffle<T>(r: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = int(r, 0, i);
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}
const distinct = (r: Rng, len: number, lo: number, hi: number): number[] =>
  shuffle(
    r,
    Array.from({ length: hi - lo + 1 }, (_, i) => lo + i),
  ).slice(0, len);
const word = (r: Rng, len: number, alphabet: string): string =>
  Array.from({ length: len }, () => alphabet[int(r, 0, alphabet.length - 1)]).join("");

interface NodeSpec {
  value: Tagged;
  successor?: number;
  successors?: number[];
  incoming_nodes?: number[];
  outgoing_nodes?: number[];
}

export interface GeneratedInput {
  readonly input: CaseInput;
  readonly compare: CaseComparison;
}

type Generator = (r: Rng) => { args: Tagged[]; adapter?: string; nodes?: NodeSpec[]; compare?: CaseComparison };

function nested(r: Rng, depth: number): Tagged {
  const items: Tagged[] = [];
  for (let i = int(r, 0, 4); i > 0; i--) items.push(depth > 0 && r() < 0.35 ? nested(r, depth - 1) : n(int(r, -9, 99)));
  return l(items);
}

/** A random directed graph of Node objects with values "0".."k-1" (successors lists). */
function digraph(r: Rng, count: number, density: number): NodeSpec[] {
  const nodes: NodeSpec[] = Array.from({ length: count }, (_, i) => ({ value: s(String(i)), successors: [] }));
  for (let i = 0; i < count; i++)
    for (let j = 0; j < count; j++) if (i !== j && r() < density) nodes[i]?.successors?.push(j);
  return nodes;
}

function linkedList(r: Rng, len: number): NodeSpec[] {
  return Array.from({ length: len }, (_, i) => ({
    value: n(int(r, 0, 99)),
    ...(i + 1 < len ? { successor: i + 1 } : {}),
  }));
}

function rpnTokens(r: Rng, depth: number): Tagged[] {
  if (depth === 0 || r() < 0.3) return [f(int(r, 1, 9))];
  const op = "+-*/"[int(r, 0, 3)] ?? "+";
  return [...rpnTokens(r, depth - 1), ...rpnTokens(r, depth - 1), s(op)];
}

const EQUAL: CaseComparison = { kind: "equal" };

/**
 * A digraph and two of its nodes. A third of the time no edge enters the goal, so that it is
 * unreachable while the search meets cycles: a search that forgets what it has seen then never
 * ends, which a reachable goal hides.
 */
function searchInput(r: Rng): ReturnType<Generator> {
  const nodes = digraph(r, int(r, 1, 9), 0.1 + 0.4 * r());
  const start = int(r, 0, nodes.length - 1);
  const goal = int(r, 0, nodes.length - 1);
  if (r() < 0.35) for (const spec of nodes) spec.successors = spec.successors?.filter((j) => j !== goal);
  return { args: [node(start), node(goal)], nodes, adapter: "truthy" };
}

/** A float drawn log-uniformly from [lo, hi), rounded to 6 significant digits (exact JSON text). */
const logFloat = (r: Rng, lo: number, hi: number): number => Number((lo * (hi / lo) ** r()).toPrecision(6));
/** Mostly small values, sometimes anywhere in [lo, hi]: edges (0, 1, bounds) stay likely. */
const skewed = (r: Rng, lo: number, hi: number): number =>
  r() < 0.5 ? int(r, lo, Math.min(hi, lo + 10)) : int(r, lo, hi);

// Each generator draws from the whole input domain its program's docstring allows (its
// preconditions, nothing narrower), except where a comment says why not. Sizes stay small
// because several reference fixes are exponential (levenshtein, possible_change, knapsack's
// independent check tries every subset).
export const HELD_OUT_GENERATORS: Readonly<Record<string, Generator>> = {
  // "a nonnegative int" (Python's: no bound): zero, small, and up to 256 bits (past 32, 50, 53
  // and 64 bits, where a mask, a table or a float would show).
  bitcount: (r) => ({ args: [n(wideNatural(r, 256))] }),
  // k >= 1 (the precondition 0 <= x < k needs one value for a non-empty list); k may exceed the values.
  bucketsort: (r) => {
    const k = r() < 0.5 ? int(r, 1, 20) : int(r, 1, 200);
    return { args: [ints(list(r, int(r, 0, 60), 0, k - 1)), n(k)] };
  },
  // "a sorted list of ints" (empty and negative included), x anywhere.
  // Half the lists over a few values only: long runs of x, and lists that are x throughout.
  find_first_in_sorted: (r) => {
    const spread = r() < 0.5 ? 2 : 15;
    const arr = list(r, int(r, 0, r() < 0.5 ? 12 : 60), -spread, spread).sort((a, b) => a - b);
    return {
      args: [ints(arr), n(arr.length > 0 && r() < 0.7 ? (arr[int(r, 0, arr.length - 1)] ?? 0) : int(r, -17, 17))],
    };
  },
  // Repeats allowed by the docstring: any index holding x is correct, so the grade checks validity.
  find_in_sorted: (r) => {
    const len = int(r, 0, r() < 0.5 ? 12 : 60);
    const arr = (r() < 0.5 ? list(r, len, -15, 15) : distinct(r, len, -80, 80)).sort((a, b) => a - b);
    const x = arr.length > 0 && r() < 0.7 ? (arr[int(r, 0, arr.length - 1)] ?? 0) : int(r, -42, 42);
    return { args: [ints(arr), n(x)], compare: { kind: "index_of", arr, x } };
  },
  flatten: (r) => ({ args: [nested(r, 3)], adapter: "list" }),
  // Nonnegative ints (Python's: no bound), zero on either side included, up to 128 bits (past
  // 2^53, where a float's modulo is no longer exact); half the pairs share a large factor.
  gcd: (r) => {
    if (r() < 0.5) return { args: [n(wideNatural(r, 128)), n(wideNatural(r, 128))] };
    const g = wideNatural(r, 64);
    return { args: [n(g * wideNatural(r, 64)), n(g * wideNatural(r, 64))] };
  },
  // n >= 1, no upper bound: products of a few factors (small ones often, one up to 10^6 at
  // most, so that trial division stays quick), up to about 2^100 (past 2^53 and 2^64).
  get_factors: (r) => {
    if (r() < 0.3) return { args: [n(int(r, 1, 64))] };
    let v = BigInt(int(r, 1, 1_000_000));
    for (let k = int(r, 0, 6); k > 0; k--) v *= BigInt(r() < 0.6 ? int(r, 2, 13) : int(r, 2, 5000));
    return { args: [n(v)] };
  },
  // start != end: the docstring's goal is to move the stack "to a different peg".
  hanoi: (r) => {
    const start = int(r, 1, 3);
    const end = ((start + int(r, 0, 1)) % 3) + 1;
    return { args: [n(int(r, 0, 10)), n(start), n(end)] };
  },
  is_valid_parenthesization: (r) => ({ args: [s(word(r, int(r, 0, r() < 0.5 ? 16 : 60), "()"))] }),
  // k from 0 (an already sorted list) to 5; unique ints, negative included.
  kheapsort: (r) => {
    const k = int(r, 0, 10);
    const sorted = distinct(r, int(r, 0, 50), -60, 120).sort((a, b) => a - b);
    const perturbed: number[] = [];
    for (let i = 0; i < sorted.length; i += k + 1) perturbed.push(...shuffle(r, sorted.slice(i, i + k + 1)));
    return { args: [ints(perturbed), n(k)], adapter: "list" };
  },
  // Capacity 0 upward; weights >= 1 (an item weighs something), values >= 0, repeats allowed.
  // Light items (weight 1..4) half the time, so that small capacities matter.
  knapsack: (r) => ({
    args: [
      n(skewed(r, 0, 60)),
      l(Array.from({ length: int(r, 0, 8) }, () => l([n(r() < 0.5 ? int(r, 1, 4) : int(r, 1, 25)), n(int(r, 0, 50))]))),
    ],
  }),
  // "A list of ints": repeats allowed; 0 <= k < len(arr).
  kth: (r) => {
    const len = int(r, 1, r() < 0.5 ? 12 : 50);
    const arr = r() < 0.5 ? list(r, len, -10, 10) : distinct(r, len, -80, 80);
    return { args: [ints(arr), n(int(r, 0, arr.length - 1))] };
  },
  lcs_length: (r) => ({ args: [s(word(r, int(r, 0, 30), "abcd")), s(word(r, int(r, 0, 30), "abcd"))] }),
  levenshtein: (r) => ({ args: [s(word(r, int(r, 0, 5), "abcd")), s(word(r, int(r, 0, 5), "abcd"))] }),
  // Unique ints (the precondition), negative included.
  lis: (r) => ({ args: [ints(distinct(r, int(r, 0, 40), -60, 60))] }),
  // Several longest common subsequences often tie: any one is accepted (validity check).
  longest_common_subsequence: (r) => {
    const a = word(r, int(r, 0, 9), "abcd");
    const b = word(r, int(r, 0, 9), "abcd");
    return { args: [s(a), s(b)], compare: { kind: "common_subsequence", a, b } };
  },
  max_sublist_sum: (r) => ({ args: [ints(list(r, int(r, 0, 50), -50, 50))] }),
  // "A list of ints": any length (up to 100, past the public tests' 25), repeats and negatives.
  mergesort: (r) => ({ args: [ints(list(r, int(r, 0, r() < 0.4 ? 16 : 100), -50, 50))] }),
  // A palindrome of any length, the one-digit ones (0..9) included.
  next_palindrome: (r) => {
    const len = int(r, 1, 8);
    const half = Array.from({ length: Math.ceil(len / 2) }, (_, i) =>
      i === 0 ? int(r, len === 1 ? 0 : 1, 9) : r() < 0.4 ? 9 : int(r, 0, 9),
    );
    const digits = [...half, ...half.slice(0, Math.floor(len / 2)).reverse()];
    return { args: [ints(digits)] };
  },
  // Unique ints (negative too), not in descending order.
  next_permutation: (r) => {
    let perm = distinct(r, int(r, 2, 7), -9, 9);
    while (perm.every((v, i) => i === 0 || (perm[i - 1] ?? 0) > v)) perm = shuffle(r, perm);
    return { args: [ints(perm)] };
  },
  // n >= 1: up to 70 rows (entries past 2^53 from row 58 on, where floats lose them).
  pascal: (r) => ({ args: [n(r() < 0.5 ? int(r, 1, 15) : int(r, 1, 70))] }),
  // Positive, distinct denominations; any int total (negative gives 0 ways, 0 gives one).
  possible_change: (r) => ({ args: [ints(distinct(r, int(r, 0, 4), 1, 12)), n(int(r, -3, 25))] }),
  powerset: (r) => ({ args: [l(distinct(r, int(r, 0, 8), 0, 25).map((i) => s(String.fromCharCode(97 + i))))] }),
  quicksort: (r) => ({ args: [ints(list(r, int(r, 0, r() < 0.4 ? 16 : 100), -50, 50))] }),
  rpn_eval: (r) => ({ args: [l(rpnTokens(r, 3))] }),
  shunting_yard: (r) => {
    const tokens: Tagged[] = [n(int(r, 0, 99))];
    for (let i = int(r, 0, 6); i > 0; i--) tokens.push(s("+-*/"[int(r, 0, 3)] ?? "+"), n(int(r, 0, 99)));
    return { args: [l(tokens)] };
  },
  // "A positive int": 1 (no primes) upward, to 3,000 (past the public tests' 101 and any
  // table of a few hundred; the reference's trial division is quadratic, so no further).
  sieve: (r) => ({ args: [n(r() < 0.5 ? skewed(r, 1, 400) : int(r, 1, 3000))] }),
  // x >= 1 (a float, not only whole numbers: 1 <= x < 2 a quarter of the time), epsilon > 0.
  // The answer is any float within epsilon of sqrt(x) (the docstring's interval); the expected
  // value is the true root from the independent implementation.
  sqrt: (r) => {
    const epsilon = [0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6][int(r, 0, 5)] ?? 0.01;
    const x = r() < 0.25 ? Number((1 + r()).toPrecision(6)) : r() < 0.2 ? int(r, 1, 100) : logFloat(r, 1, 1e6);
    return { args: [f(x), f(epsilon)], adapter: "approx_number", compare: { kind: "approx_abs", tolerance: epsilon } };
  },
  // Any ints a and b (b below a included), k >= 1.
  subsequences: (r) => {
    const a = int(r, -20, 20);
    return { args: [n(a), n(a + int(r, -2, 12)), n(int(r, 1, 6))] };
  },
  // num > 0 (no upper bound: up to 200 bits, past 2^53 and 2^64), 2 <= b <= 36.
  to_base: (r) => ({
    args: [n(r() < 0.3 ? BigInt(int(r, 1, 40)) : bigBits(r, int(r, 1, 200))), n(int(r, 2, 36))],
  }),
  wrap: (r) => {
    // Words joined by one to three spaces. Lines at least one word (and a space) wide: the
    // reference loops forever once a line would start with a space and hold no other.
    const words = Array.from({ length: int(r, 1, 14) }, () => word(r, int(r, 1, 9), "abcdefghij"));
    const text = words.map((w, i) => (i === 0 ? w : " ".repeat(int(r, 1, 3)) + w)).join("");
    return { args: [s(text), n(int(r, 12, 30))] };
  },
  breadth_first_search: (r) => searchInput(r),
  depth_first_search: (r) => searchInput(r),
  detect_cycle: (r) => {
    const nodes = linkedList(r, int(r, 1, 10));
    const last = nodes[nodes.length - 1];
    if (last && r() < 0.5) last.successor = int(r, 0, nodes.length - 1);
    return { args: [node(0)], nodes, adapter: "truthy" };
  },
  // The empty list (None) too.
  reverse_linked_list: (r) => {
    if (r() < 0.1) return { args: [["none"]], adapter: "linked_list" };
    const nodes = linkedList(r, int(r, 1, 9));
    return { args: [node(0)], nodes, adapter: "linked_list" };
  },
  shortest_path_length: (r) => {
    // Any positive lengths (small ones, so paths tie). The reference's heap compares (distance,
    // node) pairs and raises on a tie (Node objects do not order): such an input is dropped
    // (counted), and a correct program is still graded on every input where the reference
    // answers and the independent implementation agrees.
    const nodes = digraph(r, int(r, 2, 10), 0.2 + 0.6 * r());
    const edges: [Tagged, Tagged][] = [];
    const distinctLengths = shuffle(
      r,
      Array.from({ length: 56 }, (_, i) => i * 3 + 1 + int(r, 0, 1)),
    );
    const tiesAllowed = r() < 0.5;
    nodes.forEach((a, i) =>
      a.successors?.forEach((j) =>
        edges.push([t([node(i), node(j)]), n(tiesAllowed ? int(r, 1, 9) : (distinctLengths.pop() ?? 1))]),
      ),
    );
    return { args: [d(edges), node(int(r, 0, nodes.length - 1)), node(int(r, 0, nodes.length - 1))], nodes };
  },
  shortest_path_lengths: (r) => {
    // Negative lengths without negative cycles: w(u,v) = base + p(u) - p(v) with base >= 0.
    const count = int(r, 1, 6);
    const p = list(r, count, -5, 5);
    const edges: [Tagged, Tagged][] = [];
    for (let i = 0; i < count; i++)
      for (let j = 0; j < count; j++)
        if (i !== j && r() < 0.35) edges.push([t([n(i), n(j)]), n(int(r, 0, 9) + (p[i] ?? 0) - (p[j] ?? 0))]);
    return { args: [n(count), d(edges)] };
  },
  shortest_paths: (r) => {
    const names = "ABCDEFG".slice(0, int(r, 2, 7)).split("");
    const p = new Map(names.map((x) => [x, int(r, -5, 5)]));
    const weight = (u: string, v: string): number => int(r, 0, 9) + (p.get(u) ?? 0) - (p.get(v) ?? 0);
    const plain: [string, string, number][] = [];
    for (const a of names) for (const b of names) if (a !== b && r() < 0.4) plain.push([a, b, weight(a, b)]);
    // The docstring's answer names the source and every edge's target; an edge from a node that
    // is neither (no incoming edge) has no entry to relax from, so such a node gets an incoming
    // edge from the source.
    for (const a of names.slice(1)) {
      if (plain.some(([u]) => u === a) && !plain.some(([, v]) => v === a)) plain.push(["A", a, weight("A", a)]);
    }
    if (plain.length === 0) plain.push(["A", "B", weight("A", "B")]);
    return { args: [s("A"), d(plain.map(([u, v, w]) => [t([s(u), s(v)]), n(w)] as const))] };
  },
  minimum_spanning_tree: (r) => {
    // A connected graph (the precondition) with any weights, negative and tied included: with
    // ties several trees are minimal, so the grade checks the tree and its total weight.
    const count = int(r, 2, 7);
    const tied = r() < 0.5;
    const weights = shuffle(
      r,
      Array.from({ length: 60 }, (_, i) => i - 10),
    );
    const weight = (): number => (tied ? int(r, -2, 6) : (weights.pop() ?? 1));
    const plain: [number, number, number][] = [];
    for (let v = 2; v <= count; v++) plain.push([int(r, 1, v - 1), v, weight()]);
    for (let a = 1; a <= count; a++)
      for (let b = a + 1; b <= count; b++)
        if (r() < 0.3 && !plain.some(([u, w]) => u === a && w === b)) plain.push([a, b, weight()]);
    // Either orientation of a key: the answer names the input's own keys.
    const edges = shuffle(r, plain).map(([a, b, w]): [number, number, number] => (r() < 0.5 ? [a, b, w] : [b, a, w]));
    return {
      args: [d(edges.map(([a, b, w]) => [t([n(a), n(b)]), n(w)] as const))],
      compare: { kind: "spanning_tree", edges },
    };
  },
  // Any acyclic graph; every valid order is accepted (validity check on the edges).
  topological_ordering: (r) => {
    const count = int(r, 1, 8);
    const order = shuffle(
      r,
      Array.from({ length: count }, (_, i) => i),
    );
    const nodes: NodeSpec[] = Array.from({ length: count }, (_, i) => ({
      value: n(i),
      incoming_nodes: [],
      outgoing_nodes: [],
    }));
    const pairs: [number, number][] = [];
    const density = 0.15 + 0.4 * r();
    for (let a = 0; a < count; a++) {
      for (let b = a + 1; b < count; b++) {
        if (r() < density) {
          const from = order[a] ?? 0;
          const to = order[b] ?? 0;
          nodes[from]?.outgoing_nodes?.push(to);
          nodes[to]?.incoming_nodes?.push(from);
          pairs.push([from, to]);
        }
      }
    }
    return {
      args: [l(nodes.map((_, i) => node(i)))],
      nodes,
      adapter: "node_values",
      compare: { kind: "topological_order", edges: pairs },
    };
  },
};

/** Upstream programs without held-out generation, and why (none since issue #24). */
export const HELD_OUT_NOT_GENERATED: Readonly<Record<string, string>> = {};

/** `count` generated inputs for the program (seeded), or undefined when it has no generator. */
export function generateHeldOutInputs(program: string, seed: number, count: number): GeneratedInput[] | undefined {
  const generator = HELD_OUT_GENERATORS[program];
  if (!generator) return undefined;
  const r = seededRandom(seed ^ hashName(program));
  return Array.from({ length: count }, () => {
    const g = generator(r);
    return {
      input: { args: g.args, adapter: g.adapter ?? "identity", ...(g.nodes ? { nodes: g.nodes } : {}) },
      compare: g.compare ?? EQUAL,
    };
  });
}

/** Different programs get different streams from one seed (FNV-1a of the name). */
function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
