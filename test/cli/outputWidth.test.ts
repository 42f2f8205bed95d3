// Issue #28 item 15: what tca prints for people fits 100 columns. Every command's help (walked
// from the top, in-process through main()), and the main commands that work offline, run as a
// user runs them (bin/tca.js, a fresh temporary folder as the working directory); no stdout line
// may pass 100 columns. Exempt, and counted: lines that are one JSON document (the JSON forms),
// and the benchmark document's own wide tables that `compare --reference published` reproduces
// cell by cell (its prose is wrapped; test/bench/publishedResults.test.ts checks those lines).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { overlongLines } from "../../src/core/textWidth.ts";
import { overlongProse } from "../support/outputWidth.ts";
import { tca } from "../support/tcaCli.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import { MINI_DATASET_DIR } from "../support/optionalResources.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-width-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("every command's --help fits 100 columns", () => {
  const walk = fileURLToPath(new URL("./helpWalk.mjs", import.meta.url));
  const helps = JSON.parse(
    execFileSync(process.execPath, [walk], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }),
  ) as Record<string, string>;
  for (const [path, help] of Object.entries(helps)) {
    assert.ok(help.startsWith("Usage: tca"), `help of "${path}"`);
    assert.deepEqual(overlongLines(help), [], `tca ${path} --help`);
  }
  // The walk reached the groups and their commands, not only the top.
  for (const expected of [
    "bench quixbugs run",
    "bench quixbugs compare",
    "model plan",
    "engine info",
    "lab baseline",
    "report",
  ])
    assert.ok(expected in helps, `${expected} in ${Object.keys(helps).join(", ")}`);
});

test("the main offline commands print within 100 columns", async () => {
  const cwd = mkdtempSync(join(root, "cwd-"));
  const five = join(root, "five");
  const three = join(root, "three");
  writeBenchRun(five, { programs: 5, turns: 1 });
  writeBenchRun(three, { programs: 3, turns: 1 });
  const commands: string[][] = [
    ["lab", "baseline", "--run", "baseline"],
    ["report", "baseline"],
    ["lab", "checks", "--root", "checks"],
    ["model", "plan"],
    ["engine", "info"],
    ["bench", "quixbugs", "compare", five, three],
    ["bench", "quixbugs", "compare", "--all-tasks", five, three],
    ["expr", "eval", "--function", "clamp", "--expr", "lo if x < lo else x", "--args", "-2,0,5"],
  ];
  if (sandboxPackages().skip === false)
    commands.push(["bench", "quixbugs", "verify-dataset", "--dataset", MINI_DATASET_DIR, "--programs", "gcd,pascal"]);
  for (const args of commands) {
    const r = await tca(args, undefined, cwd);
    assert.ok(r.out.length > 0, `tca ${args.join(" ")} printed nothing (exit ${r.code}): ${r.err}`);
    assert.deepEqual(overlongProse(r.out, [root]), [], `tca ${args.join(" ")}`);
  }
  // The one exemption, checked to be only the document's tables.
  const published = await tca(["bench", "quixbugs", "compare", "--reference", "published"], undefined, cwd);
  assert.ok(
    overlongProse(published.out, [root]).every((line) => line.startsWith("| ")),
    "only table rows of the document pass 100 columns",
  );
});
