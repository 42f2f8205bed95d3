// The closed, discriminated action contract (Part 5): exact key sets per action, exact
// logical file keys, exact function names, expression-string bounds, integer versions 0-6.
// Model-supplied text is only ever compared by equality against trusted literals and read
// from a Map; it is never used as a property name, path, module name or command.
import {
  FUNCTION_NAMES,
  MANAGED_FILES,
  PROPOSAL_LIMITS,
  type FunctionName,
  type ManagedFileName,
} from "../constants/labConstants.ts";
import { checkExpressionString } from "../expr/expressionString.ts";
import { ACTION_NAMES, actionKeys, type Action, type ActionName } from "./action.ts";
import type { ContractErrorCode } from "./errorCodes.ts";
import { jsonTypeName, type JsonValue } from "./jsonValue.ts";

export type ContractVerdict =
  | { readonly ok: true; readonly action: Action }
  | {
      readonly ok: false;
      readonly error: ContractErrorCode;
      readonly message: string;
      readonly attemptedAction: ActionName | null;
    };

type Members = ReadonlyMap<string, JsonValue>;
type Field<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ContractErrorCode; readonly message: string };

/** A JSON integer token per RFC 8259 (no fraction, no exponent); `-0` is the integer 0. */
const INTEGER_TOKEN = /^-?(?:0|[1-9][0-9]*)$/;

function fail(error: ContractErrorCode, message: string): Field<never> {
  return { ok: false, error, message };
}

function quoteList(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

function stringField(members: Members, key: string): Field<string> {
  const value = members.get(key);
  // Presence is checked before any field; this branch only keeps the function total.
  if (value === undefined) return fail("missing_key", `missing key "${key}"`);
  if (value.kind !== "string") return fail("wrong_type", `"${key}" must be a string, got ${jsonTypeName(value)}`);
  return { ok: true, value: value.value };
}

function fileField(members: Members): Field<ManagedFileName> {
  const text = stringField(members, "file");
  if (!text.ok) return text;
  const file = MANAGED_FILES.find((name) => name === text.value);
  if (file === undefined) {
    return fail("unknown_file", `"file" must be exactly one of ${quoteList(MANAGED_FILES)} (logical keys, not paths)`);
  }
  return { ok: true, value: file };
}

function functionField(members: Members): Field<FunctionName> {
  const text = stringField(members, "function");
  if (!text.ok) return text;
  const name = FUNCTION_NAMES.find((candidate) => candidate === text.value);
  if (name === undefined)
    return fail("unknown_function", `"function" must be exactly one of ${quoteList(FUNCTION_NAMES)}`);
  return { ok: true, value: name };
}

function expressionField(members: Members, key: "old" | "new"): Field<string> {
  const text = stringField(members, key);
  if (!text.ok) return text;
  const bounds = checkExpressionString(text.value);
  if (!bounds.ok) return fail(bounds.error, `"${key}": ${bounds.message}`);
  return text;
}

function versionField(members: Members): Field<number> {
  const value = members.get("version");
  if (value === undefined) return fail("missing_key", `missing key "version"`);
  if (value.kind !== "number") return fail("wrong_type", `"version" must be an integer, got ${jsonTypeName(value)}`);
  if (!INTEGER_TOKEN.test(value.token)) {
    return fail("not_an_integer", `"version" must be an exact integer token such as 0 or 3 (no fraction or exponent)`);
  }
  const negative = value.token.startsWith("-");
  const digits = negative ? value.token.slice(1) : value.token;
  const range = `"version" must be an integer from ${PROPOSAL_LIMITS.versionMin} to ${PROPOSAL_LIMITS.versionMax}`;
  // Compared as text first, so a 400-digit token never becomes a rounded double.
  if ((negative && digits !== "0") || digits.length > 7) return fail("version_out_of_range", range);
  const version = Number(digits); // from the unsigned digits: `-0` becomes 0, never -0
  if (version < PROPOSAL_LIMITS.versionMin || version > PROPOSAL_LIMITS.versionMax)
    return fail("version_out_of_range", range);
  return { ok: true, value: version };
}

function buildAction(name: ActionName, members: Members): Field<Action> {
  switch (name) {
    case "read": {
      const file = fileField(members);
      return file.ok ? { ok: true, value: Object.freeze({ action: "read", file: file.value }) } : file;
    }
    case "replace": {
      const fn = functionField(members);
      if (!fn.ok) return fn;
      const oldText = expressionField(members, "old");
      if (!oldText.ok) return oldText;
      const newText = expressionField(members, "new");
      if (!newText.ok) return newText;
      const version = versionField(members);
      if (!version.ok) return version;
      return {
        ok: true,
        value: Object.freeze({
          action: "replace",
          function: fn.value,
          old: oldText.value,
          new: newText.value,
          version: version.value,
        }),
      };
    }
    case "test":
      return { ok: true, value: Object.freeze({ action: "test" }) };
    case "finish": {
      const version = versionField(members);
      return version.ok ? { ok: true, value: Object.freeze({ action: "finish", version: version.value }) } : version;
    }
  }
}

/**
 * Checks a parsed JSON value against the closed contract. Order of checks (so that each
 * proposal gets one deterministic code): object; "action" present, a string, one of the four;
 * no key outside the branch's key set; every key of the set present; then each field in
 * the branch's key order (type first, then value).
 */
export function checkActionContract(value: JsonValue): ContractVerdict {
  if (value.kind !== "object") {
    return {
      ok: false,
      error: "not_an_object",
      message: `a proposal is one JSON object, got ${jsonTypeName(value)}`,
      attemptedAction: null,
    };
  }
  const members = value.members;
  const actionValue = members.get("action");
  const reject = (error: ContractErrorCode, message: string, attemptedAction: ActionName | null): ContractVerdict => ({
    ok: false,
    error,
    message,
    attemptedAction,
  });
  if (actionValue === undefined) return reject("missing_key", `missing key "action"`, null);
  if (actionValue.kind !== "string")
    return reject("wrong_type", `"action" must be a string, got ${jsonTypeName(actionValue)}`, null);
  const name = ACTION_NAMES.find((candidate) => candidate === actionValue.value);
  if (name === undefined)
    return reject("unknown_action", `"action" must be exactly one of ${quoteList(ACTION_NAMES)}`, null);

  const keys = actionKeys(name);
  for (const key of members.keys()) {
    if (!keys.includes(key)) {
      return reject("extra_key", `unlisted key for "${name}"; it takes exactly the keys ${quoteList(keys)}`, name);
    }
  }
  for (const key of keys) {
    if (!members.has(key))
      return reject("missing_key", `missing key "${key}" for "${name}"; it takes exactly ${quoteList(keys)}`, name);
  }
  const action = buildAction(name, members);
  return action.ok ? { ok: true, action: action.value } : reject(action.error, action.message, name);
}
