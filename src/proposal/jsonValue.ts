// The value a strict JSON parse produces. Deliberately not plain JS objects:
// - objects are Maps, so a model-supplied key ("__proto__", "constructor", ...) is only
//   ever data and never a property lookup on an object with a prototype;
// - numbers keep their exact token text, so the contract can tell `1` from `1.0`, `1e0`
//   or a 400-digit integer without a lossy conversion to a double.
export type JsonValue =
  | { readonly kind: "null" }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "number"; readonly token: string }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "array"; readonly items: readonly JsonValue[] }
  | { readonly kind: "object"; readonly members: ReadonlyMap<string, JsonValue> };

export type JsonObject = Extract<JsonValue, { kind: "object" }>;

/** A short human name of a value's JSON type, for error messages. */
export function jsonTypeName(value: JsonValue): string {
  switch (value.kind) {
    case "null":
      return "null";
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "array":
      return "an array";
    case "object":
      return "an object";
  }
}
