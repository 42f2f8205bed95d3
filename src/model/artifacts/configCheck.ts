// Config checks at verification (Part 8): no auto_map, no custom code, no request for remote
// execution, anywhere in the checkpoint's JSON configs; and config.json must equal the pinned
// architecture config when the pin set fixes one. The blob id already binds the exact bytes;
// this check states the policy in terms a reader can audit without a hash table.
import { err, ok, type Result } from "../../core/result.ts";
import type { PinSet } from "../pins.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";

/** Keys through which Transformers would fetch or run code that ships with a checkpoint. */
const CODE_REQUEST_KEYS = new Set(["auto_map", "trust_remote_code", "custom_pipelines", "custom_generate"]);

/** The JSON config files whose keys steer loading (tokenizer.json and vocab.json are data tables). */
export function isLoaderConfigName(name: string): boolean {
  return name.endsWith("config.json");
}

export function checkLoaderConfig(name: string, bytes: Buffer, pins: PinSet): Result<true, ArtifactErrorCode> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("config_rejected", `${name} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return err("config_rejected", `${name} is not a JSON object`);
  }
  const requested = findCodeRequest(parsed);
  if (requested !== null) {
    return err("config_rejected", `${name} requests custom or remote code through "${requested}"`);
  }
  if (name === "config.json" && pins.expectedConfigJson !== undefined) {
    const expected: unknown = JSON.parse(pins.expectedConfigJson);
    if (!jsonEqual(parsed, expected)) {
      return err("config_mismatch", "config.json differs from the pinned architecture configuration");
    }
  }
  return ok(true);
}

/** Iterative walk (configs are small, but no recursion on data read from disk). */
function findCodeRequest(root: unknown): string | null {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      stack.push(...(value as unknown[]));
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (CODE_REQUEST_KEYS.has(key)) return key;
        stack.push(child);
      }
    }
  }
  return null;
}

/** Structural JSON equality: same keys and values, key order ignored, numbers by value. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]));
  }
  if (typeof left === "object" && left !== null && typeof right === "object" && right !== null) {
    const leftRecord = left as Record<string, unknown>;
    const rightRecord = right as Record<string, unknown>;
    const leftKeys = Object.keys(leftRecord).sort();
    const rightKeys = Object.keys(rightRecord).sort();
    if (leftKeys.length !== rightKeys.length || leftKeys.some((key, index) => key !== rightKeys[index])) return false;
    return leftKeys.every((key) => jsonEqual(leftRecord[key], rightRecord[key]));
  }
  return left === right;
}
