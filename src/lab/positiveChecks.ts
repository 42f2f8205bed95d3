// Checks that something valid keeps everything it must: a no_change replacement preserves
// source, version, backups and the passing-test status while consuming a proposal and
// resetting the invalid counter; an existing output destination is refused and left intact.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../core/clock.ts";
import { ScriptedSource } from "../sources/scriptedSource.ts";
import { REPAIR_EXPRESSIONS } from "../constants/labConstants.ts";
import { listBackups, readSourceBytes } from "./externalTamper.ts";
import type { CheckRow } from "./checkRow.ts";
import { runLab } from "./labRun.ts";
import { sha256Hex } from "../core/digest.ts";

export interface PositiveCheck {
  readonly id: string;
  run(root: string): Promise<CheckRow>;
}

const READ_SOURCE = '{"action":"read","file":"toy_math.py"}';
const TEST = '{"action":"test"}';
const replace = (fn: string, old: string, next: string, version: number): string =>
  JSON.stringify({ action: "replace", function: fn, old, new: next, version });

const sha = (bytes: Buffer | null): string => (bytes === null ? "missing" : sha256Hex(bytes));

export const POSITIVE_CHECKS: readonly PositiveCheck[] = [
  {
    id: "no_change_keeps_passing_test",
    async run(root) {
      const description = "valid no_change after a passing test: source, version, backups and passing status kept";
      let before = "";
      let afterNoChange = "";
      const runDirectory = join(root, this.id);
      const result = await runLab({
        runDirectory,
        kind: "negative_check",
        clock: new ManualClock(0),
        source: new ScriptedSource([
          READ_SOURCE,
          replace("clamp", "x", REPAIR_EXPRESSIONS.clamp, 0),
          replace("total", "unit + qty + fee", REPAIR_EXPRESSIONS.total, 1),
          TEST,
          replace("clamp", REPAIR_EXPRESSIONS.clamp, REPAIR_EXPRESSIONS.clamp, 2),
          '{"action":"finish","version":2}',
        ]),
        controllerHooks: {
          afterObservation(n) {
            const target = { workspaceDirectory: join(runDirectory, "workspace"), runDirectory };
            const snapshot = `${sha(readSourceBytes(target))}|${listBackups(runDirectory).join(",")}`;
            if (n === 4) before = snapshot;
            if (n === 5) afterNoChange = snapshot;
          },
        },
      });
      if (!result.ok) return failedRow(this.id, description, "no_change", result.error);
      const observation = result.value.loop.log.find((entry) => entry.proposalNumber === 5)?.observation;
      const receipt = observation?.ok === true && observation.action === "replace" ? observation : undefined;
      const observed =
        receipt?.status === "no_change"
          ? "no_change"
          : String(
              observation === undefined
                ? undefined
                : !observation.ok
                  ? observation.error
                  : "status" in observation
                    ? observation.status
                    : undefined,
            );
      const problems: string[] = [];
      if (receipt?.version !== 2 || receipt.old_version !== 2)
        problems.push("no_change must report old_version = version = 2");
      if (result.value.final.stop_reason !== "finish_accepted")
        problems.push(`finish after no_change was not accepted (${result.value.final.stop_reason})`);
      if (!result.value.final.verified_success) problems.push("verified_success must be true");
      const unchanged = before !== "" && before === afterNoChange;
      return {
        id: this.id,
        description,
        expected: "no_change",
        observed,
        unchanged: unchanged ? "yes" : "no",
        passed: observed === "no_change" && unchanged && problems.length === 0,
        problems,
        runDirectory: result.value.runDirectory,
        stopReason: result.value.final.stop_reason,
      };
    },
  },
  {
    id: "no_change_resets_invalid_counter",
    async run(root) {
      const description = "invalid, no_change, invalid: the no_change resets the consecutive-invalid counter";
      const result = await runLab({
        runDirectory: join(root, this.id),
        kind: "negative_check",
        clock: new ManualClock(0),
        source: new ScriptedSource([
          READ_SOURCE,
          TEST,
          '{"action":"nope"}',
          replace("clamp", "x", "x", 0),
          '{"action":"nope"}',
          TEST,
        ]),
      });
      if (!result.ok) return failedRow(this.id, description, "proposal_limit", result.error);
      const observed = result.value.final.stop_reason;
      const problems: string[] = [];
      if (result.value.final.proposals_used !== 6) problems.push("all six proposals must be consumed");
      if (result.value.workspace.state().version !== 0) problems.push("version must stay 0");
      return {
        id: this.id,
        description,
        expected: "proposal_limit",
        observed,
        unchanged: result.value.workspace.state().version === 0 ? "yes" : "no",
        passed: observed === "proposal_limit" && problems.length === 0,
        problems,
        runDirectory: result.value.runDirectory,
        stopReason: result.value.final.stop_reason,
      };
    },
  },
  {
    id: "existing_output_destination",
    async run(root) {
      const description = "existing output destination is refused and left untouched";
      const destination = join(root, this.id);
      mkdirSync(destination, { mode: 0o700 });
      writeFileSync(join(destination, "keep.txt"), "pre-existing\n");
      const result = await runLab({
        runDirectory: destination,
        kind: "negative_check",
        source: new ScriptedSource([READ_SOURCE]),
      });
      const observed = result.ok ? "created" : result.error;
      const untouched =
        readdirSync(destination).join(",") === "keep.txt" &&
        readFileSync(join(destination, "keep.txt"), "utf8") === "pre-existing\n";
      return {
        id: this.id,
        description,
        expected: "run_destination_exists",
        observed,
        unchanged: untouched ? "yes" : "no",
        passed: observed === "run_destination_exists" && untouched,
        problems: [],
        runDirectory: null,
        stopReason: null,
      };
    },
  },
];

function failedRow(id: string, description: string, expected: string, observed: string): CheckRow {
  return {
    id,
    description,
    expected,
    observed,
    unchanged: "no",
    passed: false,
    problems: ["the run could not be created"],
    runDirectory: null,
    stopReason: null,
  };
}
