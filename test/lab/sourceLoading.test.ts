// A source that has to be loaded (the local model) loads inside the run; a failed load is an
// outcome with evidence, never a fallback to another source.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab, type ProposalSourceLoader } from "../../src/lab/labRun.ts";
import { err, ok } from "../../src/core/result.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit, readJson } from "./labRunTestSupport.ts";

const root = freshRoot("loading");

function loader(
  result: "ok" | "model_error" | "time_limit",
  clock?: ManualClock,
): ProposalSourceLoader & { loads: number; deadlines: number[] } {
  return {
    label: "model",
    loads: 0,
    deadlines: [],
    describePending: () => ({ model_directory: "(test)" }),
    async load(deadline) {
      this.loads += 1;
      this.deadlines.push(deadline);
      if (result === "ok") return ok(new ScriptedSource(BASELINE_PROPOSALS));
      if (result === "time_limit") clock?.set(deadline);
      return err(
        result,
        result === "time_limit" ? "loading did not finish before the deadline" : "the worker failed to load the model",
      );
    },
  };
}

test("a loaded source runs the trial; the runtime lock hook runs before loading", async () => {
  const order: string[] = [];
  const source = loader("ok");
  const result = await runLab({
    runDirectory: join(root, "ok"),
    kind: "model_trial",
    source,
    beforeLoad: (dir) => {
      order.push(`before-load:${existsSync(join(dir, "audit.jsonl"))}`);
    },
  });
  assert.ok(result.ok);
  assert.equal(source.loads, 1);
  assert.deepEqual(order, ["before-load:true"]);
  assert.equal(result.value.final.stop_reason, "finish_accepted");
  const audit = readAudit(result.value.runDirectory);
  assert.ok(audit.findIndex((r) => r.type === "source_load") < audit.findIndex((r) => r.type === "request"));
  assert.ok(audit.every((r) => r.source === "model"));
});

test("a failed load stops the run as model_error with no proposal consumed, and the final evaluation still runs", async () => {
  const result = await runLab({
    runDirectory: join(root, "error"),
    kind: "model_trial",
    source: loader("model_error"),
  });
  assert.ok(result.ok);
  const final = result.value.final;
  assert.equal(final.stop_reason, "model_error");
  assert.equal(final.proposals_used, 0);
  assert.equal(final.verified_success, false);
  assert.equal(final.final_evaluation["status"], "completed");
  assert.equal(final.final_evaluation["version"], 0);
  const manifest = readJson(join(result.value.runDirectory, "manifest.json"));
  assert.deepEqual((manifest["proposal_source"] as Record<string, unknown>)["load_failure"], {
    error: "model_error",
    message: "the worker failed to load the model",
  });
  assert.ok(!readAudit(result.value.runDirectory).some((r) => r.type === "request"), "no request was assembled");
});

test("a load that runs into the overall deadline is a time_limit, and no final evaluation is started after it", async () => {
  const clock = new ManualClock(1_000);
  const source = loader("time_limit", clock);
  const result = await runLab({
    runDirectory: join(root, "timeout"),
    kind: "model_trial",
    source,
    clock,
    overallBudgetMs: 600_000,
  });
  assert.ok(result.ok);
  assert.deepEqual(source.deadlines, [601_000]);
  assert.equal(result.value.final.stop_reason, "time_limit");
  assert.equal(result.value.final.final_evaluation["status"], "not_started_deadline");
});
