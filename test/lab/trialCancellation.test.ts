// Ctrl-C during a model trial's load (issue 28): the load stops (the supervisor kills the worker,
// test/engine/supervisor.test.ts), and the run is kept and recorded with stop reason cancelled at
// the source load, never as a model error or a finished trial. The signal is injected.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { freshRoot, readAudit, readJson } from "./labRunTestSupport.ts";

test("a trial cancelled during its load is recorded as cancelled at the source load", async () => {
  const root = freshRoot("trial-cancel");
  const modelDirectory = join(root, "tiny");
  const made = await makeTestCheckpoint({ directory: modelDirectory, size: "tiny", seed: 5 });
  assert.ok(made.ok);
  const controller = new AbortController();
  controller.abort();
  const runDirectory = join(root, "run");
  const trial = await runModelTrial({
    runDirectory,
    modelDirectory,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    cancellation: controller.signal,
  });
  assert.ok(trial.ok, trial.ok ? "" : trial.message);
  assert.equal(trial.value.run.final.stop_reason, "cancelled");
  assert.equal(readJson(join(runDirectory, "final.json"))["stop_reason"], "cancelled");
  const audit = readAudit(runDirectory);
  const load = audit.find((r) => r.type === "source_load");
  assert.equal(load?.data["error"], "cancelled");
  assert.deepEqual(audit.find((r) => r.type === "stop")?.data, { stop_reason: "cancelled", at: "source_load" });
  assert.equal(audit.filter((r) => r.type === "generation").length, 0, "nothing was generated");
});
