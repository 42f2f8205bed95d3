/* global tca */
// The checks run view: the negative checks with expected and observed codes, failures first,
// each with its own run's timeline on demand. The table wraps long codes rather than widen the
// page (it stays inside the 1,200-px column; a test measures it in Chromium).

/**
 * A negative check's run is meant to be refused, so its own verdict is never a success; for a
 * passed check that is the expected result and is worded as such (a bare "not verified" beside
 * every passed check read like twenty failures). A failed check keeps the run's verdict as is.
 */
function checkRunSummary(check) {
  const proposals = check.run.proposals.length + " proposal" + (check.run.proposals.length === 1 ? "" : "s");
  if (check.passed)
    return (
      "its run " +
      tca.text(check.runDirectoryName) +
      ": " +
      proposals +
      ", refused as this check expects (the run's own verdict: " +
      check.run.verdict.headline.toLowerCase() +
      ", by design)"
    );
  return (
    "its run " + tca.text(check.runDirectoryName) + ": " + proposals + ", " + check.run.verdict.headline.toLowerCase()
  );
}

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
      tca.el(
        "td",
        null,
        tca.el("span", { class: "badge " + (check.passed ? "pass" : "fail") }, check.passed ? "pass" : "FAIL"),
      ),
      tca.el(
        "td",
        null,
        check.problems.length === 0
          ? ""
          : tca.el(
              "ul",
              null,
              check.problems.map((p) => tca.el("li", null, p)),
            ),
      ),
    );
    rows.push(row);
    if (check.run) {
      const detailRow = tca.el(
        "tr",
        { class: "check-run " + (check.passed ? "passed" : "failed") },
        tca.el(
          "td",
          { colspan: 8 },
          tca.lazyDetails(
            null,
            checkRunSummary(check),
            () => tca.compactLabView(check.run, "check-" + check.id + "-", check.passed),
            false,
          ),
        ),
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
    tca.el(
      "p",
      null,
      String(checks.passed),
      " passed, ",
      String(checks.failed),
      " failed, ",
      String(checks.total),
      " in all.",
    ),
    tca.el("div", { class: "controls" }, tca.el("label", null, onlyFailed, " show only failed checks")),
    tca.table(["check", "description", "expected", "observed", "unchanged", "run's stop", "result", "problems"], rows, {
      id: "checks-table",
    }),
  ];
};
