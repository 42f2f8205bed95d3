// What the model sees from run_tests: the document's recorded run shows the pass text with
// pytest's progress line ("PASSED: all tests pass. ......... [100%] 9 passed in 0.01s") and the
// timeout text ("FAILED. TIMEOUT after 60s"); a failure shows pytest's own output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { testObservation } from "../../src/bench/agent/agentTools.ts";
import { PROMPT_SET_VERSION, promptHashes } from "../../src/bench/agent/prompts.ts";
import { parseSummary, progressLine, type TestRunResult } from "../../src/bench/agent/testRunner.ts";

function result(outcome: TestRunResult["outcome"], output: string): TestRunResult {
  const { summary, counts } = parseSummary(output);
  return {
    outcome,
    counts,
    seconds: 0.01,
    cpuSeconds: null,
    exitCode: outcome === "passed" ? 0 : 1,
    output,
    summary,
    processGroupId: 1,
    runId: "r",
  };
}

const PASSING = `.........                                                                [100%]\n9 passed in 0.01s\n`;

test("the pass text is the document's: pytest's progress line, then its summary", () => {
  assert.equal(
    testObservation(result("passed", PASSING), 60_000),
    "PASSED: all tests pass. ......... [100%] 9 passed in 0.01s",
  );
});

test("several progress lines are all shown; output without one gives the summary alone", () => {
  const long = `${".".repeat(80)} [ 88%]\n.......... [100%]\n90 passed in 0.20s\n`;
  assert.equal(progressLine(long), `${".".repeat(80)} [ 88%] .......... [100%]`);
  assert.equal(
    testObservation(result("passed", "3 passed in 0.01s\n"), 60_000),
    "PASSED: all tests pass. 3 passed in 0.01s",
  );
  assert.equal(progressLine("..F [100%] trailing words\n"), "");
});

test("the failure text is pytest's own output; the timeout text is the document's", () => {
  const failing = `..F                                                                      [100%]\n=================================== FAILURES ===================================\n___ test_gcd[input_data0-expected0] ___\nE   assert 35 == 7\n=========================== short test summary info ============================\nFAILED python_testcases/test_gcd.py::test_gcd[input_data0-expected0] - assert 35 == 7\n1 failed, 2 passed in 0.05s\n`;
  assert.equal(testObservation(result("failed", failing), 60_000), `FAILED.\n${failing}`);
  assert.equal(testObservation(result("timeout", ""), 60_000), "FAILED. TIMEOUT after 60s");
});

test("the observation texts are part of the versioned prompt set (a v1 run is not resumed under them)", () => {
  assert.notEqual(PROMPT_SET_VERSION, "quixbugs-prompts-v1");
  for (const name of ["run_tests_passed", "run_tests_failed", "run_tests_timeout"])
    assert.match(promptHashes()[name as keyof ReturnType<typeof promptHashes>], /^[0-9a-f]{64}$/);
});
