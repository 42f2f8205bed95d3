// Progress of a benchmark run: tasks done/total, fixed so far per condition, elapsed, ETA.
// A cli-progress bar on a terminal; one plain line per finished task otherwise.
import cliProgress from "cli-progress";
import type { TaskResult } from "../results/taskOutcome.ts";
import { formatDuration } from "../../core/numberFormat.ts";

export interface ProgressReporter {
  start(total: number, alreadyDone: readonly TaskResult[]): void;
  taskDone(result: TaskResult): void;
  stop(): void;
}

/** Every time on these lines in the project's one duration format ("12.3 s", "1 min 02 s"). */
function fmt(seconds: number): string {
  return formatDuration(Math.max(0, seconds));
}

class Tally {
  done = 0;
  total = 0;
  private readonly fixed = new Map<string, { fixed: number; done: number }>();
  private startedAt = performance.now();
  private newlyDone = 0;
  start(total: number, already: readonly TaskResult[]): void {
    this.total = total;
    this.startedAt = performance.now();
    for (const r of already) this.add(r, false);
  }
  add(r: TaskResult, fresh = true): void {
    this.done++;
    if (fresh) this.newlyDone++;
    const c = this.fixed.get(r.condition) ?? { fixed: 0, done: 0 };
    c.done++;
    if (r.outcome === "fixed") c.fixed++;
    this.fixed.set(r.condition, c);
  }
  perCondition(): string {
    return [...this.fixed.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} ${v.fixed}/${v.done}`)
      .join(" ");
  }
  elapsed(): number {
    return (performance.now() - this.startedAt) / 1000;
  }
  eta(): number {
    return this.newlyDone === 0 ? 0 : (this.elapsed() / this.newlyDone) * (this.total - this.done);
  }
}

export class LineProgress implements ProgressReporter {
  private readonly tally = new Tally();
  constructor(private readonly write: (line: string) => void) {}
  start(total: number, alreadyDone: readonly TaskResult[]): void {
    this.tally.start(total, alreadyDone);
    this.write(`tasks: ${total} (${alreadyDone.length} already done)`);
  }
  taskDone(r: TaskResult): void {
    this.tally.add(r);
    // Two lines, each within 100 columns: the task, then the run's tally so far.
    this.write(
      `[${this.tally.done}/${this.tally.total}] ${r.taskId}: ${r.outcome.replace(/_/g, " ")}${r.falseFixed ? " (false fixed)" : ""}, ${r.turns} turn${r.turns === 1 ? "" : "s"}, ${fmt(r.seconds)}`,
    );
    this.write(
      `  fixed so far ${this.tally.perCondition()} | elapsed ${fmt(this.tally.elapsed())}, eta ${fmt(this.tally.eta())}`,
    );
  }
  stop(): void {}
}

export class BarProgress implements ProgressReporter {
  private readonly tally = new Tally();
  private readonly bar = new cliProgress.SingleBar(
    {
      format: "{bar} {value}/{total} | fixed {fixed} | elapsed {elapsedText} | eta {etaText}{generation}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  start(total: number, alreadyDone: readonly TaskResult[]): void {
    this.tally.start(total, alreadyDone);
    this.bar.start(total, this.tally.done, {
      fixed: this.tally.perCondition(),
      elapsedText: fmt(0),
      etaText: "?",
      generation: "",
    });
  }
  taskDone(r: TaskResult): void {
    this.tally.add(r);
    this.bar.update(this.tally.done, {
      fixed: this.tally.perCondition(),
      elapsedText: fmt(this.tally.elapsed()),
      etaText: fmt(this.tally.eta()),
      generation: "",
    });
  }
  /** The local engine's running call (e.g. "generating… 45 tokens, 9.3 tok/s"), formatted by the CLI. */
  generation(text: string): void {
    this.bar.update({ generation: text === "" ? "" : ` | ${text}` });
  }
  stop(): void {
    this.bar.stop();
  }
}

export const silentProgress: ProgressReporter = { start: () => {}, taskDone: () => {}, stop: () => {} };
