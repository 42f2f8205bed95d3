// The bench commands' shared option parsing and error printing (bench.ts, benchRun.ts).
import { printCommandError } from "../commandError.ts";
import { localizedHints } from "../invocation.ts";
import type { SetExitCode } from "./index.ts";

export function positiveInt(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return /^[1-9]\d{0,5}$/.test(text) ? Number(text) : undefined;
}

export function fail(setExitCode: SetExitCode, code: string, message: string, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify({ ok: false, error: code, message }) + "\n");
  // A hint naming another tca command is spelled to work from the user's folder (invocation.ts).
  else printCommandError(code, localizedHints(message));
  setExitCode(1);
}

export function programList(text: string | undefined): string[] | undefined {
  return text === undefined
    ? undefined
    : text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
}

export interface VerifyFlags {
  dataset?: string;
  json?: boolean;
  jobs?: string;
  includeSlow?: boolean;
  testTimeout?: string;
  programs?: string;
}
