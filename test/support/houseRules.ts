// The house rules for imports, written once: the rooms of src/ in their layer order, and the checks
// test/house/houseLayers.test.ts holds the tree to (and plants a violation of each, so each can fail).
// README.md's "Code layout" table describes these same rooms in this same order.
import { relative } from "node:path";
import { SRC } from "./importGraph.ts";

/**
 * The rooms of src/, lowest first. A module may import modules of its own room and of rooms earlier in
 * this list, never of a later one: the model side, the parsers and the workspace never reach the
 * controller; nothing below the verdicts reads them; nothing but the CLI reaches the Lab's orchestration.
 */
export const LAYERS = [
  "core", // shared primitives: Result, digests, the clock, safe reads, isRecord, the chat message
  "constants", // the Lab's exact values, each in one place
  "recording", // the low-level evidence writers and the one envelope, its strict reader
  "expr", // the restricted expression language (pure)
  "proposal", // strict JSON and the closed action contract (pure)
  "workspace", // the only writer of a run's managed files
  "model", // pins, acquisition, checkpoints, tokenizer, engine, worker
  "controller", // authorization, dispatch, the loop, deadlines, final evaluation
  "sources", // proposal sources: scripted, local model, OpenAI-compatible HTTP
  "bench", // the QuixBugs benchmark (its own rooms: test/bench/benchHouse.test.ts)
  "verdicts", // the top-level verdicts of every kind of run, and submission.md
  "report", // the HTML reports
  "lab", // the Lab's orchestration
  "cli", // the thin command layer
] as const;
export type Room = (typeof LAYERS)[number];

/** The only modules of src/ that may import a file outside src/, and what. */
export const OUTSIDE_SRC: Readonly<Record<string, readonly string[]>> = {
  "recording/runtimeIdentity.ts": ["bin/compiledBuild.js", "bin/treeHashOnce.js"],
  "cli/main.ts": ["package.json"],
};

/** The room of a path under src/ (`bench/agent/x.ts` → bench), or null for a file in no room. */
export function roomOf(pathUnderSrc: string): Room | null {
  const parts = pathUnderSrc.split("/");
  if (parts.length < 2) return null;
  return (LAYERS as readonly string[]).includes(parts[0] ?? "") ? (parts[0] as Room) : null;
}

const rank = (room: Room): number => LAYERS.indexOf(room);

/** Every import that breaks a rule, as `from → to (rule)`; `graph` maps absolute paths to the absolute paths they import. */
export function houseViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const path = relative(SRC, file);
    const from = roomOf(path);
    if (from === null) {
      found.push(`${path} is in no room of the house`);
      continue;
    }
    for (const target of imports) {
      const to = relative(SRC, target);
      if (to.startsWith("..")) {
        const outside = relative(SRC, target).replace(/^\.\.\//, "");
        if (!(OUTSIDE_SRC[path] ?? []).includes(outside)) found.push(`${path} → ${outside} (outside src/)`);
        continue;
      }
      const toRoom = roomOf(to);
      if (toRoom === null) found.push(`${path} → ${to} (into no room)`);
      else if (rank(toRoom) > rank(from)) found.push(`${path} → ${to} (${from} may not import the higher ${toRoom})`);
    }
  }
  return found;
}

/** The folder-level graph: room → the rooms its modules import (other than itself). */
export function roomGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = relative(SRC, file).split("/")[0] ?? "";
    const targets = rooms.get(from) ?? new Set<string>();
    for (const target of imports) {
      const to = relative(SRC, target);
      if (to.startsWith("..")) continue;
      const toRoom = to.split("/")[0] ?? "";
      if (toRoom !== from) targets.add(toRoom);
    }
    rooms.set(from, targets);
  }
  return rooms;
}

/** The first cycle among rooms (a list of rooms ending where it began), or null. */
export function roomCycle(rooms: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const visit = (room: string, path: string[]): string[] | null => {
    if (state.get(room) === "done") return null;
    if (state.get(room) === "open") return [...path.slice(path.indexOf(room)), room];
    state.set(room, "open");
    for (const next of rooms.get(room) ?? []) {
      const found = visit(next, [...path, room]);
      if (found) return found;
    }
    state.set(room, "done");
    return null;
  };
  for (const room of rooms.keys()) {
    const found = visit(room, []);
    if (found) return found;
  }
  return null;
}
