/* global tca */
// The checks run view: the negative checks with expected and observed codes, failures first,
// each with its own run's timeline on demand. At 1,280 px the table must read without breaking a
// word: codes break only after an underscore (a <wbr>, never inside a word), short cells and the
// headers never wrap, the problems column is drawn only when a check has a problem, and a
// passed check's run row stays folded away until asked for (a disclosure row under each of 44
// checks doubled the page); a failed check's run row is shown, where a reader looks first.

/**
 * A negative check's run is meant to be refused, so its own verdict is never a success; for a
 * passed check that is the expected result and is worded as such (a bare "not verified" beside
 * every passed check read like twenty failures). A failed check keeps the run's verdict as is.
 */
function checkRunSummary(check) {
  // The run's headline names its source first ("NEGATIVE CHECK · NOT VERIFIED", src/core/resultLabel.ts);
  // inside a check's row the source is the row itself, so only the verdict after the last " · " is shown.
  const verdict = check.run.verdict.headline.split(" · ").pop().toLowerCase();
  const proposals = check.run.proposals.length + " proposal" + (check.run.proposals.length === 1 ? "" : "s");
  if (check.passed)
    return (
      "its run " +
      tca.text(check.runDirectoryName) +
      ": " +
      proposals +
      ", refused as this check expects (the run's own verdict: " +
      verdict +
      ", by design)"
    );
  return "its run " + tca.text(check.runDirectoryName) + ": " + proposals + ", " + verdict;
}

tca.checksView = function checksView(checks) {
  const onlyFailed = tca.el("input", { type: "checkbox", id: "only-failed" });
  const withProblems = checks.checks.some((check) => check.problems.length > 0);
  const rows = [];
  const entries = [];
  for (const check of checks.checks) {
    const status = check.passed ? "passed" : "failed";
    const cells = [
      tca.el("td", { class: "check-id" }, tca.code(check.id)),
      tca.el("td", { class: "description" }, check.description),
      tca.el("td", { class: "expected" }, tca.code(check.expected)),
      tca.el("td", { class: "observed" }, tca.code(check.observed)),
      tca.el("td", { class: "unchanged" }, check.unchanged),
      tca.el("td", { class: "stop-reason" }, tca.code(check.stopReason)),
      tca.el(
        "td",
        { class: "result" },
        tca.el("span", { class: "badge " + (check.passed ? "pass" : "fail") }, check.passed ? "pass" : "FAIL"),
      ),
    ];
    if (withProblems)
      cells.push(
        tca.el(
          "td",
          { class: "check-problems" },
          check.problems.length === 0
            ? ""
            : tca.el(
                "ul",
                null,
                check.problems.map((p) => tca.el("li", null, p)),
              ),
        ),
      );
    const entry = { check, row: null, detailRow: null, expanded: !check.passed };
    if (check.run) {
      const details = tca.lazyDetails(
        null,
        checkRunSummary(check),
        () => tca.compactLabView(check.run, "check-" + check.id + "-", check.passed),
        false,
      );
      const toggle = tca.el("button", { type: "button", class: "run-toggle" });
      entry.detailRow = tca.el(
        "tr",
        { class: "check-run " + status },
        tca.el("td", { colspan: cells.length + 1 }, details),
      );
      entry.toggle = toggle;
      entry.details = details;
      toggle.addEventListener("click", () => {
        entry.expanded = !entry.expanded;
        if (entry.expanded) details.open = true;
        apply();
      });
      cells.push(tca.el("td", { class: "run" }, toggle));
    } else cells.push(tca.el("td", { class: "run muted" }, "no run"));
    entry.row = tca.el("tr", { class: "check " + status, "data-status": status }, cells);
    rows.push(entry.row);
    if (entry.detailRow) rows.push(entry.detailRow);
    entries.push(entry);
  }
  function apply() {
    for (const entry of entries) {
      const filtered = onlyFailed.checked && entry.check.passed;
      entry.row.hidden = filtered;
      if (entry.detailRow) {
        entry.detailRow.hidden = filtered || !entry.expanded;
        entry.toggle.textContent = entry.expanded ? "hide run" : "show run";
      }
    }
  }
  onlyFailed.addEventListener("change", apply);
  apply();
  const headers = ["check", "description", "expected", "observed", "unchanged", "run's stop", "result"];
  if (withProblems) headers.push("problems");
  headers.push("its run");
  return [
    tca.verdictBox(checks.verdict),
    // The folder is usually named "checks": the heading names it apart, never "Negative checks checks".
    tca.el("h1", null, "Negative checks"),
    tca.el("p", null, "Folder: ", checks.directoryName),
    tca.problemsBox(checks.problems),
    tca.el(
      "p",
      null,
      String(checks.passed),
      " passed, ",
      String(checks.failed),
      " failed, ",
      String(checks.total),
      " in all. A failed check's run is shown below its row; a passed check's run opens with its \"show run\" button.",
    ),
    tca.el("div", { class: "controls" }, tca.el("label", null, onlyFailed, " show only failed checks")),
    tca.table(headers, rows, { id: "checks-table" }),
  ];
};
