// Shared helpers for the workspace tests: disposable roots under the OS temp directory (outside
// any git repository), an in-memory journal, and a picture of everything an edit could change.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRun, type JournalRecord, type RunWorkspace } from "../../src/workspace/index.ts";
import type { EditJournal, WorkspaceHooks } from "../../src/workspace/index.ts";

export interface MemoryJournal extends EditJournal {
  readonly records: JournalRecord[];
}

export function memoryJournal(): MemoryJournal {
  const records: JournalRecord[] = [];
  return {
    records,
    append(type, payload) {
      records.push({ type, data: structuredClone(payload) });
    },
  };
}

/** A fresh real directory under the OS temp dir; removed by the returned cleanup. */
export function tempRoot(): { root: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tca-ws-")));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export async function freshRun(hooks?: WorkspaceHooks): Promise<{
  ws: RunWorkspace;
  journal: MemoryJournal;
  root: string;
  cleanup: () => void;
}> {
  const { root, cleanup } = tempRoot();
  const journal = memoryJournal();
  const created = await createRun({ runDirectory: path.join(root, "run"), journal, ...(hooks ? { hooks } : {}) });
  if (!created.ok) throw new Error(`createRun failed: ${created.error}`);
  return { ws: created.value, journal, root, cleanup };
}

/** Everything a denied action must leave unchanged. */
export interface DiskPicture {
  readonly source: string;
  readonly task: string;
  readonly workspaceEntries: readonly string[];
  readonly backups: Readonly<Record<string, string>>;
  readonly version: number;
}

export function picture(ws: RunWorkspace): DiskPicture {
  const backups: Record<string, string> = {};
  for (const name of readdirSync(ws.paths.backups).sort()) {
    backups[name] = readFileSync(path.join(ws.paths.backups, name), "utf8");
  }
  return {
    source: readFileSync(path.join(ws.paths.workspace, "toy_math.py"), "utf8"),
    task: readFileSync(path.join(ws.paths.workspace, "TASK.txt"), "utf8"),
    workspaceEntries: readdirSync(ws.paths.workspace).sort(),
    backups,
    version: ws.state().version,
  };
}

export const noGuard = { beforeCommit: () => null };
