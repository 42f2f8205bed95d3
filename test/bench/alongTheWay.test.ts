// Issue #34, seed 004's last rows: the statements the benchmark's document counts along the way
// (the original "was already correct", the tests at fault, a fix announced but not made), each
// fixed task's fix size against the one buggy line, and where they are shown (results.md, compare,
// with the document's model × condition table). Unit level: no sandbox, no server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statementsOf, countStatements } from "../../src/bench/results/claimStatements.ts";
import { measureFixSize, summarizeFixSizes } from "../../src/bench/results/fixSize.ts";
import { alongTheWay, renderAlongTheWaySection } from "../../src/bench/results/alongTheWay.ts";
import { renderResultsMarkdown } from "../../src/bench/results/resultsSummary.ts";
import { parseTaskResult } from "../../src/bench/runs/runDirectory.ts";
import { budgetInWords, runDateLine, secondsInWords } from "../../src/bench/runs/runHeaderLines.ts";
import { comparisonJson, renderComparison, type ComparedRun } from "../../src/bench/runs/runComparison.ts";
import { MODEL_TABLE_HEADINGS, modelConditionTable } from "../../src/bench/runs/modelConditionTable.ts";
import { summarize } from "../../src/bench/results/resultsSummary.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import { overlongLines } from "../../src/core/textWidth.ts";
import { readFileSync } from "node:fs";
import { benchSpecText } from "../support/optionalResources.ts";

/** A trace event as the analyses take it: its type and (the part they read of) its data. */
type Event = { readonly type: string; readonly data: Readonly<Record<string, unknown>> };
const start: Event = { type: "task_start", data: { originalSha256: "h0" } };
const write = (sha256: string): Event => ({ type: "tool_result", data: { tool: "write_file", sha256 } });
const reply = (content: string): Event => ({ type: "model_response", data: { content } });
const stop: Event = { type: "stop_attempt", data: { accepted: true } };
const none = { original_correct: false, tests_at_fault: false, fix_announced_not_made: false };

test("each of the document's statements is read from the agent's replies", () => {
  assert.deepEqual(statementsOf([start, reply("The original code was already correct."), stop]), {
    ...none,
    original_correct: true,
  });
  assert.deepEqual(statementsOf([start, reply("I think the tests themselves are probably wrong."), stop]), {
    ...none,
    tests_at_fault: true,
  });
  assert.deepEqual(statementsOf([start, write("h1"), reply("I will fix the function to return b."), stop]), {
    ...none,
    fix_announced_not_made: true,
  });
  // The same in other words the document quotes or paraphrases.
  assert.equal(statementsOf([start, reply("There is no bug in the given function.")]).original_correct, true);
  assert.equal(statementsOf([start, reply("The problem lies in the test.")]).tests_at_fault, true);
  assert.equal(statementsOf([start, reply("Let me fix the loop bound.")]).fix_announced_not_made, true);
});

test("a fix announced and then made is not counted; a write of the same bytes is no fix", () => {
  assert.equal(statementsOf([start, reply("I will fix the loop."), write("h1"), stop]).fix_announced_not_made, false);
  assert.equal(
    statementsOf([start, write("h1"), reply("I'll fix it now."), write("h1"), stop]).fix_announced_not_made,
    true,
  );
});

test("a one-shot answer announcing its fix delivers it in its code block: made", () => {
  const answer = reply("I will fix the loop:\n```python\ndef f(): pass\n```");
  assert.equal(
    statementsOf([start, answer, { type: "stop_attempt", data: { accepted: true, codeBlock: true } }])
      .fix_announced_not_made,
    false,
  );
  assert.equal(
    statementsOf([
      start,
      reply("I will fix the loop."),
      { type: "stop_attempt", data: { accepted: false, codeBlock: false } },
    ]).fix_announced_not_made,
    true,
  );
});

test("claim text that tries to be counted twice counts once per task", () => {
  const loud = "The original code was already correct. It was already correct! Already correct, really.";
  const events = [start, reply(loud), reply(loud), reply("I will fix it. I will fix it."), reply(loud), stop];
  const once = statementsOf(events);
  assert.deepEqual(once, { original_correct: true, tests_at_fault: false, fix_announced_not_made: true });
  // Counted per condition as tasks: two tasks that said it, however often, are 2.
  const counted = countStatements([{ statements: once }, { statements: once }, { statements: none }, {}]);
  assert.deepEqual(counted, {
    analysed: 3,
    notAnalysed: 1,
    counts: { original_correct: 2, tests_at_fault: 0, fix_announced_not_made: 2 },
  });
});

test("program text is not a statement: code blocks are not read; 'now correct' after a fix is not 'already correct'", () => {
  const file = "```python\n# the tests are wrong; the original code was already correct\ndef f(): pass\n```";
  assert.deepEqual(statementsOf([start, reply(file), stop]), none);
  assert.deepEqual(statementsOf([start, write("h1"), reply("The function is now correct."), stop]), none);
  // An unterminated block (a reply cut at the token limit) is program text to its end.
  assert.deepEqual(statementsOf([start, reply("Here:\n```python\n# already correct\n")]), none);
});

const BUGGY = [
  "def bitcount(n):",
  "    count = 0",
  "    while n:",
  "        n ^= n - 1",
  "        count += 1",
  "    return count",
  "",
  '"""',
  "Bitcount",
  '"""',
  "",
].join("\n");
const REFERENCE = BUGGY.replace("n ^= n - 1", "n &= n - 1");

test("fix size: the one buggy line, beyond it, a rewrite of the function", () => {
  assert.deepEqual(measureFixSize(BUGGY, REFERENCE, REFERENCE), { linesChanged: 1, kind: "buggy_line" });
  // The buggy line changed another way is still the buggy line only.
  const other = BUGGY.replace("n ^= n - 1", "n = n & (n - 1)");
  assert.deepEqual(measureFixSize(BUGGY, other, REFERENCE), { linesChanged: 1, kind: "buggy_line" });
  // The fix plus a renamed variable on another line: beyond the buggy line, 2 lines.
  const beyond = REFERENCE.replace("    count = 0", "    count = int(0)");
  assert.deepEqual(measureFixSize(BUGGY, beyond, REFERENCE), { linesChanged: 2, kind: "beyond_buggy_line" });
  const rewrite = BUGGY.replace(
    /def bitcount[\s\S]*?return count\n/,
    "def bitcount(n):\n    return bin(n).count('1')\n",
  );
  assert.deepEqual(measureFixSize(BUGGY, rewrite, REFERENCE), { linesChanged: 5, kind: "rewrite" });
  // Without the reference fix no change can be called the buggy line.
  assert.equal(measureFixSize(BUGGY, REFERENCE, null).kind, "beyond_buggy_line");
});

test("fix size: a diff that touches only whitespace changes no line; indentation does", () => {
  const spaced = BUGGY.replace("count = 0", "count  =  0   ").replace("    return count", "\n\n    return count");
  assert.deepEqual(measureFixSize(BUGGY, spaced, REFERENCE), { linesChanged: 0, kind: "whitespace_only" });
  // The fix with whitespace noise around it is still one line, the buggy one.
  const noisy = REFERENCE.replace("count += 1", "count += 1    ").replace("def bitcount(n):", "def bitcount(n):\n");
  assert.deepEqual(measureFixSize(BUGGY, noisy, REFERENCE), { linesChanged: 1, kind: "buggy_line" });
  // Leading indentation is Python's block structure: a change.
  const dedented = BUGGY.replace("        count += 1", "    count += 1");
  assert.equal(measureFixSize(BUGGY, dedented, REFERENCE).linesChanged, 1);
  assert.equal(measureFixSize(BUGGY, dedented, REFERENCE).kind, "beyond_buggy_line");
});

test("fix size: a reference fix that inserts a line names the lines around it", () => {
  const buggy = "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n";
  const reference = buggy.replace("    return out", "    out.sort()\n    return out");
  assert.equal(measureFixSize(buggy, reference, reference).kind, "buggy_line");
  assert.equal(measureFixSize(buggy, buggy.replace("out = []", "out = list()"), reference).kind, "beyond_buggy_line");
});

function task(condition: ConditionId, n: number, extra: Partial<TaskResult>): TaskResult {
  return {
    taskId: `${condition}-p${n}`,
    program: `p${n}`,
    condition,
    outcome: "fixed",
    stopReason: "agent_done",
    claimedFixed: true,
    falseFixed: false,
    turns: 2,
    promptTokens: 10,
    completionTokens: 10,
    tokens: 20,
    usageReported: true,
    seconds: 1,
    guardrails: {
      testRuns: 1,
      blockedWrites: 0,
      blockedReads: 0,
      testEditAttempts: 0,
      referenceReadAttempts: 0,
      toolErrors: 0,
      refusedStopAttempts: 0,
    },
    grade: { outcome: "passed", counts: { passed: 3, failed: 0, errors: 0, skipped: 0 }, seconds: 1, summary: "ok" },
    changed: true,
    finalSha256: "x",
    specialCasing: null,
    servedModel: null,
    ...extra,
  } as TaskResult;
}

const results: TaskResult[] = [
  task("A", 1, { fixSize: { linesChanged: 1, kind: "buggy_line" }, statements: none }),
  task("A", 2, { fixSize: { linesChanged: 9, kind: "rewrite" }, statements: none }),
  task("C", 1, { fixSize: { linesChanged: 2, kind: "beyond_buggy_line" }, statements: none }),
  task("C", 2, {
    outcome: "wrong_fix",
    falseFixed: true,
    fixSize: { linesChanged: 1, kind: "buggy_line" },
    statements: { ...none, original_correct: true, fix_announced_not_made: true },
  }),
  task("C", 3, { outcome: "no_change", changed: false, fixSize: null, statements: { ...none, tests_at_fault: true } }),
  task("D", 1, {}),
];

test("per condition: statements over every task, fix sizes over the fixed ones (older records counted apart)", () => {
  const rows = Object.fromEntries(alongTheWay(results).map((r) => [r.condition, r]));
  assert.deepEqual(rows.A?.fixSizes, {
    measured: 2,
    notMeasured: 0,
    kinds: { whitespace_only: 0, buggy_line: 1, beyond_buggy_line: 0, rewrite: 1 },
    medianLines: 5,
    maxLines: 9,
  });
  // C: the wrong fix's one line is not a fixed task's fix size.
  assert.deepEqual(rows.C?.fixSizes.kinds, { whitespace_only: 0, buggy_line: 0, beyond_buggy_line: 1, rewrite: 0 });
  assert.deepEqual(rows.C?.statements.counts, { original_correct: 1, tests_at_fault: 1, fix_announced_not_made: 1 });
  assert.equal(rows.D?.statements.notAnalysed, 1);
  assert.equal(rows.D?.fixSizes.notMeasured, 1);
  assert.deepEqual(summarizeFixSizes([]), {
    measured: 0,
    notMeasured: 0,
    kinds: { whitespace_only: 0, buggy_line: 0, beyond_buggy_line: 0, rewrite: 0 },
    medianLines: 0,
    maxLines: 0,
  });
});

test("results.md counts the statements and the fix sizes per condition", () => {
  const md = renderResultsMarkdown({ title: "t", lines: [] }, results);
  const section = renderAlongTheWaySection(results).join("\n");
  assert.ok(md.includes(section));
  assert.match(md, /## Statements along the way/);
  assert.match(md, /\| C · agent with test feedback \| 3 \| 1 \| 1 \| 1 \| 0 \|/);
  assert.match(md, /## Fix size of the fixed tasks/);
  assert.match(md, /\| A · one-shot, no tools \| 2 \| 1 \| 0 \| 1 \| 0 \| 5 \| 9 \| 0 \|/);
});

test("a record's statements and fix size: present and malformed is not a task result", () => {
  const good = JSON.parse(JSON.stringify(results[3])) as Record<string, unknown>;
  assert.ok(parseTaskResult(good));
  assert.ok(parseTaskResult({ ...good, fixSize: null }));
  assert.equal(parseTaskResult({ ...good, statements: { ...none, original_correct: "yes" } }), undefined);
  assert.equal(parseTaskResult({ ...good, statements: { ...none, extra: true } }), undefined);
  assert.equal(parseTaskResult({ ...good, fixSize: { linesChanged: -1, kind: "buggy_line" } }), undefined);
  assert.equal(parseTaskResult({ ...good, fixSize: { linesChanged: 1, kind: "small" } }), undefined);
});

test("results.md's header lines in words: the date and the budget, never JSON", () => {
  assert.equal(
    runDateLine({ createdAt: "2026-10-07T09:12:03.000Z" }),
    "date: 2026-10-07 (started 2026-10-07T09:12:03.000Z)",
  );
  assert.match(
    runDateLine({ createdAt: "2026-10-07T09:12:03.000Z", resumedAt: ["2026-10-08T01:00:00.000Z"] }),
    /last resumed 2026-10-08T01:00:00.000Z\)$/,
  );
  assert.equal(
    budgetInWords({ maxTurns: 8, maxTokensPerTurn: 2048, taskTimeoutMs: 300_000 }),
    "8 model turns, 2,048 tokens per turn, 300 s per task",
  );
  assert.equal(budgetInWords({ turns: 2 }), "turns 2");
  assert.equal(budgetInWords(undefined), "not recorded");
  assert.equal(secondsInWords(60_000), "60 s");
  assert.equal(secondsInWords(1_500), "1.5 s");
});

function compared(label: string, tasks: readonly TaskResult[]): ComparedRun {
  const byCondition = Object.fromEntries(summarize(tasks).map((s) => [s.condition, s]));
  const along = Object.fromEntries(alongTheWay(tasks).map((a) => [a.condition, a]));
  return {
    dir: "runs/x",
    label,
    dataset: "QuixBugs",
    tasks: tasks.length,
    byCondition,
    findings: {},
    alongTheWay: along,
  };
}

test("compare: the document's model × condition table for runs, beside the long form, and in --json", () => {
  const runs = [compared("Qwen3-8B Q4_K_M", results), compared("REHEARSAL: rehearsal-tiny", results.slice(0, 2))];
  const md = renderComparison(runs);
  assert.match(md, /^\| \| A · one-shot \| B · no tests \| C · with tests \| D · verified \|$/m);
  assert.match(md, /^\| Qwen3-8B Q4_K_M \| 100\.0% \| – \| 33\.3% \| 100\.0% \|$/m);
  assert.match(md, /^\| REHEARSAL: rehearsal-tiny \| 100\.0% \| – \| – \| – \|$/m);
  // The long form is still there, after it.
  assert.ok(md.indexOf("| A · one-shot |") < md.indexOf("| Run | Cond | Fixed |"));
  assert.match(md, /\| R1 \| C \| 1 \| 1 \| 1 \| 0 \| 1 \| 0 \|/);
  assert.deepEqual(overlongLines(md), []);
  const json = JSON.parse(JSON.stringify(comparisonJson(runs))) as {
    table: { columns: string[]; rows: { model: string; run: string; cells: Record<string, string | null> }[] };
  };
  assert.deepEqual(json.table.columns, ["A · one-shot", "B · no tests", "C · with tests", "D · verified"]);
  assert.deepEqual(json.table.rows[0], {
    model: "Qwen3-8B Q4_K_M",
    run: "R1",
    cells: { A: "100.0%", B: null, C: "33.3%", D: "100.0%" },
  });
  // Two runs of one model: each row keeps its run key; a long label is cut in the table only.
  const twice = renderComparison([compared("m", results), compared("m", results)]);
  assert.match(twice, /^\| m \(R1\) \|/m);
  assert.match(twice, /^\| m \(R2\) \|/m);
  const long = modelConditionTable([compared("x".repeat(80), results)]);
  assert.equal(long.rows[0]?.model, "x".repeat(80));
  // The table rows fit (the legend's list item above carries the whole label and wraps in a reader).
  const rows = renderComparison([compared("x".repeat(80), results)])
    .split("\n")
    .filter((line) => line.startsWith("| "));
  assert.deepEqual(overlongLines(rows.join("\n")), []);
});

const spec = benchSpecText();
test("the table's headings are the benchmark document's own", { skip: spec.skip }, () => {
  const doc = readFileSync(spec.path, "utf8");
  const heading = `| ${Object.values(MODEL_TABLE_HEADINGS).join(" | ")} | |`;
  assert.ok(doc.includes(heading), heading);
});
