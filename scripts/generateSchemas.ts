// npm run schemas: writes schemas/*.schema.json from the TypeBox definitions the writers and readers use
// (never kept by hand). test/docs/schemasGenerated.test.ts fails when a committed file differs.
// Usage: node --import tsx scripts/generateSchemas.ts [--check]
import { readFileSync, writeFileSync } from "node:fs";
import { BENCH_SCHEMA_FILES } from "./schemas/benchSchemas.ts";
import { LAB_SCHEMA_FILES } from "./schemas/labSchemas.ts";
import { schemaFileText, type SchemaFile } from "./schemas/schemaFile.ts";

export const SCHEMA_FILES: readonly SchemaFile[] = [...LAB_SCHEMA_FILES, ...BENCH_SCHEMA_FILES];
const directory = new URL("../schemas/", import.meta.url);

/** The committed files that differ from what the definitions generate. */
export function staleSchemaFiles(): string[] {
  return SCHEMA_FILES.filter((file) => {
    let committed: string;
    try {
      committed = readFileSync(new URL(file.name, directory), "utf8");
    } catch {
      return true;
    }
    return committed !== schemaFileText(file);
  }).map((file) => file.name);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "\0")) {
  if (process.argv.includes("--check")) {
    const stale = staleSchemaFiles();
    if (stale.length > 0) {
      process.stderr.write(`tca schemas: schemas_stale: ${stale.join(", ")} (run npm run schemas)\n`);
      process.exit(1);
    }
  } else {
    for (const file of SCHEMA_FILES) writeFileSync(new URL(file.name, directory), schemaFileText(file));
    process.stdout.write(`tca schemas: ${SCHEMA_FILES.length} files written to schemas/\n`);
  }
}
