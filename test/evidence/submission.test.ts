// submission.md from real evidence: every cited audit event exists in the run it names; success
// is never claimed for a run that is not verified; a pipeline check is never a model result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { runAllChecks } from "../../src/lab/checkRunner.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { writeJsonExclusive } from "../../src/recording/evidenceFile.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { folderBytes, measureDiskUse } from "../../src/verdicts/submission/modelEvidence.ts";
import { freshRoot, readAudit } from "../lab/labRunTestSupport.ts";

const root = freshRoot("submission");

async function baselineRun(): Promise<string> {
  const result = await runScriptedBaseline(join(root, "baseline"));
  assert.ok(result.ok);
  return result.value.runDirectory;
}

function citedEvents(markdown: string): { run: string; id: number }[] {
  const cited: { run: string; id: number }[] = [];
  for (const match of markdown.matchAll(/\[(\w+) audit ((?:#\d+(?:, )?)+)\]/g)) {
    for (const id of (match[2] ?? "").matchAll(/#(\d+)/g)) cited.push({ run: match[1] ?? "", id: Number(id[1]) });
  }
  return cited;
}

test("baseline + pipeline-check run: every cited event exists, nothing is called a model result", async () => {
  const baseline = await baselineRun();
  // Stand-in for a synthetic-checkpoint trial: model-like failures (prose, fences, a repeat).
  const pipeline = await runLab({
    runDirectory: join(root, "pipeline"),
    kind: "synthetic_pipeline_check",
    source: new ScriptedSource([
      '```json\n{"action":"read","file":"toy_math.py"}\n```',
      '{"action":"read","file":"toy_math.py"}',
      "Sure! <script>alert(1)</script>",
      "Sure! <script>alert(1)</script>",
    ]),
  });
  assert.ok(pipeline.ok);
  const checksRoot = join(root, "checks");
  mkdirSync(checksRoot);
  const rows = await runAllChecks(checksRoot);
  writeJsonExclusive(join(checksRoot, "checks.json"), {
    schema: "tca.checks/1",
    total: rows.length,
    passed: rows.filter((r) => r.passed).length,
    failed: rows.filter((r) => !r.passed).length,
    checks: rows,
  });

  const built = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: pipeline.value.runDirectory,
    checksDirectory: checksRoot,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(built.ok);
  const markdown = built.value;
  const audits = { baseline: readAudit(baseline), model: readAudit(pipeline.value.runDirectory) };
  const cited = citedEvents(markdown);
  assert.ok(cited.length >= 10, "the document cites its evidence");
  for (const { run, id } of cited) {
    assert.ok(run === "baseline" || run === "model", `unknown run ${run}`);
    assert.ok(
      audits[run].some((event) => event.event_id === id),
      `${run} audit has no event #${id}`,
    );
  }
  assert.match(markdown, /Model stage: \*\*model stage not run — only a PIPELINE CHECK/);
  // The no-model statement cites the baseline's process watch, an event that exists and says 0.
  const watch = audits.baseline.find((event) => event.type === "process_watch");
  assert.ok(watch);
  assert.ok(
    markdown.includes(
      `While the baseline ran, 0 processes, 0 threads and 0 native addons were started or loaded, so no model worker (the only place a model is loaded) existed and no model was invoked [baseline audit #${watch.event_id}]`,
    ),
  );
  assert.ok(!markdown.includes("records came from any other source"));
  // The verdict sentence names the re-derived source first, on the same line.
  assert.match(
    markdown,
    /^- \*\*PIPELINE CHECK · NOT VERIFIED\*\*: the model run stopped with `invalid_proposal_limit`/m,
  );
  assert.match(
    markdown,
    /^- \*\*SCRIPTED BASELINE · VERIFIED SUCCESS\*\*: the baseline run stopped with `finish_accepted`/m,
  );
  assert.match(markdown, /verified_success is false: this run is not a verified success/);
  assert.match(markdown, /The first failure was format following: proposal 1, `code_fence`/);
  assert.match(markdown, /Repeated the previous failed proposal verbatim at proposal\(s\) 4/);
  // Every row of the predictions table and of section 6 carries the label, not only the header.
  const section = (title: string): string =>
    markdown.slice(markdown.indexOf(title), markdown.indexOf("\n## ", markdown.indexOf(title) + 1));
  const rowsOf = (text: string): string[] =>
    text.split("\n").filter((line) => /^\| \S/.test(line) && !/^\| (#|resource) \|/.test(line));
  const predictionRows = rowsOf(section("## Predictions and outcomes"));
  assert.equal(predictionRows.length, 5);
  for (const row of predictionRows) assert.ok(row.includes("**[PIPELINE CHECK, not a model result]**"), row);
  const resourceRows = rowsOf(section("## 6. Measured resources"));
  assert.ok(resourceRows.length >= 7);
  for (const row of resourceRows) assert.ok(row.includes("**[PIPELINE CHECK, not a model result]**"), row);
  assert.match(markdown, /\| verified model manifest \| none \(no verified model directory was used\) \|/);
  assert.match(
    markdown,
    /\| acquisition consent \| none: a synthetic checkpoint is generated locally, never acquired \|/,
  );
  // Question 4 comes from the evidence: the stand-in failed 3 of 4 proposals, so it is not tested.
  assert.match(markdown, /Not tested by this run: the model did not fail every proposal \(1 of 4 did not fail\)/);
  assert.match(
    markdown,
    /\| check \| expected \| observed \| source\/version unchanged \| run stop reason \| result \|/,
  );
  // Model text is quoted inside a fence, never loose in the document.
  assert.ok(markdown.includes("```text\nSure! <script>alert(1)</script>\n```"));
  assert.ok(!/verified_success is true[^\n]*\[model/.test(markdown));
});

test("without a model run the document says the model stage was not run, or why it was blocked", async () => {
  const baseline = join(root, "baseline");
  const notRun = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(notRun.ok);
  assert.match(notRun.value, /Model stage: \*\*model stage not run\*\*/);
  const blocked = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: "the model files could not be downloaded",
  });
  assert.ok(blocked.ok);
  assert.match(blocked.value, /Model stage: \*\*blocked: the model files could not be downloaded\*\*/);
});

test("a baseline without a process watch, or one that started a process, is never called model-free", async () => {
  const unwatched = await runLab({
    runDirectory: join(root, "unwatched"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  assert.ok(unwatched.ok);
  const built = buildSubmission({
    baselineDirectory: unwatched.value.runDirectory,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(built.ok);
  assert.match(
    built.value,
    /The baseline's audit has no process watch, so it does not show that no process or model was started \[baseline audit\.jsonl\]/,
  );
  assert.ok(!built.value.includes("no model was invoked"));
  const watch = {
    report: () => ({
      watched: [],
      processes_started: 2,
      threads_started: 0,
      native_addons_loaded: 0,
      calls: ["spawn python3"],
    }),
  };
  const spawned = await runLab({
    runDirectory: join(root, "spawned"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
    processWatch: watch,
  });
  assert.ok(spawned.ok);
  const flagged = buildSubmission({
    baselineDirectory: spawned.value.runDirectory,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(flagged.ok);
  assert.match(
    flagged.value,
    /2 process\(es\), 0 thread\(s\) and 0 native addon\(s\) were started or loaded; the evidence does NOT show that no model was involved/,
  );
});

test("question 4 says 'yes, observed' only when the model failed every proposal and the baseline passed", async () => {
  const baseline = join(root, "baseline");
  const allFailed = await runLab({
    runDirectory: join(root, "all-failed"),
    kind: "synthetic_pipeline_check",
    source: new ScriptedSource(["nope", "still nope"]),
  });
  assert.ok(allFailed.ok);
  const built = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: allFailed.value.runDirectory,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(built.ok);
  assert.match(
    built.value,
    /Yes, observed: the model failed all 2 of its proposals \[model audit #\d+, #\d+\], and the scripted baseline passed with verified_success true \[baseline final\.json\]/,
  );
});

test("a baseline directory that is not a baseline run is refused", async () => {
  const wrong = buildSubmission({
    baselineDirectory: join(root, "pipeline"),
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.equal(wrong.ok ? null : wrong.error, "wrong_run_kind");
  const missing = buildSubmission({
    baselineDirectory: join(root, "nope"),
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.equal(missing.ok ? null : missing.error, "run_evidence_missing");
});

test("disk use is measured only for a model directory (download manifest or config.json), and never past the walk's bounds (a manifest naming / is not walked)", () => {
  const folder = join(freshRoot("disk-use"), "model");
  mkdirSync(join(folder, "sub"), { recursive: true });
  writeFileSync(join(folder, "config.json"), "{}");
  writeFileSync(join(folder, "sub", "weights.bin"), Buffer.alloc(1000));
  const measured = measureDiskUse(folder);
  assert.equal(measured?.modelFolderBytes, 1002);
  // Not a model directory (neither a download manifest nor a config.json object): not measured, nothing walked.
  assert.equal(measureDiskUse(join(folder, "sub")), null);
  assert.equal(measureDiskUse("/"), null);
  // Past the bounds: not measured, rather than a walk of whatever the path names.
  assert.equal(folderBytes(folder, { entries: 2, depth: 4 }), null);
  assert.equal(folderBytes(folder, { entries: 100, depth: 0 }), null);
  assert.equal(folderBytes(folder, { entries: 100, depth: 1 }), 1002);
  assert.equal(folderBytes("/"), null);
});
