// A rejected or invalid proposal changes nothing the controller knows: source, version, backups
// and the passing-test status all survive it, so a finish right after is still accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit } from "./labRunTestSupport.ts";

const root = freshRoot("passing");
const [READ, , CLAMP, TOTAL, TEST, FINISH] = BASELINE_PROPOSALS.map(String);

for (const [name, rejected] of [
  ["wrong old", '{"action":"replace","function":"clamp","old":"x","new":"lo","version":2}'],
  [
    "forbidden expression",
    '{"action":"replace","function":"total","old":"unit * qty + fee","new":"unit ** 2","version":2}',
  ],
  ["stale version", '{"action":"replace","function":"total","old":"unit * qty + fee","new":"fee","version":1}'],
  ["invalid JSON", "{'action': 'finish'}"],
] as const) {
  test(`passing-test status survives a rejected proposal (${name})`, async () => {
    const result = await runLab({
      runDirectory: join(root, name.replace(/ /g, "-")),
      kind: "negative_check",
      source: new ScriptedSource([String(READ), String(CLAMP), String(TOTAL), String(TEST), rejected, String(FINISH)]),
    });
    assert.ok(result.ok);
    const log = result.value.loop.log;
    assert.equal(log[4]?.observation.ok, false, "the fifth proposal was rejected");
    const finish = log[5]?.observation;
    assert.equal(finish?.ok === true && finish.action === "finish" ? finish.status : finish, "finish_accepted");
    assert.equal(result.value.final.verified_success, true);
    assert.equal(result.value.workspace.state().version, 2);
    assert.deepEqual(readdirSync(join(result.value.runDirectory, "backups")).sort(), [
      "toy_math.v0.py",
      "toy_math.v1.py",
    ]);
    // A tool's own refusal gets a tool_result record; parse and authorization failures do not.
    const toolResults = readAudit(result.value.runDirectory).filter((r) => r.type === "tool_result");
    const refusedByTool = name === "wrong old" || name === "forbidden expression";
    assert.equal(toolResults.length, refusedByTool ? 1 : 0);
  });
}
