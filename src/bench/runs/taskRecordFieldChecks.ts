// The shape checks of a task record's statements and fix size (../results/claimStatements.ts, fixSize.ts),
// for parseTaskResult: a record whose fields are present but malformed is not a task result.
import { isRecord } from "../../core/isRecord.ts";
import { STATEMENT_KINDS, type StatementRecord } from "../results/claimStatements.ts";
import { FIX_SIZE_KINDS, type FixSize } from "../results/fixSize.ts";

export function isStatementRecord(v: unknown): v is StatementRecord {
  return (
    isRecord(v) &&
    Object.keys(v).length === STATEMENT_KINDS.length &&
    STATEMENT_KINDS.every((kind) => typeof v[kind] === "boolean")
  );
}

export function isFixSize(v: unknown): v is FixSize {
  return (
    isRecord(v) &&
    typeof v.linesChanged === "number" &&
    Number.isInteger(v.linesChanged) &&
    v.linesChanged >= 0 &&
    FIX_SIZE_KINDS.includes(v.kind as never)
  );
}
