// Every command, every path argument, every kind of bad path (issue 28): a missing path, a file
// where a folder is expected or the reverse, a dangling symlink, a file standing where a parent
// folder must be, a missing parent; and, when not root, a folder without permission. Each must
// be answered by exactly one line `tca <command>: <code>: <message>` naming the path, a non-zero
// exit, no stack trace, and nothing changed on disk. The calls run through main() in one child
// process (test/cli/badPathDriver.ts), so the matrix costs one start-up, not one per case.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  lstatSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { MINI_DATASET_DIR } from "../support/optionalResources.ts";
// Type only: the driver runs main() when executed, never when its type is imported.

const DRIVER = fileURLToPath(new URL("./badPathDriver.mjs", import.meta.url));

/** One call of main() in badPathDriver.mjs: what it printed, its exit status, and whether it threw. */
interface Outcome {
  readonly argv: readonly string[];
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly threw: string | null;
}

/** What a path argument must be: an existing folder or file, a new file or folder, or a folder made or reused. */
type Role = "folder" | "file" | "new" | "made";

interface PathArgument {
  readonly command: string;
  readonly role: Role;
  /** The whole argv with the bad path in place; `fixtures` holds valid values for the other arguments. */
  readonly argv: (bad: string, fixtures: Fixtures) => string[];
}

interface Fixtures {
  readonly baseline: string;
  readonly checkpoint: string;
  readonly answers: string;
  readonly scratch: string;
}

const ENDPOINT = ["--endpoint", "http://127.0.0.1:9/v1", "--model", "x"];
const ARGUMENTS: readonly PathArgument[] = [
  { command: "lab baseline", role: "new", argv: (p) => ["lab", "baseline", "--run", p] },
  { command: "lab checks", role: "new", argv: (p) => ["lab", "checks", "--root", p] },
  {
    command: "lab predict",
    role: "folder",
    argv: (p, f) => ["lab", "predict", "--model-directory", p, "--answers", f.answers],
  },
  {
    command: "lab predict",
    role: "file",
    argv: (p, f) => ["lab", "predict", "--answers", p, "--predictions", join(f.scratch, "new.json")],
  },
  {
    command: "lab predict",
    role: "new",
    argv: (p, f) => ["lab", "predict", "--predictions", p, "--answers", f.answers],
  },
  {
    command: "lab model",
    role: "folder",
    argv: (p, f) => [
      "lab",
      "model",
      "--run",
      join(f.scratch, "run"),
      "--model-directory",
      p,
      "--yes",
      "--without-predictions",
    ],
  },
  {
    command: "lab model",
    role: "new",
    argv: (p, f) => ["lab", "model", "--run", p, "--model-directory", f.checkpoint, "--yes", "--without-predictions"],
  },
  {
    command: "lab model",
    role: "file",
    argv: (p, f) => [
      "lab",
      "model",
      "--run",
      join(f.scratch, "run"),
      "--model-directory",
      f.checkpoint,
      "--predictions",
      p,
      "--yes",
    ],
  },
  {
    command: "lab model",
    role: "folder",
    argv: (p, f) => [
      "lab",
      "model",
      "--run",
      join(f.scratch, "run"),
      "--model-directory",
      f.checkpoint,
      "--baseline",
      p,
      "--yes",
      "--without-predictions",
    ],
  },
  {
    command: "lab model",
    role: "folder",
    argv: (p, f) => [
      "lab",
      "model",
      "--run",
      join(f.scratch, "run"),
      "--model-directory",
      f.checkpoint,
      "--checks",
      p,
      "--yes",
      "--without-predictions",
    ],
  },
  {
    command: "lab submission",
    role: "folder",
    argv: (p, f) => ["lab", "submission", "--baseline", p, "--blocked", "x", "--out", join(f.scratch, "s.md")],
  },
  {
    command: "lab submission",
    role: "folder",
    argv: (p, f) => ["lab", "submission", "--baseline", f.baseline, "--model", p, "--out", join(f.scratch, "s.md")],
  },
  {
    command: "lab submission",
    role: "folder",
    argv: (p, f) => [
      "lab",
      "submission",
      "--baseline",
      f.baseline,
      "--blocked",
      "x",
      "--checks",
      p,
      "--out",
      join(f.scratch, "s.md"),
    ],
  },
  {
    command: "lab submission",
    role: "file",
    argv: (p, f) => [
      "lab",
      "submission",
      "--baseline",
      f.baseline,
      "--blocked",
      "x",
      "--predictions",
      p,
      "--out",
      join(f.scratch, "s.md"),
    ],
  },
  {
    command: "lab submission",
    role: "new",
    argv: (p, f) => ["lab", "submission", "--baseline", f.baseline, "--blocked", "x", "--out", p],
  },
  { command: "model verify", role: "folder", argv: (p) => ["model", "verify", "--directory", p] },
  {
    command: "model acquire",
    role: "new",
    argv: (p) => ["model", "acquire", "--directory", p, "--yes", "--endpoint", "http://127.0.0.1:9"],
  },
  {
    command: "model make-test-checkpoint",
    role: "new",
    argv: (p) => ["model", "make-test-checkpoint", "--directory", p, "--size", "tiny"],
  },
  {
    command: "model make-rehearsal-checkpoint",
    role: "new",
    argv: (p) => ["model", "make-rehearsal-checkpoint", "--directory", p],
  },
  {
    command: "model generate",
    role: "folder",
    argv: (p) => ["model", "generate", "--model-directory", p, "--system", "s", "--user", "u"],
  },
  {
    command: "model generate",
    role: "file",
    argv: (p, f) => ["model", "generate", "--model-directory", f.checkpoint, "--input-ids", p],
  },
  {
    command: "model tokenize",
    role: "folder",
    argv: (p) => ["model", "tokenize", "--model-directory", p, "--text", "x"],
  },
  {
    command: "model tokenize",
    role: "file",
    argv: (p, f) => ["model", "tokenize", "--model-directory", f.checkpoint, "--file", p],
  },
  {
    command: "bench quixbugs verify-dataset",
    role: "folder",
    argv: (p) => ["bench", "quixbugs", "verify-dataset", "--dataset", p],
  },
  {
    command: "bench quixbugs run",
    role: "folder",
    argv: (p, f) => ["bench", "quixbugs", "run", "--dataset", p, ...ENDPOINT, "--out", join(f.scratch, "out")],
  },
  {
    command: "bench quixbugs run",
    role: "made",
    argv: (p) => ["bench", "quixbugs", "run", "--dataset", MINI_DATASET_DIR, ...ENDPOINT, "--out", p],
  },
  {
    command: "bench quixbugs run",
    role: "folder",
    argv: (p, f) => [
      "bench",
      "quixbugs",
      "run",
      "--backend",
      "local",
      "--model-directory",
      p,
      "--dataset",
      MINI_DATASET_DIR,
      "--out",
      join(f.scratch, "out"),
    ],
  },
  {
    command: "bench quixbugs make-taskset",
    role: "new",
    argv: (p) => ["bench", "quixbugs", "make-taskset", "--dataset", MINI_DATASET_DIR, "--seed", "1", "--out", p],
  },
  { command: "bench quixbugs compare", role: "folder", argv: (p) => ["bench", "quixbugs", "compare", p] },
  {
    command: "bench quixbugs merge",
    role: "folder",
    argv: (p, f) => ["bench", "quixbugs", "merge", "--out", join(f.scratch, "merged"), p],
  },
  {
    command: "bench quixbugs merge",
    role: "made",
    argv: (p, f) => ["bench", "quixbugs", "merge", "--out", p, f.baseline],
  },
  {
    command: "bench quixbugs fetch-dataset",
    role: "made",
    argv: (p) => [
      "bench",
      "quixbugs",
      "fetch-dataset",
      "--directory",
      p,
      "--yes",
      "--archive-url",
      "http://127.0.0.1:9/a.tar.gz",
    ],
  },
  { command: "report", role: "folder", argv: (p) => ["report", p] },
  { command: "report", role: "new", argv: (p, f) => ["report", f.baseline, "--out", p] },
  { command: "expr check", role: "file", argv: (p) => ["expr", "check", p] },
  { command: "proposal check", role: "file", argv: (p) => ["proposal", "check", p] },
];

/** Each kind of bad path for a role, inside a case's own scratch folder (which holds f, d/ and ln -> nowhere). */
function badPaths(role: Role, scratch: string): { kind: string; path: string; alsoNamed: string }[] {
  const file = join(scratch, "f");
  const link = { kind: "dangling symlink", path: join(scratch, "ln"), alsoNamed: join(scratch, "ln") };
  if (role === "folder")
    return [
      { kind: "missing", path: join(scratch, "missing"), alsoNamed: join(scratch, "missing") },
      { kind: "a file", path: file, alsoNamed: file },
      link,
    ];
  if (role === "file")
    return [
      { kind: "missing", path: join(scratch, "missing"), alsoNamed: join(scratch, "missing") },
      { kind: "a folder", path: join(scratch, "d"), alsoNamed: join(scratch, "d") },
      link,
    ];
  const made = [
    { kind: "a file there", path: file, alsoNamed: file },
    { kind: "a file as parent", path: join(file, "new"), alsoNamed: file },
    link,
  ];
  // One rule for every output (issue 35): the command makes the folder, never its parents.
  return [
    ...made,
    { kind: "missing parent", path: join(scratch, "missing", "new"), alsoNamed: join(scratch, "missing") },
  ];
}

function scratchCase(root: string, index: number): string {
  const scratch = join(root, `case-${index}`);
  mkdirSync(scratch);
  writeFileSync(join(scratch, "f"), "x");
  mkdirSync(join(scratch, "d"));
  symlinkSync(join(scratch, "nowhere"), join(scratch, "ln"));
  return scratch;
}

/** Every entry under a folder with its kind and size: what "nothing changed" is checked against. */
function tree(path: string): string[] {
  const entries: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const stats = lstatSync(full);
      entries.push(`${full} ${stats.isDirectory() ? "dir" : stats.isSymbolicLink() ? "link" : `file ${stats.size}`}`);
      if (stats.isDirectory()) walk(full);
    }
  };
  walk(path);
  return entries;
}

function runDriver(root: string, cases: readonly string[][]): Promise<Outcome[]> {
  const casesPath = join(root, "cases.json");
  const outPath = join(root, "outcomes.json");
  writeFileSync(casesPath, JSON.stringify(cases));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [DRIVER, outPath, casesPath],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, TCA_SHARED_DIR: join(root, "no-shared") } },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`the driver failed: ${stderr}`));
        else resolve(JSON.parse(readFileSync(outPath, "utf8")) as Outcome[]);
      },
    );
  });
}

async function fixtures(root: string): Promise<Omit<Fixtures, "scratch">> {
  const baseline = await runScriptedBaseline(join(root, "baseline"));
  if (!baseline.ok) throw new Error(`test setup: baseline: ${baseline.message}`);
  const checkpoint = await makeTestCheckpoint({
    directory: join(root, "checkpoint"),
    size: "tiny",
    seed: 0,
    tokenizer: "synthetic-bpe",
  });
  if (!checkpoint.ok) throw new Error(`test setup: checkpoint: ${checkpoint.message}`);
  const answers = join(root, "answers.json");
  writeFileSync(answers, JSON.stringify(["a", "b", "c", "d", "e"]));
  return { baseline: join(root, "baseline"), checkpoint: join(root, "checkpoint"), answers };
}

const ERROR_LINE = /^tca ([a-z][a-z -]*?): ([a-z][a-z0-9_]*): (.+)$/;

/** Whatever went wrong with one case, as a sentence (null: the case is answered as it must be). */
function problem(outcome: Outcome, command: string, named: readonly string[]): string | null {
  if (outcome.threw !== null) return `threw (a stack trace for the user): ${outcome.threw.split("\n")[0] ?? ""}`;
  if (outcome.exitCode === 0 || outcome.exitCode === null) return `exit status ${String(outcome.exitCode)}`;
  const output = `${outcome.stdout}\n${outcome.stderr}`;
  if (/^\s+at .+[:(]/m.test(output) || /node:internal|\bError: /.test(output))
    return `a stack trace or raw error in the output: ${output.slice(0, 300)}`;
  const lines = outcome.stderr.split("\n").filter((line) => line.startsWith("tca "));
  if (lines.length !== 1)
    return `${lines.length} error lines on stderr: ${JSON.stringify(outcome.stderr.slice(0, 300))}`;
  const match = ERROR_LINE.exec(lines[0] ?? "");
  if (match === null) return `not one line "tca <command>: <code>: <message>": ${lines[0] ?? ""}`;
  if (match[1] !== command) return `named the command "${match[1] ?? ""}", not "${command}"`;
  if (match[2] === "unexpected_error" || match[2] === "usage_error")
    return `answered ${match[2] ?? ""}: ${match[3] ?? ""}`;
  if (!named.some((path) => (match[3] ?? "").includes(path)))
    return `the message does not name ${named[0] ?? ""}: ${match[3] ?? ""}`;
  return null;
}

test("every command answers every kind of bad path with one error line naming it, a non-zero exit, and no change", async (t) => {
  // skip-rule: needs no sandbox: every bad path is refused before the sandbox is prepared
  const root = mkdtempSync(join(tmpdir(), "tca-bad-paths-"));
  try {
    const shared = await fixtures(root);
    const planned: { command: string; kind: string; named: string[]; scratch: string; argv: string[] }[] = [];
    for (const argument of ARGUMENTS) {
      const kinds = badPaths(argument.role, root).length;
      for (let k = 0; k < kinds; k += 1) {
        // Each case gets its own scratch folder, so one command's leftovers cannot mask another's.
        const scratch = scratchCase(root, planned.length);
        const bad = badPaths(argument.role, scratch)[k];
        assert.ok(bad);
        planned.push({
          command: argument.command,
          kind: bad.kind,
          // A missing parent must come with the mkdir that makes it (the one output rule), not only its name.
          named:
            bad.kind === "missing parent"
              ? [`mkdir -p ${bad.alsoNamed}`, `mkdir -p -m 700 ${bad.alsoNamed}`]
              : [bad.path, bad.alsoNamed],
          scratch,
          argv: argument.argv(bad.path, { ...shared, scratch }),
        });
      }
    }
    const before = new Map(planned.map((entry) => [entry.scratch, tree(entry.scratch)]));
    const sharedBefore = [tree(shared.baseline), tree(shared.checkpoint)];
    const outcomes = await runDriver(
      root,
      planned.map((entry) => entry.argv),
    );
    const failures: string[] = [];
    planned.forEach((entry, i) => {
      const outcome = outcomes[i];
      assert.ok(outcome);
      const found = problem(outcome, entry.command, entry.named);
      if (found !== null) failures.push(`tca ${entry.argv.join(" ")} [${entry.kind}]: ${found}`);
      const after = tree(entry.scratch);
      if (JSON.stringify(after) !== JSON.stringify(before.get(entry.scratch)))
        failures.push(`tca ${entry.argv.join(" ")} [${entry.kind}]: changed ${entry.scratch}`);
    });
    assert.deepEqual([tree(shared.baseline), tree(shared.checkpoint)], sharedBefore, "the valid fixtures were changed");
    const commands = new Set(planned.map((entry) => entry.command));
    const kinds = new Set(planned.map((entry) => entry.kind));
    t.diagnostic(
      `bad paths: ${planned.length} cases, ${commands.size} commands x ${kinds.size} path kinds (${ARGUMENTS.length} path arguments)`,
    );
    assert.deepEqual(failures, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test(
  "a folder without permission is path_unreadable naming it (needs a user other than root)",
  {
    skip:
      process.getuid?.() === 0 ? "running as root, which reads every folder: permission cannot be denied here" : false,
  },
  async () => {
    const root = mkdtempSync(join(tmpdir(), "tca-bad-perm-"));
    const locked = join(root, "locked");
    try {
      mkdirSync(locked);
      chmodSync(locked, 0o000);
      const inside = join(locked, "x");
      const cases = [
        ["lab", "predict", "--answers", inside, "--predictions", join(root, "p.json")],
        ["model", "tokenize", "--model-directory", inside, "--text", "x"],
        ["report", inside],
        ["expr", "check", inside],
      ];
      const outcomes = await runDriver(root, cases);
      const failures = outcomes
        .map((outcome) =>
          problem(outcome, outcome.argv.slice(0, outcome.argv[0] === "report" ? 1 : 2).join(" "), [
            inside,
            dirname(inside),
          ]),
        )
        .filter((p) => p !== null);
      assert.deepEqual(failures, []);
    } finally {
      chmodSync(locked, 0o700);
      rmSync(root, { recursive: true, force: true });
    }
  },
);
