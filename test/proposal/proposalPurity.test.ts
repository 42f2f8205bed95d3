// Structural check: the proposal room is pure. No module in src/proposal imports anything
// that could reach the filesystem, processes, the network or the environment, so a path-like
// "file" value can only ever be compared as text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOM = fileURLToPath(new URL("../../src/proposal/", import.meta.url));
const ALLOWED_IMPORTS = ["../constants/labConstants.ts", "../core/result.ts", "../expr/expressionString.ts"];

test("src/proposal imports only its own modules, the spec constants, Result and the expression-string bounds", () => {
  const files = readdirSync(ROOM).filter((name) => name.endsWith(".ts"));
  assert.ok(files.includes("index.ts") && files.includes("strictJson.ts"));
  for (const file of files) {
    const source = readFileSync(`${ROOM}${file}`, "utf8");
    const specifiers = [...source.matchAll(/\bfrom\s+"([^"]+)"/g)].map((match) => match[1] ?? "");
    for (const specifier of specifiers) {
      const local = specifier.startsWith("./") && !specifier.includes("/", 2);
      assert.ok(local || ALLOWED_IMPORTS.includes(specifier), `${file} imports ${specifier}`);
    }
    for (const forbidden of ["process.", "require(", "import(", "globalThis", "eval(", "Function("]) {
      assert.ok(!source.includes(forbidden), `${file} contains ${forbidden}`);
    }
  }
});
