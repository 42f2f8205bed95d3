// Writing the room's own JSON records (manifest, ledger) atomically: a temporary name in
// the same directory, flushed, then renamed over the record, so a reader never sees half a file.
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.writing`);
  await rm(temporary, { force: true });
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

/** A plain JSON object (not null, not an array) or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
