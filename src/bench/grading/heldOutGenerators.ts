// Input generators for held-out verification: for each program whose inputs can be generated,
// fresh inputs from a seeded generator (the seed is recorded with every grade). Their expected
// values come from running the reference fix on them in its own sandbox (heldOutCases.ts); a
// program special-cased to the public inputs fails them. Inputs are small on purpose: several
// reference fixes are exponential (levenshtein, possible_change), and the whole set must grade
// in well under a second. Programs without a generator here are listed in HELD_OUT_NOT_GENERATED.
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

const n = (x: number): Tagged => ["n", String(x)];
const f = (x: number): Tagged => ["f", String(x)];
const s = (x: string): Tagged => ["s", x];
const l = (xs: readonly Tagged[]): Tagged => ["l", xs];
const t = (xs: readonly Tagged[]): Tagged => ["t", xs];
const d = (pairs: readonly (readonly [Tagged, Tagged])[]): Tagged => ["d", pairs];
const node = (i: number): Tagged => ["node", i];
const ints = (xs: readonly number[]): Tagged => l(xs.map(n));

const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const list = (r: Rng, len: number, lo: number, hi: number): number[] => Array.from({ length: len }, () => int(r, lo, hi));
function shuffle<T>(r: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = int(r, 0, i);
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}
const distinct = (r: Rng, len: number, lo: number, hi: number): number[] => shuffle(r, Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)).slice(0, len);
const word = (r: Rng, len: number, alphabet: string): string => Array.from({ length: len }, () => alphabet[int(r, 0, alphabet.length - 1)]).join("");

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
  for (let i = 0; i < count; i++) for (let j = 0; j < count; j++) if (i !== j && r() < density) nodes[i]?.successors?.push(j);
  return nodes;
}

function linkedList(r: Rng, len: number): NodeSpec[] {
  return Array.from({ length: len }, (_, i) => ({ value: n(int(r, 0, 99)), ...(i + 1 < len ? { successor: i + 1 } : {}) }));
}

function rpnTokens(r: Rng, depth: number): Tagged[] {
  if (depth === 0 || r() < 0.3) return [f(int(r, 1, 9))];
  const op = "+-*/"[int(r, 0, 3)] ?? "+";
  return [...rpnTokens(r, depth - 1), ...rpnTokens(r, depth - 1), s(op)];
}

const EQUAL: CaseComparison = { kind: "equal" };

export const HELD_OUT_GENERATORS: Readonly<Record<string, Generator>> = {
  bitcount: (r) => ({ args: [n(int(r, 0, 1 << 20))] }),
  bucketsort: (r) => {
    const k = int(r, 1, 20);
    return { args: [ints(list(r, int(r, 0, 15), 0, k - 1)), n(k)] };
  },
  find_first_in_sorted: (r) => {
    const arr = list(r, int(r, 1, 12), 0, 15).sort((a, b) => a - b);
    return { args: [ints(arr), n(r() < 0.7 ? (arr[int(r, 0, arr.length - 1)] ?? 0) : int(r, -2, 18))] };
  },
  find_in_sorted: (r) => {
    const arr = distinct(r, int(r, 1, 12), 0, 40).sort((a, b) => a - b);
    return { args: [ints(arr), n(r() < 0.7 ? (arr[int(r, 0, arr.length - 1)] ?? 0) : int(r, -2, 42))] };
  },
  flatten: (r) => ({ args: [nested(r, 3)], adapter: "list" }),
  gcd: (r) => ({ args: [n(int(r, 1, 1_000_000)), n(int(r, 0, 1_000_000))] }),
  get_factors: (r) => ({ args: [n(int(r, 1, 5000))] }),
  hanoi: (r) => {
    const start = int(r, 1, 3);
    const end = ((start + int(r, 0, 1)) % 3) + 1;
    return { args: [n(int(r, 0, 6)), n(start), n(end)] };
  },
  is_valid_parenthesization: (r) => ({ args: [s(word(r, int(r, 0, 12), "()"))] }),
  kheapsort: (r) => {
    const k = int(r, 1, 4);
    const sorted = distinct(r, int(r, 1, 14), 0, 60).sort((a, b) => a - b);
    const perturbed: number[] = [];
    for (let i = 0; i < sorted.length; i += k + 1) perturbed.push(...shuffle(r, sorted.slice(i, i + k + 1)));
    return { args: [ints(perturbed), n(k)], adapter: "list" };
  },
  knapsack: (r) => ({ args: [n(int(r, 0, 50)), l(Array.from({ length: int(r, 0, 8) }, () => l([n(int(r, 1, 20)), n(int(r, 1, 50))])))] }),
  kth: (r) => {
    const arr = distinct(r, int(r, 1, 12), -20, 40);
    return { args: [ints(arr), n(int(r, 0, arr.length - 1))] };
  },
  lcs_length: (r) => ({ args: [s(word(r, int(r, 0, 8), "abc")), s(word(r, int(r, 0, 8), "abc"))] }),
  levenshtein: (r) => ({ args: [s(word(r, int(r, 0, 5), "abc")), s(word(r, int(r, 0, 5), "abc"))] }),
  lis: (r) => ({ args: [ints(distinct(r, int(r, 0, 10), 0, 30))] }),
  max_sublist_sum: (r) => ({ args: [ints(list(r, int(r, 0, 12), -10, 10))] }),
  mergesort: (r) => ({ args: [ints(list(r, int(r, 0, 15), -20, 20))] }),
  next_palindrome: (r) => {
    const len = int(r, 1, 7);
    const half = Array.from({ length: Math.ceil(len / 2) }, (_, i) => (i === 0 ? int(r, 1, 9) : r() < 0.3 ? 9 : int(r, 0, 9)));
    const digits = [...half, ...half.slice(0, Math.floor(len / 2)).reverse()];
    return { args: [ints(digits)] };
  },
  next_permutation: (r) => {
    let perm = distinct(r, int(r, 2, 7), 0, 9);
    while (perm.every((v, i) => i === 0 || (perm[i - 1] ?? 0) > v)) perm = shuffle(r, perm);
    return { args: [ints(perm)] };
  },
  pascal: (r) => ({ args: [n(int(r, 1, 12))] }),
  possible_change: (r) => ({ args: [ints(distinct(r, int(r, 1, 4), 1, 10)), n(int(r, 0, 25))] }),
  powerset: (r) => ({ args: [l(distinct(r, int(r, 0, 5), 0, 25).map((i) => s(String.fromCharCode(97 + i))))] }),
  quicksort: (r) => ({ args: [ints(list(r, int(r, 0, 15), -20, 20))] }),
  rpn_eval: (r) => ({ args: [l(rpnTokens(r, 3))] }),
  shunting_yard: (r) => {
    const tokens: Tagged[] = [n(int(r, 1, 20))];
    for (let i = int(r, 0, 5); i > 0; i--) tokens.push(s("+-*/"[int(r, 0, 3)] ?? "+"), n(int(r, 1, 20)));
    return { args: [l(tokens)] };
  },
  sieve: (r) => ({ args: [n(int(r, 2, 200))] }),
  sqrt: (r) => {
    const epsilon = [0.1, 0.01, 0.001][int(r, 0, 2)] ?? 0.01;
    return { args: [f(int(r, 1, 1000)), f(epsilon)], compare: { kind: "approx_abs", tolerance: epsilon } };
  },
  subsequences: (r) => {
    const a = int(r, 0, 5);
    return { args: [n(a), n(a + int(r, 0, 7)), n(int(r, 0, 4))] };
  },
  to_base: (r) => ({ args: [n(int(r, 1, 1_000_000)), n(int(r, 2, 36))] }),
  wrap: (r) => {
    const words = Array.from({ length: int(r, 1, 14) }, () => word(r, int(r, 1, 9), "abcdefghij"));
    // Lines at least one word wide: the reference loops forever on a word longer than a line.
    return { args: [s(words.join(" ")), n(int(r, 10, 30))] };
  },
  breadth_first_search: (r) => {
    const nodes = digraph(r, int(r, 1, 7), 0.3);
    return { args: [node(int(r, 0, nodes.length - 1)), node(int(r, 0, nodes.length - 1))], nodes, adapter: "truthy" };
  },
  depth_first_search: (r) => {
    const nodes = digraph(r, int(r, 1, 7), 0.3);
    return { args: [node(int(r, 0, nodes.length - 1)), node(int(r, 0, nodes.length - 1))], nodes, adapter: "truthy" };
  },
  detect_cycle: (r) => {
    const nodes = linkedList(r, int(r, 1, 8));
    const last = nodes[nodes.length - 1];
    if (last && r() < 0.5) last.successor = int(r, 0, nodes.length - 1);
    return { args: [node(0)], nodes, adapter: "truthy" };
  },
  reverse_linked_list: (r) => {
    const nodes = linkedList(r, int(r, 1, 8));
    return { args: [node(0)], nodes, adapter: "linked_list" };
  },
  shortest_path_length: (r) => {
    // Distinct powers of two as lengths: no two paths tie, since the reference's heap compares
    // (distance, node) pairs and raises on a tie (Node objects do not order).
    const nodes = digraph(r, int(r, 2, 7), 0.35);
    const edges: [Tagged, Tagged][] = [];
    const lengths = shuffle(r, Array.from({ length: 42 }, (_, i) => 2 ** i));
    nodes.forEach((a, i) => a.successors?.forEach((j) => edges.push([t([node(i), node(j)]), n(lengths.pop() ?? 1)])));
    return { args: [d(edges), node(0), node(int(r, 0, nodes.length - 1))], nodes };
  },
  shortest_path_lengths: (r) => {
    const count = int(r, 2, 6);
    const edges: [Tagged, Tagged][] = [];
    for (let i = 0; i < count; i++) for (let j = 0; j < count; j++) if (i !== j && r() < 0.35) edges.push([t([n(i), n(j)]), n(int(r, 0, 9))]);
    return { args: [n(count), d(edges)] };
  },
  shortest_paths: (r) => {
    const names = "ABCDEF".slice(0, int(r, 2, 6)).split("");
    const plain: [string, string, number][] = [];
    for (const a of names) for (const b of names) if (a !== b && r() < 0.4) plain.push([a, b, int(r, 0, 9)]);
    // The reference knows only the source and edge targets as nodes: every other node that has
    // an outgoing edge gets an incoming one from the source.
    for (const a of names.slice(1)) {
      if (plain.some(([u]) => u === a) && !plain.some(([, v]) => v === a)) plain.push(["A", a, int(r, 0, 9)]);
    }
    if (plain.length === 0) plain.push(["A", "B", 1]);
    return { args: [s("A"), d(plain.map(([u, v, w]) => [t([s(u), s(v)]), n(w)] as const))] };
  },
  minimum_spanning_tree: (r) => {
    // Distinct weights: the minimum spanning tree is unique, so any correct program agrees.
    const count = int(r, 2, 6);
    const weights = shuffle(r, Array.from({ length: 40 }, (_, i) => i + 1));
    const edges: [Tagged, Tagged][] = [];
    for (let v = 2; v <= count; v++) edges.push([t([n(int(r, 1, v - 1)), n(v)]), n(weights.pop() ?? 1)]);
    for (let a = 1; a <= count; a++) for (let b = a + 1; b <= count; b++) if (r() < 0.3 && !edges.some(([k]) => JSON.stringify(k) === JSON.stringify(t([n(a), n(b)])))) edges.push([t([n(a), n(b)]), n(weights.pop() ?? 1)]);
    return { args: [d(edges)] };
  },
  topological_ordering: (r) => {
    const count = int(r, 1, 7);
    const order = shuffle(r, Array.from({ length: count }, (_, i) => i));
    const nodes: NodeSpec[] = Array.from({ length: count }, (_, i) => ({ value: n(i), incoming_nodes: [], outgoing_nodes: [] }));
    for (let a = 0; a < count; a++) {
      for (let b = a + 1; b < count; b++) {
        if (r() < 0.35) {
          const from = order[a] ?? 0;
          const to = order[b] ?? 0;
          nodes[from]?.outgoing_nodes?.push(to);
          nodes[to]?.incoming_nodes?.push(from);
        }
      }
    }
    return { args: [l(nodes.map((_, i) => node(i)))], nodes, adapter: "node_values" };
  },
};

/** Upstream programs without held-out generation, and why. */
export const HELD_OUT_NOT_GENERATED: Readonly<Record<string, string>> = {
  longest_common_subsequence: "several longest common subsequences often tie, and the test wants one particular string; the reference's choice is not the only correct one",
};

/** `count` generated inputs for the program (seeded), or undefined when it has no generator. */
export function generateHeldOutInputs(program: string, seed: number, count: number): GeneratedInput[] | undefined {
  const generator = HELD_OUT_GENERATORS[program];
  if (!generator) return undefined;
  const r = seededRandom(seed ^ hashName(program));
  return Array.from({ length: count }, () => {
    const g = generator(r);
    return { input: { args: g.args, adapter: g.adapter ?? "identity", ...(g.nodes ? { nodes: g.nodes } : {}) }, compare: g.compare ?? EQUAL };
  });
}

/** Different programs get different streams from one seed (FNV-1a of the name). */
function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
