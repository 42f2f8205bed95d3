// Progress of an acquisition: bars (bytes, rate, ETA per file and overall) through
// cli-progress on a terminal, plain lines otherwise, nothing in tests.
import cliProgress from "cli-progress";
import { formatCount } from "../../core/numberFormat.ts";

export interface AcquisitionProgress {
  start(totalBytes: number): void;
  fileStarted(name: string, bytes: number, attempt: number): void;
  payloadBytes(count: number): void;
  fileFinished(name: string, outcome: "verified" | "failed" | "retrying", detail: string): void;
  stop(): void;
}

export const silentProgress: AcquisitionProgress = {
  start: () => undefined,
  fileStarted: () => undefined,
  payloadBytes: () => undefined,
  fileFinished: () => undefined,
  stop: () => undefined,
};

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** One line per event, plus a line per 10% of a large file; for logs and non-TTY output. */
export function lineProgress(write: (line: string) => void): AcquisitionProgress {
  let fileName = "";
  let fileBytes = 0;
  let fileSeen = 0;
  let nextMark = 0;
  return {
    start: (totalBytes) => write(`acquiring: ${formatCount(totalBytes)} bytes expected in all`),
    fileStarted: (name, bytes, attempt) => {
      fileName = name;
      fileBytes = bytes;
      fileSeen = 0;
      nextMark = bytes / 10;
      // What is expected, not what arrived: the count received comes with the file's outcome.
      write(`${name}: ${attempt > 1 ? `retry ${attempt - 1}, ` : ""}fetching, ${formatCount(bytes)} bytes expected`);
    },
    payloadBytes: (count) => {
      fileSeen += count;
      if (fileBytes >= 10_000_000 && fileSeen >= nextMark && fileSeen < fileBytes) {
        write(`${fileName}: ${megabytes(fileSeen)} of ${megabytes(fileBytes)}`);
        nextMark += fileBytes / 10;
      }
    },
    fileFinished: (name, outcome, detail) => {
      // A file that failed before it was started (the deadline) has no count of its own.
      const counts = name === fileName ? `, ${formatCount(fileSeen)} of ${formatCount(fileBytes)} bytes received` : "";
      write(`${name}: ${outcome}${counts}${detail === "" ? "" : ` (${detail})`}`);
    },
    stop: () => undefined,
  };
}

/** Bars on a terminal: one for the file in flight, one overall; rate and ETA from cli-progress. */
export function terminalProgress(stream: NodeJS.WriteStream): AcquisitionProgress {
  const multibar = new cliProgress.MultiBar(
    {
      stream,
      format: "{label} |{bar}| {percentage}% {done}/{size} {rate} ETA {eta_formatted}",
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let overall: cliProgress.SingleBar | null = null;
  let current: cliProgress.SingleBar | null = null;
  let overallValue = 0;
  let overallTotal = 0;
  let fileValue = 0;
  let fileTotal = 0;
  let overallStartedMs = 0;
  let fileStartedMs = 0;
  const rate = (bytes: number, startedMs: number): string => {
    const seconds = (performance.now() - startedMs) / 1000;
    return seconds > 0 ? `${megabytes(bytes / seconds)}/s` : "";
  };
  return {
    start(totalBytes) {
      overallTotal = totalBytes;
      overallStartedMs = performance.now();
      overall = multibar.create(totalBytes, 0, {
        label: "overall".padEnd(24),
        done: megabytes(0),
        size: megabytes(totalBytes),
        rate: "",
      });
    },
    fileStarted(name, bytes, attempt) {
      if (current !== null) multibar.remove(current);
      fileValue = 0;
      fileTotal = bytes;
      fileStartedMs = performance.now();
      const label = `${name}${attempt > 1 ? " (retry)" : ""}`.padEnd(24);
      current = multibar.create(bytes, 0, { label, done: megabytes(0), size: megabytes(bytes), rate: "" });
    },
    payloadBytes(count) {
      fileValue += count;
      overallValue += count;
      current?.update(Math.min(fileValue, fileTotal), {
        done: megabytes(fileValue),
        rate: rate(fileValue, fileStartedMs),
      });
      overall?.update(Math.min(overallValue, overallTotal), {
        done: megabytes(overallValue),
        rate: rate(overallValue, overallStartedMs),
      });
    },
    fileFinished(name, outcome, detail) {
      if (current !== null) multibar.remove(current);
      current = null;
      multibar.log(`${name}: ${outcome}${detail === "" ? "" : ` (${detail})`}\n`);
    },
    stop() {
      multibar.stop();
    },
  };
}
