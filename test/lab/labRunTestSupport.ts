// Shared helpers for the Lab run tests: fresh temp roots and reading a run's evidence back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

export interface AuditLine {
  readonly schema: string;
  readonly run_id: string;
  readonly event_id: number;
  readonly t_ms: number;
  readonly source: string;
  readonly proposal: number | null;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** A fresh directory (outside any repository) removed after the test file. */
export function freshRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), `tca-${prefix}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

export function readAudit(runDirectory: string): AuditLine[] {
  return readFileSync(join(runDirectory, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as AuditLine);
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}
