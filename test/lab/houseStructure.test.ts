// The house rules for imports, checked on the source text: src/spec and src/core are the ground
// floor (they import nothing of ours but each other), src/lab is the top floor (only the CLI
// imports it), and no module depends on itself through a chain of imports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative module a file imports (static `from "…"`, side-effect imports and `export … from`). */
function localImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom|^import)\s+"(\.{1,2}\/[^"]+)"/gm)].map((m) => m[1] ?? "");
  return specifiers.map((s) => resolve(dirname(file), s));
}

const room = (file: string): string => relative(SRC, file).split("/")[0] ?? "";
const FILES = sourceFiles(SRC);
const GRAPH = new Map(FILES.map((f) => [f, localImports(f)]));

test("the import graph is read from the real tree (guards the checks below against an empty scan)", () => {
  assert.ok(FILES.length > 100);
  const imports = [...GRAPH.values()].reduce((n, list) => n + list.length, 0);
  assert.ok(imports > 300);
  assert.ok([...GRAPH.keys()].some((f) => room(f) === "spec") && [...GRAPH.keys()].some((f) => room(f) === "core"));
});

test("src/spec and src/core import nothing of ours outside the ground floor", () => {
  for (const [file, imports] of GRAPH) {
    if (room(file) !== "spec" && room(file) !== "core") continue;
    for (const target of imports) {
      assert.ok(["spec", "core"].includes(room(target)), `${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
});

test("only the CLI imports src/lab: nothing below the top floor reaches back up", () => {
  for (const [file, imports] of GRAPH) {
    if (room(file) === "lab" || room(file) === "cli") continue;
    for (const target of imports) {
      assert.notEqual(room(target), "lab", `${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
});

test("no module of src/lab imports itself through a chain of imports", () => {
  const state = new Map<string, "open" | "done">();
  const cycle = (file: string, path: string[]): string[] | null => {
    if (state.get(file) === "done") return null;
    if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
    state.set(file, "open");
    for (const next of GRAPH.get(file) ?? []) {
      if (room(next) !== "lab") continue;
      const found = cycle(next, [...path, file]);
      if (found) return found;
    }
    state.set(file, "done");
    return null;
  };
  for (const file of FILES.filter((f) => room(f) === "lab")) {
    const found = cycle(file, []);
    assert.equal(found, null, `import cycle: ${(found ?? []).map((f) => relative(SRC, f)).join(" → ")}`);
  }
});
