// Markdown field tables from TypeBox (plain JSON Schema) objects, for docs/evidence-format.md: one row per
// field (nested objects and arrays of objects as dotted paths), with its type in words, whether it is
// required, and its description (the schema's own `description`, else the caller's map). The same
// schema objects the writers are typed by and the readers validate with, so the tables cannot drift.
import { isRecord } from "../../src/core/isRecord.ts";

type Schema = Readonly<Record<string, unknown>>;

/** A shared type printed once under its own heading and named (with a link) wherever it occurs. */
export interface NamedType {
  readonly name: string;
  readonly anchor: string;
  readonly schema: unknown;
  /** What the type is, printed under its heading. */
  readonly meaning: string;
  /** Field path → meaning, as for an event. */
  readonly descriptions: Readonly<Record<string, string>>;
}

export interface TableContext {
  readonly named: readonly NamedType[];
  /** Field path (`initial_state.version`, `cases[].set`) → description, where the schema has none. */
  readonly descriptions: Readonly<Record<string, string>>;
}

const asSchema = (value: unknown): Schema => (isRecord(value) ? value : {});
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function namedOf(schema: Schema, context: TableContext): NamedType | undefined {
  return context.named.find((n) => same(n.schema, schema));
}

/** The branches of a union of objects (a data object with exclusive shapes), else null. */
export function objectBranches(value: unknown): Schema[] | null {
  const schema = asSchema(value);
  const branches = schema.anyOf;
  if (!Array.isArray(branches)) return null;
  const objects = branches.map(asSchema);
  return objects.every((b) => b.type === "object" && isRecord(b.properties)) ? objects : null;
}

function bounds(schema: Schema): string {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return ` ${min}..${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

function inlineObject(schema: Schema, context: TableContext): string {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields = Object.entries(asSchema(schema.properties)).map(
    ([key, value]) => `${key}${required.includes(key) ? "" : "?"}: ${typeText(value, context)}`,
  );
  return `{ ${fields.join(", ")} }`;
}

/** A field's type in words: `integer ≥ 0`, `"a" | "b"`, `array of string`, `sha256`, a named type's link. */
export function typeText(value: unknown, context: TableContext): string {
  const schema = asSchema(value);
  const named = namedOf(schema, context);
  if (named !== undefined) return `[${named.name}](#${named.anchor})`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.map(asSchema);
    return branches
      .map((b) => (b.type === "object" && isRecord(b.properties) ? inlineObject(b, context) : typeText(b, context)))
      .join(" | ");
  }
  switch (schema.type) {
    case "string":
      if (schema.pattern === "^[0-9a-f]{64}$") return "sha256 (64 lowercase hex digits)";
      if (schema.format === "date-time") return "string (ISO 8601 date-time)";
      if (typeof schema.pattern === "string") return `string matching \`${schema.pattern}\``;
      return typeof schema.minLength === "number" && schema.minLength > 0 ? "non-empty string" : "string";
    case "integer":
    case "number":
      return `${schema.type}${bounds(schema)}`;
    case "boolean":
    case "null":
      return schema.type;
    case "array": {
      const size =
        schema.minItems !== undefined && schema.minItems === schema.maxItems
          ? ` (exactly ${String(schema.minItems)})`
          : schema.minItems !== undefined || schema.maxItems !== undefined
            ? ` (${schema.minItems === undefined ? "" : `at least ${String(schema.minItems)}`}${
                schema.minItems !== undefined && schema.maxItems !== undefined ? ", " : ""
              }${schema.maxItems === undefined ? "" : `at most ${String(schema.maxItems)}`})`
            : "";
      const items = typeText(schema.items, context);
      return `array of ${Array.isArray(asSchema(schema.items).anyOf) ? `(${items})` : items}${size}`;
    }
    case "object": {
      if (isRecord(schema.patternProperties)) {
        const [valueSchema] = Object.values(schema.patternProperties);
        return `object: any key → ${typeText(valueSchema, context)}`;
      }
      if (isRecord(schema.properties)) return schema.additionalProperties === false ? "object" : "object (open)";
      return "object (any keys)";
    }
    default:
      return "any JSON value";
  }
}

interface Row {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
}

/** The object of an `object | null` field (its fields get rows of their own), else null. */
function nullableObject(field: Schema): Schema | null {
  if (!Array.isArray(field.anyOf) || field.anyOf.length !== 2) return null;
  const branches = field.anyOf.map(asSchema);
  const object = branches.find((b) => b.type === "object" && isRecord(b.properties));
  return object !== undefined && branches.some((b) => b.type === "null") ? object : null;
}

function rows(schema: Schema, prefix: string, context: TableContext): Row[] {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Row[] = [];
  for (const [key, value] of Object.entries(asSchema(schema.properties))) {
    const field = asSchema(value);
    const path = `${prefix}${key}`;
    const description = typeof field.description === "string" ? field.description : (context.descriptions[path] ?? "");
    const orNull = namedOf(field, context) === undefined ? nullableObject(field) : null;
    const type =
      orNull === null ? typeText(field, context) : `${typeText({ ...orNull, anyOf: undefined }, context)} | null`;
    out.push({ path, type, required: required.includes(key), description });
    if (namedOf(field, context) !== undefined) continue;
    if (orNull !== null) out.push(...rows(orNull, `${path}.`, context));
    if (field.type === "object" && isRecord(field.properties)) out.push(...rows(field, `${path}.`, context));
    const items = asSchema(field.items);
    if (field.type === "array" && items.type === "object" && isRecord(items.properties))
      out.push(...rows(items, `${path}[].`, context));
  }
  return out;
}

/** Every field path a table of this object schema shows (for checking a description map against it). */
export function fieldPaths(schema: unknown, context: TableContext): string[] {
  const branches = objectBranches(schema) ?? [asSchema(schema)];
  return [...new Set(branches.flatMap((b) => rows(b, "", context).map((r) => r.path)))];
}

/** The markdown table of an object schema's fields (no table for an object without fields). */
export function fieldTable(schema: unknown, context: TableContext): string {
  const found = rows(asSchema(schema), "", context);
  if (found.length === 0) return "No fields: `{}`.\n";
  const lines = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"];
  for (const row of found)
    lines.push(
      `| \`${row.path}\` | ${cell(row.type)} | ${row.required ? "yes" : "no"} | ${cell(row.description || "—")} |`,
    );
  return `${lines.join("\n")}\n`;
}

/** An object schema's table, or for a union of objects one table per shape, each named by its fixed fields. */
export function shapesTable(schema: unknown, context: TableContext): string {
  const branches = objectBranches(schema);
  if (branches === null) return fieldTable(schema, context);
  return branches
    .map((branch, i) => {
      const fixed = Object.entries(asSchema(branch.properties))
        .filter(([, v]) => asSchema(v).const !== undefined)
        .map(([k, v]) => `\`${k}: ${JSON.stringify(asSchema(v).const)}\``);
      const title = `Shape ${i + 1} of ${branches.length}${fixed.length > 0 ? ` (${fixed.join(", ")})` : ""}:`;
      return `${title}\n\n${fieldTable(branch, context)}`;
    })
    .join("\n");
}
