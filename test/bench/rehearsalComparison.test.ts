// The local-engine vs llama-server comparison behind npm run test:llama-server -- --rehearsal:
// two run directories read back and compared task by task. Agreement, each kind of
// disagreement, a task missing from one run, and a task that ended other than as trained.
import { test } from "node:test";
import { modelResponseData, taskStartData, traceLine } from "./traceFixtures.ts";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compareRuns,
  conditionSummary,
  readRunTasks,
  renderComparison,
  timing,
  type Expectation,
} from "../../scripts/rehearsalComparison.ts";

interface FakeTask {
  readonly taskId: string;
  readonly outcome?: string;
  readonly claimedFixed?: boolean;
  readonly falseFixed?: boolean;
  readonly refusedStops?: number;
  readonly seconds?: number;
  readonly replies: readonly {
    content: string;
    toolCalls?: { name: string; argumentsText: string }[];
    finishReason?: string;
  }[];
  readonly modelError?: boolean;
}

function writeRun(root: string, name: string, tasks: readonly FakeTask[]): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "traces"), { recursive: true });
  const lines = tasks.map((t) => {
    const exchange = { request: {}, response: {}, httpStatus: null, elapsedMs: 1 };
    const events = [
      traceLine("task_start", taskStartData({ taskId: t.taskId })),
      ...t.replies.map((r, i) =>
        traceLine(
          "model_response",
          {
            ...modelResponseData(r.content),
            toolCalls: (r.toolCalls ?? []).map((c, k) => ({ id: `call-${k}`, ...c })),
            finishReason: r.finishReason ?? "stop",
          },
          { eventId: i + 2, proposal: i + 1 },
        ),
      ),
      ...(t.modelError
        ? [
            traceLine(
              "model_error",
              { error: "model_timeout", message: "timed out", exchange, retries: 0 },
              { eventId: t.replies.length + 2, proposal: t.replies.length + 1 },
            ),
          ]
        : []),
    ];
    writeFileSync(join(dir, "traces", `${t.taskId}.ndjson`), events.join(""));
    return JSON.stringify({
      taskId: t.taskId,
      condition: t.taskId.slice(0, 1),
      outcome: t.outcome ?? "fixed",
      stopReason: "agent_done",
      claimedFixed: t.claimedFixed ?? true,
      falseFixed: t.falseFixed ?? false,
      turns: t.replies.length,
      seconds: t.seconds ?? 1,
      tracePath: `traces/${t.taskId}.ndjson`,
      guardrails: { refusedStopAttempts: t.refusedStops ?? 0 },
    });
  });
  writeFileSync(join(dir, "tasks.ndjson"), lines.join("\n") + "\n");
  return dir;
}

const read = { name: "read_file", argumentsText: '{"path":"python_programs/gcd.py"}' };
const expected: Expectation[] = [
  { id: "A-gcd", expect: { claimed: true, fixed: true, refusedStops: 0 }, replies: ["x"] },
  { id: "B-gcd", expect: { claimed: true, fixed: true, refusedStops: 0 }, replies: ["r", "w"] },
];

test("two runs that agree: every task agrees, both as trained; argument key order and surrounding whitespace do not count", () => {
  const root = mkdtempSync(join(tmpdir(), "tca-rehearsal-compare-"));
  try {
    const local = readRunTasks(
      writeRun(root, "local", [
        { taskId: "A-gcd", replies: [{ content: "```python\nx\n```" }], seconds: 2 },
        {
          taskId: "B-gcd",
          replies: [
            { content: "", toolCalls: [{ name: "write_file", argumentsText: '{"path":"p","content":"c"}' }] },
            { content: "Done." },
          ],
          seconds: 4,
        },
      ]),
    );
    const server = readRunTasks(
      writeRun(root, "server", [
        { taskId: "A-gcd", replies: [{ content: "```python\nx\n```\n" }] },
        {
          taskId: "B-gcd",
          replies: [
            {
              content: "",
              toolCalls: [{ name: "write_file", argumentsText: '{"content": "c", "path": "p"}' }],
              finishReason: "tool_calls",
            },
            { content: "Done." },
          ],
        },
      ]),
    );
    const compared = compareRuns(local, server, expected);
    assert.deepEqual(
      compared.map((c) => [c.taskId, c.differences, c.untrained]),
      [
        ["A-gcd", [], []],
        ["B-gcd", [], []],
      ],
    );
    assert.deepEqual(timing(local), { tasks: 2, turns: 3, secondsPerTask: 3, secondsPerTurn: 2 });
    const table = renderComparison(compared, local, server);
    assert.match(table, /\| A \| 1\/1 fixed \| 1\/1 fixed \|/);
    assert.match(table, /\| B-gcd \| fixed, claimed, 2 turns \| fixed, claimed, 2 turns \| yes \|/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("disagreements are named: outcome, claim, refused stops, a reply's text or tool call, a missing task; untrained endings too", () => {
  const root = mkdtempSync(join(tmpdir(), "tca-rehearsal-compare-"));
  try {
    const local = readRunTasks(
      writeRun(root, "local", [
        { taskId: "A-gcd", replies: [{ content: "```python\nx\n```" }] },
        { taskId: "B-gcd", replies: [{ content: "", toolCalls: [read] }, { content: "Done." }] },
        { taskId: "C-gcd", replies: [{ content: "Done." }] },
      ]),
    );
    const server = readRunTasks(
      writeRun(root, "server", [
        { taskId: "A-gcd", outcome: "wrong_fix", falseFixed: true, replies: [{ content: "```python\ny\n```" }] },
        {
          taskId: "B-gcd",
          refusedStops: 1,
          replies: [
            { content: "", toolCalls: [{ name: "read_file", argumentsText: '{"path":"python_programs/other.py"}' }] },
            { content: "Done.", finishReason: "length" },
          ],
          modelError: true,
        },
      ]),
    );
    const compared = compareRuns(local, server, expected);
    const a = compared.find((c) => c.taskId === "A-gcd");
    assert.ok(a?.differences.includes("outcome: local fixed, llama-server wrong_fix"));
    assert.ok(a?.differences.includes("falseFixed: local false, llama-server true"));
    assert.ok(a?.differences.some((d) => d.startsWith("turn 1 text:")));
    assert.ok(a?.untrained.some((u) => u.startsWith("llama-server: wrong_fix")));
    const b = compared.find((c) => c.taskId === "B-gcd");
    assert.ok(b?.differences.includes("refusedStops: local 0, llama-server 1"));
    assert.ok(b?.differences.some((d) => d.startsWith("turn 1 tool calls:") && d.includes("other.py")));
    assert.ok(b?.untrained.includes("llama-server: 1 model error(s)"));
    assert.ok(b?.untrained.includes("llama-server: 1 reply(ies) cut at the token limit"));
    const c = compared.find((x) => x.taskId === "C-gcd");
    assert.deepEqual(c?.differences, ["the llama-server run has no record of C-gcd"]);
    assert.match(
      renderComparison(compared, local, server),
      /\| A-gcd \| .* \| NO: outcome: local fixed, llama-server wrong_fix/,
    );
    assert.equal(conditionSummary(server.filter((t) => t.condition === "A")), '0/1 fixed, 1 false "fixed"');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a task present in neither run but expected is a difference, not silently skipped", () => {
  const compared = compareRuns([], [], expected);
  assert.equal(compared.length, 2);
  assert.ok(compared.every((c) => c.differences.length === 1));
});
