// The four conditions, same model and budget. What each may do is data here and enforced in
// code by toolPolicy.ts; the agent loop never consults the model about permissions.
export const CONDITION_IDS = ["A", "B", "C", "D"] as const;
export type ConditionId = (typeof CONDITION_IDS)[number];

export type ToolName = "read_file" | "write_file" | "run_tests";

export interface Condition {
  readonly id: ConditionId;
  readonly label: string;
  readonly tools: readonly ToolName[];
  /** May read the tests and test data (C, D); B may read only the target. */
  readonly canReadTests: boolean;
  /** D: "done" is refused until run_tests passed on the current file. */
  readonly verifiedCompletion: boolean;
}

export const CONDITIONS: Readonly<Record<ConditionId, Condition>> = {
  A: { id: "A", label: "A · one-shot, no tools", tools: [], canReadTests: false, verifiedCompletion: false },
  B: {
    id: "B",
    label: "B · agent, cannot run tests",
    tools: ["read_file", "write_file"],
    canReadTests: false,
    verifiedCompletion: false,
  },
  C: {
    id: "C",
    label: "C · agent with test feedback",
    tools: ["read_file", "write_file", "run_tests"],
    canReadTests: true,
    verifiedCompletion: false,
  },
  D: {
    id: "D",
    label: "D · C, and only passing tests end the task",
    tools: ["read_file", "write_file", "run_tests"],
    canReadTests: true,
    verifiedCompletion: true,
  },
};

/** The spec's budget: 8 model turns, 2,048 tokens per turn, 300 s per task. */
export const AGENT_BUDGET = {
  maxTurns: 8,
  maxTokensPerTurn: 2048,
  taskTimeoutMs: 300_000,
} as const;
export type AgentBudget = {
  readonly maxTurns: number;
  readonly maxTokensPerTurn: number;
  readonly taskTimeoutMs: number;
};

export function parseConditionList(text: string): ConditionId[] | undefined {
  const parts = text
    .split(",")
    .map((s) => s.trim().toUpperCase())
    .filter((s) => s !== "");
  const out: ConditionId[] = [];
  for (const p of parts) {
    const found = CONDITION_IDS.find((c) => c === p);
    if (!found) return undefined;
    if (!out.includes(found)) out.push(found);
  }
  return out.length > 0 ? out : undefined;
}

/** One task is one program under one condition; its id names both. */
export function taskId(condition: ConditionId, program: string): string {
  return `${condition}-${program}`;
}
