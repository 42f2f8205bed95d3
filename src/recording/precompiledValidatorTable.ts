// The table of build-time validators (precompiledValidators.ts). In src/ it is empty: the build
// (scripts/compile.mjs) writes lib/recording/precompiledValidatorTable.js in its place, generated
// from the schemas of that same build. It imports nothing of ours, so the generated module can
// stand in for it alone.
import type { ValidateFunction } from "ajv";

export interface PrecompiledValidator {
  readonly schemaSha256: string;
  /** Loads the generated file of the validator's catalog (one per catalog, and one for the evidence files), once. */
  readonly load: () => ValidateFunction;
}

/** The generated validators by key (validatorKey), or null where none are generated. */
export const PRECOMPILED_VALIDATORS: Readonly<Record<string, PrecompiledValidator>> | null = null;
