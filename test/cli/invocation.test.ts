// Issue 28, item 13: a printed hint is a command that works where the user is. Each case gives
// the facts of one way tca was started and checks the prefix; the last runs the real CLI
// through a `tca` link on PATH and through `npm run`-style variables from another folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { shellWord, tcaCommand, tcaCommandPrefix } from "../../src/cli/invocation.ts";

const CHECKOUT = realpathSync(resolve(import.meta.dirname, "../.."));
const BIN = join(CHECKOUT, "bin", "tca.js");
const NODE_BIN = `node ${BIN}`;

function scratch(t: { after: (fn: () => void) => void }): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tca-invocation-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

test("node bin/tca.js with no tca on PATH: the hint is node and the absolute bin path", () => {
  assert.equal(tcaCommandPrefix({ script: BIN, env: { PATH: "/usr/bin" }, cwd: "/" }), NODE_BIN);
  assert.equal(
    tcaCommand(["report", "/tmp/lab/run"], { script: BIN, env: {}, cwd: "/" }),
    `${NODE_BIN} report /tmp/lab/run`,
  );
});

test("npm run tca typed inside the checkout (a subfolder too): npm run tca --; typed elsewhere: node and the bin path", () => {
  const npm = (initCwd: string) => ({
    script: BIN,
    env: { npm_lifecycle_event: "tca", npm_command: "run-script", INIT_CWD: initCwd, PATH: "/usr/bin" },
    cwd: CHECKOUT,
  });
  assert.equal(tcaCommandPrefix(npm(CHECKOUT)), "npm run tca --");
  assert.equal(tcaCommandPrefix(npm(join(CHECKOUT, "docs"))), "npm run tca --");
  assert.equal(tcaCommandPrefix(npm("/")), NODE_BIN);
  // Another package's script that happens to be named differently is not ours.
  assert.equal(
    tcaCommandPrefix({ script: BIN, env: { npm_lifecycle_event: "test", INIT_CWD: CHECKOUT }, cwd: CHECKOUT }),
    NODE_BIN,
  );
});

test("a tca on PATH counts only when it is this checkout's bin and it is what was run", (t) => {
  const root = scratch(t);
  const ours = join(root, "ours");
  const other = join(root, "other");
  mkdirSync(ours);
  mkdirSync(other);
  symlinkSync(BIN, join(ours, "tca"));
  writeFileSync(join(other, "tca"), "#!/bin/sh\n");
  chmodSync(join(other, "tca"), 0o755);
  assert.equal(tcaCommandPrefix({ script: join(ours, "tca"), env: { PATH: ours }, cwd: "/" }), "tca");
  // The first tca on PATH is someone else's: `tca` would run that one.
  assert.equal(tcaCommandPrefix({ script: join(ours, "tca"), env: { PATH: `${other}:${ours}` }, cwd: "/" }), NODE_BIN);
  // Run as node bin/tca.js: a tca on PATH is not assumed to be what the user types.
  assert.equal(tcaCommandPrefix({ script: BIN, env: { PATH: ours }, cwd: "/" }), NODE_BIN);
  // Under npx/npm exec, PATH holds node_modules/.bin, not the user's PATH.
  assert.equal(
    tcaCommandPrefix({ script: join(ours, "tca"), env: { PATH: ours, npm_command: "exec" }, cwd: "/" }),
    NODE_BIN,
  );
});

test("paths that need quoting are quoted for the shell", () => {
  assert.equal(shellWord("/tmp/lab/run"), "/tmp/lab/run");
  assert.equal(shellWord("/tmp/my lab/run"), "'/tmp/my lab/run'");
  assert.equal(shellWord("it's"), `'it'\\''s'`);
});

test("the real CLI: lab baseline through a tca link on PATH says `tca report`; through npm run from outside the checkout says node and the bin path", (t) => {
  const root = scratch(t);
  const links = join(root, "links");
  mkdirSync(links);
  symlinkSync(BIN, join(links, "tca"));
  const env = { PATH: `${links}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "" };
  const viaPath = spawnSync(process.execPath, [join(links, "tca"), "lab", "baseline", "--run", join(root, "a")], {
    encoding: "utf8",
    cwd: root,
    env,
  });
  assert.equal(viaPath.status, 0, viaPath.stderr);
  assert.match(viaPath.stdout, new RegExp(`^next step: .*\\n  tca report ${join(root, "a")}$`, "m"));
  const outside = spawnSync(process.execPath, [BIN, "lab", "baseline", "--run", join(root, "b")], {
    encoding: "utf8",
    cwd: CHECKOUT,
    env: { ...env, npm_lifecycle_event: "tca", npm_command: "run-script", INIT_CWD: root },
  });
  assert.equal(outside.status, 0, outside.stderr);
  assert.match(outside.stdout, new RegExp(`^next step: .*\\n  node ${BIN} report ${join(root, "b")}$`, "m"));
});
