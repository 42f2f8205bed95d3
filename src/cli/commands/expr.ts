// tca expr (issue 2): `eval` evaluates one expression on one input list, `check` validates a
// whole toy_math.py. Each prints exactly one JSON object, its verdict on the expression, and
// exits 0 (ok) or 1 (error). A missing option is not a verdict but a usage error like any
// other command's: one line on stderr, exit 2, nothing on stdout (commander's requiredOption).
// Logic lives in src/expr/commandRequests.ts; this file only reads and prints.
import { resolve } from "node:path";
import type { Command } from "commander";
import { printCommandError } from "../commandError.ts";
import { inputFile } from "../pathArguments.ts";
import { EXPR_LIMITS } from "../../constants/labConstants.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { readRegularFile } from "../../core/safeRead.ts";
import { runCheckRequest, runEvalRequest } from "../../expr/commandRequests.ts";
import type { ExprErrorCode } from "../../expr/index.ts";
import type { SetExitCode } from "./index.ts";

/**
 * Reads at most one byte past the source limit, so a huge file is never loaded whole. The open
 * never blocks (a FIFO or device is refused at once, before any read) through src/core/safeRead.
 */
export function readBoundedFile(path: string): Result<Uint8Array, ExprErrorCode> {
  const read = readRegularFile(path, EXPR_LIMITS.sourceMaxBytes + 1, { prefixOnly: true });
  if (read.ok) return ok(new Uint8Array(read.value));
  // No host path or system error text in the answer.
  return err("file_unreadable", read.error === "not_regular_file" ? "not a regular file" : "the file cannot be read");
}

function print<T>(result: Result<T, ExprErrorCode>, render: (value: T) => object, setExitCode: SetExitCode): void {
  const body = result.ok
    ? { ok: true, ...render(result.value) }
    : { ok: false, error: result.error, message: result.message };
  process.stdout.write(JSON.stringify(body) + "\n");
  setExitCode(result.ok ? 0 : 1);
}

export function registerExprCommands(program: Command, setExitCode: SetExitCode): void {
  const expr = program.command("expr").description("the restricted integer-expression language (Part 4)");
  expr
    .command("eval")
    .description("evaluate one expression for clamp or total on one input list; prints one JSON object")
    .requiredOption("--function <name>", "clamp or total")
    .requiredOption("--expr <text>", 'the return expression, e.g. "lo if x < lo else x"')
    .requiredOption("--args <list>", "comma-separated integers in parameter order, e.g. -2,0,5")
    .action((options: { function: string; expr: string; args: string }) => {
      print(runEvalRequest(options.function, options.expr, options.args), (value) => ({ value }), setExitCode);
    });
  expr
    .command("check")
    .description("validate a whole toy_math.py source file; prints one JSON object")
    .argument("<file>", "path of the source file")
    .action((file: string) => {
      const bytes = readBoundedFile(file);
      // The JSON answer holds no host path; the error line on stderr says which file, for the person.
      if (!bytes.ok) {
        const named = inputFile("the file", resolve(file));
        printCommandError(bytes.error, named.ok ? `${named.value}: ${bytes.message}` : named.message);
      }
      const result = bytes.ok ? runCheckRequest(bytes.value) : bytes;
      print(result, (summary) => summary, setExitCode);
    });
}
