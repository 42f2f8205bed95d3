// The source diff of every committed edit. The audit says which bytes (by sha256) an edit went
// from and to; the bytes themselves are found among backups/*.py, the final workspace file and
// the initial file constant, matched by hash, so a diff is shown only for bytes that provably
// are the ones the audit names.
import { listDirectoryUnder } from "../core/safeRead.ts";
import { diffLines } from "../bench/results/unifiedDiff.ts";
import { INITIAL_TOY_MATH_PY } from "../constants/labConstants.ts";
import {
  numberField,
  objectField,
  READ_LIMITS,
  readBoundedText,
  stringField,
  type JsonObject,
} from "./evidenceFiles.ts";
import type { EditView } from "./reportDocument.ts";
import { sha256Hex } from "../core/digest.ts";

interface KnownContent {
  readonly text: string;
  readonly file: string;
}

/** Every toy_math.py version this run directory preserves, by sha256. */
export function collectSourceVersions(runDirectory: string): Map<string, KnownContent> {
  const known = new Map<string, KnownContent>();
  const add = (text: string, file: string): void => {
    const hash = sha256Hex(text);
    if (!known.has(hash)) known.set(hash, { text, file });
  };
  const listed = listDirectoryUnder(runDirectory, "backups");
  const backups = listed.ok ? listed.value.filter((name) => /^toy_math\.v\d+\.py$/.test(name)) : [];
  for (const name of backups) {
    const text = readBoundedText(runDirectory, `backups/${name}`, READ_LIMITS.sourceFileBytes);
    if (text.ok) add(text.value, `backups/${name}`);
  }
  const current = readBoundedText(runDirectory, "workspace/toy_math.py", READ_LIMITS.sourceFileBytes);
  if (current.ok) add(current.value, "workspace/toy_math.py");
  add(INITIAL_TOY_MATH_PY, "initial toy_math.py (spec constant)");
  return known;
}

export function buildEditViews(
  records: readonly JsonObject[],
  versions: ReadonlyMap<string, KnownContent>,
): EditView[] {
  const intents = new Map<string, JsonObject>();
  for (const record of records) {
    const data = objectField(record, "data");
    if (record.type === "edit_intent" && data !== null) {
      const id = stringField(data, "intent_id");
      if (id !== null) intents.set(id, data);
    }
  }
  const edits: EditView[] = [];
  for (const record of records) {
    const data = objectField(record, "data");
    if (data === null) continue;
    const committed = record.type === "edit_committed";
    const reconciledCommitted = record.type === "edit_reconciled" && data.outcome === "committed";
    if (!committed && !reconciledCommitted) continue;
    const intent = intents.get(stringField(data, "intent_id") ?? "") ?? null;
    const beforeSha256 = stringField(intent, "before_sha256");
    const afterSha256 = stringField(data, "sha256") ?? stringField(intent, "after_sha256");
    const before = beforeSha256 === null ? undefined : versions.get(beforeSha256);
    const after = afterSha256 === null ? undefined : versions.get(afterSha256);
    const missing = [
      before === undefined ? `before (sha256 ${beforeSha256 ?? "unknown"})` : null,
      after === undefined ? `after (sha256 ${afterSha256 ?? "unknown"})` : null,
    ].filter((item): item is string => item !== null);
    edits.push({
      proposal: typeof record.proposal === "number" ? record.proposal : null,
      eventId: numberField(record, "event_id"),
      how: committed ? "committed" : "reconciled",
      function: stringField(data, "function") ?? stringField(intent, "function"),
      oldVersion: numberField(data, "old_version") ?? numberField(intent, "old_version"),
      version: numberField(data, "version") ?? numberField(intent, "new_version"),
      beforeSha256,
      sha256: afterSha256,
      expressionsBefore: objectField(intent, "expressions_before"),
      expressionsAfter: objectField(data, "expressions") ?? objectField(intent, "expressions_after"),
      diff: before !== undefined && after !== undefined ? diffLines(before.text, after.text) : null,
      diffNote:
        missing.length === 0
          ? null
          : `file bytes not preserved in this run directory: ${missing.join(", ")}; the expressions below come from the audit`,
      beforeFile: before?.file ?? null,
      afterFile: after?.file ?? null,
    });
  }
  return edits;
}
