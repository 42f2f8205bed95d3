// Shared helpers for the Lab run tests: fresh temp roots and reading a run's evidence back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { readAuditLog } from "../../src/recording/auditLog.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { LabAuditRecord } from "../../src/recording/labAuditEvents.ts";

/**
 * Audit lines read back through the one strict reader (so each matches the catalog), with `data`
 * viewed as plain JSON: the tests assert on fields by name, whatever the event.
 */
export type AuditLine = Omit<LabAuditRecord, "data"> & { readonly data: Readonly<Record<string, unknown>> };

/** A fresh directory (outside any repository) removed after the test file. */
export function freshRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), `tca-${prefix}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

export function readAudit(runDirectory: string): AuditLine[] {
  const read = readAuditLog(runDirectory);
  if (!read.ok) throw new Error(`audit.jsonl unreadable: ${formatProblem(read.problem)}`);
  if (read.log.tornTail) throw new Error("audit.jsonl ends in a torn line");
  return read.log.records.map((record): AuditLine => record);
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

import { Ajv } from "ajv";

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const schemaOf = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;
export const validateManifest = ajv.compile(schemaOf("manifest.schema.json"));
export const validateFinal = ajv.compile(schemaOf("final.schema.json"));
export const validateAudit = ajv.compile(schemaOf("audit-record.schema.json"));

/** Every evidence file of a run against its schema; returns the problems found (none: empty). */
export function schemaProblems(runDirectory: string): string[] {
  const problems: string[] = [];
  if (!validateManifest(readJson(join(runDirectory, "manifest.json"))))
    problems.push(`manifest: ${JSON.stringify(validateManifest.errors)}`);
  if (!validateFinal(readJson(join(runDirectory, "final.json"))))
    problems.push(`final: ${JSON.stringify(validateFinal.errors)}`);
  for (const record of readAudit(runDirectory)) {
    const valid: boolean = validateAudit(record);
    if (!valid) problems.push(`audit #${record.event_id}: ${JSON.stringify(validateAudit.errors)}`);
  }
  return problems;
}
