// Which trial a model run is (Part 10: "Any additional trial is a separately labeled extension
// with fresh files, a declared change, and the same resource opt-in"). The acquisition ledger of
// the model directory is the record: the first trial it holds is THE trial; every later one is an
// extension and must declare its change. The decision is pure, from the ledger as read before the
// new window is claimed, so a run cannot relabel itself.
import { ledgerTrialWindows, type AcquisitionLedger } from "../model/artifacts/ledger.ts";
import { err, ok, type Result } from "../core/result.ts";

export type TrialRoleErrorCode = "extension_required" | "extension_not_applicable" | "extension_invalid";

export interface TrialRole {
  readonly role: "trial" | "extension";
  /** 1 for the trial, 2 for the first extension, ... */
  readonly ordinal: number;
  readonly declaredChange: string | null;
  /** Window ids of the trials already recorded in the ledger, oldest first. */
  readonly earlierTrialWindows: readonly string[];
}

export const DECLARED_CHANGE_MAX_CHARS = 300;

export function decideTrialRole(
  ledger: AcquisitionLedger,
  extension: string | null,
): Result<TrialRole, TrialRoleErrorCode> {
  const earlier = ledgerTrialWindows(ledger);
  if (extension !== null) {
    const change = extension.trim();
    const oneLine = [...change].every((char) => char >= " " && char !== "\u007f");
    if (change.length === 0 || change.length > DECLARED_CHANGE_MAX_CHARS || !oneLine) {
      return err(
        "extension_invalid",
        `--extension needs the declared change: one line of 1 to ${DECLARED_CHANGE_MAX_CHARS} characters`,
      );
    }
    if (earlier.length === 0) {
      return err(
        "extension_not_applicable",
        "no trial of this model directory has run yet: the first one is the trial, run it without --extension",
      );
    }
    return ok({ role: "extension", ordinal: earlier.length + 1, declaredChange: change, earlierTrialWindows: earlier });
  }
  if (earlier.length > 0) {
    return err(
      "extension_required",
      `this model directory's ledger already holds ${earlier.length} trial(s); any further trial is an extension: pass --extension "<declared change>"`,
    );
  }
  return ok({ role: "trial", ordinal: 1, declaredChange: null, earlierTrialWindows: [] });
}
