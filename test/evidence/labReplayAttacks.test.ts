// Issue 33's Lab attacks against the replay of requests and observation order, and on the
// recorded harness digests, kept as tests.
// Each copies a real scripted baseline (VERIFIED SUCCESS, made by the harness), forges it as a
// person who wants a better result would, keeping counts and numbering consistent, and asserts
// what every consumer shows: the re-derived verdict (EVIDENCE INVALID, the forgery named), the
// report's headline and submission.md (which refuses the run).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { harnessHashes } from "../../src/recording/runtimeIdentity.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import { tca } from "../support/tcaCli.ts";
import { assertNoSuccess, copyRun, editJson, editRecords, readRecords, type Record_ } from "./forgery.ts";

const root = freshRoot("replay-attacks");
const made = await runScriptedBaseline(join(root, "baseline"));
assert.ok(made.ok);
const baseline = made.value.runDirectory;
let copies = 0;
const forge = (): string => copyRun(baseline, join(root, `forged-${++copies}`));
const isObservation = (proposal: number) => (record: Record_) =>
  record.type === "observation" && record.proposal === proposal;

test("honest: the baseline's six recorded requests are each the one the request assembler rebuilds", () => {
  const verdict = deriveRunVerdict(baseline);
  assert.equal(verdict.kind, "verified_success");
  assert.deepEqual(verdict.problems, []);
  assert.equal(readRecords(baseline).filter((record) => record.type === "request").length, 6);
  assert.equal(
    readLabReport(baseline, { includeRequests: false }).verdict.headline,
    "SCRIPTED BASELINE · VERIFIED SUCCESS",
  );
});

test("(a) the first, failing test proposal deleted, the rest renumbered, proposals_used 5: EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) =>
      records
        .filter((record) => record.proposal !== 2)
        .map((record) =>
          record.proposal !== null && record.proposal > 2 ? { ...record, proposal: record.proposal - 1 } : record,
        ),
    true,
  );
  editJson(run, "final.json", (final) => {
    final.proposals_used = 5;
  });
  const problems = deriveRunVerdict(run).problems;
  // Every later request is named: each shows one more remaining proposal than the forged numbering gives.
  const requests = problems.filter((problem) => problem.code === "replay_request_differs");
  assert.equal(requests.length, 4, JSON.stringify(problems));
  assert.deepEqual([requests[0]!.line, requests[0]!.event], [9, "request"]);
  assert.match(formatProblem(requests[0]!), /^replay_request_differs: audit\.jsonl:9 \(request\): proposal 2: /);
  assertNoSuccess(run, "replay_request_differs", /request assembler builds/);
});

test("(a') a request's messages edited by hand (one observation dropped from the log shown) is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    const request = records.find((record) => record.type === "request" && record.proposal === 3)!;
    const messages = request.data.messages as { role: string; content: string }[];
    messages[1]!.content = messages[1]!.content.replace(/\n\[event 15, proposal 2\][^\n]*/, "");
  });
  assertNoSuccess(
    run,
    "replay_request_differs",
    /audit\.jsonl:16 \(request\): proposal 3: the recorded request differs .*message 2 \(user\)/,
  );
});

test("a request that claims compaction left out an observation compaction would keep is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(run, (records) => {
    const request = records.find((record) => record.type === "request" && record.proposal === 6)!;
    // Event 40 is the latest (passing) test result: essential, never dropped.
    request.data.omitted_event_ids = [40];
  });
  assertNoSuccess(
    run,
    "replay_omitted_differs",
    /leaves out observations \[40\], compaction of the replayed log would leave out \[15\]/,
  );
});

test("(b) the finish's observation moved after run_finished, records renumbered: EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) => {
      const moved = records.find(isObservation(6))!;
      return [...records.filter((record) => record !== moved), moved];
    },
    true,
  );
  assertNoSuccess(
    run,
    "replay_order_differs",
    /proposal 6 was validated, but its observation is not recorded before this record/,
  );
});

test("(b') the passing test's observation moved after the finish's request, records renumbered: EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) => {
      const moved = records.find(isObservation(5))!;
      const rest = records.filter((record) => record !== moved);
      const at = rest.findIndex((record) => record.type === "request" && record.proposal === 6) + 1;
      return [...rest.slice(0, at), moved, ...rest.slice(at)];
    },
    true,
  );
  assertNoSuccess(
    run,
    "replay_order_differs",
    /proposal 5 was validated, but its observation is not recorded before this record/,
  );
});

test("(b'') a second observation recorded for the finish is EVIDENCE INVALID", () => {
  const run = forge();
  editRecords(
    run,
    (records) => {
      const at = records.findIndex(isObservation(6));
      return [...records.slice(0, at + 1), structuredClone(records[at]!), ...records.slice(at + 1)];
    },
    true,
  );
  assertNoSuccess(run, "replay_order_differs", /a second observation of one proposal/);
});

const submissionOf = (run: string): string => {
  const built = buildSubmission({
    baselineDirectory: run,
    modelDirectory: null,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(built.ok, built.ok ? "" : built.message);
  return built.value;
};

test("honest: the baseline is shown as made by this harness version, in the verdict, the report and submission.md", () => {
  const current = harnessHashes().aggregate_sha256;
  const verdict = deriveRunVerdict(baseline);
  assert.equal(verdict.harness?.sameVersion, true);
  assert.deepEqual(verdict.harness?.differingFiles, []);
  const details = readLabReport(baseline, { includeRequests: false }).verdict.details;
  assert.ok(
    details.includes(`harness: made by this harness version (aggregate sha256 ${current})`),
    JSON.stringify(details),
  );
  assert.match(
    submissionOf(baseline),
    new RegExp(`baseline run made by this harness version \\(aggregate sha256 ${current}\\)`),
  );
});

test("(d) harness digests replaced and the aggregate recomputed: shown as made by another harness version, never as this one's", () => {
  const run = forge();
  const current = harnessHashes().aggregate_sha256;
  let forged = "";
  editJson(run, "manifest.json", (manifest) => {
    const harness = manifest.harness as { aggregate_sha256: string; files: Record<string, string> };
    harness.files["src/verdicts/runVerdict.ts"] = "0".repeat(64);
    // The aggregate as runtimeIdentity computes it, so the manifest agrees with itself.
    const aggregate = createHash("sha256");
    for (const name of Object.keys(harness.files).sort()) aggregate.update(`${name}\0${harness.files[name]}\n`);
    harness.aggregate_sha256 = forged = aggregate.digest("hex");
  });
  const verdict = deriveRunVerdict(run);
  // Another harness version is not a forgery the verdict can prove; it is shown, never hidden.
  assert.equal(verdict.kind, "verified_success", JSON.stringify(verdict.problems));
  assert.equal(verdict.harness?.sameVersion, false);
  assert.deepEqual(verdict.harness?.differingFiles, ["src/verdicts/runVerdict.ts"]);
  const line = `harness: made by another harness version: the run records aggregate sha256 ${forged}, this harness is ${current}`;
  const details = readLabReport(run, { includeRequests: false }).verdict.details;
  assert.ok(
    details.some((detail) => detail.startsWith(line)),
    JSON.stringify(details),
  );
  const submission = submissionOf(run);
  assert.match(submission, /baseline run made by another harness version: the run records aggregate sha256 /);
  assert.doesNotMatch(submission, new RegExp(`harness sha256 ${forged}`));
  assert.doesNotMatch(submission, /made by this harness version/);
});

test("tca lab verify: exit 0 only for valid evidence; --strict also refuses another harness version", async () => {
  const honest = await tca(["lab", "verify", baseline]);
  assert.equal(honest.code, 0, honest.err);
  assert.match(honest.out, /^lab run: SCRIPTED BASELINE · VERIFIED SUCCESS\n/);
  assert.match(honest.out, /harness: made by this harness version/);
  const json = await tca(["lab", "verify", baseline, "--json", "--strict"]);
  assert.equal(json.code, 0, json.err);
  const parsed = JSON.parse(json.out) as { verdict: string; passes: boolean; problems: string[] };
  assert.deepEqual([parsed.verdict, parsed.passes, parsed.problems], ["verified_success", true, []]);

  const deleted = forge();
  editRecords(
    deleted,
    (records) => records.filter((record) => record.proposal !== 2 || record.type !== "observation"),
    true,
  );
  const invalid = await tca(["lab", "verify", deleted]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.out, /^lab run: SCRIPTED BASELINE · EVIDENCE INVALID\n/);
  assert.match(invalid.out, /proposal 2 was validated, but its observation is not recorded/);

  const other = forge();
  editJson(other, "manifest.json", (manifest) => {
    const harness = manifest.harness as { aggregate_sha256: string; files: Record<string, string> };
    harness.files["package.json"] = "1".repeat(64);
    const aggregate = createHash("sha256");
    for (const name of Object.keys(harness.files).sort()) aggregate.update(`${name}\0${harness.files[name]}\n`);
    harness.aggregate_sha256 = aggregate.digest("hex");
  });
  const lenient = await tca(["lab", "verify", other]);
  assert.equal(lenient.code, 0, lenient.err);
  assert.match(lenient.out, /harness: made by another harness version/);
  const strict = await tca(["lab", "verify", other, "--strict"]);
  assert.equal(strict.code, 1);
  assert.match(strict.out, /strict: made by another harness version, so not accepted/);

  const missing = await tca(["lab", "verify", join(root, "no-such-run")]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^tca lab verify: path_not_found: /);
});
