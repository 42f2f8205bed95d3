/* global tca */
// The Lab run view: verdict, kind label, summary, proposal timeline (raw text, validation,
// authorization, dispatch, observation, diff), charts, manifest, and the paginated audit trail.

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
  return tca.el("span", null, tca.el("span", { class: "badge fail error-code" }, tca.text(data[codeKey])), " ", tca.text(data.message));
}

function editBlock(edit) {
  return tca.el(
    "div",
    { class: "edit", "data-testid": "edit" },
    tca.el("h3", null, "Edit of ", tca.text(edit.function), ": version ", tca.text(edit.oldVersion), " → ", tca.text(edit.version), " (", edit.how, ")"),
    tca.el("div", { class: "mono" }, "sha256 before ", tca.text(edit.beforeSha256)),
    tca.el("div", { class: "mono" }, "sha256 after  ", tca.text(edit.sha256)),
    edit.diff ? tca.diffView(edit.diff) : tca.el("p", { class: "muted" }, tca.text(edit.diffNote)),
    edit.diff ? tca.el("p", { class: "muted" }, "from ", tca.text(edit.beforeFile), " to ", tca.text(edit.afterFile), " (matched by sha256)") : null,
    edit.expressionsBefore || edit.expressionsAfter
      ? tca.table(
          ["function", "expression before", "expression after"],
          Object.keys(Object.assign({}, edit.expressionsBefore || {}, edit.expressionsAfter || {})).map((name) =>
            tca.el("tr", null, tca.el("td", { class: "mono" }, name), tca.el("td", { class: "mono" }, tca.text((edit.expressionsBefore || {})[name])), tca.el("td", { class: "mono" }, tca.text((edit.expressionsAfter || {})[name]))),
          ),
        )
      : null,
  );
}

function proposalBody(proposal, edits, includeRecords) {
  const records = proposal.records;
  const validation = recordData(records, "validation");
  const authorization = recordData(records, "authorization");
  const dispatch = recordData(records, "dispatch");
  const observation = recordData(records, "observation");
  const generation = recordData(records, "generation");
  const discarded = recordsOfType(records, "proposal_discarded").concat(recordsOfType(records, "late_proposal_discarded"));
  const injected = recordsOfType(records, "synthetic_observation_injected");
  const request = recordData(records, "request");
  return [
    injected.length > 0 ? tca.field("synthetic observation injected before this proposal", injected.map((r) => tca.boundedText(r.data))) : null,
    request && request.messages ? tca.lazyDetails({ class: "request" }, "model input (" + request.messages.length + " messages" + (request.input_tokens === null || request.input_tokens === undefined ? "" : ", " + request.input_tokens + " tokens") + ")", () => request.messages.map((m) => tca.el("div", null, tca.el("strong", null, tca.text(m.role)), tca.boundedText(m.content)))) : null,
    tca.field(
      "raw model text, exactly as generated",
      proposal.rawText === null
        ? tca.el("span", { class: "muted" }, "no text: ", tca.text(generation ? generation.outcome : "no generation"), generation && generation.message ? " — " + tca.text(generation.message) : "")
        : tca.el("div", { class: "raw-text" }, tca.boundedText(proposal.rawText), tca.el("div", { class: "muted" }, proposal.rawText.length + " characters")),
    ),
    tca.field("tokens / time", "input ", tca.text(proposal.inputTokens ?? "n/a"), ", output ", tca.text(proposal.outputTokens ?? "n/a"), ", generation ", proposal.generationMs === null ? "n/a" : tca.formatNumber(proposal.generationMs) + " ms"),
    tca.field("validation", decisionLine(validation, "ok", "error"), validation && validation.ok !== true && validation.attempted_action ? tca.el("span", { class: "muted" }, " (attempted: " + tca.text(validation.attempted_action) + ")") : null),
    tca.field("authorization", decisionLine(authorization, "allowed", "error")),
    tca.field("dispatched action", dispatch ? tca.boundedText(dispatch.action) : tca.el("span", { class: "muted" }, "nothing dispatched")),
    discarded.length > 0 ? tca.field("discarded", discarded.map((r) => tca.boundedText(r.data))) : null,
    tca.field("observation (what the agent saw)", observation ? observationView(observation.observation) : tca.el("span", { class: "muted" }, "none")),
    edits.map(editBlock),
    includeRecords ? tca.lazyDetails({ class: "records" }, "all " + records.length + " audit records of this proposal", () => records.map(recordRow)) : null,
  ];
}

/** The observation as recorded; a file's content is shown as text rather than as an escaped JSON string. */
function observationView(observation) {
  if (observation === null || typeof observation !== "object" || typeof observation.content !== "string") return tca.boundedText(observation);
  const { content, ...rest } = observation;
  return tca.el("div", null, tca.boundedText(rest), tca.el("div", { class: "muted" }, "content:"), tca.boundedText(content));
}

function recordRow(record) {
  return tca.el("div", { class: "record" }, tca.el("span", { class: "mono" }, "#", tca.text(record.event_id), " ", tca.text(record.type), " t=", tca.text(record.t_ms)), tca.boundedText(record.data, 600));
}

function proposalSummary(proposal) {
  return [
    "Proposal ", String(proposal.number), " ",
    tca.el("span", { class: "badge " + proposal.status }, STATUS_TEXT[proposal.status] || proposal.status),
    proposal.code ? tca.el("span", { class: "mono error-code" }, " ", proposal.code) : null,
    proposal.action ? tca.el("span", { class: "muted" }, " — ", proposal.action) : null,
  ];
}

tca.timeline = function timeline(lab, options) {
  const openAll = lab.proposals.length <= 10;
  return lab.proposals.map((proposal) =>
    tca.lazyDetails(
      { class: "proposal status-" + proposal.status, "data-status": proposal.status, id: (options.idPrefix || "") + "proposal-" + proposal.number },
      proposalSummary(proposal),
      () => proposalBody(proposal, lab.edits.filter((edit) => edit.proposal === proposal.number), options.includeRecords),
      openAll && options.open,
    ),
  );
};

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
  return tca.el("table", { id: "summary" }, tca.el("tbody", null, rows.map(([name, value]) => tca.el("tr", null, tca.el("th", null, name), tca.el("td", { class: "mono" }, tca.text(value))))));
}

function casesTable(final) {
  const cases = final && final.final_evaluation && Array.isArray(final.final_evaluation.cases) ? final.final_evaluation.cases : [];
  if (cases.length === 0) return tca.el("p", { class: "muted" }, "no final-evaluation cases recorded");
  return tca.table(
    ["set", "function", "inputs", "expected", "actual", "error", "result"],
    cases.map((c) => tca.el("tr", { class: c.passed ? "" : "failed" }, tca.el("td", null, tca.text(c.set)), tca.el("td", null, tca.text(c.function)), tca.el("td", { class: "mono" }, tca.text(c.inputs)), tca.el("td", { class: "num" }, tca.text(c.expected)), tca.el("td", { class: "num" }, tca.text(c.actual)), tca.el("td", null, tca.text(c.error)), tca.el("td", null, tca.el("span", { class: "badge " + (c.passed ? "pass" : "fail") }, c.passed ? "pass" : "fail")))),
  );
}

function charts(lab) {
  const tokenItems = [];
  for (const p of lab.proposals) {
    if (p.inputTokens !== null) tokenItems.push({ label: "proposal " + p.number + " input", value: p.inputTokens, color: "#0969da" });
    if (p.outputTokens !== null) tokenItems.push({ label: "proposal " + p.number + " output", value: p.outputTokens, color: "#8250df" });
  }
  const timeItems = lab.proposals.filter((p) => p.generationMs !== null).map((p) => ({ label: "proposal " + p.number, value: p.generationMs }));
  const phaseItems = lab.phases.map((phase) => ({ label: phase.name, value: phase.ms, color: phase.name === "total" ? "#57606a" : "#1a7f37" }));
  return [
    tokenItems.length > 0 ? tca.barChart("Token counts per proposal", tokenItems, "tokens") : tca.el("p", { class: "muted" }, "No token counts recorded (scripted proposals have none)."),
    timeItems.length > 0 ? tca.barChart("Generation time per proposal", timeItems, "ms") : null,
    phaseItems.length > 0 ? tca.barChart("Elapsed time per phase (final.json)", phaseItems, "ms") : null,
  ];
}

function manifestSection(manifest) {
  if (!manifest) return tca.el("p", { class: "muted" }, "manifest.json is missing or unreadable");
  const { harness, prompt, contract, ...rest } = manifest;
  return [
    tca.objectTable(rest, { id: "manifest-table" }),
    prompt ? tca.lazyDetails(null, "fixed prompt (system instruction)", () => [tca.boundedText(prompt.system_instruction), tca.el("div", { class: "mono" }, "sha256 ", tca.text(prompt.system_instruction_sha256))]) : null,
    contract ? tca.lazyDetails(null, "tool contract", () => [tca.boundedText(contract.text), tca.el("div", { class: "mono" }, "sha256 ", tca.text(contract.sha256))]) : null,
    harness ? tca.lazyDetails(null, "harness file hashes", () => tca.objectTable(harness)) : null,
  ];
}

tca.labView = function labView(lab) {
  const allRecords = lab.runRecords.concat(...lab.proposals.map((p) => p.records)).sort((a, b) => (a.event_id || 0) - (b.event_id || 0));
  // The verdict comes first, above the title: EVIDENCE INVALID must be the first thing a person sees.
  return [
    tca.verdictBox(lab.verdict),
    tca.el("h1", null, "Lab run ", lab.directoryName),
    tca.kindLabel(lab.label),
    tca.problemsBox(lab.problems),
    tca.el("h2", null, "Summary"),
    summaryTable(lab),
    tca.lazyDetails({ id: "cases" }, "final-evaluation cases", () => casesTable(lab.final), false),
    tca.el("h2", null, "Proposals (", String(lab.proposals.length), ")"),
    tca.el("div", { id: "timeline" }, tca.timeline(lab, { open: true, includeRecords: true })),
    tca.el("h2", null, "Committed edits (", String(lab.edits.length), ")"),
    tca.el("div", { id: "edits" }, lab.edits.length > 0 ? lab.edits.map(editBlock) : tca.el("p", { class: "muted" }, "no edit was committed")),
    tca.el("h2", null, "Tokens and time"),
    tca.el("div", { id: "charts" }, charts(lab)),
    tca.el("h2", null, "Manifest"),
    tca.el("div", { id: "manifest" }, manifestSection(lab.manifest)),
    tca.el("h2", null, "Audit trail (", String(allRecords.length), " records)"),
    tca.lazyDetails({ id: "audit" }, "show the audit records, 50 per page", () => tca.paginated(allRecords, 50, recordRow), false),
  ];
};

tca.compactLabView = function compactLabView(lab, idPrefix) {
  return [
    tca.kindLabel(lab.label, true),
    tca.verdictBox(lab.verdict, true),
    tca.problemsBox(lab.problems, true),
    tca.timeline(lab, { open: false, includeRecords: false, idPrefix }),
  ];
};
