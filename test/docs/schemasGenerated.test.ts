// The committed JSON Schemas are the ones the TypeBox definitions generate (npm run schemas), so a
// schema can never drift from the writer and reader that use the same definition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { SCHEMA_FILES, staleSchemaFiles } from "../../scripts/generateSchemas.ts";
import { EVIDENCE_SCHEMA_NAMES } from "../../src/recording/evidenceSchemas.ts";

test("every generated schema file is committed as generated", () => {
  assert.deepEqual(staleSchemaFiles(), []);
});

test("every file in schemas/ is generated from a definition (none kept by hand), and every generated one is there", () => {
  // Every entry, whatever its name: a hand-kept file that does not end in .json is kept by hand too.
  const committed = readdirSync(new URL("../../schemas/", import.meta.url)).sort();
  const generated = SCHEMA_FILES.map((f) => f.name).sort();
  assert.deepEqual(committed, generated);
});

test("the verdict's schemas are generated files (no entry for a schema kept by hand)", () => {
  const generated = new Set(SCHEMA_FILES.map((f) => f.name));
  for (const name of EVIDENCE_SCHEMA_NAMES) assert.ok(generated.has(`${name}.schema.json`), name);
});
