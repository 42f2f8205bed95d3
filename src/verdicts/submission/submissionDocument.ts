// submission.md, written from the evidence only. Every factual sentence carries a citation of the
// audit events or files it comes from; success is never stated unless verified_success is true;
// a synthetic pipeline check is never presented as a model result. Places for the learner's own
// analysis are marked, not filled in.
import { PREDICTION_QUESTIONS } from "../../constants/labConstants.ts";
import { formatBytes, formatMilliseconds } from "../../core/numberFormat.ts";
import { labelledVerdict } from "../../core/resultLabel.ts";
import { RUN_VERDICT_HEADLINES } from "../runVerdict.ts";
import { RESOURCE_ESTIMATES } from "../../model/pins.ts";
import type { PredictionsRecord } from "../../recording/predictions.ts";
import { cite, fenced, table } from "./markdownText.ts";
import { proposalStories, recoveryPattern, type ProposalStory } from "./proposalStory.ts";
import { eventsOf, record, runKind, type RunEvidence } from "./runEvidence.ts";
import type { AcquisitionConsent, DiskUse, TrialEntry } from "./modelEvidence.ts";
import { harnessVerificationCell, labelled, manifestKindCell, pipelineLabel, trialsSection } from "./trialSections.ts";

export interface ChecksEvidence {
  readonly directory: string;
  readonly report: {
    readonly total: number;
    readonly passed: number;
    readonly failed: number;
    readonly checks: readonly Readonly<Record<string, unknown>>[];
  };
  /** Processes, threads and native addons the checks run recorded as started (recorded, not re-derived); null: none recorded. */
  readonly processesStarted: number | null;
}

export interface SubmissionInput {
  readonly baseline: RunEvidence;
  readonly model: RunEvidence | null;
  /** Why the model stage could not run, when it could not (download, loading, ...). */
  readonly blockedReason: string | null;
  readonly checks: ChecksEvidence | null;
  readonly predictions: PredictionsRecord | null;
  readonly implementationVersion: string;
  /** Every trial of the model run's ledger in order (empty for a pipeline check or no model run). */
  readonly trials: readonly TrialEntry[];
  /** The acquisition consent of the download manifest (null: none recorded, or never acquired). */
  readonly consent: AcquisitionConsent | null;
  /** Disk used by the model folder and its derived GGUF cache, measured when the document is written. */
  readonly diskUse: DiskUse | null;
}

const LEARNER = "> **Learner's analysis:** _write your own interpretation here._";

export function renderSubmission(input: SubmissionInput): string {
  const { baseline, model } = input;
  const modelKind = model ? runKind(model) : null;
  // The labels are text: a real model was called only when the model directory verified now as the pinned model.
  const modelTrial = model?.verdict.modelTrial ?? null;
  const realModel = modelKind === "model_trial" && modelTrial?.status === "verified";
  const modelLabels = model ? record(model.manifest["labels"]) : {};
  const rehearsal = modelLabels["rehearsal"] === true;
  const standIn =
    modelLabels["stand_in_tokenizer"] === true
      ? " (stand-in tokenizer: Qwen2.5's behaviour, not the pinned files)"
      : "";
  const stage =
    model === null
      ? input.blockedReason
        ? `blocked: ${input.blockedReason}`
        : "model stage not run"
      : realModel
        ? "run (a real model was called)"
        : modelKind === "model_trial"
          ? `model stage NOT VERIFIED — the run is labelled a model trial, but ` +
            `${modelTrial?.message ?? "its model directory was not verified"}; nothing here is a model result`
          : rehearsal
            ? `model stage not run — only a REHEARSAL run: a model trained in-project on scripted ` +
              `transcripts${standIn}; it proves the model path and says nothing about any real model's ability`
            : `model stage not run — only a PIPELINE CHECK on a synthetic random-weight checkpoint was run${standIn}; its output is not a model result`;
  const stories = model ? proposalStories(model) : [];
  const parts: string[] = [
    "# Lab 16 submission: Build a Tiny Coding Agent",
    "",
    `Model stage: **${stage}**.`,
    "",
    ...artifactsSection(input),
    ...trialsSection(input.trials),
    ...predictionsSection(input, stories),
    ...harnessSection(input),
    ...generatedSection(model, stories, realModel),
    ...originsSection(model, stories),
    ...evaluationSection(baseline, model),
    ...recoverySection(model, stories),
    ...resourcesSection(model, input.diskUse),
    ...questionsSection(input, stories),
  ];
  return `${parts.join("\n")}\n`;
}

function finalOf(run: RunEvidence): {
  stop: string;
  verified: boolean;
  status: string;
  pub: string;
  held: string;
  invalid: string;
} {
  const evaluation = record(run.final["final_evaluation"]);
  return {
    stop: String(run.final["stop_reason"]),
    verified: run.final["verified_success"] === true,
    status: String(evaluation["status"]),
    pub: `${String(evaluation["public_passed"])}/${String(evaluation["public_total"])}`,
    held: `${String(evaluation["held_out_passed"])}/${String(evaluation["held_out_total"])}`,
    invalid: String(run.final["invalid_proposals"]),
  };
}

function verdictSentence(run: RunEvidence): string {
  const f = finalOf(run);
  const claim = f.verified
    ? "verified_success is true"
    : "verified_success is false: this run is not a verified success";
  // The re-derived source first, on the verdict's own line (src/core/resultLabel.ts).
  const verdict = labelledVerdict(run.verdict.source, RUN_VERDICT_HEADLINES[run.verdict.kind]);
  return (
    `**${verdict}**: the ${run.name} run stopped with \`${f.stop}\`; final evaluation \`${f.status}\` ` +
    `passed ${f.pub} public and ${f.held} held-out cases; ${claim} [${run.name} final.json].`
  );
}

/** The harness of each run against this harness: a recorded digest is never shown as this harness's. */
function harnessCell(input: SubmissionInput): string {
  const runs = [input.baseline, ...(input.model ? [input.model] : [])];
  return runs
    .map((run) => `${run.name} run ${run.verdict.harness?.message ?? "records no harness"} [${run.name} manifest.json]`)
    .join("; ");
}

function artifactsSection(input: SubmissionInput): string[] {
  const rows: string[][] = [
    ["implementation", `tiny-coding-agent ${input.implementationVersion}, ${harnessCell(input)}`],
    ["runtime lock", input.model ? `${input.model.directory}/runtime-lock.json` : "not written (no model trial)"],
    [
      "verified model manifest",
      input.model ? manifestKindCell(input.model) : "none (no verified model directory was used)",
    ],
    ["acquisition consent", consentCell(input)],
    ["harness verified before loading", input.model ? harnessVerificationCell(input.model) : "no model was loaded"],
    ["scripted baseline run", input.baseline.directory],
    ["model run", input.model ? `${input.model.directory} (${runKind(input.model)})` : "none"],
    ["harness checks", input.checks ? `${input.checks.directory}/checks.json` : "not supplied"],
  ];
  return ["## Artifacts", "", table(["artifact", "where"], rows), ""];
}

function predictionsSection(input: SubmissionInput, stories: readonly ProposalStory[]): string[] {
  const out = ["## Predictions and outcomes", ""];
  if (input.predictions === null) {
    out.push(
      `No predictions were recorded before the trial${input.model ? ` [${input.model.name} manifest.json]` : ""}. The comparison below lists outcomes only.`,
      "",
    );
  }
  const first = stories[0];
  const model = input.model;
  const outcomes: string[] = [
    first && model
      ? `First proposal ${first.failure?.origin === "schema" ? "was not valid" : "passed JSON and contract validation"} ` +
        `(${first.outcome}) ${cite(model.name, [first.outcomeEvent])}.`
      : "No model proposal exists.",
    model
      ? `${finalOf(model).verified ? "Both functions were repaired and verified" : "The functions were not verifiably repaired"} ${cite(model.name, [])}.`
      : "No model run.",
    model ? firstFailureSentence(model, stories) : "No model run.",
    baselineDespiteModelSentence(input.baseline, model, stories),
    input.checks ? importPathSentence(input.checks) : "The harness checks were not supplied.",
  ];
  // In a pipeline check every row carries the label, not only the header: a row read alone must not pass for a model result.
  const label = model ? pipelineLabel(model) : null;
  const rows = PREDICTION_QUESTIONS.map((question, i) => {
    const prediction = input.predictions?.predictions[i];
    return [
      String(i + 1),
      question,
      prediction ? `${prediction.answer} (recorded ${prediction.answered_at})` : "(none recorded)",
      labelled(label, outcomes[i] ?? ""),
    ];
  });
  out.push(table(["#", "question", "prediction", "observed outcome"], rows), "", LEARNER, "");
  return out;
}

/** Prediction 4 from the evidence: did the model fail every proposal, and did the baseline pass anyway? */
function baselineDespiteModelSentence(
  baseline: RunEvidence,
  model: RunEvidence | null,
  stories: readonly ProposalStory[],
): string {
  const passed = finalOf(baseline).verified;
  const baselineClause = passed
    ? "the scripted baseline passed with verified_success true"
    : "the scripted baseline did NOT pass";
  if (model === null || stories.length === 0)
    return `Not observed: no model proposal exists; ${baselineClause} ${cite(baseline.name, [])}.`;
  const failed = stories.filter((s) => s.failure !== null);
  const events = stories.map((s) => s.outcomeEvent ?? s.generationEvent);
  if (failed.length === stories.length) {
    return (
      `${passed ? "Yes, observed" : "Not shown"}: the model failed all ${stories.length} of its ` +
      `proposals ${cite(model.name, events)}, and ${baselineClause} ${cite(baseline.name, [])}.`
    );
  }
  return (
    `Not tested by this run: the model did not fail every proposal (${stories.length - failed.length} of ` +
    `${stories.length} did not fail) ${cite(model.name, events)}; ${baselineClause} ${cite(baseline.name, [])}.`
  );
}

function consentCell(input: SubmissionInput): string {
  if (input.model === null) return "none (no model stage)";
  if (runKind(input.model) === "synthetic_pipeline_check")
    return "none: a synthetic checkpoint is generated locally, never acquired";
  if (runKind(input.model) === "rehearsal_trial")
    return "none: the rehearsal checkpoint is trained in this project, never acquired";
  if (input.consent === null) return "not recorded in the download manifest";
  return `${input.consent.form} at ${input.consent.givenAt} [download-manifest.json]`;
}

function firstFailureSentence(model: RunEvidence, stories: readonly ProposalStory[]): string {
  const first = stories.find((s) => s.failure !== null);
  if (!first || !first.failure) return `No proposal failed ${cite(model.name, [])}.`;
  const kind =
    first.failure.origin === "schema"
      ? "format following"
      : first.failure.code === "stale_version"
        ? "version tracking"
        : first.failure.origin === "testing"
          ? "arithmetic (failing public cases)"
          : first.failure.origin;
  return `The first failure was ${kind}: proposal ${first.proposal}, \`${first.failure.code}\` ${cite(model.name, [first.outcomeEvent])}.`;
}

function importPathSentence(checks: ChecksEvidence): string {
  const byId = new Map(checks.report.checks.map((c) => [String(c["id"]), c]));
  const parts = ["import", "forbidden_filename"].map((id) => {
    const row = byId.get(id);
    return row
      ? `${id}: \`${String(row["observed"])}\`, source/version unchanged: ${String(row["unchanged"])} [checks.json: ${id}]`
      : `${id}: not run`;
  });
  return `Denied without any change: ${parts.join("; ")}.`;
}

function harnessSection(input: SubmissionInput): string[] {
  const out = ["## 1. Harness properties observed to work", ""];
  const b = input.baseline;
  const observations = eventsOf(b, "observation").map((e) => ({ id: e.event_id, o: record(e.data["observation"]) }));
  const firstTest = observations.find((x) => x.o["action"] === "test");
  const commits = eventsOf(b, "edit_committed").map((e) => e.event_id);
  const finish = observations.find((x) => x.o["status"] === "finish_accepted");
  out.push(
    firstTest
      ? `- The initial public test failed ${Number(firstTest.o["total"]) - Number(firstTest.o["passed"])} ` +
          `of ${String(firstTest.o["total"])} cases ${cite(b.name, [firstTest.id])}.`
      : `- The baseline ran no public test ${cite(b.name, [])}.`,
    `- ${commits.length} edits were committed, each after a write-ahead intent ${cite(b.name, commits)}.`,
    `- finish was accepted only after a passing test on the same version and digest ${cite(b.name, [finish?.id ?? null])}.`,
    `- ${verdictSentence(b)}`,
    `- ${noModelSentence(b)}`,
  );
  if (input.checks) {
    const r = input.checks.report;
    out.push(
      input.checks.processesStarted === 0
        ? `- ${r.passed} of ${r.total} harness checks passed, ${r.failed} failed, each ` +
            `re-derived from its own run directory against the spec's table [checks.json].`
        : `- The harness checks did NOT pass: the checks run records ${String(input.checks.processesStarted ?? "no count of")} ` +
            `processes, threads or native addons started; ${r.passed} of ${r.total} checks observed their expected code [checks.json].`,
      "",
    );
    const rows = r.checks.map((c) => [
      String(c["id"]),
      String(c["expected"]),
      String(c["observed"]),
      String(c["unchanged"]),
      String(c["stopReason"] ?? "(no run)"),
      c["passed"] === true ? "ok" : "FAIL",
    ]);
    out.push(table(["check", "expected", "observed", "source/version unchanged", "run stop reason", "result"], rows));
  } else {
    out.push("- Harness checks: not supplied (run `tca lab checks`).");
  }
  out.push("", LEARNER, "");
  return out;
}

/**
 * The evidence that no model was involved in the baseline: the process watch of its own audit
 * (a model only ever runs in a spawned worker process). It says what was observed, including a
 * count above zero or a missing watch; it is never inferred from the run's label.
 */
function noModelSentence(b: RunEvidence): string {
  const watch = eventsOf(b, "process_watch")[0];
  if (watch === undefined)
    return `The baseline's audit has no process watch, so it does not show that no process or model was started [${b.name} audit.jsonl].`;
  const processes = Number(watch.data["processes_started"]);
  const threads = Number(watch.data["threads_started"]);
  // Older watches did not count addons: a missing count is not a zero.
  const addons =
    watch.data["native_addons_loaded"] === undefined ? Number.NaN : Number(watch.data["native_addons_loaded"]);
  if (processes === 0 && threads === 0 && addons === 0) {
    return (
      `While the baseline ran, 0 processes, 0 threads and 0 native addons were started or loaded, so no model ` +
      `worker (the only place a model is loaded) existed and no model was invoked ${cite(b.name, [watch.event_id])}.`
    );
  }
  return (
    `While the baseline ran, ${processes} process(es), ${threads} thread(s) and ${Number.isNaN(addons) ? "an unrecorded number of" : addons} ` +
    `native addon(s) were started or loaded; the evidence does NOT show that no model was involved ${cite(b.name, [watch.event_id])}.`
  );
}

function generatedSection(model: RunEvidence | null, stories: readonly ProposalStory[], realModel: boolean): string[] {
  const out = ["## 2. What the model actually generated", ""];
  if (model === null) return [...out, "Nothing: the model stage was not run.", ""];
  if (!realModel && record(model?.manifest["labels"])["rehearsal"] === true)
    out.push(
      "These texts come from a REHEARSAL model trained in-project on scripted " +
        "transcripts (stand-in tokenizer). They say nothing about any real model's ability.",
      "",
    );
  else if (!realModel)
    out.push(
      "These texts come from a synthetic random-weight checkpoint (pipeline check). They say nothing about the pinned model's ability.",
      "",
    );
  const first = stories.find((s) => s.failure !== null);
  if (first) {
    out.push(
      `The first failure is proposal ${first.proposal} (\`${first.failure?.code ?? ""}\`) ${cite(model.name, [first.generationEvent, first.outcomeEvent])}:`,
      "",
      fenced(first.rawText ?? "(no text was generated)"),
      "",
    );
  }
  for (const story of stories) {
    const tokens = story.outputTokens === null ? "" : `, ${story.outputTokens} output tokens`;
    out.push(
      `### Proposal ${story.proposal}: ${story.outcome}${tokens} ${cite(model.name, [story.generationEvent, story.outcomeEvent])}`,
      "",
      fenced(story.rawText ?? "(no text was generated)"),
      "",
    );
  }
  return out;
}

function originsSection(model: RunEvidence | null, stories: readonly ProposalStory[]): string[] {
  const out = ["## 3. Where failures originated", ""];
  if (model === null) return [...out, "No model run.", ""];
  const failures = stories.filter((s) => s.failure !== null);
  if (failures.length === 0) out.push(`No proposal failed ${cite(model.name, [])}.`);
  else
    out.push(
      table(
        ["proposal", "origin", "code", "evidence"],
        failures.map((s) => [
          String(s.proposal),
          s.failure?.origin ?? "",
          s.failure?.code ?? "",
          cite(model.name, [s.outcomeEvent]),
        ]),
      ),
    );
  out.push(
    "",
    `Run-level stop: \`${finalOf(model).stop}\` ${cite(
      model.name,
      eventsOf(model, "stop").map((e) => e.event_id),
    )}.`,
    "",
    LEARNER,
    "",
  );
  return out;
}

function evaluationSection(baseline: RunEvidence, model: RunEvidence | null): string[] {
  const out = ["## 4. Boundary and held-out results", "", `- ${verdictSentence(baseline)}`];
  if (model) {
    out.push(`- ${verdictSentence(model)}`, "");
    const cases = record(model.final["final_evaluation"])["cases"];
    if (Array.isArray(cases) && cases.length > 0) {
      const rows = cases.map((c) => {
        const r = record(c);
        return [
          String(r["set"]),
          String(r["function"]),
          JSON.stringify(r["inputs"]),
          String(r["expected"]),
          r["actual"] === null ? `error ${String(r["error"])}` : String(r["actual"]),
          r["passed"] === true ? "pass" : "fail",
        ];
      });
      out.push(
        `Final-evaluation cases of the model run [${model.name} final.json]:`,
        "",
        table(["set", "function", "inputs", "expected", "actual", "result"], rows),
      );
    } else {
      out.push(
        `The model run's final evaluation evaluated no cases (status \`${finalOf(model).status}\`) [${model.name} final.json].`,
      );
    }
  }
  out.push("", LEARNER, "");
  return out;
}

function recoverySection(model: RunEvidence | null, stories: readonly ProposalStory[]): string[] {
  const out = ["## 5. Recovery or repetition", ""];
  if (model === null) return [...out, "No model run.", ""];
  const pattern = recoveryPattern(stories);
  const at = (n: number): number | null => stories.find((s) => s.proposal === n)?.generationEvent ?? null;
  out.push(
    pattern.repeated.length > 0
      ? `- Repeated the previous failed proposal verbatim at proposal(s) ${pattern.repeated.join(", ")} ${cite(model.name, pattern.repeated.map(at))}.`
      : `- No failed proposal was repeated verbatim ${cite(
          model.name,
          stories.map((s) => s.generationEvent),
        )}.`,
    pattern.changedAfterFailure.length > 0
      ? `- Proposed something different after a failure at proposal(s) ` +
          `${pattern.changedAfterFailure.join(", ")} ${cite(model.name, pattern.changedAfterFailure.map(at))}.`
      : "- There was no proposal after a failure to compare.",
    "",
    LEARNER,
    "",
  );
  return out;
}

function resourcesSection(model: RunEvidence | null, diskUse: DiskUse | null): string[] {
  const out = ["## 6. Measured resources against the plan's estimates", ""];
  if (model === null) return [...out, "No model run, so nothing was measured.", ""];
  const elapsed = record(model.final["elapsed_ms"]);
  const peaks = eventsOf(model, "generation")
    .map((e) => record(e.data["metadata"])["workerPeakRssBytes"])
    .filter((v): v is number => typeof v === "number");
  const peakEvents = eventsOf(model, "generation").map((e) => e.event_id);
  const gguf = record(record(model.manifest["proposal_source"])["derived_gguf"])["bytes"];
  // Times and sizes in the project's one format (src/core/numberFormat.ts): binary units for every
  // size, estimates included, so a plan and its measurement read in the same unit.
  const ms = (value: unknown): string => (typeof value === "number" ? formatMilliseconds(value) : "not recorded");
  const rows = [
    [
      "float32 parameter storage",
      `≈${formatBytes(RESOURCE_ESTIMATES.float32ParameterBytes)} (estimate)`,
      typeof gguf === "number" ? `F32 GGUF ${formatBytes(gguf)} [${model.name} manifest.json]` : "not recorded",
    ],
    [
      "working memory",
      "several GiB (estimate)",
      peaks.length > 0
        ? `worker peak RSS ${formatBytes(Math.max(...peaks))} ${cite(model.name, peakEvents)}`
        : "not measured in this run",
    ],
    ["acquisition", "≤ 20 minutes", `${ms(elapsed["acquisition"])} [${model.name} final.json]`],
    ["model load", "within the 10-minute trial budget", `${ms(elapsed["load"])} [${model.name} final.json]`],
    ["generation", "—", `${ms(elapsed["generation"])} over the run [${model.name} final.json]`],
    ["total trial", "≤ 10 minutes", `${ms(elapsed["total"])} [${model.name} final.json]`],
    [
      "disk",
      `≥ ${formatBytes(RESOURCE_ESTIMATES.minimumFreeDiskBytes)} free beyond the Python environment (estimate)`,
      diskCell(diskUse),
    ],
  ];
  const label = pipelineLabel(model);
  const labelledRows = rows.map(([resource, plan, measured]) => [
    resource ?? "",
    plan ?? "",
    labelled(label, measured ?? ""),
  ]);
  out.push(
    table(["resource", "plan", "measured"], labelledRows),
    "",
    LEARNER.replace(
      "write your own interpretation here.",
      "which estimate was most inaccurate on your machine, and why?",
    ),
    "",
  );
  return out;
}

function diskCell(diskUse: DiskUse | null): string {
  if (diskUse === null) return "not measured (the model folder could not be read)";
  const gb = formatBytes;
  const cache = diskUse.cacheBytes === null ? "no derived GGUF cache" : `derived GGUF cache ${gb(diskUse.cacheBytes)}`;
  const total = diskUse.modelFolderBytes + (diskUse.cacheBytes ?? 0);
  return `model folder ${gb(diskUse.modelFolderBytes)} + ${cache} = ${gb(total)} on disk, measured when this document was written`;
}

function questionsSection(input: SubmissionInput, stories: readonly ProposalStory[]): string[] {
  const model = input.model;
  const refusalsCited = input.checks ? "[checks.json]" : cite(input.baseline.name, []);
  const trialKind =
    model && runKind(model) === "model_trial"
      ? "model"
      : model && runKind(model) === "rehearsal_trial"
        ? "rehearsal"
        : "synthetic pipeline-check";
  const proposalsShown = model
    ? `${stories.length} proposal(s) from one ${trialKind} trial ${cite(model.name, [])}`
    : "no model proposals";
  return [
    "## 7. What evidence would be needed for broader claims",
    "",
    `This Lab shows a controller that refuses what it must refuse on one toy task ${refusalsCited}, and ${proposalsShown}. ` +
      "Broader coding ability would need many tasks, repeated trials and held-out task sets; stronger isolation would " +
      "need an OS-level sandbox and an independent threat model.",
    "",
    LEARNER,
    "",
  ];
}
