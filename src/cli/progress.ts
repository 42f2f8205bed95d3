// Progress on stderr for anything that takes more than a couple of seconds. On a terminal one
// status line is rewritten in place (throttled); when stderr is not a terminal, or with --json,
// it prints nothing, so logs and pipes stay line-oriented and quiet. No colour is used, so
// NO_COLOR has nothing to turn off.
export interface StatusLine {
  /** Replaces the status line (at most every `intervalMs`, except the first). */
  update(text: string): void;
  /** Clears the status line, then prints `text` as a normal line when given. */
  done(text?: string): void;
}

export interface StatusLineOptions {
  readonly json?: boolean;
  readonly stream?: NodeJS.WriteStream;
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export function statusLine(options: StatusLineOptions = {}): StatusLine {
  const stream = options.stream ?? process.stderr;
  const interval = options.intervalMs ?? 200;
  const now = options.now ?? (() => performance.now());
  const active = stream.isTTY === true && options.json !== true;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  // A terminal that reports no width (0, as under `script`) is taken as 80 columns.
  const columns = (): number => Math.max(20, (stream.columns || 80) - 1);
  return {
    update(text) {
      if (!active) return;
      const t = now();
      if (t - last < interval) return;
      last = t;
      shown = true;
      stream.write(`\r\x1b[2K${text.slice(0, columns())}`);
    },
    done(text) {
      if (!active) return;
      if (shown) stream.write("\r\x1b[2K");
      shown = false;
      if (text !== undefined) stream.write(`${text}\n`);
    },
  };
}

/** "1.2 MB" style sizes for status lines. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
