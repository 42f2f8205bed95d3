// tca lab verify (#33): the verdict re-derived as `tca report` derives it, and --regenerate, which
// re-asks the model every recorded request. Written as a person who wants a better result: a
// rehearsal trial whose proposal 3 is rewritten (a different, still correct expression) and the
// whole run rebuilt by the harness itself around it, so the replay agrees with every record. Only
// re-asking the model shows that the model never wrote it: "not reproduced" without --strict,
// EVIDENCE INVALID with it. Bad input is refused with a code before anything is asked or written.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { compareTurn, firstDifferingOffset, recordedTurns } from "../../src/lab/labRegeneration.ts";
import { REGENERATION_FILE, REGENERATION_HISTORY_FILE } from "../../src/verdicts/labRegenerationRecord.ts";
import { buildReport } from "../../src/report/reportBuilder.ts";
import type { ProposalOutcome, ProposalSource } from "../../src/controller/proposalSource.ts";
import { readAudit, readJson } from "./labRunTestSupport.ts";
import { RUN_FOLDER_LOCK_FILE } from "../../src/core/runFolderLock.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

const BIN = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

let root: string;
let model: string;
let honest: string;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function tca(...argv: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tca-lab-verify-"));
  model = path.join(root, "rehearsal");
  const made = await makeRehearsalCheckpoint({ directory: model });
  assert.ok(made.ok, made.ok ? "" : made.message);
  const trial = await runModelTrial({
    runDirectory: path.join(root, "honest"),
    modelDirectory: model,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    ...workerFromBuild(),
  });
  assert.ok(trial.ok, trial.ok ? "" : trial.message);
  honest = trial.value.run.runDirectory;
});

after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  if (model !== undefined) await rm(`${model}.tca-engine-cache`, { recursive: true, force: true });
});

/**
 * The forger's source: it answers with the honest run's recorded texts, except proposal 3, which
 * it replaces; it describes itself exactly as the rehearsal model did. runLab then writes a run
 * that agrees with itself in every record (requests, observations, versions, final file).
 */
class ForgedRehearsal implements ProposalSource {
  readonly label = "rehearsal";
  constructor(
    private readonly texts: readonly string[],
    private readonly description: Readonly<Record<string, unknown>>,
  ) {}
  describe(): Readonly<Record<string, unknown>> {
    return this.description;
  }
  propose(request: { readonly proposalNumber: number }): Promise<ProposalOutcome> {
    const text = this.texts[request.proposalNumber - 1];
    return Promise.resolve(
      text === undefined
        ? { kind: "model_error", message: "no more text", metadata: {} }
        : { kind: "text", text, metadata: { proposalSource: "rehearsal" } },
    );
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const FORGED_CLAMP = "hi if x > hi else lo if x < lo else x";

async function forgedRun(name: string): Promise<string> {
  const manifest = readJson(path.join(honest, "manifest.json"));
  const texts = readAudit(honest)
    .filter((r) => r.type === "generation")
    .map((r) => String(r.data["raw_text"]));
  assert.match(texts[2] ?? "", /"function":"clamp"/, "proposal 3 of the rehearsal trial repairs clamp");
  const rewritten = texts.map((text, i) => (i === 2 ? text.replace(/"new":"[^"]*"/, `"new":"${FORGED_CLAMP}"`) : text));
  assert.notEqual(rewritten[2], texts[2]);
  const { label: _label, ...description } = manifest["proposal_source"] as Record<string, unknown>;
  const modelTrial = manifest["model_trial"] as Record<string, unknown>;
  const run = await runLab({
    runDirectory: path.join(root, name),
    source: new ForgedRehearsal(rewritten, description),
    kind: "synthetic_pipeline_check",
    labelExtras: modelTrial["checkpoint_labels"] as Record<string, unknown>,
    manifestExtras: { model_trial: modelTrial },
  });
  assert.ok(run.ok, run.ok ? "" : run.message);
  return run.value.runDirectory;
}

test("an honest rehearsal trial is regenerated n/n identical, recorded in regeneration.json and shown by the report as a record", async () => {
  const ran = await tca("lab", "verify", honest, "--regenerate", "--model-directory", model);
  assert.equal(ran.code, 0, ran.stderr);
  const generations = readAudit(honest).filter((r) => r.type === "generation").length;
  assert.ok(generations > 0);
  // A new rehearsal run has its own kind, and the verdict line names it first.
  assert.equal(
    (readJson(path.join(honest, "manifest.json"))["labels"] as Record<string, unknown>)["kind"],
    "rehearsal_trial",
  );
  assert.equal(ran.stdout.split("\n")[0], "lab run: REHEARSAL · VERIFIED SUCCESS");
  assert.doesNotMatch(ran.stdout, /recorded as synthetic_pipeline_check/);
  assert.match(ran.stdout, new RegExp(`regenerated ${generations}/${generations} responses identical`));
  // The regeneration's own lines (the verdict's indented details name the checkpoint in their own words).
  const regenerationOutput = ran.stdout.split("\n").filter((l) => !l.startsWith("  "));
  for (const line of regenerationOutput.filter((l) => /regenerat|model directory|normalization/.test(l)))
    assert.match(line, /^\[SYNTHETIC checkpoint: rehearsal\] /, `unlabelled line: ${line}`);
  assert.match(ran.stdout, /\n {2}model: model directory verified now against its own rehearsal checkpoint manifest/);
  const record = readJson(path.join(honest, REGENERATION_FILE));
  assert.equal(record["identical"], generations);
  assert.equal(record["compared"], generations);
  assert.equal(record["outcome"], "reproduced");
  assert.equal((record["model_directory"] as Record<string, unknown>)["synthetic_label"], "rehearsal");
  assert.match(String(record["regenerated_at"]), /^\d{4}-\d\d-\d\dT/);

  const report = buildReport(honest);
  assert.ok(report.ok, report.ok ? "" : report.message);
  const details = (report.value.document as unknown as { lab: { verdict: { details: string[] } } }).lab.verdict.details;
  const line = details.find((d) => d.startsWith("recorded regeneration ("));
  assert.ok(line !== undefined, details.join("\n"));
  assert.match(
    line,
    new RegExp(`\\(${String(record["regenerated_at"])}\\): regenerated ${generations}/${generations}`),
  );
  assert.match(line, /SYNTHETIC checkpoint: rehearsal/);
  assert.match(line, /a record, not re-asked by this report/);
});

test("a consistently rewritten proposal passes the replay, is 'not reproduced' without --strict and EVIDENCE INVALID with it", async () => {
  const forged = await forgedRun("forged");
  // What the forger wanted: every record agrees, the re-derived verdict alone cannot see it.
  assert.equal(deriveRunVerdict(forged).kind, "verified_success", deriveRunVerdict(forged).problems.join("; "));
  // Written with the older run kind (synthetic_pipeline_check + labels.rehearsal): read as a rehearsal, with a note.
  assert.equal(deriveRunVerdict(forged).source.kind, "rehearsal");
  assert.match(deriveRunVerdict(forged).kindNote ?? "", /recorded as synthetic_pipeline_check .*read as a rehearsal/);

  const plain = await tca("lab", "verify", forged, "--regenerate", "--model-directory", model);
  assert.equal(plain.code, 0, "without --strict a difference is not proof of forgery");
  // Proposal 3's text is the forger's; later requests carry the forged observations in their
  // recorded history, so the model may answer those differently too: each is compared on its own.
  const summary = /regenerated (\d+)\/6 responses identical/.exec(plain.stdout);
  assert.ok(summary !== null, plain.stdout);
  assert.ok(Number(summary[1]) < 6);
  assert.match(plain.stdout, /proposal 3 \(request #\d+\): differs at byte \d+ \(recorded text, regenerated text\)/);
  assert.match(plain.stdout, /recorded: {4}.*hi if x > hi else lo if x < lo else x/);
  assert.match(plain.stdout, /not reproduced \(a difference is not proof of forgery/);
  const first = readJson(path.join(forged, REGENERATION_FILE));
  assert.equal(first["outcome"], "not_reproduced");
  const differing = (first["turns"] as Record<string, unknown>[]).filter((t) => t["identical"] !== true);
  assert.equal(differing.length, 6 - Number(summary[1]));
  assert.equal(differing[0]?.["proposal"], 3, "the rewritten proposal is the first that differs");
  assert.ok(
    (first["turns"] as Record<string, unknown>[]).slice(0, 2).every((t) => t["identical"] === true),
    "the turns before the rewrite are reproduced",
  );
  const offset = differing[0]?.["first_difference_offset"];
  const recordedText = String((differing[0]?.["recorded"] as Record<string, unknown>)["text"]);
  const regeneratedText = String((differing[0]?.["regenerated"] as Record<string, unknown>)["text"]);
  assert.equal(offset, firstDifferingOffset(recordedText, regeneratedText));
  assert.equal(recordedText.slice(0, Number(offset)), regeneratedText.slice(0, Number(offset)));

  const strict = await tca("lab", "verify", forged, "--regenerate", "--model-directory", model, "--strict", "--json");
  assert.equal(strict.code, 1);
  const shown = JSON.parse(strict.stdout) as Record<string, unknown>;
  assert.equal(shown["verdict"], "evidence_invalid");
  assert.equal(shown["headline"], "EVIDENCE INVALID");
  assert.equal(shown["label"], "REHEARSAL");
  assert.equal(shown["valid"], false);
  // The second regeneration replaced the record; the first went to the history, none is lost.
  const history = (await readFile(path.join(forged, REGENERATION_HISTORY_FILE), "utf8")).trim().split("\n");
  assert.equal(history.length, 1);
  assert.equal((JSON.parse(history[0] ?? "{}") as Record<string, unknown>)["regenerated_at"], first["regenerated_at"]);
  // The record is a record: the verdict the report derives does not change because of it.
  assert.equal(deriveRunVerdict(forged).kind, "verified_success");
});

async function assertRefused(argv: string[], code: string, message: RegExp, directory: string): Promise<void> {
  const ran = await tca(...argv);
  assert.equal(ran.code, 2, `${argv.join(" ")}: ${ran.stdout}${ran.stderr}`);
  assert.match(ran.stderr, new RegExp(`^tca lab verify: ${code}: `));
  assert.match(ran.stderr, message);
  assert.equal(existsSync(path.join(directory, REGENERATION_FILE)), false, "nothing written");
}

test("bad input is refused with a code before the model is asked, and nothing is written", async () => {
  const copy = path.join(root, "honest-copy");
  await cp(honest, copy, { recursive: true });
  await rm(path.join(copy, REGENERATION_FILE), { force: true });
  await rm(path.join(copy, REGENERATION_HISTORY_FILE), { force: true });

  await assertRefused(["lab", "verify", copy, "--regenerate"], "model_directory_required", /--model-directory/, copy);
  await assertRefused(
    ["lab", "verify", copy, "--model-directory", model],
    "usage_error",
    /belong to --regenerate/,
    copy,
  );
  await assertRefused(
    ["lab", "verify", copy, "--regenerate", "--model-directory", path.join(root, "nowhere")],
    "model_directory_rejected",
    /nowhere/,
    copy,
  );

  // A copy of the rehearsal checkpoint with one weight byte changed does not verify by its own manifest.
  const tampered = path.join(root, "tampered");
  await cp(model, tampered, { recursive: true });
  const weights = path.join(tampered, "model.safetensors");
  const bytes = await readFile(weights);
  bytes[bytes.length - 7] = (bytes[bytes.length - 7] as number) ^ 1;
  await writeFile(weights, bytes);
  await assertRefused(
    ["lab", "verify", copy, "--regenerate", "--model-directory", tampered],
    "model_directory_rejected",
    /./,
    copy,
  );

  // A checkpoint that verifies but is not the run's model.
  const other = path.join(root, "other-tiny");
  const made = await makeTestCheckpoint({ directory: other, size: "tiny", seed: 3 });
  assert.ok(made.ok);
  await assertRefused(
    ["lab", "verify", copy, "--regenerate", "--model-directory", other],
    "model_mismatch",
    /not the run's model/,
    copy,
  );

  // A run whose recorded sampling settings are not the engine's is refused before loading.
  const resampled = path.join(root, "resampled");
  await cp(copy, resampled, { recursive: true });
  const manifest = readJson(path.join(resampled, "manifest.json"));
  const sourceInfo = manifest["proposal_source"] as Record<string, unknown>;
  const config = sourceInfo["generation_config"] as Record<string, unknown>;
  await writeFile(
    path.join(resampled, "manifest.json"),
    JSON.stringify({
      ...manifest,
      proposal_source: { ...sourceInfo, generation_config: { ...config, temperature: 0.7 } },
    }),
  );
  await assertRefused(
    ["lab", "verify", resampled, "--regenerate", "--model-directory", model],
    "settings_mismatch",
    /generation_config/,
    resampled,
  );

  // A scripted baseline has nothing to regenerate.
  const baseline = await runScriptedBaseline(path.join(root, "baseline"));
  assert.ok(baseline.ok);
  await assertRefused(
    ["lab", "verify", baseline.value.runDirectory, "--regenerate", "--model-directory", model],
    "nothing_to_regenerate",
    /nothing to regenerate: scripted proposals/,
    baseline.value.runDirectory,
  );
  const plain = await tca("lab", "verify", baseline.value.runDirectory);
  assert.equal(plain.code, 0);
  assert.equal(plain.stdout.split("\n")[0], "lab run: SCRIPTED BASELINE · VERIFIED SUCCESS");

  // A checks root holds only scripted runs.
  const checks = path.join(root, "checks");
  await mkdir(checks);
  await writeFile(path.join(checks, "checks.json"), "{}\n");
  await assertRefused(
    ["lab", "verify", checks, "--regenerate", "--model-directory", model],
    "nothing_to_regenerate",
    /scripted/,
    checks,
  );
  const missing = await tca("lab", "verify", path.join(root, "no-such-run"));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^tca lab verify: path_not_found: /);
  await assert.rejects(stat(path.join(root, "no-such-run")));
});

test("an edited run is EVIDENCE INVALID and exits 1 without any regeneration", async () => {
  const copy = path.join(root, "edited");
  await cp(honest, copy, { recursive: true });
  const final = readJson(path.join(copy, "final.json"));
  await writeFile(path.join(copy, "final.json"), JSON.stringify({ ...final, proposals_used: 5 }, null, 2));
  const ran = await tca("lab", "verify", copy);
  assert.equal(ran.code, 1);
  assert.equal(ran.stdout.split("\n")[0], "lab run: REHEARSAL · EVIDENCE INVALID");
});

test("the comparison: identical texts, the first differing byte (multi-byte text, a prefix), other outcomes", () => {
  assert.equal(firstDifferingOffset("abc", "abc"), null);
  assert.equal(firstDifferingOffset("abc", "abd"), 2);
  assert.equal(firstDifferingOffset("ab", "abc"), 2);
  assert.equal(firstDifferingOffset("é1", "é2"), 2, "a byte offset, not a character offset");
  assert.equal(firstDifferingOffset("x ", "x"), 1, "no normalization: a trailing space is a difference");
  const turn = { proposal: 1, requestEventId: 4, messages: [], outcome: "text", rawText: "{}" };
  assert.equal(compareTurn(turn, { kind: "text", text: "{}", metadata: {} }).identical, true);
  const other = compareTurn(turn, { kind: "context_limit", inputTokens: 9, metadata: {} });
  assert.equal(other.identical, false);
  assert.equal(other.first_difference_offset, 0);
  const deadline = compareTurn({ ...turn, outcome: "time_limit", rawText: null }, null);
  assert.equal(deadline.compared, false, "a recorded deadline is no model response to compare");
  assert.equal(deadline.regenerated_outcome, "not_asked");
  assert.deepEqual(
    recordedTurns(deriveRunVerdict(honest).records).map((t) => t.outcome),
    readAudit(honest)
      .filter((r) => r.type === "generation")
      .map((r) => r.data["outcome"]),
  );
});

test("lab verify --regenerate writes into the run, so it takes the run's one-writer lock: a live holder is refused, nothing asked or written", async () => {
  const holder = spawn("sleep", ["60"], { stdio: "ignore" });
  const lockPath = path.join(honest, RUN_FOLDER_LOCK_FILE);
  await writeFile(
    lockPath,
    JSON.stringify({
      pid: holder.pid,
      host: os.hostname(),
      command: "lab verify",
      startedAt: "2026-12-03T12:00:00Z",
      token: "t",
    }),
  );
  try {
    const before = await readFile(path.join(honest, REGENERATION_FILE), "utf8").catch(() => null);
    const ran = await tca("lab", "verify", honest, "--regenerate", "--model-directory", model);
    assert.equal(ran.code, 2, ran.stderr);
    assert.equal(
      ran.stderr,
      `tca lab verify: run_folder_locked: ${honest} is being written by pid ${holder.pid} on ${os.hostname()} (command: lab verify, since 2026-12-03T12:00:00Z); one writer per run folder: wait for it to finish (or stop it: kill ${holder.pid}), then run again\n`,
    );
    assert.equal(await readFile(path.join(honest, REGENERATION_FILE), "utf8").catch(() => null), before);
    assert.ok(existsSync(lockPath), "another process's lock is never removed");
  } finally {
    holder.kill("SIGKILL");
    await rm(lockPath, { force: true });
  }
});
