// The acquisition plan `tca model plan` prints and `acquire` shows before asking: pinned
// identity, the files and their sizes, total and ceiling, destination, time limits and the
// Part 1 runtime estimates (clearly marked as estimates). Building it touches nothing.
import { MAX_COLUMNS } from "../../core/textWidth.ts";
import { PINNED_MODEL, RESOURCE_ESTIMATES, TIME_LIMITS, TRANSFER_RULES, type PinSet } from "../pins.ts";
import { fileUrl, type ResolvedEndpoint } from "./endpoint.ts";
import { formatBytes } from "./resources.ts";
import { formatCount } from "../../core/numberFormat.ts";

export interface PlannedFile {
  readonly name: string;
  readonly bytes: number;
  readonly url: string;
  readonly identity: string;
}

export interface AcquisitionPlan {
  readonly repository: string;
  readonly revision: string;
  readonly files: readonly PlannedFile[];
  readonly totalBytes: number;
  readonly aggregateCeilingBytes: number;
  readonly destination: string | null;
  readonly endpoint: string;
}

export function buildPlan(pins: PinSet, endpoint: ResolvedEndpoint, destination: string | null): AcquisitionPlan {
  return {
    repository: pins.repository,
    revision: pins.revision,
    files: pins.files.map((file) => ({
      name: file.name,
      bytes: file.bytes,
      url: fileUrl(endpoint, pins, file.name),
      identity: file.gitBlobSha1 !== undefined ? `git blob ${file.gitBlobSha1}` : `sha256 ${file.sha256 ?? "(none)"}`,
    })),
    totalBytes: pins.files.reduce((sum, file) => sum + file.bytes, 0),
    aggregateCeilingBytes: pins.aggregateCeilingBytes,
    destination,
    endpoint: endpoint.base,
  };
}

const minutes = (ms: number): string => `${ms / 60_000} minutes`;

export function formatPlan(plan: AcquisitionPlan): string[] {
  const nameWidth = Math.max(...plan.files.map((file) => file.name.length), 4);
  const byteWidth = Math.max(...plan.files.map((file) => formatCount(file.bytes).length), 5);
  const lines = [
    "Pinned model",
    `  repository:   ${plan.repository}`,
    `  revision:     ${plan.revision}`,
    `  license:      ${PINNED_MODEL.license}`,
    `  parameters:   ${formatCount(PINNED_MODEL.parameters)}`,
    `  format:       ${PINNED_MODEL.format}`,
    `  endpoint:     ${plan.endpoint} (anonymous; no token is read or sent)`,
    "",
    "Files (only these are requested)",
    `  ${"File".padEnd(nameWidth)}  ${"Bytes".padStart(byteWidth)}  Expected identity`,
    // A sha256 identity (64 digits) does not fit beside the name within 100 columns: it goes on
    // the next line, indented under its file.
    ...plan.files.flatMap((file) => {
      const row = `  ${file.name.padEnd(nameWidth)}  ${formatCount(file.bytes).padStart(byteWidth)}  ${file.identity}`;
      return row.length <= MAX_COLUMNS
        ? [row]
        : [
            `  ${file.name.padEnd(nameWidth)}  ${formatCount(file.bytes).padStart(byteWidth)}`,
            `      ${file.identity}`,
          ];
    }),
    `  ${"total".padEnd(nameWidth)}  ${formatCount(plan.totalBytes).padStart(byteWidth)}`,
    "",
    "Limits",
    `  aggregate transfer ceiling: ${formatBytes(plan.aggregateCeilingBytes)}`,
    "    (partial responses and retries count)",
    `  retries: at most ${TRANSFER_RULES.maxRetriesPerFile} per file; redirects: at most ${TRANSFER_RULES.maxRedirects} per request`,
    `  acquisition deadline: ${minutes(TIME_LIMITS.acquisitionMs)} (monotonic)`,
    `  one window of ${minutes(TIME_LIMITS.windowMs)}: at most ${minutes(TIME_LIMITS.acquisitionMs)} acquiring,`,
    `    at most ${minutes(TIME_LIMITS.trialMs)} for loading, the trial and final evaluation`,
    `  destination: ${plan.destination ?? "(none given; pass --directory DIR, a new directory)"}`,
    "",
    "Runtime estimates (estimates from the Lab, not measurements)",
    `  float32 parameters: ~${formatBytes(RESOURCE_ESTIMATES.float32ParameterBytes)}`,
    "  working memory: several GB beyond that; acquisition requires at least",
    `    ${formatBytes(RESOURCE_ESTIMATES.minimumTotalMemoryBytes)} installed and ${formatBytes(RESOURCE_ESTIMATES.minimumAvailableMemoryBytes)} available`,
    `  free disk: at least ${formatBytes(RESOURCE_ESTIMATES.minimumFreeDiskBytes)} at the destination,`,
    "    beyond the installed environment",
    "    (temporary copies, the derived GGUF file and package caches can need more)",
  ];
  return lines;
}
