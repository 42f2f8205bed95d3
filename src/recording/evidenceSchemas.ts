// The JSON Schemas of the Lab run's two summary files (schemas/final.schema.json and
// schemas/manifest.schema.json, generated from src/recording/labRunFiles.ts by npm run schemas),
// compiled once and used by the verdict to validate final.json and manifest.json. Audit records are
// not validated here: the one audit reader (auditLog.ts) checks each against its event's definition.
// Ajv is a well-kept validator; the schemas it compiles are this repository's own files, never model
// or program output, so its generated validation code is derived only from trusted text.
import { readFileSync } from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";
import { compileWithAjv, precompiledOr, validatorKey } from "./precompiledValidators.ts";

/** The schemas the verdict validates with, each schemas/<name>.schema.json (a generated file). */
export const EVIDENCE_SCHEMA_NAMES = ["final", "manifest"] as const;
export type EvidenceSchemaName = (typeof EVIDENCE_SCHEMA_NAMES)[number];

const SCHEMA_DIRECTORY = new URL("../../schemas/", import.meta.url);

/**
 * The schemas are our own generated files, checked against the JSON Schema meta-schema by the
 * tests (test/lab/labRunTestSupport.ts compiles them with Ajv's defaults), so the run skips that
 * meta-validation and the generated code's optimising pass: half of the compile, same verdicts.
 * The build compiles them with these options ahead of time (precompiledValidators.ts).
 */
export const EVIDENCE_FILE_AJV_OPTIONS = {
  allErrors: false,
  strict: false,
  validateFormats: false,
  validateSchema: false,
  code: { optimize: false },
} as const;

/** An evidence file's schema, as committed in schemas/. */
export function evidenceFileSchema(name: EvidenceSchemaName): object {
  return JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIRECTORY), "utf8")) as object;
}

const compiled = new Map<EvidenceSchemaName, ValidateFunction>();

function validator(name: EvidenceSchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    const schema = evidenceFileSchema(name);
    validate = precompiledOr(validatorKey("file", name), schema, () =>
      compileWithAjv(EVIDENCE_FILE_AJV_OPTIONS, schema),
    );
    compiled.set(name, validate);
  }
  return validate;
}

function describe(errors: readonly ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (first === undefined) return "does not match its schema";
  // Instance paths and schema keywords only: no values from the file are echoed.
  return `${first.instancePath === "" ? "(top level)" : first.instancePath} ${first.message ?? "is invalid"}`.slice(
    0,
    200,
  );
}

/** Null when the value matches the schema, else a short description of the first mismatch. */
export function schemaProblem(name: EvidenceSchemaName, value: unknown): string | null {
  const validate = validator(name);
  return validate(value) ? null : describe(validate.errors);
}
