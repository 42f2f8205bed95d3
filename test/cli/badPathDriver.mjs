// Runs tca's main() once per argv in this one process (one start-up for the whole matrix) and
// writes what each call printed, its exit status and whether it threw, as JSON to the file
// named by argv[2]; argv[3] is a JSON file with the list of argv arrays. Used by badPaths.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { setImmediate } from "node:timers";
// Plain JavaScript on the compiled lib/ when it is fresh (test/support/projectModules.mjs), so the
// driver does not load tsx and transpile the whole CLI; each outcome is an Outcome of badPaths.test.ts.
import { compiled } from "../support/projectModules.mjs";

const { main } = compiled ? await import("../../lib/cli/main.js") : await import("../../src/cli/main.ts");
const [, , outPath, casesPath] = process.argv;
if (outPath === undefined || casesPath === undefined) throw new Error("usage: badPathDriver OUT.json CASES.json");
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const outcomes = [];
// Set by the process handlers below; reset before each case.
let uncaught;
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
  process.stdout.write = (chunk) => (
    (stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")),
    true
  );
  process.stderr.write = (chunk) => (
    (stderr += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")),
    true
  );
  let exitCode = null;
  let threw = null;
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
