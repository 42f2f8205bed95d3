// Writes one evidence JSON file exclusively (never over an existing one), owner-only, durable.
import { closeSync, fsyncSync, openSync, writeSync, constants } from "node:fs";

export function writeJsonExclusive(path: string, value: unknown): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
