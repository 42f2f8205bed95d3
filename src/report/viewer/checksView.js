/* global tca */
// The checks run view: the negative checks with expected and observed codes, failures first,
// each with its own run's timeline on demand.

tca.checksView = function checksView(checks) {
  const onlyFailed = tca.el("input", { type: "checkbox", id: "only-failed" });
  const rows = [];
  for (const check of checks.checks) {
    const row = tca.el(
      "tr",
      { class: "check " + (check.passed ? "passed" : "failed"), "data-status": check.passed ? "passed" : "failed" },
      tca.el("td", { class: "mono" }, check.id),
      tca.el("td", null, check.description),
      tca.el("td", { class: "mono expected" }, check.expected),
      tca.el("td", { class: "mono observed" }, check.observed),
      tca.el("td", null, check.unchanged),
      tca.el("td", { class: "mono stop-reason" }, check.stopReason),
      tca.el("td", null, tca.el("span", { class: "badge " + (check.passed ? "pass" : "fail") }, check.passed ? "pass" : "FAIL")),
      tca.el("td", null, check.problems.length === 0 ? "" : tca.el("ul", null, check.problems.map((p) => tca.el("li", null, p)))),
    );
    rows.push(row);
    if (check.run) {
      const detailRow = tca.el(
        "tr",
        { class: "check-run " + (check.passed ? "passed" : "failed") },
        tca.el("td", { colspan: 8 }, tca.lazyDetails(null, "run " + tca.text(check.runDirectoryName) + ": " + check.run.proposals.length + " proposal(s), " + check.run.verdict.headline.toLowerCase(), () => tca.compactLabView(check.run, "check-" + check.id + "-"), false)),
      );
      rows.push(detailRow);
    }
  }
  onlyFailed.addEventListener("change", () => {
    for (const row of rows) row.hidden = onlyFailed.checked && row.classList.contains("passed");
  });
  return [
    tca.verdictBox(checks.verdict),
    // The folder is usually named "checks": the heading names it apart, never "Negative checks checks".
    tca.el("h1", null, "Negative checks"),
    tca.el("p", null, "Folder: ", checks.directoryName),
    tca.problemsBox(checks.problems),
    tca.el("p", null, String(checks.passed), " passed, ", String(checks.failed), " failed, ", String(checks.total), " in all."),
    tca.el("div", { class: "controls" }, tca.el("label", null, onlyFailed, " show only failed checks")),
    tca.table(["check", "description", "expected", "observed", "unchanged", "run's stop", "result", "problems"], rows, { id: "checks-table" }),
  ];
};
