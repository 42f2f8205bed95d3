// One committed schema file: its name under schemas/ and the TypeBox schema it is generated from.
import type { TSchema } from "typebox";

export interface SchemaFile {
  /** File name under schemas/, e.g. "audit-record.schema.json". */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly schema: TSchema;
}

/** The bytes of a committed schema file: draft-07 header, then the generated schema, two-space JSON. */
export function schemaFileText(file: SchemaFile): string {
  const document = {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://tiny-coding-agent.invalid/schemas/${file.name}`,
    title: file.title,
    description: file.description,
    ...(JSON.parse(JSON.stringify(file.schema)) as Record<string, unknown>),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
