// Runs test/expr/cpython_oracle.py once for a whole batch (one subprocess per test file).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface OracleRequest {
  readonly id: number;
  readonly function: "clamp" | "total";
  readonly text: string;
  /** Only for expressions the test generator built: CPython evaluates them. */
  readonly inputs?: readonly (readonly number[])[];
}

export interface OracleAnswer {
  readonly id: number;
  readonly parses: boolean;
  readonly subset: boolean;
  readonly reason: string;
  readonly nodes: number | null;
  readonly depth: number | null;
  readonly values: readonly (number | string)[] | null;
}

export interface SourceRequest {
  readonly id: number;
  readonly source: string;
  /** Our extracted return-expression strings, when we accepted the source. */
  readonly expressions?: { readonly clamp: string; readonly total: string };
}

export interface SourceAnswer {
  readonly id: number;
  readonly parses: boolean;
  readonly shape: boolean;
  readonly same_expressions: boolean;
}

const ORACLE_SCRIPT = fileURLToPath(new URL("./cpython_oracle.py", import.meta.url));

export function askCPythonAboutSources(requests: readonly SourceRequest[]): Map<number, SourceAnswer> {
  return runOracle(requests) as Map<number, SourceAnswer>;
}

export function askCPython(requests: readonly OracleRequest[]): Map<number, OracleAnswer> {
  return runOracle(requests) as Map<number, OracleAnswer>;
}

function runOracle(requests: readonly (OracleRequest | SourceRequest)[]): Map<number, OracleAnswer | SourceAnswer> {
  const input = requests.map((request) => JSON.stringify(request)).join("\n") + "\n";
  const run = spawnSync("python3", [ORACLE_SCRIPT], { input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`CPython oracle failed: ${run.stderr}`);
  const answers = new Map<number, OracleAnswer | SourceAnswer>();
  for (const line of run.stdout.split("\n")) {
    if (line.trim() === "") continue;
    const answer = JSON.parse(line) as OracleAnswer | SourceAnswer;
    answers.set(answer.id, answer);
  }
  return answers;
}
