// fetch-dataset against a local archive server on 127.0.0.1: archives are built by the system's
// tar (not by the code under test) from the project's own small data set, and the expected
// digests are computed here from the source files. Every failure leaves no destination and no
// staging folder behind. With the real data set present, the committed manifest is checked
// against it and the CLI fetches a complete archive of it.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FETCH_RECORD,
  fetchDataset,
  QUIXBUGS_MANIFEST,
  type DatasetManifest,
} from "../../src/bench/dataset/datasetFetch.ts";
import { MINI_DATASET_DIR, realQuixBugs } from "../support/optionalResources.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "tca-fetch-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function listFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) visit(join(dir, e.name));
      else out.push(relative(root, join(dir, e.name)).split("\\").join("/"));
    }
  };
  visit(root);
  return out.sort();
}

function manifestOf(root: string, exclude: readonly string[] = []): DatasetManifest {
  const files = listFiles(root)
    .filter((p) => !exclude.includes(p))
    .map((path) => {
      const bytes = readFileSync(join(root, path));
      return { path, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
    });
  return {
    repository: "test/mini",
    commit: "0".repeat(40),
    license: "MIT",
    archiveUrl: "http://127.0.0.1:9/unused",
    files,
  };
}

const MANIFEST = manifestOf(MINI_DATASET_DIR, ["SOURCE.md"]);

/** A tree under `QuixBugs-<commit>/` as GitHub lays it out, changed by `edit`, packed by GNU tar. */
function buildArchive(name: string, edit: (tree: string) => void = () => undefined, source = MINI_DATASET_DIR): Buffer {
  const work = mkdtempSync(join(scratch, `${name}-`));
  const tree = join(work, `QuixBugs-${"0".repeat(40)}`);
  cpSync(source, tree, { recursive: true });
  mkdirSync(join(tree, "java_programs"));
  writeFileSync(join(tree, "java_programs", "GCD.java"), "class GCD {}\n"); // not in the manifest: ignored
  edit(tree);
  execFileSync("tar", ["-czf", join(work, "a.tar.gz"), "-C", work, relative(work, tree)]);
  return readFileSync(join(work, "a.tar.gz"));
}

type Reply = (res: import("node:http").ServerResponse) => void;

async function serve(replies: Reply[]): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((_req, res) => {
    const reply = replies[Math.min(count, replies.length - 1)];
    count += 1;
    reply?.(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    url: `http://127.0.0.1:${address.port}/archive.tar.gz`,
    requests: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const body =
  (bytes: Buffer): Reply =>
  (res) => {
    res.writeHead(200, { "content-type": "application/gzip", "content-length": String(bytes.length) });
    res.end(bytes);
  };

/** The destination's parent holds nothing but what the test put there: no staging folder survives. */
function assertNothingLeft(parent: string, destination: string): void {
  assert.equal(existsSync(destination), false);
  assert.deepEqual(
    readdirSync(parent).filter((n) => n.startsWith(".partial")),
    [],
  );
}

test("a complete archive: exactly the manifest's files, byte for byte, plus the fetch record; a second call fetches nothing", async () => {
  const server = await serve([body(buildArchive("ok"))]);
  try {
    const destination = join(scratch, "cache-ok", "nested", "quixbugs");
    const result = await fetchDataset({ directory: destination, manifest: MANIFEST, archiveUrl: server.url });
    assert.ok(result.ok, result.ok ? "" : result.message);
    assert.equal(result.value.status, "fetched");
    assert.deepEqual(listFiles(destination), [...MANIFEST.files.map((f) => f.path), FETCH_RECORD].sort());
    for (const f of MANIFEST.files)
      assert.deepEqual(readFileSync(join(destination, f.path)), readFileSync(join(MINI_DATASET_DIR, f.path)));
    const record = JSON.parse(readFileSync(join(destination, FETCH_RECORD), "utf8")) as {
      archiveSha256: string;
      files: number;
    };
    assert.equal(record.files, MANIFEST.files.length);
    assert.match(record.archiveSha256, /^[0-9a-f]{64}$/);
    const again = await fetchDataset({ directory: destination, manifest: MANIFEST, archiveUrl: server.url });
    assert.ok(again.ok);
    assert.equal(again.value.status, "already_present");
    assert.equal(server.requests(), 1);
  } finally {
    await server.close();
  }
});

test("wrong bytes, a wrong size, a symlink, a missing file, not gzip, not tar: refused with their codes, nothing kept", async () => {
  const cases: [string, Buffer, string][] = [
    [
      "bytes",
      buildArchive("bytes", (t) =>
        writeFileSync(
          join(t, "json_testcases", "gcd.json"),
          readFileSync(join(t, "json_testcases", "gcd.json"), "utf8").replace("6]", "7]"),
        ),
      ),
      "hash_mismatch",
    ],
    [
      "size",
      buildArchive("size", (t) =>
        writeFileSync(join(t, "conftest.py"), "# longer\n" + readFileSync(join(t, "conftest.py"), "utf8")),
      ),
      "size_mismatch",
    ],
    [
      "link",
      buildArchive("link", (t) => {
        rmSync(join(t, "python_programs", "gcd.py"));
        symlinkSync("/etc/passwd", join(t, "python_programs", "gcd.py"));
      }),
      "archive_invalid",
    ],
    ["missing", buildArchive("missing", (t) => rmSync(join(t, "python_testcases", "node.py"))), "file_missing"],
    ["notgzip", Buffer.from("<html>rate limited</html>"), "archive_invalid"],
    [
      "nottar",
      (await import("node:zlib")).gzipSync(Buffer.from("just text, not a tar file".repeat(40))),
      "archive_invalid",
    ],
  ];
  for (const [name, archive, code] of cases) {
    const server = await serve([body(archive)]);
    try {
      const parent = join(scratch, `refused-${name}`);
      mkdirSync(parent);
      const destination = join(parent, "quixbugs");
      const result = await fetchDataset({ directory: destination, manifest: MANIFEST, archiveUrl: server.url });
      assert.equal(result.ok ? "ok" : result.error, code, name);
      assert.equal(server.requests(), 1, `${name}: wrong contents are never retried`);
      assertNothingLeft(parent, destination);
    } finally {
      await server.close();
    }
  }
});

test("transfer discipline: a ceiling on bytes and on unpacked size, one retry after a disconnect or a 5xx, none after a 404", async () => {
  const archive = buildArchive("transfer");
  const disconnect: Reply = (res) => {
    res.writeHead(200, { "content-length": String(archive.length) });
    res.write(archive.subarray(0, 100));
    res.destroy();
  };
  const status =
    (code: number): Reply =>
    (res) => {
      res.writeHead(code);
      res.end();
    };
  const runs: [string, Reply[], Parameters<typeof fetchDataset>[0]["limits"], string, number][] = [
    ["retry-ok", [disconnect, body(archive)], {}, "ok", 2],
    ["5xx-twice", [status(503)], {}, "http_status", 2],
    ["404", [status(404)], {}, "http_status", 1],
    ["ceiling", [body(archive)], { archiveMaxBytes: 512 }, "content_length_mismatch", 1],
    [
      "endless",
      [
        (res) => {
          res.writeHead(200);
          const chunk = Buffer.alloc(64 * 1024);
          const pump = (): void => {
            while (res.write(chunk));
            res.once("drain", pump);
          };
          pump();
          res.on("error", () => undefined);
        },
      ],
      { archiveMaxBytes: 1024 * 1024 },
      "oversized_transfer",
      1,
    ],
    ["bomb", [body(archive)], { unpackedMaxBytes: 1024 }, "archive_invalid", 1],
  ];
  for (const [name, replies, limits, expected, requests] of runs) {
    const server = await serve(replies);
    try {
      const parent = join(scratch, `transfer-${name}`);
      mkdirSync(parent);
      const destination = join(parent, "quixbugs");
      const result = await fetchDataset({
        directory: destination,
        manifest: MANIFEST,
        archiveUrl: server.url,
        ...(limits ? { limits } : {}),
      });
      assert.equal(result.ok ? "ok" : result.error, expected, name);
      assert.equal(server.requests(), requests, name);
      if (!result.ok) assertNothingLeft(parent, destination);
      else assert.equal(listFiles(destination).length, MANIFEST.files.length + 1);
    } finally {
      await server.close();
    }
  }
});

test("an existing folder that is not the data set is left alone", async () => {
  const destination = join(scratch, "existing");
  mkdirSync(destination);
  writeFileSync(join(destination, "mine.txt"), "keep");
  const result = await fetchDataset({
    directory: destination,
    manifest: MANIFEST,
    archiveUrl: "http://127.0.0.1:9/never",
  });
  assert.equal(result.ok ? "ok" : result.error, "dataset_present_but_different");
  assert.deepEqual(readdirSync(destination), ["mine.txt"]);
  const relativePath = await fetchDataset({ directory: "relative/quixbugs", manifest: MANIFEST });
  assert.equal(relativePath.ok ? "ok" : relativePath.error, "destination_invalid");
});

function tca(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TCA, ...args], { maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

const REAL = realQuixBugs();

test("the committed manifest is the real data set's Python half, file for file", { skip: REAL.skip }, () => {
  const real = manifestOf(REAL.path, ["SOURCE.md", FETCH_RECORD]);
  assert.equal(QUIXBUGS_MANIFEST.commit, "4257f44b0ff1181dedaedee6a447e133219fcebf");
  assert.equal(QUIXBUGS_MANIFEST.files.length, 175);
  assert.deepEqual(QUIXBUGS_MANIFEST.files, real.files);
  assert.ok(
    QUIXBUGS_MANIFEST.files.some((f) => f.path === "LICENSE"),
    "the licence is kept",
  );
});

test(
  "tca bench quixbugs fetch-dataset: no consent without --yes; with --yes the real data set from a local mirror",
  { skip: REAL.skip },
  async () => {
    const server = await serve([
      body(buildArchive("cli", (t) => rmSync(join(t, "SOURCE.md"), { force: true }), REAL.path)),
    ]);
    try {
      const destination = join(scratch, "cli", "quixbugs");
      // fetch-dataset creates the folder it is given, never its parents (the one output-folder rule).
      mkdirSync(join(scratch, "cli"), { recursive: true });
      const refused = await tca([
        "bench",
        "quixbugs",
        "fetch-dataset",
        "--directory",
        destination,
        "--archive-url",
        server.url,
      ]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^tca bench quixbugs fetch-dataset: consent_required: /);
      assert.equal(server.requests(), 0);
      const fetched = await tca([
        "bench",
        "quixbugs",
        "fetch-dataset",
        "--directory",
        destination,
        "--archive-url",
        server.url,
        "--yes",
        "--json",
      ]);
      assert.equal(fetched.code, 0, fetched.stderr);
      assert.equal((JSON.parse(fetched.stdout) as { status: string; files: number }).files, 175);
      assert.equal(listFiles(destination).length, 176);
    } finally {
      await server.close();
    }
  },
);
