// The project's own import graph, read from the source text: every relative module each file of
// src/ imports (static `from "…"`, side-effect imports and `export … from`). The house tests
// (test/house/houseLayers.test.ts, test/bench/benchHouse.test.ts) check their floors on it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative module a file imports, as absolute paths. */
export function localImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom|^import)\s+"(\.{1,2}\/[^"]+)"/gm)].map((m) => m[1] ?? "");
  return specifiers.map((s) => resolve(dirname(file), s));
}

/** The path of a file relative to src/, e.g. `bench/agent/agentLoop.ts`. */
export const underSrc = (file: string): string => relative(SRC, file);

export const FILES: readonly string[] = sourceFiles(SRC);
export const GRAPH: ReadonlyMap<string, readonly string[]> = new Map(FILES.map((f) => [f, localImports(f)]));

/**
 * The first import cycle found among the files `inScope` accepts (a path of files that ends where
 * it began), or null when there is none.
 */
export function findCycle(
  graph: ReadonlyMap<string, readonly string[]>,
  inScope: (file: string) => boolean,
): string[] | null {
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): string[] | null => {
    if (state.get(file) === "done") return null;
    if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) {
      if (!inScope(next)) continue;
      const found = visit(next, [...path, file]);
      if (found) return found;
    }
    state.set(file, "done");
    return null;
  };
  for (const file of graph.keys()) {
    if (!inScope(file)) continue;
    const found = visit(file, []);
    if (found) return found;
  }
  return null;
}
