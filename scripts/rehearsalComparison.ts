// The bench rehearsal model run twice, through the local engine and through llama-server,
// compared task by task (npm run test:llama-server -- --rehearsal). Pure functions over the two
// run directories' records, so the comparison itself is unit-tested without a server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../src/core/canonicalJson.ts";
import { strictTraceRecords, type BenchTraceRecordOf } from "../src/bench/runs/benchTrace.ts";

/** What one task's record and trace say, reduced to what both paths must agree on. */
export interface TaskView {
  readonly taskId: string;
  readonly condition: string;
  readonly outcome: string;
  readonly stopReason: string;
  readonly claimedFixed: boolean;
  readonly falseFixed: boolean;
  readonly refusedStops: number;
  readonly turns: number;
  readonly seconds: number;
  /** Per model turn: the reply text (trimmed) and its tool calls (name and canonical arguments). */
  readonly replies: readonly {
    readonly content: string;
    readonly toolCalls: readonly string[];
    readonly finishReason: string | null;
  }[];
  readonly modelErrors: number;
  readonly protocolFindings: number;
}

export interface Expectation {
  readonly id: string;
  readonly expect: { readonly claimed: boolean; readonly fixed: boolean; readonly refusedStops: number };
  readonly replies: readonly string[];
}

export interface TaskComparison {
  readonly taskId: string;
  readonly local: TaskView | null;
  readonly server: TaskView | null;
  /** Empty when the two paths agree on this task. */
  readonly differences: readonly string[];
  /** Where a path ended other than as trained (outcome, claim, refused stops, turns). */
  readonly untrained: readonly string[];
}

function canonicalArguments(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return `unparsed:${text}`;
  }
}

/** Reads tasks.ndjson and each task's trace from a finished run directory. */
export function readRunTasks(runDirectory: string): TaskView[] {
  const lines = readFileSync(join(runDirectory, "tasks.ndjson"), "utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "");
  return lines.map((line) => {
    const t = JSON.parse(line) as {
      taskId: string;
      condition: string;
      outcome: string;
      stopReason: string;
      claimedFixed: boolean;
      falseFixed: boolean;
      turns: number;
      seconds: number;
      tracePath: string;
      guardrails: { refusedStopAttempts: number };
    };
    const events = strictTraceRecords(readFileSync(join(runDirectory, t.tracePath), "utf8"), t.tracePath);
    return {
      taskId: t.taskId,
      condition: t.condition,
      outcome: t.outcome,
      stopReason: t.stopReason,
      claimedFixed: t.claimedFixed,
      falseFixed: t.falseFixed,
      refusedStops: t.guardrails.refusedStopAttempts,
      turns: t.turns,
      seconds: t.seconds,
      replies: events
        .filter((e): e is BenchTraceRecordOf<"model_response"> => e.type === "model_response")
        .map((e) => ({
          content: e.data.content.trim(),
          toolCalls: e.data.toolCalls.map((c) => `${c.name} ${canonicalArguments(c.argumentsText)}`),
          finishReason: e.data.finishReason,
        })),
      modelErrors: events.filter((e) => e.type === "model_error").length,
      protocolFindings: events.filter((e) => e.type === "protocol_finding").length,
    };
  });
}

function short(text: string): string {
  const one = text.replace(/\s+/g, " ");
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
}

/** Compares one task's two runs: verdict fields first, then the replies turn by turn. */
export function compareTask(
  local: TaskView | null,
  server: TaskView | null,
  expected: Expectation | undefined,
): TaskComparison {
  const taskId = local?.taskId ?? server?.taskId ?? expected?.id ?? "?";
  const differences: string[] = [];
  const untrained: string[] = [];
  if (local === null || server === null) {
    differences.push(`${local === null ? "the local run" : "the llama-server run"} has no record of ${taskId}`);
  } else {
    for (const key of ["outcome", "stopReason", "claimedFixed", "falseFixed", "refusedStops", "turns"] as const) {
      if (local[key] !== server[key])
        differences.push(`${key}: local ${String(local[key])}, llama-server ${String(server[key])}`);
    }
    const turns = Math.max(local.replies.length, server.replies.length);
    for (let i = 0; i < turns; i++) {
      const a = local.replies[i];
      const b = server.replies[i];
      if (a === undefined || b === undefined) {
        differences.push(`turn ${i + 1}: only ${a === undefined ? "llama-server" : "the local engine"} answered`);
        continue;
      }
      if (a.content !== b.content)
        differences.push(`turn ${i + 1} text: local "${short(a.content)}", llama-server "${short(b.content)}"`);
      if (a.toolCalls.join("\n") !== b.toolCalls.join("\n"))
        differences.push(
          `turn ${i + 1} tool calls: local [${a.toolCalls.map(short).join("; ")}], llama-server [${b.toolCalls.map(short).join("; ")}]`,
        );
    }
  }
  for (const [path, view] of [
    ["local", local],
    ["llama-server", server],
  ] as const) {
    if (view === null || expected === undefined) continue;
    const fixed = view.outcome === "fixed";
    if (
      fixed !== expected.expect.fixed ||
      view.claimedFixed !== expected.expect.claimed ||
      view.refusedStops !== expected.expect.refusedStops ||
      view.turns !== expected.replies.length
    ) {
      untrained.push(
        `${path}: ${view.outcome}, claimed ${String(view.claimedFixed)}, refused stops ${view.refusedStops}, ${view.turns} turns (trained: ${expected.expect.fixed ? "fixed" : "not fixed"}, claimed ${String(expected.expect.claimed)}, refused stops ${expected.expect.refusedStops}, ${expected.replies.length} turns)`,
      );
    }
    if (view.modelErrors > 0) untrained.push(`${path}: ${view.modelErrors} model error(s)`);
    if (view.protocolFindings > 0)
      untrained.push(`${path}: ${view.protocolFindings} protocol finding(s) (tool calls left as text)`);
    const truncated = view.replies.filter((r) => r.finishReason === "length").length;
    if (truncated > 0) untrained.push(`${path}: ${truncated} reply(ies) cut at the token limit`);
  }
  return { taskId, local, server, differences, untrained };
}

export function compareRuns(
  local: readonly TaskView[],
  server: readonly TaskView[],
  expected: readonly Expectation[],
): TaskComparison[] {
  const ids = [
    ...new Set([...expected.map((e) => e.id), ...local.map((t) => t.taskId), ...server.map((t) => t.taskId)]),
  ];
  const byId = (views: readonly TaskView[], id: string): TaskView | null => views.find((v) => v.taskId === id) ?? null;
  return ids.map((id) =>
    compareTask(
      byId(local, id),
      byId(server, id),
      expected.find((e) => e.id === id),
    ),
  );
}

/** One condition's line: "4/5 fixed, 1 false fixed, 1 refused stop". */
export function conditionSummary(views: readonly TaskView[]): string {
  const fixed = views.filter((v) => v.outcome === "fixed").length;
  const falseFixed = views.filter((v) => v.falseFixed).length;
  const refused = views.reduce((n, v) => n + v.refusedStops, 0);
  return [
    `${fixed}/${views.length} fixed`,
    ...(falseFixed > 0 ? [`${falseFixed} false "fixed"`] : []),
    ...(refused > 0 ? [`${refused} refused stop${refused === 1 ? "" : "s"}`] : []),
  ].join(", ");
}

export function timing(views: readonly TaskView[]): {
  tasks: number;
  turns: number;
  secondsPerTask: number;
  secondsPerTurn: number;
} {
  const seconds = views.reduce((n, v) => n + v.seconds, 0);
  const turns = views.reduce((n, v) => n + v.turns, 0);
  return {
    tasks: views.length,
    turns,
    secondsPerTask: views.length === 0 ? 0 : seconds / views.length,
    secondsPerTurn: turns === 0 ? 0 : seconds / turns,
  };
}

function cell(v: TaskView | null): string {
  return v === null
    ? "—"
    : `${v.outcome}${v.claimedFixed ? ", claimed" : ""}${v.falseFixed ? " (false fixed)" : ""}${v.refusedStops > 0 ? `, ${v.refusedStops} refused stop` : ""}, ${v.turns} turns`;
}

/** The side-by-side tables, per condition and per task, in Markdown. */
export function renderComparison(
  comparisons: readonly TaskComparison[],
  local: readonly TaskView[],
  server: readonly TaskView[],
): string {
  const conditions = [...new Set([...local, ...server].map((v) => v.condition))].sort();
  const lines = ["| Condition | local engine | llama-server |", "|---|---|---|"];
  for (const c of conditions)
    lines.push(
      `| ${c} | ${conditionSummary(local.filter((v) => v.condition === c))} | ${conditionSummary(server.filter((v) => v.condition === c))} |`,
    );
  lines.push("", "| Task | local engine | llama-server | agree |", "|---|---|---|---|");
  for (const c of comparisons)
    lines.push(
      `| ${c.taskId} | ${cell(c.local)} | ${cell(c.server)} | ${c.differences.length === 0 ? "yes" : `NO: ${c.differences.join("; ")}`} |`,
    );
  return lines.join("\n") + "\n";
}
