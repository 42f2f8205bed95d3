// `tca proposal check` answers as the controller does (issue 28): a replace whose expression the
// controller's edit refuses ("x ** 2", __import__("os")) is rejected here with the same code the
// controller records for it in a real run; a file argument is read like stdin; a bad file path is
// one error line, exit 2.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkProposal } from "../../src/cli/commands/proposal.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { readAudit } from "../lab/labRunTestSupport.ts";

const BIN = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const READ = BASELINE_PROPOSALS[0] ?? "";
const POWER = '{"action":"replace","function":"clamp","old":"x","new":"x ** 2","version":0}';
const IMPORT =
  '{"action":"replace","function":"total","old":"unit + qty + fee","new":"__import__(\\"os\\")","version":0}';

/** The error code the controller records for the proposal after a read, in a real run. */
async function controllerCode(root: string, name: string, proposal: string): Promise<unknown> {
  const run = await runLab({
    runDirectory: join(root, name),
    source: new ScriptedSource([READ, proposal]),
    kind: "negative_check",
  });
  assert.ok(run.ok, run.ok ? "" : run.message);
  const observation = readAudit(run.value.runDirectory).find((r) => r.type === "observation" && r.proposal === 2)?.data[
    "observation"
  ] as Record<string, unknown> | undefined;
  return observation?.["error"];
}

test("expressions the controller's edit refuses are refused by proposal check with the controller's code", async () => {
  const root = mkdtempSync(join(tmpdir(), "tca-proposal-check-"));
  try {
    for (const [name, proposal] of [
      ["power", POWER],
      ["import", IMPORT],
    ] as const) {
      const verdict = checkProposal(Buffer.from(proposal, "utf8"));
      assert.equal(verdict.ok, false, `${name} was accepted`);
      const recorded = await controllerCode(root, name, proposal);
      assert.equal(typeof recorded, "string", `${name}: the controller recorded no error`);
      assert.equal(verdict.ok ? null : verdict.error, recorded, name);
    }
    // A valid replace stays accepted (as the controller's parse accepts it).
    assert.equal(checkProposal(Buffer.from(BASELINE_PROPOSALS[2] ?? "", "utf8")).ok, true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("proposal check FILE reads the file like stdin; a missing file or a folder is one error line and exit 2", () => {
  const root = mkdtempSync(join(tmpdir(), "tca-proposal-file-"));
  try {
    const good = join(root, "read.json");
    writeFileSync(good, READ);
    const power = join(root, "power.json");
    writeFileSync(power, POWER);
    const accepted = spawnSync(process.execPath, [BIN, "proposal", "check", good], { encoding: "utf8" });
    assert.equal(accepted.status, 0, accepted.stderr);
    assert.deepEqual(JSON.parse(accepted.stdout), { ok: true, action: { action: "read", file: "toy_math.py" } });
    const refused = spawnSync(process.execPath, [BIN, "proposal", "check", power], { encoding: "utf8" });
    assert.equal(refused.status, 1);
    assert.equal((JSON.parse(refused.stdout) as { error: string }).error, "forbidden_power");
    const piped = spawnSync(process.execPath, [BIN, "proposal", "check"], { encoding: "utf8", input: POWER });
    assert.equal(piped.stdout, refused.stdout, "stdin and a file give the same verdict");
    const missing = spawnSync(process.execPath, [BIN, "proposal", "check", join(root, "nope.json")], {
      encoding: "utf8",
    });
    assert.equal(missing.status, 2);
    assert.equal(
      missing.stderr,
      `tca proposal check: path_not_found: the file ${join(root, "nope.json")} does not exist\n`,
    );
    const folder = spawnSync(process.execPath, [BIN, "proposal", "check", root], { encoding: "utf8" });
    assert.equal(folder.status, 2);
    assert.equal(folder.stderr, `tca proposal check: path_wrong_kind: the file ${root} is a folder, not a file\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
