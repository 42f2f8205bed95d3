// The house rules for imports, checked on the source text of every room of src/ (the layer order and
// the checks: test/support/houseRules.ts). Each rule is also run on a planted violation, so a check that
// stopped seeing its violations would fail here rather than pass silently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { FILES, findCycle, GRAPH, SRC } from "../support/importGraph.ts";
import { houseViolations, LAYERS, roomCycle, roomGraph, roomOf } from "../support/houseRules.ts";

const at = (p: string): string => resolve(SRC, p);

test("the import graph is read from the real tree: every room of the layer order has modules and imports", () => {
  assert.ok(FILES.length > 200);
  const imports = [...GRAPH.values()].reduce((n, list) => n + list.length, 0);
  assert.ok(imports > 600, `only ${imports} imports read`);
  for (const room of LAYERS)
    assert.ok(
      FILES.some((f) => roomOf(relative(SRC, f)) === room),
      `no modules in src/${room}`,
    );
});

test("every folder of src/ is a room of the layer order, and the order names no folder that is not there", () => {
  const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
  assert.deepEqual([...folders].sort(), [...LAYERS].sort());
});

test("every module sits in a room and imports only its own room and the rooms below it (no upward import, types included)", () => {
  assert.deepEqual(houseViolations(GRAPH), []);
});

test("no folder-level cycle: the rooms' graph has none", () => {
  assert.equal(roomCycle(roomGraph(GRAPH)), null);
});

test("no module of src/ imports itself through a chain of imports", () => {
  const found = findCycle(GRAPH, () => true);
  assert.equal(found, null, `import cycle: ${(found ?? []).map((f) => relative(SRC, f)).join(" → ")}`);
});

test("only the CLI imports src/lab, and src/core and src/constants import nothing of ours but the ground floor", () => {
  for (const [file, imports] of GRAPH) {
    const from = roomOf(relative(SRC, file));
    for (const target of imports) {
      const to = roomOf(relative(SRC, target));
      if (to === "lab") assert.ok(from === "lab" || from === "cli", `${relative(SRC, file)} imports src/lab`);
      if (from === "core" || from === "constants")
        assert.ok(to === "core" || to === "constants", `${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
});

test("planted violations: each rule finds its own (an upward value import, an upward type import, a file in no room, an import into no room, an import outside src/)", () => {
  const planted = new Map<string, readonly string[]>([
    [at("model/worker/protocol.ts"), [at("controller/proposalSource.ts")]], // the upward type import #32 found
    [at("recording/auditRecorder.ts"), [at("verdicts/runVerdict.ts")]],
    [at("bench/agent/agentLoop.ts"), [at("lab/labRun.ts")]],
    [at("core/result.ts"), [at("constants/labConstants.ts")]],
    [at("misc/helper.ts"), []],
    [at("report/htmlPage.ts"), [at("spec/constants.ts")]],
    [at("sources/scriptedSource.ts"), [resolve(SRC, "../test/support/importGraph.ts")]],
    [at("recording/runtimeIdentity.ts"), [resolve(SRC, "../bin/compiledBuild.js")]], // allowed
    [at("controller/authorize.ts"), [at("expr/index.ts"), at("core/result.ts")]], // allowed
  ]);
  assert.deepEqual(houseViolations(planted), [
    "model/worker/protocol.ts → controller/proposalSource.ts (model may not import the higher controller)",
    "recording/auditRecorder.ts → verdicts/runVerdict.ts (recording may not import the higher verdicts)",
    "bench/agent/agentLoop.ts → lab/labRun.ts (bench may not import the higher lab)",
    "core/result.ts → constants/labConstants.ts (core may not import the higher constants)",
    "misc/helper.ts is in no room of the house",
    "report/htmlPage.ts → spec/constants.ts (into no room)",
    "sources/scriptedSource.ts → test/support/importGraph.ts (outside src/)",
  ]);
});

test("planted cycles: a folder-level cycle (the model ↔ evidence one #32 found) and a module cycle are both found", () => {
  const rooms = roomGraph(
    new Map([
      [at("model/artifacts/unfinishedDownload.ts"), [at("evidence/predictions.ts")]],
      [at("evidence/submission/modelEvidence.ts"), [at("model/artifacts/ledger.ts")]],
    ]),
  );
  assert.deepEqual(roomCycle(rooms), ["model", "evidence", "model"]);
  const modules = new Map([
    [at("sources/a.ts"), [at("sources/b.ts")]],
    [at("sources/b.ts"), [at("sources/a.ts")]],
  ]);
  assert.deepEqual(
    findCycle(modules, () => true)?.map((f) => relative(SRC, f)),
    ["sources/a.ts", "sources/b.ts", "sources/a.ts"],
  );
});
