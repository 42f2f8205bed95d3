// The evidence validators, compiled once at build time instead of at every start (#36): Ajv's
// compile of the audit catalog and the three evidence-file schemas was most of a Lab command's own
// CPU time. scripts/compile.mjs generates lib/recording/precompiledValidatorTable.js from the very
// schemas this build compiled (Ajv's standalone code, the same options the readers use, one
// validator per event type and per file schema), each with the digest of the schema it was made
// from. In src/ (run through tsx, or before a build) this module has none, so every validator is
// compiled at first use, exactly as before. A validator is used only while the digest of the
// schema the reader holds now is the one it was made from: a schema changed without a rebuild is
// compiled again, never checked by an older validator. Same checks, same errors, only earlier.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Ajv, Options, ValidateFunction } from "ajv";

import { PRECOMPILED_VALIDATORS } from "./precompiledValidatorTable.ts";

/** The key of an event type's validator, or of an evidence file's schema. */
export function validatorKey(kind: "event", format: string, type: string): string;
export function validatorKey(kind: "file", name: string): string;
export function validatorKey(kind: "event" | "file", first: string, second?: string): string {
  return kind === "event" ? `event:${first}:${second ?? ""}` : `file:${first}`;
}

/** What a validator was made from: the schema's JSON text, hashed (the build and the reader use this one function). */
export function schemaDigest(schema: unknown): string {
  return createHash("sha256").update(JSON.stringify(schema)).digest("hex");
}

/** The build's validator for this schema when it was made from these very bytes, else `compile()`'s. */
export function precompiledOr(key: string, schema: unknown, compile: () => ValidateFunction): ValidateFunction {
  const found =
    PRECOMPILED_VALIDATORS !== null && Object.hasOwn(PRECOMPILED_VALIDATORS, key)
      ? PRECOMPILED_VALIDATORS[key]
      : undefined;
  return found !== undefined && found.schemaSha256 === schemaDigest(schema) ? found.load() : compile();
}

// Ajv itself is loaded only when something is compiled at run time (src/, or a schema changed
// since the build): a command whose validators are all precompiled never loads it.
const instances = new Map<Options, Ajv>();

/** Compiles with one Ajv per options object (the readers' own constants), loaded on first use. */
export function compileWithAjv(options: Options, schema: object): ValidateFunction {
  let ajv = instances.get(options);
  if (ajv === undefined) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    ajv = new AjvClass(options);
    instances.set(options, ajv);
  }
  return ajv.compile(schema);
}
