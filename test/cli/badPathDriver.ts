// Runs tca's main() once per argv in this one process (one start-up for the whole matrix) and
// writes what each call printed, its exit status and whether it threw, as JSON to the file
// named by argv[2]; argv[3] is a JSON file with the list of argv arrays. Used by badPaths.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { main } from "../../src/cli/main.ts";

/** One call of main(): what it printed, its exit status, and whether it threw. */
export interface Outcome {
  readonly argv: readonly string[];
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly threw: string | null;
}

const [, , outPath, casesPath] = process.argv;
if (outPath === undefined || casesPath === undefined) throw new Error("usage: badPathDriver OUT.json CASES.json");
const cases = JSON.parse(readFileSync(casesPath, "utf8")) as string[][];
const outcomes: Outcome[] = [];
// Set by the process handlers below; reset before each case.
let uncaught: string | null;
process.on("uncaughtException", (error) => (uncaught = error.stack ?? String(error)));
process.on(
  "unhandledRejection",
  (error) => (uncaught = error instanceof Error ? (error.stack ?? error.message) : String(error)),
);

const realStdout = process.stdout.write.bind(process.stdout);
const realStderr = process.stderr.write.bind(process.stderr);
for (const argv of cases) {
  let stdout = "";
  let stderr = "";
  process.stdout.write = ((chunk: string | Uint8Array) => (
    (stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")),
    true
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (
    (stderr += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")),
    true
  )) as typeof process.stderr.write;
  let exitCode: number | null = null;
  let threw: string | null = null;
  uncaught = null;
  try {
    exitCode = await main(argv);
    // Let anything the command left running fail now, inside this case.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (error) {
    threw = error instanceof Error ? (error.stack ?? error.message) : String(error);
  } finally {
    process.stdout.write = realStdout;
    process.stderr.write = realStderr;
  }
  outcomes.push({ argv, exitCode, stdout, stderr, threw: threw ?? uncaught });
}
writeFileSync(outPath, JSON.stringify(outcomes));
process.exit(0);
