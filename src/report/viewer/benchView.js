/* global tca */
// The QuixBugs bench view: result tables per condition, a chart of outcome classes per
// condition, and per task a collapsible trace with its diff and test output, filterable by
// outcome and condition. Task bodies render only when opened; traces are paginated.

const OUTCOME_COLORS = { fixed: "#1a7f37", wrong_fix: "#cf222e", no_change: "#8c959f", broken_file: "#953800", out_of_budget: "#9a6700", model_error: "#8250df" };

function outcomeChart(bench) {
  const conditions = bench.summary.map((s) => s.condition);
  const width = 640;
  const rowHeight = 24;
  const labelWidth = 120;
  const svg = tca.svg("svg", { width, height: conditions.length * rowHeight + 4, viewBox: "0 0 " + width + " " + (conditions.length * rowHeight + 4), "aria-label": "outcome classes per condition" });
  conditions.forEach((condition, index) => {
    const tasks = bench.tasks.filter((t) => t.condition === condition);
    const y = index * rowHeight + 2;
    svg.appendChild(tca.svg("text", { x: 0, y: y + 14 }, condition));
    let x = labelWidth;
    for (const outcome of bench.outcomeClasses) {
      const n = tasks.filter((t) => t.outcome === outcome).length;
      if (n === 0) continue;
      const w = ((width - labelWidth - 10) * n) / Math.max(1, tasks.length);
      svg.appendChild(tca.svg("rect", { x, y, width: w, height: rowHeight - 6, fill: OUTCOME_COLORS[outcome] || "#57606a" }, tca.svg("title", null, outcome + ": " + n)));
      if (w > 18) svg.appendChild(tca.svg("text", { x: x + 3, y: y + 13, fill: "#ffffff" }, String(n)));
      x += w;
    }
  });
  const legend = tca.el("div", { class: "legend" }, bench.outcomeClasses.map((outcome) => {
    const swatch = tca.el("span", { class: "swatch" });
    swatch.style.background = OUTCOME_COLORS[outcome] || "#57606a";
    return tca.el("span", null, swatch, outcome.replace(/_/g, " "));
  }));
  return tca.el("figure", { class: "chart", id: "outcome-chart" }, tca.el("figcaption", null, "Outcome classes per condition"), svg, legend);
}

function summaryTables(bench) {
  const pct = (x) => (typeof x === "number" ? (x * 100).toFixed(1) + "%" : "");
  const num = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : tca.text(x));
  const outcomes = tca.table(
    ["condition", "tasks", "fixed", "wrong fix", "no change", "broken file", "out of budget", "model error", "claimed fixed", "false fixed", "turns (mean)", "tokens (mean)", "time (median, s)"],
    bench.summary.map((s) => tca.el("tr", null, tca.el("td", null, tca.text(s.label || s.condition)), [s.tasks, pct(s.fixedRate) + " (" + tca.text(s.fixed) + ")" + (Array.isArray(s.fixedRateCi95) ? " 95% " + pct(s.fixedRateCi95[0]) + "–" + pct(s.fixedRateCi95[1]) : ""), s.wrongFix, s.noChange, s.brokenFile, s.outOfBudget, s.modelError, s.claimedFixed, s.falseFixed, num(s.turnsMean, 1), num(s.tokensMean, 0), num(s.timeMedianSeconds, 1)].map((v) => tca.el("td", { class: "num" }, tca.text(v))))),
    { id: "bench-summary" },
  );
  const guardrails = tca.table(
    ["condition", "test runs", "blocked writes", "test edit attempts", "blocked reads", "reference reads", "tool errors", "refused stops"],
    bench.summary.map((s) => tca.el("tr", null, tca.el("td", null, tca.text(s.label || s.condition)), [s.testRuns, s.blockedWrites, s.testEditAttempts, s.blockedReads, s.referenceReadAttempts, s.toolErrors, s.refusedStopAttempts].map((v) => tca.el("td", { class: "num" }, tca.text(v))))),
    { id: "bench-guardrails" },
  );
  return [tca.el("h3", null, "Outcomes"), outcomes, tca.el("h3", null, "Guardrails"), guardrails];
}

/** One trace event: the fields a reader needs first, the rest (and the raw HTTP exchange) on demand. */
function traceEvent(record) {
  const { v, event, t, exchange, ...rest } = record;
  void v;
  const parts = [];
  if (event === "model_response") {
    if (typeof rest.content === "string" && rest.content !== "") parts.push(tca.field("model text, as returned", tca.el("div", { class: "model-text" }, tca.boundedText(rest.content))));
    if (Array.isArray(rest.toolCalls) && rest.toolCalls.length > 0) parts.push(tca.field("tool calls", rest.toolCalls.map((call) => tca.el("div", null, tca.el("span", { class: "mono" }, tca.text(call.name)), tca.boundedText(call.argumentsText ?? call.arguments ?? "", 600)))));
    parts.push(tca.el("div", { class: "muted" }, "finish: ", tca.text(rest.finishReason), "; usage: ", tca.text(rest.usage)));
  } else if (event === "tool_refused" || event === "tool_error" || event === "model_error") {
    parts.push(tca.el("div", null, tca.el("span", { class: "badge fail error-code" }, tca.text(rest.error ?? event)), " ", tca.text(rest.tool ?? ""), " ", tca.text(rest.message ?? "")));
    if (rest.path !== undefined) parts.push(tca.field("path asked for", tca.boundedText(rest.path, 400)));
  } else if (event === "test_run" || event === "grade") {
    parts.push(tca.el("div", null, tca.el("span", { class: "badge " + (rest.outcome === "passed" ? "pass" : "fail") }, tca.text(rest.outcome)), " ", tca.text(rest.counts)));
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
    exchange !== undefined ? tca.lazyDetails(null, "raw HTTP exchange", () => tca.boundedText(exchange, 4000), false) : null,
  );
}

function gradeOutput(task) {
  const grade = (task.trace || []).find((record) => record.event === "grade");
  return grade && typeof grade.output === "string" ? grade.output : null;
}

function taskBody(task) {
  const grade = task.grade || {};
  return [
    tca.field("outcome", tca.el("span", { class: "badge " + (task.outcome === "fixed" ? "pass" : "fail") }, task.outcome), task.falseFixed ? " — claimed fixed but grading failed (false fixed)" : ""),
    tca.field("stop reason / turns / tokens / time", task.stopReason, " / ", String(task.turns), " / ", String(task.tokens), " / ", tca.formatNumber(task.seconds), " s"),
    tca.field("grading run", tca.el("span", null, tca.text(grade.outcome), " ", tca.text(grade.counts), " — ", tca.text(grade.summary))),
    gradeOutput(task) ? tca.field("grading test output", tca.boundedText(gradeOutput(task), 1500)) : null,
    task.guardrails ? tca.field("guardrails", tca.objectTable(task.guardrails)) : null,
    tca.field("diff", task.diff === null ? tca.el("span", { class: "muted" }, "no diff (file unchanged or not recorded)") : tca.unifiedDiffText(task.diff)),
    tca.field("trace", task.trace === null ? tca.el("span", { class: "muted" }, tca.text(task.traceNote)) : tca.paginated(task.trace, 40, traceEvent)),
  ];
}

tca.benchView = function benchView(bench) {
  const outcomeFilter = tca.el("select", { id: "outcome-filter", "aria-label": "filter by outcome" }, tca.el("option", { value: "" }, "all outcomes"), bench.outcomeClasses.map((o) => tca.el("option", { value: o }, o.replace(/_/g, " "))));
  const conditions = bench.summary.map((s) => s.condition);
  const conditionFilter = tca.el("select", { id: "condition-filter", "aria-label": "filter by condition" }, tca.el("option", { value: "" }, "all conditions"), conditions.map((c) => tca.el("option", { value: c }, c)));
  const count = tca.el("span", { class: "muted", id: "task-count" });
  const taskNodes = bench.tasks.map((task) =>
    tca.lazyDetails(
      { class: "task", "data-outcome": task.outcome, "data-condition": task.condition },
      [task.taskId, " ", tca.el("span", { class: "badge " + (task.outcome === "fixed" ? "pass" : "fail") }, task.outcome.replace(/_/g, " ")), task.falseFixed ? tca.el("span", { class: "badge fail" }, "false fixed") : null],
      () => taskBody(task),
      false,
    ),
  );
  const apply = () => {
    let shown = 0;
    taskNodes.forEach((node, i) => {
      const task = bench.tasks[i];
      const visible = (outcomeFilter.value === "" || task.outcome === outcomeFilter.value) && (conditionFilter.value === "" || task.condition === conditionFilter.value);
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
    outcomeChart(bench),
    tca.el("h2", null, "Tasks"),
    tca.el("div", { class: "controls" }, outcomeFilter, conditionFilter, count),
    tca.el("div", { id: "tasks" }, taskNodes),
    tca.el("h2", null, "Run manifest"),
    manifest ? tca.objectTable(manifest, { id: "manifest-table" }) : tca.el("p", { class: "muted" }, "run.json is missing or unreadable"),
  ];
};
