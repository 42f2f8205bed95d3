// Child process for the crash-injection tests (not a test file itself). Creates a run with a real
// audit recorder, then performs the first baseline edit. At the named step the hook announces
// itself on stdout and blocks forever; the parent test SIGKILLs this process on that line, so the
// kill lands exactly at the step with no timing involved. Step "none" completes normally.
// Plain JavaScript on the compiled lib/ (test/support/projectModules.mjs), so a start costs no tsx loader.
//   node test/workspace/crashEditChild.mjs <runDirectory> <step|none>
import path from "node:path";
import { performance } from "node:perf_hooks";
import { compiled } from "../support/projectModules.mjs";

const { REPAIR_EXPRESSIONS } = compiled
  ? await import("../../lib/constants/labConstants.js")
  : await import("../../src/constants/labConstants.ts");
const { AuditRecorder } = compiled
  ? await import("../../lib/recording/auditRecorder.js")
  : await import("../../src/recording/auditRecorder.ts");
const { auditEditJournal, createRun, EDIT_STEPS } = compiled
  ? await import("../../lib/workspace/index.js")
  : await import("../../src/workspace/index.ts");
const [runDirectory, step] = process.argv.slice(2);
if (runDirectory === undefined || step === undefined || (step !== "none" && !EDIT_STEPS.includes(step))) {
  process.stderr.write("usage: crashEditChild.mjs <runDirectory> <step|none>\n");
  process.exit(2);
}
function blockForever() {
  process.stdout.write(`ready:${step}\n`);
  setInterval(() => undefined, 1 << 30);
  return new Promise(() => undefined);
}
const hooks = {};
if (step !== "none") hooks[step] = blockForever;
let recorder = null;
const created = await createRun({
  runDirectory,
  hooks,
  journal: (paths) => {
    recorder = AuditRecorder.create(path.join(paths.run, "audit.jsonl"), {
      runId: "crash-test",
      sourceLabel: "scripted",
      clock: { now: () => performance.now() },
    });
    return auditEditJournal(recorder, () => 3);
  },
});
if (!created.ok) {
  process.stdout.write(`${JSON.stringify({ created: created.error })}\n`);
  process.exit(1);
}
const observation = await created.value.replace(
  { function: "clamp", old: "x", new: REPAIR_EXPRESSIONS.clamp, version: 0 },
  { beforeCommit: () => null },
);
recorder?.close();
process.stdout.write(`${JSON.stringify(observation)}\n`);
