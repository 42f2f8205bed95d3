// Child process for the crash-injection tests (not a test file itself). Creates a run with a real
// audit recorder, then performs the first baseline edit. At the named step the hook announces
// itself on stdout and blocks forever; the parent test SIGKILLs this process on that line, so the
// kill lands exactly at the step with no timing involved. Step "none" completes normally.
//   node --import tsx test/workspace/crashEditChild.ts <runDirectory> <step|none>
import path from "node:path";
import { performance } from "node:perf_hooks";
import { REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { AuditRecorder } from "../../src/recording/auditRecorder.ts";
import { auditEditJournal, createRun, EDIT_STEPS, type WorkspaceHooks } from "../../src/workspace/index.ts";

const [runDirectory, step] = process.argv.slice(2);
if (
  runDirectory === undefined ||
  step === undefined ||
  (step !== "none" && !(EDIT_STEPS as readonly string[]).includes(step))
) {
  process.stderr.write("usage: crashEditChild.ts <runDirectory> <step|none>\n");
  process.exit(2);
}

function blockForever(): Promise<void> {
  process.stdout.write(`ready:${step}\n`);
  setInterval(() => undefined, 1 << 30);
  return new Promise<void>(() => undefined);
}

const hooks: WorkspaceHooks = {};
if (step !== "none") hooks[step as keyof WorkspaceHooks] = blockForever;

let recorder: AuditRecorder | null = null;
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
(recorder as AuditRecorder | null)?.close();
process.stdout.write(`${JSON.stringify(observation)}\n`);
