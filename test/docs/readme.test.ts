// README as a test: every ```sh block of README.md that can run offline runs, as a newcomer would
// run it, in a fresh copy of the checkout in a temporary folder, so the README cannot drift from
// the tool. Each block is marked on the line before it, and an unmarked block fails the test:
//   <!-- readme-test: run -->                  runs (a "(…)" note may follow "run"; a note
//                                              "(stdin: a | b)" gives the block's standard input, one line per item)
//   <!-- readme-test: run-sandbox (…) -->      runs where bubblewrap and pytest are (the skip rule of
//                                              test/support/systemPackages.ts: else skipped with the install command)
//   <!-- readme-test: skip <why>: <text> -->   skipped, counted by why: network | model | server | gpu | suite
// A block of "$ command" lines runs each command and compares its stdout with the lines under it;
// any other block runs as one `bash -e` script and must exit 0, its stdout within 100 columns.
// The fresh copy: the working tree's files (tracked and untracked-not-ignored, as `git ls-files`
// lists them; so uncommitted edits are tested too) with node_modules linked from this checkout
// (installing would need the network). One rewrite, said here: the README's /tmp/ paths become
// <temporary folder>/tmp/, so runs never collide with other runs on the machine or leave files.
// HOME and XDG_CACHE_HOME point into the temporary folder: nothing is written to the user's cache.
// HF_ENDPOINT is http://127.0.0.1:9, a closed port: a block that downloads the model meets the
// failed download a machine without access to Hugging Face meets, and nothing else is contacted.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { overlongProse } from "../support/outputWidth.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import { REPORT_ERROR_CODES } from "../../src/report/errorCodes.ts";
import { CLI_ERROR_CODES } from "../../src/cli/commandError.ts";

const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));
const SKIP_REASONS = ["network", "model", "server", "gpu", "suite"] as const;
const MARKER =
  /^<!-- readme-test: (?:(run|run-sandbox)(?: \((.+)\))?|skip (network|model|server|gpu|suite): (.+)) -->$/;

export interface ReadmeBlock {
  readonly line: number;
  readonly body: string;
  readonly action: "run" | "run-sandbox" | "skip" | "unmarked";
  /** The block's standard input, from a "(stdin: a | b)" note: one line per item. */
  readonly stdin?: string;
  readonly reason?: (typeof SKIP_REASONS)[number];
  readonly why?: string;
}

/** The ```sh blocks of a Markdown text with the marker on the nearest non-empty line before each. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```/.test(lines[i] ?? "")) continue;
    const fenceOpen = i;
    let close = i + 1;
    while (close < lines.length && !/^```\s*$/.test(lines[close] ?? "")) close++;
    if ((lines[fenceOpen] ?? "").trim() === "```sh") {
      let m = fenceOpen - 1;
      while (m >= 0 && (lines[m] ?? "").trim() === "") m--;
      const marker = MARKER.exec((lines[m] ?? "").trim());
      const body = lines.slice(fenceOpen + 1, close).join("\n");
      if (marker === null) blocks.push({ line: fenceOpen + 1, body, action: "unmarked" });
      else if (marker[1] === "run" || marker[1] === "run-sandbox") {
        const stdin = /^stdin: (.+)$/.exec(marker[2] ?? "")?.[1];
        blocks.push({
          line: fenceOpen + 1,
          body,
          action: marker[1],
          ...(stdin === undefined ? {} : { stdin: `${stdin.split(" | ").join("\n")}\n` }),
        });
      } else
        blocks.push({
          line: fenceOpen + 1,
          body,
          action: "skip",
          reason: marker[3] as ReadmeBlock["reason"],
          why: marker[4] ?? "",
        });
    }
    i = close;
  }
  return blocks;
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "tca-readme-")));
after(() => rmSync(root, { recursive: true, force: true }));

function freshCopy(name = "checkout"): string {
  const copy = join(root, name);
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: CHECKOUT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((f) => f !== "" && f !== "node_modules");
  for (const file of files) {
    const target = join(copy, file);
    mkdirSync(dirname(target), { recursive: true });
    try {
      cpSync(join(CHECKOUT, file), target, { verbatimSymlinks: true });
    } catch {
      // listed by git but deleted in the working tree: not part of the copy
    }
  }
  symlinkSync(realpathSync(join(CHECKOUT, "node_modules")), join(copy, "node_modules"));
  // The newcomer's `npm ci` runs prepare, which compiles lib/: the copy gets this checkout's build
  // (ignored by git, so not listed above). Its stamp holds the digests of the src/ it was built
  // from, which are the copy's bytes; a stale or missing build is what bin/tca.js detects, and
  // then the copy runs src/ through tsx exactly as without one.
  if (existsSync(join(CHECKOUT, "lib"))) cpSync(join(CHECKOUT, "lib"), join(copy, "lib"), { recursive: true });
  return copy;
}

function environment(): NodeJS.ProcessEnv {
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  const { CI: _ci, TCA_NO_COMPILED: _compiled, ...rest } = process.env;
  return {
    ...rest,
    HOME: home,
    XDG_CACHE_HOME: join(home, ".cache"),
    HF_ENDPOINT: "http://127.0.0.1:9",
    npm_config_update_notifier: "false",
  };
}

/** The README's /tmp/ paths, inside this test's temporary folder. */
function localized(text: string): string {
  return text.replace(/(^|[\s=])\/tmp\//g, `$1${root}/tmp/`);
}

function runBlock(block: ReadmeBlock, cwd: string, env: NodeJS.ProcessEnv): void {
  const body = localized(block.body);
  if (/^\$ /m.test(body)) {
    // "$ command" then its expected output, up to the next "$ ".
    const parts = body.split(/^\$ /m).filter((p) => p.trim() !== "");
    for (const part of parts) {
      const [command = "", ...expected] = part.split("\n");
      const r = spawnSync("bash", ["-c", command], { cwd, env, encoding: "utf8", timeout: 120_000 });
      assert.equal(
        r.stdout.trimEnd(),
        expected.join("\n").trimEnd(),
        `README line ${block.line}: $ ${command}\n${r.stderr}`,
      );
    }
    return;
  }
  const r = spawnSync("bash", ["-e", "-o", "pipefail", "-c", body], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
    input: block.stdin ?? "",
  });
  assert.equal(
    r.status,
    0,
    `README block at line ${block.line} failed (exit ${String(r.status)}):\n${body}\n--- stderr ---\n${r.stderr.slice(-3000)}\n--- stdout ---\n${r.stdout.slice(-2000)}`,
  );
  // What the newcomer's commands print fits 100 columns (item 15; test/support/outputWidth.ts).
  // npm run's own banner ("> node bin/tca.js …", the command it runs) is npm's, not tca's output.
  const printed = r.stdout
    .split("\n")
    .filter((line) => !line.startsWith("> "))
    .join("\n");
  assert.deepEqual(overlongProse(printed, [root]), [], `README block at line ${block.line}: stdout over 100 columns`);
}

test("readmeBlocks: markers are read, an unmarked block is reported, non-sh blocks are not command blocks", () => {
  const md = [
    "<!-- readme-test: run -->",
    "```sh",
    "echo a",
    "```",
    "",
    "```",
    "plain",
    "```",
    "<!-- readme-test: skip gpu: needs CUDA -->",
    "",
    "```sh",
    "nvidia-smi",
    "```",
    "```sh",
    "echo unmarked",
    "```",
    "<!-- readme-test: run (stdin: one | two words) -->",
    "```sh",
    "cat",
    "```",
    "<!-- readme-test: run-sandbox (bubblewrap) -->",
    "```sh",
    "bwrap --version",
    "```",
  ].join("\n");
  assert.deepEqual(
    readmeBlocks(md).map((b) => [b.line, b.action, b.reason ?? null, b.body, b.stdin ?? null]),
    [
      [2, "run", null, "echo a", null],
      [11, "skip", "gpu", "nvidia-smi", null],
      [14, "unmarked", null, "echo unmarked", null],
      [18, "run", null, "cat", "one\ntwo words\n"],
      [22, "run-sandbox", null, "bwrap --version", null],
    ],
  );
  assert.equal(
    readmeBlocks("<!-- readme-test: skip lazy: no reason kind -->\n```sh\nx\n```").at(0)?.action,
    "unmarked",
  );
});

test(
  "README.md: every command block is marked; the offline ones run in a fresh copy of the checkout",
  { timeout: 900_000 },
  (t) => {
    const started = Date.now();
    const blocks = readmeBlocks(readFileSync(join(CHECKOUT, "README.md"), "utf8"));
    assert.deepEqual(
      blocks.filter((b) => b.action === "unmarked").map((b) => `line ${b.line}`),
      [],
      "mark each ```sh block with <!-- readme-test: run --> or <!-- readme-test: skip <why>: … -->",
    );
    const runs = blocks.filter((b) => b.action === "run");
    const skips = blocks.filter((b) => b.action === "skip");
    // The README keeps offline blocks: the Lab's first steps, the pipeline checks, the expression examples.
    assert.ok(runs.length >= 4, `only ${runs.length} runnable blocks`);
    const cwd = freshCopy();
    const env = environment();
    mkdirSync(join(root, "tmp"), { recursive: true });
    for (const block of runs) runBlock(block, cwd, env);
    const seconds = (Date.now() - started) / 1000;
    const byReason = SKIP_REASONS.map((r) => `${r} ${skips.filter((b) => b.reason === r).length}`).join(", ");
    t.diagnostic(`README blocks: ${runs.length} run, ${skips.length} skipped (${byReason}); ${seconds.toFixed(1)} s`);
    for (const block of skips) t.diagnostic(`skipped, line ${block.line}: ${block.reason}: ${block.why}`);
  },
);

// The blocks that need the benchmark's sandbox (make-taskset): run where bubblewrap and pytest
// are, skipped with the install command where they are not (the skip rule), in a copy of their own.
test(
  "README.md: the blocks that need the sandbox run in a fresh copy of the checkout",
  { timeout: 900_000, skip: sandboxPackages().skip },
  (t) => {
    const blocks = readmeBlocks(readFileSync(join(CHECKOUT, "README.md"), "utf8")).filter(
      (b) => b.action === "run-sandbox",
    );
    // The make-taskset example, so that it cannot drift from the command.
    assert.ok(
      blocks.some((b) => b.body.includes("make-taskset")),
      "the README's make-taskset example is a run-sandbox block",
    );
    const started = Date.now();
    const cwd = freshCopy("checkout-sandbox");
    const env = environment();
    mkdirSync(join(root, "tmp"), { recursive: true });
    for (const block of blocks) runBlock(block, cwd, env);
    t.diagnostic(`README sandbox blocks: ${blocks.length} run; ${((Date.now() - started) / 1000).toFixed(1)} s`);
  },
);

test("README.md's error codes list every code tca report refuses with", () => {
  const readme = readFileSync(join(CHECKOUT, "README.md"), "utf8");
  const row = readme.split("\n").find((line) => line.startsWith("| Report (`src/report/errorCodes.ts`"));
  assert.ok(row, "the README's error-code table has a Report row");
  const listed = new Set([...row.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
  assert.deepEqual(
    REPORT_ERROR_CODES.filter((code) => !listed.has(code)),
    [],
  );
  // And the command layer's own codes, in the paragraph above the table.
  for (const code of CLI_ERROR_CODES) assert.ok(readme.includes(`\`${code}\``), `${code} is not in the README`);
});
