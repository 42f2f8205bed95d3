// The harness a run records (manifest.json harness: every file's SHA-256 and their aggregate)
// against the harness reading it now (runtimeIdentity.harnessHashes). The recorded digests are
// text: labManifestCheck only checks that the aggregate is theirs, so a run can claim any harness.
// What the verdict can say is whether that claim is this harness; a difference is not a forgery
// (the run may be older), but it is always shown as "made by another harness version", and the
// recorded digest is never printed as if it were this harness's (issue 33).
import { isRecord } from "../core/isRecord.ts";
import { harnessHashes } from "../recording/runtimeIdentity.ts";

type Json = Readonly<Record<string, unknown>>;

/** Differing files named one by one up to this many. */
const MAX_NAMED_FILES = 5;

export interface HarnessComparison {
  /** manifest.json harness.aggregate_sha256 as recorded (null: none recorded). */
  readonly recordedSha256: string | null;
  /** The aggregate of the harness reading the run now. */
  readonly currentSha256: string;
  readonly sameVersion: boolean;
  /** Files whose recorded digest is not this harness's (or that only one side has), sorted. */
  readonly differingFiles: readonly string[];
  /** One line for the verdict output and submission.md. */
  readonly message: string;
}

export function compareHarness(manifest: Json | null): HarnessComparison {
  const current = harnessHashes();
  const harness = isRecord(manifest?.harness) ? manifest.harness : {};
  const recordedSha256 = typeof harness.aggregate_sha256 === "string" ? harness.aggregate_sha256 : null;
  const recordedFiles = isRecord(harness.files) ? harness.files : {};
  const names = new Set([...Object.keys(recordedFiles), ...Object.keys(current.files)]);
  const differingFiles = [...names].filter((name) => recordedFiles[name] !== current.files[name]).sort();
  const sameVersion = recordedSha256 === current.aggregate_sha256 && differingFiles.length === 0;
  const named = differingFiles.slice(0, MAX_NAMED_FILES).join(", ");
  const more = differingFiles.length > MAX_NAMED_FILES ? `, and ${differingFiles.length - MAX_NAMED_FILES} more` : "";
  const message = sameVersion
    ? `made by this harness version (aggregate sha256 ${current.aggregate_sha256})`
    : `made by another harness version: the run records aggregate sha256 ${recordedSha256 ?? "none"}, ` +
      `this harness is ${current.aggregate_sha256} (${differingFiles.length} file(s) differ: ${named}${more}); ` +
      `the recorded digests are the run's claim, not verified against the code that ran`;
  return { recordedSha256, currentSha256: current.aggregate_sha256, sameVersion, differingFiles, message };
}
