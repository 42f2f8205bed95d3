// manifest.json and final.json against their one TypeBox definition (src/recording/labRunFiles.ts), the same
// the writer is typed by and schemas/*.schema.json are generated from: what an honest baseline run writes
// is valid, and a drifted file (an unknown field, a wrong type, a missing field, an extension without its
// declared change) is not, for the definition, for the committed schema and for the verdict that reads it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { LabFinalSchema, LabManifestSchema } from "../../src/recording/labRunFiles.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { freshRoot, readJson, validateFinal, validateManifest } from "./labRunTestSupport.ts";

const root = freshRoot("lab-run-files");
// Strict: a keyword TypeBox emitted that ajv does not know would fail here, not be ignored.
const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false });
const definition = { manifest: ajv.compile(LabManifestSchema), final: ajv.compile(LabFinalSchema) };
const committed = { manifest: validateManifest, final: validateFinal };

const baseline = await runLab({
  runDirectory: join(root, "baseline"),
  source: new ScriptedSource(BASELINE_PROPOSALS),
  kind: "scripted_baseline",
});
assert.ok(baseline.ok);
const dir = baseline.value.runDirectory;
const written = { manifest: readJson(join(dir, "manifest.json")), final: readJson(join(dir, "final.json")) };

type Name = keyof typeof written;
const clone = (name: Name): Record<string, unknown> => structuredClone(written[name]);
const errorsOf = (validate: ValidateFunction): string => JSON.stringify(validate.errors);

function assertValid(name: Name, value: unknown): void {
  assert.ok(definition[name](value), `${name} by its definition: ${errorsOf(definition[name])}`);
  assert.ok(committed[name](value), `${name} by schemas/${name}.schema.json: ${errorsOf(committed[name])}`);
}
function assertInvalid(name: Name, value: unknown, keyword: string): void {
  for (const validate of [definition[name], committed[name]]) {
    assert.equal(validate(value), false, `${name} drifted but valid`);
    assert.ok(
      validate.errors?.some((e) => e.keyword === keyword),
      `${name}: expected a ${keyword} error, got ${errorsOf(validate)}`,
    );
  }
}

test("what an honest baseline run writes is valid by the definition and by the committed schema", () => {
  assert.equal(written.final["verified_success"], true);
  assertValid("manifest", written.manifest);
  assertValid("final", written.final);
  assert.deepEqual(deriveRunVerdict(dir).problems, []);
});

test("a manifest.json with an unknown field, a wrong type or a missing field is invalid", () => {
  assertInvalid("manifest", { ...clone("manifest"), injected: true }, "additionalProperties");
  const labels = clone("manifest");
  (labels["labels"] as Record<string, unknown>)["scripted"] = "yes";
  assertInvalid("manifest", labels, "type");
  const budgets = clone("manifest");
  delete (budgets["budgets"] as Record<string, unknown>)["max_proposals"];
  assertInvalid("manifest", budgets, "required");
  const fixtures = clone("manifest");
  (fixtures["fixtures"] as Record<string, unknown>)["held_out_count"] = 7;
  assertInvalid("manifest", fixtures, "const");
});

test("a manifest.json of an extension trial must name its declared change", () => {
  const trial = {
    model_directory: "/models/m",
    synthetic: false,
    run_consent: "recorded",
    predictions_choice: "without_predictions",
    runtime_lock_file: "runtime-lock.json",
  };
  const withRole = (extra: Record<string, unknown>) => ({ ...clone("manifest"), model_trial: { ...trial, ...extra } });
  assertValid("manifest", withRole({ trial_role: "trial", declared_change: null }));
  assertValid("manifest", withRole({ trial_role: "extension", declared_change: "a larger context" }));
  assertInvalid("manifest", withRole({ trial_role: "extension", declared_change: null }), "type");
  assertInvalid("manifest", withRole({ trial_role: "extension", declared_change: "" }), "minLength");
});

test("a final.json with an unknown field, a wrong type or a missing field is invalid", () => {
  assertInvalid("final", { ...clone("final"), verified: true }, "additionalProperties");
  assertInvalid("final", { ...clone("final"), proposals_used: "6" }, "type");
  const evaluation = clone("final");
  delete (evaluation["final_evaluation"] as Record<string, unknown>)["cases"];
  assertInvalid("final", evaluation, "required");
  assertInvalid("final", { ...clone("final"), stop_reason: "finished" }, "enum");
  const elapsed = clone("final");
  (elapsed["elapsed_ms"] as Record<string, unknown>)["total"] = -1;
  assertInvalid("final", elapsed, "minimum");
});

test("the verdict reads a drifted manifest.json or final.json as EVIDENCE INVALID", () => {
  for (const [name, drifted] of [
    ["manifest", { ...clone("manifest"), injected: true }],
    ["final", { ...clone("final"), verified: true }],
  ] as const) {
    const copy = join(root, `drifted-${name}`);
    cpSync(dir, copy, { recursive: true });
    unlinkSync(join(copy, `${name}.json`));
    writeFileSync(join(copy, `${name}.json`), `${JSON.stringify(drifted, null, 2)}\n`, { mode: 0o600 });
    const verdict = deriveRunVerdict(copy);
    assert.equal(verdict.kind, "evidence_invalid");
    assert.match(JSON.stringify(verdict.problems), new RegExp(`${name}\\.json`));
  }
  // The copies were made from the honest run, which the verdict still reads as it was.
  assert.equal(readFileSync(join(dir, "final.json"), "utf8").includes('"verified"'), false);
});
