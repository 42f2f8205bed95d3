// The house rules for imports, checked on the source text: src/constants and src/core are the ground
// floor (they import nothing of ours but each other), src/lab is the top floor (only the CLI
// imports it), and no module depends on itself through a chain of imports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { relative } from "node:path";
import { FILES, findCycle, GRAPH, SRC } from "../support/importGraph.ts";

const room = (file: string): string => relative(SRC, file).split("/")[0] ?? "";

test("the import graph is read from the real tree (guards the checks below against an empty scan)", () => {
  assert.ok(FILES.length > 100);
  const imports = [...GRAPH.values()].reduce((n, list) => n + list.length, 0);
  assert.ok(imports > 300);
  assert.ok(
    [...GRAPH.keys()].some((f) => room(f) === "constants") && [...GRAPH.keys()].some((f) => room(f) === "core"),
  );
});

test("src/constants and src/core import nothing of ours outside the ground floor", () => {
  for (const [file, imports] of GRAPH) {
    if (room(file) !== "constants" && room(file) !== "core") continue;
    for (const target of imports) {
      assert.ok(
        ["constants", "core"].includes(room(target)),
        `${relative(SRC, file)} imports ${relative(SRC, target)}`,
      );
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
  const found = findCycle(GRAPH, (f) => room(f) === "lab");
  assert.equal(found, null, `import cycle: ${(found ?? []).map((f) => relative(SRC, f)).join(" → ")}`);
});
