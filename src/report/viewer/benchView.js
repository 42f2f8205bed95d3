/* global tca */
// The QuixBugs bench view: result tables per condition, a chart of outcome classes per
// condition, and per task a collapsible trace with its diff and test output, filterable by
// outcome and condition. Task bodies render only when opened; a trace is shown as a transcript
// (model text, tool calls with their arguments, tool results), its raw events one click away.

const OUTCOME_COLORS = {
  fixed: "#1a7f37",
  wrong_fix: "#cf222e",
  no_change: "#8c959f",
  broken_file: "#953800",
  out_of_budget: "#9a6700",
  model_error: "#8250df",
};

function outcomeChart(bench) {
  const conditions = bench.summary.map((s) => s.condition);
  const width = 640;
  const rowHeight = 24;
  const labelWidth = 120;
  const svg = tca.svg("svg", {
    width,
    height: conditions.length * rowHeight + 4,
    viewBox: "0 0 " + width + " " + (conditions.length * rowHeight + 4),
    "aria-label": "outcome classes per condition",
  });
  conditions.forEach((condition, index) => {
    const tasks = bench.tasks.filter((t) => t.condition === condition);
    const y = index * rowHeight + 2;
    svg.appendChild(tca.svg("text", { x: 0, y: y + 14 }, condition));
    let x = labelWidth;
    for (const outcome of bench.outcomeClasses) {
      const n = tasks.filter((t) => t.outcome === outcome).length;
      if (n === 0) continue;
      const w = ((width - labelWidth - 10) * n) / Math.max(1, tasks.length);
      svg.appendChild(
        tca.svg(
          "rect",
          { x, y, width: w, height: rowHeight - 6, fill: OUTCOME_COLORS[outcome] || "#57606a" },
          tca.svg("title", null, outcome + ": " + n),
        ),
      );
      if (w > 18) svg.appendChild(tca.svg("text", { x: x + 3, y: y + 13, fill: "#ffffff" }, String(n)));
      x += w;
    }
  });
  const legend = tca.el(
    "div",
    { class: "legend" },
    bench.outcomeClasses.map((outcome) => {
      const swatch = tca.el("span", { class: "swatch" });
      swatch.style.background = OUTCOME_COLORS[outcome] || "#57606a";
      return tca.el("span", null, swatch, outcome.replace(/_/g, " "));
    }),
  );
  return tca.el(
    "figure",
    { class: "chart", id: "outcome-chart" },
    tca.el("figcaption", null, "Outcome classes per condition"),
    svg,
    legend,
  );
}

function summaryTables(bench) {
  const pct = (x) => (typeof x === "number" ? (x * 100).toFixed(1) + "%" : "");
  const num = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : tca.text(x));
  const outcomes = tca.table(
    [
      "condition",
      "tasks",
      "fixed",
      "wrong fix",
      "no change",
      "broken file",
      "out of budget",
      "model error",
      "claimed fixed",
      "false fixed",
      "turns (mean)",
      "tokens (mean)",
      "time (median, s)",
    ],
    bench.summary.map((s) =>
      tca.el(
        "tr",
        null,
        tca.el("td", null, tca.text(s.label || s.condition)),
        [
          s.tasks,
          pct(s.fixedRate) +
            " (" +
            tca.text(s.fixed) +
            ")" +
            (Array.isArray(s.fixedRateCi95) ? " 95% " + pct(s.fixedRateCi95[0]) + "–" + pct(s.fixedRateCi95[1]) : ""),
          s.wrongFix,
          s.noChange,
          s.brokenFile,
          s.outOfBudget,
          s.modelError,
          s.claimedFixed,
          s.falseFixed,
          num(s.turnsMean, 1),
          tca.formatNumber(Math.round(s.tokensMean)),
          num(s.timeMedianSeconds, 1),
        ].map((v) => tca.el("td", { class: "num" }, tca.text(v))),
      ),
    ),
    { id: "bench-summary" },
  );
  const guardrails = tca.table(
    ["condition"].concat(bench.guardrailHeaders),
    bench.guardrailTable.map((row) =>
      tca.el(
        "tr",
        { "data-condition": row.condition },
        tca.el("td", null, row.label),
        row.cells.map((cell) => countCell(cell === NOT_APPLICABLE ? null : cell)),
      ),
    ),
    { id: "bench-guardrails" },
  );
  return [
    tca.el("h3", null, "Outcomes"),
    outcomes,
    outcomeChart(bench),
    tca.el("h3", null, "Guardrails"),
    guardrails,
    tca.el("p", { class: "muted" }, NOT_APPLICABLE_NOTE),
    claimsTable(bench),
    alongTheWayTables(bench),
  ];
}

const NOT_APPLICABLE = "—";
const NOT_APPLICABLE_NOTE =
  NOT_APPLICABLE +
  ": the condition cannot have the count (A has no tools, A and B cannot run the tests, only D refuses a stop).";

/** A count cell: the number, or NOT_APPLICABLE where the report's data says the condition cannot have it (null). */
function countCell(value) {
  return value === null || value === undefined
    ? tca.el("td", { class: "num not-applicable", title: "not applicable to this condition" }, NOT_APPLICABLE)
    : tca.el("td", { class: "num" }, tca.text(value));
}

/** The claim breakdown per condition (the document's false-"fixed" analysis), moved out of the verdict box. */
function claimsTable(bench) {
  return [
    tca.el("h3", { id: "claims" }, "Claims of done"),
    tca.el(
      "p",
      { class: "muted" },
      "A claim is verified when the file had a passing test run since its last change; every other claim is split by what came before it: (a) the final change was not re-run, (b) stopped after a failing run, (c) never ran the tests.",
    ),
    tca.table(
      [
        "condition",
        "claimed done",
        'false "fixed" (claimed, tests fail)',
        "claimed, tests pass, held-out fail",
        "verified",
        "(a)",
        "(b)",
        "(c)",
        'unverified and false "fixed"',
        "refused stop attempts",
        "not analysed",
      ],
      bench.claims.map((c) =>
        tca.el(
          "tr",
          { "data-condition": c.condition },
          tca.el("td", null, c.label),
          [
            c.claimed,
            c.claimedTestsFail,
            c.claimedTestsPassHeldOutFail,
            c.verified,
            c.finalChangeNotRerun,
            c.afterFailingRun,
            c.neverRanTests,
            c.unverifiedFalse,
            c.refusedStopAttempts,
            c.notAnalysed,
          ].map(countCell),
        ),
      ),
      { id: "bench-claims" },
    ),
  ];
}

/** The statements along the way and the fixed tasks' fix sizes per condition, as results.md has them. */
function alongTheWayTables(bench) {
  const rows = bench.alongTheWay;
  return [
    tca.el("h3", { id: "statements" }, "Statements along the way"),
    tca.el(
      "p",
      { class: "muted" },
      "Tasks whose agent said so in its own replies (code blocks not read; each statement counted once per task), recomputed from each trace by the bench verdict.",
    ),
    tca.table(
      ["condition", "tasks", '"was already correct"', "tests at fault", "fix announced, not made", "not analysed"],
      rows.map((r) =>
        tca.el(
          "tr",
          { "data-condition": r.condition },
          tca.el("td", null, r.label),
          [
            r.tasks,
            r.statements.counts.original_correct,
            r.statements.counts.tests_at_fault,
            r.statements.counts.fix_announced_not_made,
            r.statements.notAnalysed,
          ].map(countCell),
        ),
      ),
      { id: "bench-statements" },
    ),
    tca.el("h3", { id: "fix-sizes" }, "Fix size of the fixed tasks"),
    tca.el(
      "p",
      { class: "muted" },
      "Lines changed against the buggy program (a replaced line counts once; blank lines and spacing are not changes); the buggy line only, beyond it, or a rewrite of the function (at least half of its lines).",
    ),
    tca.table(
      [
        "condition",
        "fixed",
        "buggy line only",
        "beyond the buggy line",
        "rewrite of the function",
        "whitespace only",
        "lines changed (median)",
        "(max)",
        "not measured",
      ],
      rows.map((r) => {
        const f = r.fixSizes;
        return tca.el(
          "tr",
          { "data-condition": r.condition },
          tca.el("td", null, r.label),
          [
            f.measured + f.notMeasured,
            f.kinds.buggy_line,
            f.kinds.beyond_buggy_line,
            f.kinds.rewrite,
            f.kinds.whitespace_only,
            f.medianLines,
            f.maxLines,
            f.notMeasured,
          ].map(countCell),
        );
      }),
      { id: "bench-fix-sizes" },
    ),
  ];
}

/**
 * A trace record (the v2 envelope, docs/evidence-format.md) in the view's reading form: its type,
 * its t_ms, its model turn (the envelope's proposal, where it belongs to one) and its data's fields.
 * No data key of the trace's catalog is named event, t or turn.
 */
function eventView(record) {
  const data = record.data !== null && typeof record.data === "object" ? record.data : {};
  return {
    event: record.type,
    t: record.t_ms,
    ...(record.proposal === null ? {} : { turn: record.proposal }),
    ...data,
  };
}

/** One trace event: the fields a reader needs first, the rest (and the raw HTTP exchange) on demand. */
function traceEvent(record) {
  const { event, t, exchange, ...rest } = eventView(record);
  const parts = [];
  if (event === "model_response") {
    if (typeof rest.content === "string" && rest.content !== "")
      parts.push(
        tca.field("model text, as returned", tca.el("div", { class: "model-text" }, tca.boundedText(rest.content))),
      );
    if (Array.isArray(rest.toolCalls) && rest.toolCalls.length > 0)
      parts.push(
        tca.field(
          "tool calls",
          rest.toolCalls.map((call) =>
            tca.el(
              "div",
              null,
              tca.el("span", { class: "mono" }, tca.text(call.name)),
              tca.boundedText(call.argumentsText ?? call.arguments ?? "", 600),
            ),
          ),
        ),
      );
    parts.push(
      tca.el("div", { class: "muted" }, "finish: ", tca.text(rest.finishReason), "; usage: ", tca.text(rest.usage)),
    );
  } else if (event === "tool_refused" || event === "tool_error" || event === "model_error") {
    parts.push(
      tca.el(
        "div",
        null,
        tca.el("span", { class: "badge fail error-code" }, tca.text(rest.error ?? event)),
        " ",
        tca.text(rest.tool ?? ""),
        " ",
        tca.text(rest.message ?? ""),
      ),
    );
    if (rest.path !== undefined) parts.push(tca.field("path asked for", tca.boundedText(rest.path, 400)));
  } else if (event === "test_run" || event === "grade") {
    parts.push(
      tca.el(
        "div",
        null,
        tca.el("span", { class: "badge " + (rest.outcome === "passed" ? "pass" : "fail") }, tca.text(rest.outcome)),
        " ",
        tca.text(rest.counts),
      ),
    );
    if (typeof rest.output === "string") parts.push(tca.field("test output", tca.boundedText(rest.output, 1500)));
  } else if (event === "diff" && typeof rest.diff === "string") {
    parts.push(tca.unifiedDiffText(rest.diff));
  }
  const shown = new Set(["content", "toolCalls", "finishReason", "usage", "output", "diff"]);
  const others = Object.fromEntries(Object.entries(rest).filter(([key]) => !(shown.has(key) && parts.length > 0)));
  return tca.el(
    "div",
    { class: "trace-event", "data-status": event },
    tca.el("span", { class: "mono" }, tca.text(event), " t=", tca.text(t), " ms"),
    parts,
    Object.keys(others).length > 0 ? tca.boundedText(others, 600) : null,
    exchange !== undefined
      ? tca.lazyDetails(null, "raw HTTP exchange", () => tca.boundedText(exchange, 4000), false)
      : null,
  );
}

/**
 * A tool call's arguments as the model sent them: indented JSON when they parse; an argument
 * holding lines (write_file's content) is shown as its text, one field per argument, so a
 * written program reads as code, not as an escaped string. Unparsable arguments: the raw text.
 */
function argumentsView(text) {
  if (typeof text !== "string") return tca.boundedText(text, 1500);
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return tca.boundedText(text, 1500);
  }
  const isObject = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
  if (isObject && Object.values(parsed).some((value) => typeof value === "string" && value.includes("\n"))) {
    return tca.el(
      "div",
      { class: "call-arguments" },
      Object.entries(parsed).map(([key, value]) =>
        tca.field(key, tca.boundedText(typeof value === "string" ? value : JSON.stringify(value), 3000)),
      ),
    );
  }
  return tca.boundedText(JSON.stringify(parsed, null, 2), 1500);
}

/** What a tool result record says, in words (the trace keeps sizes and digests, not the file text). */
function toolResultWords(rest) {
  if (rest.tool === "read_file")
    return "read " + tca.text(rest.path) + ": " + tca.formatNumber(rest.chars) + " characters returned to the model";
  if (rest.tool === "write_file")
    return "wrote " + tca.text(rest.path) + ": " + tca.formatNumber(rest.chars) + " characters";
  return tca.text(rest.tool) + ": " + tca.text(rest);
}

/**
 * "6 passed, 0 failed": a test count record in words (anything else as JSON text). Errors and
 * skips are named only when there are some, and no case at all says so: an "error" outcome (the
 * program could not run) never stands beside "0 errors".
 */
function countsText(counts) {
  if (counts === null || typeof counts !== "object") return tca.text(counts);
  const entries = Object.entries(counts);
  if (entries.every(([, value]) => value === 0)) return "no case ran";
  return entries
    .filter(([key, value]) => key === "passed" || key === "failed" || value !== 0)
    .map(([key, value]) => tca.formatNumber(value) + " " + key)
    .join(", ");
}

/**
 * One step of the transcript, Inspect-style: who spoke (model, tool, harness) and what, in reading
 * order; null for records the transcript does not show (the raw events keep every one).
 */
function transcriptStep(record) {
  const { event, ...rest } = eventView(record);
  // head: what the line says (a string or an array of parts); content: below it.
  const step = (role, head, ...content) =>
    tca.el(
      "div",
      { class: "step step-" + role, "data-status": event },
      tca.el(
        "div",
        { class: "step-head" },
        tca.el("span", { class: "role" }, role),
        " ",
        head,
        tca.el("span", { class: "muted" }, " (t=", tca.formatNumber(rest.t), " ms)"),
      ),
      content,
    );
  const badge = (kind, text) => tca.el("span", { class: "badge " + kind }, tca.text(text));
  switch (event) {
    case "task_start":
      return step(
        "harness",
        "task " +
          tca.text(rest.taskId) +
          " starts; tools offered: " +
          (Array.isArray(rest.tools) && rest.tools.length > 0 ? rest.tools.join(", ") : "none"),
      );
    case "model_response": {
      const calls = Array.isArray(rest.toolCalls) ? rest.toolCalls : [];
      return step(
        "model",
        "turn " +
          tca.text(rest.turn) +
          (calls.length > 0 ? ": " + calls.length + " tool call" + (calls.length === 1 ? "" : "s") : ""),
        typeof rest.content === "string" && rest.content !== ""
          ? tca.el("div", { class: "model-text" }, tca.boundedText(rest.content))
          : null,
        calls.map((call) =>
          tca.el(
            "div",
            { class: "tool-call" },
            tca.el("span", { class: "mono call-name" }, "→ ", tca.text(call.name)),
            argumentsView(call.argumentsText ?? call.arguments ?? ""),
          ),
        ),
      );
    }
    case "tool_result":
      return step("tool", toolResultWords(rest));
    case "tool_refused":
      return step(
        "tool",
        ["refused ", tca.text(rest.tool), " ", badge("fail error-code", rest.error), " ", tca.text(rest.message)],
        rest.path !== undefined && rest.path !== null
          ? tca.field("path asked for", tca.boundedText(rest.path, 400))
          : null,
      );
    case "tool_error":
      return step("tool", ["error ", badge("fail error-code", rest.error), " ", tca.text(rest.message ?? "")]);
    case "test_run":
      return step(
        "tool",
        ["run_tests: ", badge(rest.outcome === "passed" ? "pass" : "fail", rest.outcome), " ", countsText(rest.counts)],
        typeof rest.output === "string"
          ? tca.lazyDetails(null, "test output", () => tca.boundedText(rest.output, 4000), false)
          : null,
      );
    case "stop_attempt":
      // The record's own fields say why a stop was not a claim: cut at the length limit, no code
      // block (one-shot), a malformed tool call, or refused until the tests pass (D: the words sent back).
      if (rest.accepted === true)
        return step(
          "harness",
          rest.codeBlock === true
            ? "the reply's code block is the answer: the task ends, claimed done"
            : "the model says it is done: the task ends, claimed done",
        );
      if (rest.truncated === true)
        return step("harness", "the reply was cut at the length limit: no claim; the task ends out of budget");
      if (rest.codeBlock === false) return step("harness", "the reply has no code block: no answer; the task ends");
      if (rest.malformedToolCall === true)
        return step("harness", "a malformed tool call in the text: no claim; the task ends");
      return step(
        "harness",
        "the stop is refused and the model is sent back",
        typeof rest.refusal === "string" ? tca.boundedText(rest.refusal, 600) : null,
      );
    case "model_error":
      return step("harness", ["model error ", badge("fail error-code", rest.error), " ", tca.text(rest.message ?? "")]);
    case "protocol_finding":
      return step("harness", "protocol finding: " + tca.text(rest.kind) + " (" + tca.text(rest.blocks) + " block(s))");
    case "budget_exhausted":
      return step(
        "harness",
        "budget exhausted: " + tca.text(rest.reason) + " after " + tca.text(rest.turns) + " turns",
      );
    case "task_interrupted":
      return step("harness", "interrupted: " + tca.text(rest.note));
    case "grade":
      return step("harness", [
        "graded by the harness: ",
        badge(rest.outcome === "passed" ? "pass" : "fail", rest.outcome),
        " ",
        countsText(rest.counts),
      ]);
    case "diff":
      return typeof rest.diff === "string" ? step("harness", "final change", tca.unifiedDiffText(rest.diff)) : null;
    default:
      // model_request, tool_call (shown with its model response), task_end: in the raw events.
      return null;
  }
}

/** The conversation as a transcript, with every raw event one click away. */
function transcriptView(trace) {
  const steps = trace.map(transcriptStep).filter((node) => node !== null);
  return tca.el(
    "div",
    { class: "transcript" },
    steps.length > 0
      ? tca.paginated(steps, 60, (node) => node)
      : tca.el("p", { class: "muted" }, "no steps in this trace"),
    tca.lazyDetails(
      { class: "raw-events" },
      "raw events (" + trace.length + ")",
      () => tca.paginated(trace, 40, traceEvent),
      false,
    ),
  );
}

function gradeOutput(task) {
  const grade = (task.trace || []).find((record) => record.type === "grade");
  return grade && typeof grade.data.output === "string" ? grade.data.output : null;
}

function flagged(task) {
  return Array.isArray(task.guardrailFlags) && task.guardrailFlags.length > 0;
}

/** The row's badge: "fixed" is green only without guardrail hits; with them it names them in amber. */
function outcomeBadge(task) {
  const words = task.outcome.replace(/_/g, " ");
  if (!flagged(task)) return tca.el("span", { class: "badge " + (task.outcome === "fixed" ? "pass" : "fail") }, words);
  return tca.el(
    "span",
    { class: "badge " + (task.outcome === "fixed" ? "warn" : "fail"), "data-testid": "guardrail-flag" },
    [words, ...task.guardrailFlags].join(" · "),
  );
}

/** Labeled rows (label and value both words) as a compact two-column table. */
function rowsTable(rows, className) {
  return tca.el(
    "table",
    { class: "compact kv " + className },
    tca.el(
      "tbody",
      null,
      rows.map((row) => tca.el("tr", null, tca.el("th", null, row.label), tca.el("td", null, row.value))),
    ),
  );
}

function taskBody(task) {
  return [
    tca.field(
      "outcome",
      outcomeBadge(task),
      task.claimNote ? tca.el("span", { class: "claim-note" }, " ", task.claimNote) : null,
    ),
    tca.field(
      "stop reason / turns / tokens / time",
      task.stopReason,
      " / ",
      String(task.turns),
      " / ",
      tca.formatNumber(task.tokens),
      " / ",
      tca.formatNumber(task.seconds),
      " s",
    ),
    tca.field("grading run", rowsTable(task.gradeRows, "grade-rows")),
    gradeOutput(task) ? tca.field("grading test output", tca.boundedText(gradeOutput(task), 1500)) : null,
    task.guardrailRows.length > 0 ? tca.field("guardrails", rowsTable(task.guardrailRows, "guardrail-rows")) : null,
    tca.field(
      "statements along the way",
      tca.el(
        "ul",
        { class: "statements" },
        task.statements.map((line) => tca.el("li", null, line)),
      ),
    ),
    tca.field("size of the change", tca.el("span", { class: "fix-size" }, task.fixSize)),
    tca.field(
      "diff",
      task.diff === null
        ? tca.el("span", { class: "muted" }, "no diff (file unchanged or not recorded)")
        : tca.unifiedDiffText(task.diff),
    ),
    tca.field(
      "transcript",
      task.trace === null ? tca.el("span", { class: "muted" }, tca.text(task.traceNote)) : transcriptView(task.trace),
    ),
  ];
}

tca.benchView = function benchView(bench) {
  const outcomeFilter = tca.el(
    "select",
    { id: "outcome-filter", "aria-label": "filter by outcome" },
    tca.el("option", { value: "" }, "all outcomes"),
    bench.outcomeClasses.map((o) => tca.el("option", { value: o }, o.replace(/_/g, " "))),
  );
  const conditions = bench.summary.map((s) => s.condition);
  const conditionFilter = tca.el(
    "select",
    { id: "condition-filter", "aria-label": "filter by condition" },
    tca.el("option", { value: "" }, "all conditions"),
    conditions.map((c) => tca.el("option", { value: c }, c)),
  );
  const count = tca.el("span", { class: "muted", id: "task-count" });
  const taskNodes = bench.tasks.map((task) =>
    tca.lazyDetails(
      { class: "task", "data-outcome": task.outcome, "data-condition": task.condition },
      [
        task.taskId,
        " ",
        outcomeBadge(task),
        task.falseFixed ? tca.el("span", { class: "badge fail" }, "false fixed") : null,
      ],
      () => taskBody(task),
      false,
    ),
  );
  const apply = () => {
    let shown = 0;
    taskNodes.forEach((node, i) => {
      const task = bench.tasks[i];
      const visible =
        (outcomeFilter.value === "" || task.outcome === outcomeFilter.value) &&
        (conditionFilter.value === "" || task.condition === conditionFilter.value);
      node.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + " of " + bench.tasks.length + " tasks shown";
  };
  outcomeFilter.addEventListener("change", apply);
  conditionFilter.addEventListener("change", apply);
  apply();
  const manifest = bench.manifest;
  return [
    tca.verdictBox(bench.verdict),
    tca.el("h1", null, "QuixBugs benchmark run ", bench.directoryName),
    tca.kindLabel(bench.label),
    tca.problemsBox(bench.problems),
    tca.el("h2", null, "Results per condition"),
    summaryTables(bench),
    tca.el("h2", null, "Tasks"),
    tca.el("div", { class: "controls" }, outcomeFilter, conditionFilter, count),
    tca.el("div", { id: "tasks" }, taskNodes),
    tca.el("h2", null, "Run manifest"),
    manifest
      ? tca.objectTable(manifest, { id: "manifest-table" })
      : tca.el("p", { class: "muted" }, "run.json is missing or unreadable"),
  ];
};
