/* global document, Element, tca */
// The Lab run view: verdict, kind label, an outline (a link to every section and proposal),
// summary, proposal timeline (the proposal's text, validation, authorization, dispatch,
// observation, diff), charts, manifest, and the paginated audit trail. Only the first proposal
// and the first one that did not end accepted are open: six open proposals made a 9,000-px page
// whose failure was hard to find; the outline reaches every other one and opens it.

const STATUS_TEXT = {
  accepted: "accepted",
  invalid: "INVALID",
  denied: "DENIED",
  tool_error: "TOOL ERROR",
  discarded: "DISCARDED",
  no_proposal: "NO PROPOSAL",
  integrity_failure: "INTEGRITY FAILURE",
  incomplete: "incomplete",
};

function recordsOfType(records, type) {
  return records.filter((record) => record.type === type);
}

function recordData(records, type) {
  const found = records.find((record) => record.type === type);
  return found ? found.data : null;
}

function decisionLine(data, okKey, codeKey) {
  if (data === null || data === undefined) return tca.el("span", { class: "muted" }, "not reached");
  if (data[okKey] === true) return tca.el("span", { class: "badge pass" }, "ok");
  return tca.el(
    "span",
    null,
    tca.el("span", { class: "badge fail error-code" }, tca.text(data[codeKey])),
    " ",
    tca.text(data.message),
  );
}

function editBlock(edit) {
  return tca.el(
    "div",
    { class: "edit", "data-testid": "edit" },
    tca.el(
      "h3",
      null,
      "Edit of ",
      tca.text(edit.function),
      ": version ",
      tca.text(edit.oldVersion),
      " → ",
      tca.text(edit.version),
      " (",
      edit.how,
      ")",
    ),
    tca.el("div", { class: "mono" }, "sha256 before ", tca.text(edit.beforeSha256)),
    tca.el("div", { class: "mono" }, "sha256 after  ", tca.text(edit.sha256)),
    edit.diff ? tca.diffView(edit.diff) : tca.el("p", { class: "muted" }, tca.text(edit.diffNote)),
    edit.diff
      ? tca.el(
          "p",
          { class: "muted" },
          "from ",
          tca.text(edit.beforeFile),
          " to ",
          tca.text(edit.afterFile),
          " (matched by sha256)",
        )
      : null,
    edit.expressionsBefore || edit.expressionsAfter
      ? tca.table(
          ["function", "expression before", "expression after"],
          Object.keys(Object.assign({}, edit.expressionsBefore || {}, edit.expressionsAfter || {})).map((name) =>
            tca.el(
              "tr",
              null,
              tca.el("td", { class: "mono" }, name),
              tca.el("td", { class: "mono" }, tca.text((edit.expressionsBefore || {})[name])),
              tca.el("td", { class: "mono" }, tca.text((edit.expressionsAfter || {})[name])),
            ),
          ),
        )
      : null,
  );
}

/** Counts of each whitespace character, in order of first appearance: "⏎ × 128", "␠ × 3, ⏎ × 2". */
function whitespaceSummary(text) {
  const names = { "\n": "⏎", "\r": "␍", "\t": "⇥", " ": "␠" };
  const counts = new Map();
  for (const ch of text) counts.set(ch, (counts.get(ch) || 0) + 1);
  return [...counts.entries()]
    .map(([ch, n]) => (names[ch] || "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")) + " × " + n)
    .join(", ");
}

/**
 * The proposal's text. Text that is only whitespace (a model emitting 128 newlines) would be a
 * tall blank box: it is shown as its characters' counts instead, with the exact text, escaped,
 * one click away. Either way the evidence stays exact: nothing is trimmed or rewritten.
 */
function proposalText(rawText) {
  const length = tca.el("div", { class: "muted" }, rawText.length + " characters");
  if (rawText.length > 0 && rawText.trim() === "") {
    return tca.el(
      "div",
      { class: "raw-text whitespace-only", "data-testid": "whitespace-only" },
      tca.el("div", { class: "whitespace-summary mono" }, "only whitespace: ", whitespaceSummary(rawText)),
      tca.lazyDetails(
        { class: "exact-text" },
        "exact text, escaped (JSON string)",
        () => tca.boundedText(JSON.stringify(rawText)),
        false,
      ),
      length,
    );
  }
  if (rawText.length === 0)
    return tca.el("div", { class: "raw-text" }, tca.el("span", { class: "muted" }, "empty text"), length);
  return tca.el("div", { class: "raw-text" }, tca.boundedText(rawText), length);
}

/** The proposal's text field: class proposal-text, so its label can be found whatever precedes it. */
tca.textField = function textField(name, content) {
  const field = tca.field(name, content);
  field.classList.add("proposal-text");
  return field;
};

function isScalar(value) {
  return value === null || typeof value !== "object";
}

/** A scalar in one line; a long string bounded. */
function scalarCell(value) {
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return shown.length > 200 || shown.includes("\n")
    ? tca.boundedText(shown, 200)
    : tca.el("span", { class: "mono" }, shown);
}

/**
 * An observation as compact tables instead of pretty-printed JSON: an object is a key/value
 * table, an array of flat objects (the test cases) one row per item, arrays of scalars one line.
 * Deep or irregular values fall back to the bounded JSON text.
 */
function compactValue(value, depth) {
  if (isScalar(value)) return scalarCell(value);
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return tca.el("span", { class: "mono" }, JSON.stringify(value));
    const flat = value.every(
      (item) =>
        item !== null &&
        typeof item === "object" &&
        !Array.isArray(item) &&
        Object.values(item).every((inner) => isScalar(inner) || (Array.isArray(inner) && inner.every(isScalar))),
    );
    if (flat && depth < 4) {
      const columns = [...new Set(value.flatMap((item) => Object.keys(item)))];
      return tca.table(
        columns,
        value.map((item) =>
          tca.el(
            "tr",
            null,
            columns.map((column) => tca.el("td", { class: "mono" }, column in item ? tca.text(item[column]) : "")),
          ),
        ),
        { class: "compact" },
      );
    }
    return tca.boundedText(value);
  }
  if (depth >= 4) return tca.boundedText(value);
  return tca.el(
    "table",
    { class: "compact kv" },
    tca.el(
      "tbody",
      null,
      Object.entries(value).map(([key, inner]) =>
        tca.el("tr", null, tca.el("th", { class: "mono" }, key), tca.el("td", null, compactValue(inner, depth + 1))),
      ),
    ),
  );
}

function proposalBody(proposal, edits, includeRecords, textLabel) {
  const records = proposal.records;
  const validation = recordData(records, "validation");
  const authorization = recordData(records, "authorization");
  const dispatch = recordData(records, "dispatch");
  const observation = recordData(records, "observation");
  const generation = recordData(records, "generation");
  const discarded = recordsOfType(records, "proposal_discarded").concat(
    recordsOfType(records, "late_proposal_discarded"),
  );
  const injected = recordsOfType(records, "synthetic_observation_injected");
  const request = recordData(records, "request");
  return [
    injected.length > 0
      ? tca.field(
          "synthetic observation injected before this proposal",
          injected.map((r) => tca.boundedText(r.data)),
        )
      : null,
    request && request.messages
      ? tca.lazyDetails(
          { class: "request" },
          "model input (" +
            request.messages.length +
            " messages" +
            (request.input_tokens === null || request.input_tokens === undefined
              ? ""
              : ", " + request.input_tokens + " tokens") +
            ")",
          () =>
            request.messages.map((m) =>
              tca.el("div", null, tca.el("strong", null, tca.text(m.role)), tca.boundedText(m.content)),
            ),
        )
      : null,
    tca.textField(
      textLabel,
      proposal.rawText === null
        ? tca.el(
            "span",
            { class: "muted" },
            "no text: ",
            tca.text(generation ? generation.outcome : "no generation"),
            generation && generation.message ? " — " + tca.text(generation.message) : "",
          )
        : proposalText(proposal.rawText),
    ),
    tca.field(
      "tokens / time",
      "input ",
      tca.text(proposal.inputTokens ?? "n/a"),
      ", output ",
      tca.text(proposal.outputTokens ?? "n/a"),
      ", generation ",
      proposal.generationMs === null ? "n/a" : tca.formatNumber(proposal.generationMs) + " ms",
    ),
    tca.field(
      "validation",
      decisionLine(validation, "ok", "error"),
      validation && validation.ok !== true && validation.attempted_action
        ? tca.el("span", { class: "muted" }, " (attempted: " + tca.text(validation.attempted_action) + ")")
        : null,
    ),
    tca.field("authorization", decisionLine(authorization, "allowed", "error")),
    tca.field(
      "dispatched action",
      dispatch ? tca.boundedText(dispatch.action) : tca.el("span", { class: "muted" }, "nothing dispatched"),
    ),
    discarded.length > 0
      ? tca.field(
          "discarded",
          discarded.map((r) => tca.boundedText(r.data)),
        )
      : null,
    tca.field(
      "observation (what the agent saw)",
      observation ? observationView(observation.observation) : tca.el("span", { class: "muted" }, "none"),
    ),
    edits.map(editBlock),
    includeRecords
      ? tca.lazyDetails({ class: "records" }, "all " + records.length + " audit records of this proposal", () =>
          records.map(recordRow),
        )
      : null,
  ];
}

/** The observation as recorded; a file's content is shown as text rather than as an escaped JSON string. */
function observationView(observation) {
  if (observation === null || typeof observation !== "object" || typeof observation.content !== "string")
    return compactValue(observation, 0);
  const { content, ...rest } = observation;
  return tca.el(
    "div",
    null,
    compactValue(rest, 0),
    tca.el("div", { class: "muted" }, "content:"),
    tca.boundedText(content),
  );
}

function recordRow(record) {
  return tca.el(
    "div",
    { class: "record" },
    tca.el(
      "span",
      { class: "mono" },
      "#",
      tca.text(record.event_id),
      " ",
      tca.text(record.type),
      " t=",
      tca.text(record.t_ms),
    ),
    tca.boundedText(record.data, 600),
  );
}

function proposalSummary(proposal) {
  return [
    "Proposal ",
    String(proposal.number),
    " ",
    tca.el("span", { class: "badge " + proposal.status }, STATUS_TEXT[proposal.status] || proposal.status),
    proposal.code ? tca.el("span", { class: "mono error-code" }, " ", proposal.code) : null,
    proposal.action ? tca.el("span", { class: "muted" }, " — ", proposal.action) : null,
  ];
}

/** The proposals drawn open: the first, and the first that did not end accepted (where a reader looks). */
function openProposalNumbers(proposals) {
  const open = new Set();
  if (proposals.length > 0) open.add(proposals[0].number);
  const firstFailure = proposals.find((proposal) => proposal.status !== "accepted");
  if (firstFailure) open.add(firstFailure.number);
  return open;
}

tca.timeline = function timeline(lab, options) {
  const open = options.open ? openProposalNumbers(lab.proposals) : new Set();
  return lab.proposals.map((proposal) =>
    tca.lazyDetails(
      {
        class: "proposal status-" + proposal.status,
        "data-status": proposal.status,
        id: (options.idPrefix || "") + "proposal-" + proposal.number,
      },
      proposalSummary(proposal),
      () =>
        proposalBody(
          proposal,
          lab.edits.filter((edit) => edit.proposal === proposal.number),
          options.includeRecords,
          lab.textLabel || "proposal text, exactly as recorded",
        ),
      open.has(proposal.number),
    ),
  );
};

/** The page's outline: a link to each section and each proposal (with its status), at the top. */
function outline(lab, allRecords) {
  const link = (id, ...content) => tca.el("a", { href: "#" + id }, ...content);
  const nav = tca.el(
    "nav",
    { id: "outline", "aria-label": "outline" },
    tca.el("strong", null, "On this page"),
    tca.el(
      "ol",
      null,
      tca.el("li", null, link("section-summary", "Summary")),
      tca.el("li", null, link("cases", "Final-evaluation cases")),
      tca.el(
        "li",
        null,
        link("section-proposals", "Proposals (", String(lab.proposals.length), ")"),
        tca.el(
          "ol",
          { class: "proposal-links" },
          lab.proposals.map((proposal) =>
            tca.el("li", null, link("proposal-" + proposal.number, proposalSummary(proposal))),
          ),
        ),
      ),
      tca.el("li", null, link("section-edits", "Committed edits (", String(lab.edits.length), ")")),
      tca.el("li", null, link("section-charts", "Tokens and time")),
      tca.el("li", null, link("manifest-details", "Manifest")),
      tca.el("li", null, link("audit", "Audit trail (", String(allRecords.length), " records)")),
    ),
  );
  // Following a link to a collapsed part opens it (the browser then scrolls to it as usual).
  nav.addEventListener("click", (event) => {
    const anchor = event.target instanceof Element ? event.target.closest("a") : null;
    const target = anchor ? document.getElementById(anchor.getAttribute("href").slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  });
  return nav;
}

function summaryTable(lab) {
  const final = lab.final || {};
  const evaluation = final.final_evaluation || {};
  // These rows are final.json's own words; when the evidence is invalid they are labelled as claims.
  const claim = lab.verdict.tone === "invalid" ? " (final.json claims; not verified)" : "";
  const rows = [
    ["run directory", lab.directoryName],
    ["run id", lab.runId],
    ["stop reason (audit)", lab.stopReason],
    ["verified_success" + claim, final.verified_success === undefined ? "not recorded" : final.verified_success],
    ["final evaluation", evaluation.status],
    ["public cases passed", tca.text(evaluation.public_passed) + "/" + tca.text(evaluation.public_total)],
    ["held-out cases passed", tca.text(evaluation.held_out_passed) + "/" + tca.text(evaluation.held_out_total)],
    ["evaluated version / sha256", tca.text(evaluation.version) + " / " + tca.text(evaluation.sha256)],
    ["proposals used", final.proposals_used],
    ["invalid proposals", final.invalid_proposals],
    ["proposal source", lab.manifest && lab.manifest.proposal_source ? lab.manifest.proposal_source.label : null],
  ];
  return tca.el(
    "table",
    { id: "summary" },
    tca.el(
      "tbody",
      null,
      rows.map(([name, value]) =>
        tca.el("tr", null, tca.el("th", null, name), tca.el("td", { class: "mono" }, tca.text(value))),
      ),
    ),
  );
}

function casesTable(final) {
  const cases =
    final && final.final_evaluation && Array.isArray(final.final_evaluation.cases) ? final.final_evaluation.cases : [];
  if (cases.length === 0) return tca.el("p", { class: "muted" }, "no final-evaluation cases recorded");
  return tca.table(
    ["set", "function", "inputs", "expected", "actual", "error", "result"],
    cases.map((c) =>
      tca.el(
        "tr",
        { class: c.passed ? "" : "failed" },
        tca.el("td", null, tca.text(c.set)),
        tca.el("td", null, tca.text(c.function)),
        tca.el("td", { class: "mono" }, tca.text(c.inputs)),
        tca.el("td", { class: "num" }, tca.text(c.expected)),
        tca.el("td", { class: "num" }, tca.text(c.actual)),
        tca.el("td", null, tca.text(c.error)),
        tca.el(
          "td",
          null,
          tca.el("span", { class: "badge " + (c.passed ? "pass" : "fail") }, c.passed ? "pass" : "fail"),
        ),
      ),
    ),
  );
}

function charts(lab) {
  const tokenItems = [];
  for (const p of lab.proposals) {
    if (p.inputTokens !== null)
      tokenItems.push({ label: "proposal " + p.number + " input", value: p.inputTokens, color: "#0969da" });
    if (p.outputTokens !== null)
      tokenItems.push({ label: "proposal " + p.number + " output", value: p.outputTokens, color: "#8250df" });
  }
  const timeItems = lab.proposals
    .filter((p) => p.generationMs !== null)
    .map((p) => ({ label: "proposal " + p.number, value: p.generationMs }));
  const phaseItems = lab.phases.map((phase) => ({
    label: phase.name,
    value: phase.ms,
    color: phase.name === "total" ? "#57606a" : "#1a7f37",
  }));
  return [
    tokenItems.length > 0
      ? tca.barChart("Token counts per proposal", tokenItems, "tokens")
      : tca.el("p", { class: "muted" }, "No token counts recorded (scripted proposals have none)."),
    timeItems.length > 0 ? tca.barChart("Generation time per proposal", timeItems, "ms") : null,
    phaseItems.length > 0 ? tca.barChart("Elapsed time per phase (final.json)", phaseItems, "ms") : null,
  ];
}

function manifestSection(manifest) {
  if (!manifest) return tca.el("p", { class: "muted" }, "manifest.json is missing or unreadable");
  const { harness, prompt, contract, ...rest } = manifest;
  return [
    // Closed: a model run's manifest is some 5,000 px of rows (engine, threads, hashes).
    tca.lazyDetails(
      { id: "manifest-details" },
      "manifest.json: " + Object.keys(rest).length + " top-level fields (what ran: source, runtime, budgets, hashes)",
      () => tca.objectTable(rest, { id: "manifest-table" }),
      false,
    ),
    prompt
      ? tca.lazyDetails(null, "fixed prompt (system instruction)", () => [
          tca.boundedText(prompt.system_instruction),
          tca.el("div", { class: "mono" }, "sha256 ", tca.text(prompt.system_instruction_sha256)),
        ])
      : null,
    contract
      ? tca.lazyDetails(null, "tool contract", () => [
          tca.boundedText(contract.text),
          tca.el("div", { class: "mono" }, "sha256 ", tca.text(contract.sha256)),
        ])
      : null,
    harness ? tca.lazyDetails(null, "harness file hashes", () => tca.objectTable(harness)) : null,
  ];
}

tca.labView = function labView(lab) {
  const allRecords = lab.runRecords
    .concat(...lab.proposals.map((p) => p.records))
    .sort((a, b) => (a.event_id || 0) - (b.event_id || 0));
  // The verdict comes first, above the title: EVIDENCE INVALID must be the first thing a person sees.
  return [
    tca.verdictBox(lab.verdict),
    tca.el("h1", null, "Lab run ", lab.directoryName),
    tca.kindLabel(lab.label),
    tca.problemsBox(lab.problems),
    outline(lab, allRecords),
    tca.el("h2", { id: "section-summary" }, "Summary"),
    summaryTable(lab),
    tca.lazyDetails({ id: "cases" }, "final-evaluation cases", () => casesTable(lab.final), false),
    tca.el("h2", { id: "section-proposals" }, "Proposals (", String(lab.proposals.length), ")"),
    tca.el(
      "p",
      { class: "muted" },
      "The first proposal and the first that did not end accepted are open; the outline above opens any other.",
    ),
    tca.el("div", { id: "timeline" }, tca.timeline(lab, { open: true, includeRecords: true })),
    tca.el("h2", { id: "section-edits" }, "Committed edits (", String(lab.edits.length), ")"),
    tca.el(
      "div",
      { id: "edits" },
      lab.edits.length > 0 ? lab.edits.map(editBlock) : tca.el("p", { class: "muted" }, "no edit was committed"),
    ),
    tca.el("h2", { id: "section-charts" }, "Tokens and time"),
    tca.el("div", { id: "charts" }, charts(lab)),
    tca.el("h2", { id: "section-manifest" }, "Manifest"),
    tca.el("div", { id: "manifest" }, manifestSection(lab.manifest)),
    tca.el("h2", { id: "section-audit" }, "Audit trail (", String(allRecords.length), " records)"),
    tca.lazyDetails(
      { id: "audit" },
      "show the audit records, 50 per page",
      () => tca.paginated(allRecords, 50, recordRow),
      false,
    ),
  ];
};

tca.compactLabView = function compactLabView(lab, idPrefix, refusalExpected) {
  return [
    tca.kindLabel(lab.label, true),
    refusalExpected
      ? tca.el(
          "p",
          { class: "expected-refusal" },
          "This check passed: its run was refused as the check expects, so the run's own verdict below is not a success, by design.",
        )
      : null,
    tca.verdictBox(lab.verdict, true),
    tca.problemsBox(lab.problems, true),
    tca.timeline(lab, { open: false, includeRecords: false, idPrefix }),
  ];
};
