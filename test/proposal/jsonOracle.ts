// Test helpers: turn a strict-parser JsonValue into the plain value JSON.parse would build
// (so the two can be compared with deepStrictEqual), and measure nesting depth the way the
// parser defines it (the top-level container is depth 1; scalars add nothing).
import type { JsonValue } from "../../src/proposal/index.ts";

export function toPlain(value: JsonValue): unknown {
  switch (value.kind) {
    case "null":
      return null;
    case "boolean":
      return value.value;
    case "number":
      return Number(value.token);
    case "string":
      return value.value;
    case "array":
      return value.items.map(toPlain);
    case "object": {
      const result: Record<string, unknown> = {};
      for (const [key, member] of value.members) {
        // defineProperty, like JSON.parse's CreateDataProperty: "__proto__" becomes an own key.
        Object.defineProperty(result, key, {
          value: toPlain(member),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
  }
}

export function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === "object") return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (next < 0xdc00 || next > 0xdfff) return true;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return true;
    }
  }
  return false;
}
