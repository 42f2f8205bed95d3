// docs/evidence-format.md's field tables are generated from the event catalogs and the run files' TypeBox
// definitions (scripts/evidenceFormatDoc.ts): the committed doc must be what they generate, so the
// document a third party writes a reader from cannot drift from the writers and readers. Each way it
// could drift is planted too (a field added, an event removed, a description left behind), so the
// comparison is seen to fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Type from "typebox";
import {
  DOCUMENTED_CATALOGS,
  DOCUMENTED_FILES,
  EVIDENCE_FORMAT_DOC,
  generatedSections,
  staleDescriptions,
  staleFileDescriptions,
  withGeneratedSections,
  type DocumentedCatalog,
} from "../../scripts/evidenceFormatDoc.ts";
import { ENVELOPE_KEYS } from "../../src/recording/evidenceEnvelope.ts";
import { LAB_AUDIT_EVENTS } from "../../src/recording/labAuditEvents.ts";

const doc = readFileSync(EVIDENCE_FORMAT_DOC, "utf8");
const [lab, ...others] = DOCUMENTED_CATALOGS;
assert.ok(lab !== undefined);

test("the committed doc's generated sections are what the definitions generate (npm run evidence-doc)", () => {
  assert.equal(withGeneratedSections(doc, generatedSections()), doc);
});

test("every event of every catalog, and every envelope field, has its own entry in the doc", () => {
  for (const documented of DOCUMENTED_CATALOGS)
    for (const event of Object.keys(documented.catalog)) {
      assert.ok(doc.includes(`#### \`${event}\`\n`), `no heading for ${event}`);
      assert.ok((documented.descriptions[event]?.meaning ?? "").length > 0, `no meaning for ${event}`);
    }
  for (const key of ENVELOPE_KEYS) assert.match(doc, new RegExp(`\\| \\d \\| \`${key}\` \\|`));
  assert.ok(Object.keys(lab.catalog).length >= 20);
});

test("no description names a field or event the catalog (or a file's definition) no longer has", () => {
  assert.deepEqual(staleDescriptions(), []);
  assert.deepEqual(staleFileDescriptions(), []);
});

const withCatalog = (catalog: DocumentedCatalog["catalog"]): string =>
  withGeneratedSections(doc, generatedSections([{ ...lab, catalog }, ...others]));

test("planted: a field added to an event's data changes the generated doc, and the new field is in it", () => {
  const drifted = withCatalog({
    ...LAB_AUDIT_EVENTS,
    run_finished: Type.Object(
      { stop_reason: Type.String(), verified_success: Type.Boolean(), planted_field: Type.Integer() },
      { additionalProperties: false },
    ),
  });
  assert.notEqual(drifted, doc);
  assert.match(drifted, /\| `planted_field` \| integer \| yes \|/);
});

test("planted: an event removed from the catalog changes the generated doc, and its entry is gone", () => {
  const { process_watch: _removed, ...rest } = LAB_AUDIT_EVENTS;
  const drifted = withCatalog(rest);
  assert.notEqual(drifted, doc);
  assert.equal(drifted.includes("#### `process_watch`"), false);
});

test("planted: a description of a field that is not there, or of an event that is not there, is stale", () => {
  const planted: DocumentedCatalog = {
    ...lab,
    descriptions: {
      ...lab.descriptions,
      stop: { meaning: "x", fields: { stop_reason: "kept", stopped_by: "planted" } },
      vanished_event: { meaning: "planted" },
    },
  };
  assert.deepEqual(staleDescriptions([planted]), ["stop.stopped_by", "vanished_event (no such event)"]);
});

test("planted: a file's description of a field its definition does not have is stale", () => {
  const [manifest] = DOCUMENTED_FILES;
  assert.ok(manifest !== undefined);
  const planted = { ...manifest, descriptions: { ...manifest.descriptions, "budgets.max_turns": "planted" } };
  assert.deepEqual(staleFileDescriptions([planted]), ["manifest.json: budgets.max_turns"]);
});

test("a doc without a section's markers is refused, not written half", () => {
  const without = doc.replace(/<!-- END GENERATED events -->/, "");
  assert.throws(() => withGeneratedSections(without, generatedSections()), /lacks the markers of section "events"/);
});

test("README.md's docs list links the evidence format", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  assert.match(readme, /\[evidence format\]\(docs\/evidence-format\.md\)/);
});
