// tca lab verify RUN_OR_CHECKS_DIR: prints the verdict re-derived from a Lab run's artifacts (the
// model directory opened now for a run that claims a model) or from a checks root, in the same
// words as the report. Exit 0 only when the evidence is valid (not EVIDENCE INVALID, not
// INCOMPLETE); with --strict also only when the run was made by this harness version. Thin:
// the verdicts decide, this prints.
import { resolve } from "node:path";
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";
import { refusal } from "../commandError.ts";
import { inputDirectory } from "../pathArguments.ts";
import { labVerdict } from "../../report/labVerdict.ts";
import { checksVerdict } from "../../report/checksReport.ts";
import { isRegularFileUnder } from "../../report/evidenceFiles.ts";
import { CHECKS_FILE, deriveChecksVerdict } from "../../verdicts/checksVerdict.ts";
import { deriveRunVerdictCheckingModel, LAB_EVIDENCE_FILES } from "../../verdicts/runVerdict.ts";
import { harnessHashes } from "../../recording/runtimeIdentity.ts";
import { readJsonObjectUnder } from "../../core/safeRead.ts";

const VERIFY_REFUSED = 2;
const CHECKS_SUMMARY_MAX_BYTES = 64 * 1024 * 1024;

export function registerLabVerifyCommand(lab: Command, setExitCode: SetExitCode): void {
  const refuse = refusal(setExitCode, VERIFY_REFUSED);
  lab
    .command("verify")
    .description(
      "print the verdict re-derived from a Lab run or a checks root (exit 0 only when the evidence is valid)",
    )
    .argument("<dir>", "a Lab run directory (audit.jsonl) or a `tca lab checks` root (checks.json)")
    .option("--json", "print the verdict as JSON")
    .option("--strict", "also fail when the evidence was made by another harness version")
    .action(async (target: string, options: { json?: boolean; strict?: boolean }) => {
      const checked = inputDirectory("the run directory", resolve(target));
      if (!checked.ok) return refuse(checked.error, checked.message);
      const directory = checked.value;
      const checks = isRegularFileUnder(directory, CHECKS_FILE);
      if (!checks && !isRegularFileUnder(directory, LAB_EVIDENCE_FILES.audit))
        return refuse(
          "not_lab_evidence",
          `neither ${LAB_EVIDENCE_FILES.audit} (a Lab run) nor ${CHECKS_FILE} (a checks root) is there`,
        );
      let result: {
        kind: "lab" | "checks";
        verdict: string;
        headline: string;
        details: readonly string[];
        valid: boolean;
        sameHarness: boolean;
        extra: Record<string, unknown>;
      };
      if (checks) {
        const verdict = deriveChecksVerdict(directory);
        const recorded = readJsonObjectUnder(directory, CHECKS_FILE, CHECKS_SUMMARY_MAX_BYTES)?.["harness_sha256"];
        // checks.json records the aggregate only: compared with this harness's, never shown as it.
        const current = harnessHashes().aggregate_sha256;
        const sameHarness = recorded === current;
        const words = checksVerdict(verdict);
        result = {
          kind: "checks",
          verdict: verdict.kind,
          headline: words.headline,
          details: [
            ...words.details,
            sameHarness
              ? `harness: made by this harness version (aggregate sha256 ${current})`
              : `harness: made by another harness version: checks.json records aggregate sha256 ${typeof recorded === "string" ? recorded : "none"}, this harness is ${current}`,
          ],
          valid: verdict.kind !== "evidence_invalid" && verdict.kind !== "incomplete",
          sameHarness,
          extra: { total: verdict.total, passed: verdict.passed, failed: verdict.failed, problems: verdict.problems },
        };
      } else {
        const verdict = await deriveRunVerdictCheckingModel(directory);
        const words = labVerdict(verdict);
        result = {
          kind: "lab",
          verdict: verdict.kind,
          headline: words.headline,
          details: words.details,
          valid: verdict.kind !== "evidence_invalid" && verdict.kind !== "incomplete",
          sameHarness: verdict.harness?.sameVersion === true,
          extra: {
            problems: verdict.problems,
            model: verdict.modelTrial,
            harness: verdict.harness,
            replay: {
              proposals_used: verdict.recomputed.replay.proposalsUsed,
              invalid_proposals: verdict.recomputed.replay.invalidProposals,
              final_version: verdict.recomputed.replay.finalVersion,
            },
          },
        };
      }
      const passes = result.valid && (options.strict !== true || result.sameHarness);
      if (options.json) {
        const { extra, ...rest } = result;
        process.stdout.write(
          `${JSON.stringify({ directory, ...rest, ...extra, strict: options.strict === true, passes }, null, 2)}\n`,
        );
      } else {
        process.stdout.write(`${result.kind === "lab" ? "lab run" : "checks"}: ${result.headline}\n`);
        for (const line of result.details) process.stdout.write(`  ${line}\n`);
        if (options.strict === true && result.valid && !result.sameHarness)
          process.stdout.write("strict: made by another harness version, so not accepted\n");
      }
      setExitCode(passes ? 0 : 1);
    });
}
