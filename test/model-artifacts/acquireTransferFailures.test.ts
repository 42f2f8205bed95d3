import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  makeFixture,
  scratchParent,
  startHub,
  startServer,
  acquireFixture,
  FakeClock,
  type FileHandler,
  type Fixture,
  type LocalHub,
} from "./fixtureHub.ts";
import { assertAcquisitionFailed } from "./failureAssertions.ts";
import type { AcquireOptions } from "../../src/model/artifacts/acquire.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";

const WEIGHTS = "model.safetensors";

async function withHub(
  t: { after: (fn: () => Promise<void>) => void },
  handlers: Record<string, FileHandler>,
  fixture: Fixture = makeFixture(),
): Promise<{ fixture: Fixture; hub: LocalHub; directory: string }> {
  const hub = await startHub(fixture, handlers);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  return { fixture, hub, directory: join(parent, "qwen") };
}

async function run(setup: { fixture: Fixture; hub: LocalHub; directory: string }, extra: Partial<AcquireOptions> = {}) {
  return acquireFixture(setup.fixture, setup.hub, setup.directory, extra);
}

function weightsEntry(manifest: { files: { name: string; payload_bytes_received: number; retries: number }[] }) {
  const entry = manifest.files.find((file) => file.name === WEIGHTS);
  assert.ok(entry !== undefined);
  return entry;
}

test("wrong bytes of the right size: Git blob mismatch for a small file, SHA256 mismatch for the weights", async (t) => {
  const flip: FileHandler = ({ body, response }) => {
    const wrong = Buffer.from(body);
    wrong[0] = (wrong[0] ?? 0) ^ 0xff;
    response.writeHead(200, { "content-length": String(wrong.length) }).end(wrong);
    return true;
  };
  const small = await withHub(t, { "vocab.json": flip });
  await assertAcquisitionFailed(
    await run(small),
    "blob_id_mismatch",
    small.directory,
    small.fixture.pins,
    "vocab.json",
  );
  const weights = await withHub(t, { [WEIGHTS]: flip });
  const manifest = await assertAcquisitionFailed(
    await run(weights),
    "hash_mismatch",
    weights.directory,
    weights.fixture.pins,
    WEIGHTS,
  );
  const entry = manifest.files.find((file) => file.name === WEIGHTS);
  assert.notEqual(entry?.observed_sha256, entry?.expected_identity.value);
  assert.equal(entry?.retries, 0); // wrong bytes are never retried
});

test("wrong size: a body that ends cleanly short of the plan is a size mismatch, not retried", async (t) => {
  const setup = await withHub(t, {
    [WEIGHTS]: ({ body, response }) => {
      response.writeHead(200); // chunked: no Content-Length to disagree with
      response.end(body.subarray(0, body.length - 1));
      return true;
    },
  });
  const manifest = await assertAcquisitionFailed(
    await run(setup),
    "size_mismatch",
    setup.directory,
    setup.fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 0);
});

test("Content-Length lying low or high aborts before the body is read", async (t) => {
  for (const delta of [-1, +1]) {
    const setup = await withHub(t, {
      [WEIGHTS]: ({ body, response }) => {
        response.writeHead(200, { "content-length": String(body.length + delta) });
        response.end(delta < 0 ? body.subarray(0, body.length - 1) : Buffer.concat([body, Buffer.from([0])]));
        return true;
      },
    });
    const manifest = await assertAcquisitionFailed(
      await run(setup),
      "content_length_mismatch",
      setup.directory,
      setup.fixture.pins,
      WEIGHTS,
    );
    assert.equal(weightsEntry(manifest).payload_bytes_received, 0);
    assert.equal(weightsEntry(manifest).retries, 0);
  }
});

test("an endless body is cut at the planned size and never written past it", async (t) => {
  const setup = await withHub(t, {
    [WEIGHTS]: ({ response }) => {
      response.writeHead(200); // chunked, no length
      const chunk = Buffer.alloc(16_384, 0x41);
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once("drain", pump);
      };
      response.on("close", () => response.removeAllListeners("drain"));
      pump();
      return true;
    },
  });
  const manifest = await assertAcquisitionFailed(
    await run(setup),
    "oversized_transfer",
    setup.directory,
    setup.fixture.pins,
    WEIGHTS,
  );
  const pinned = setup.fixture.pins.files.find((file) => file.name === WEIGHTS);
  assert.ok(pinned !== undefined);
  const received = weightsEntry(manifest).payload_bytes_received;
  assert.ok(received > pinned.bytes && received <= pinned.bytes + 131_072, `received ${received}`);
  assert.equal(
    manifest.totals.payload_bytes_received,
    manifest.files.reduce((sum, file) => sum + file.payload_bytes_received, 0),
  );
});

test("a redirect chain across origins is followed and every payload byte is counted; too many redirects abort", async (t) => {
  const fixture = makeFixture();
  const weights = fixture.contents.get(WEIGHTS);
  assert.ok(weights !== undefined);
  const cdn = await startServer((request, response) => {
    if (request.url === "/hop") {
      response.writeHead(307, { location: "/blob?signature=abc" }).end("redirect body is never read");
    } else {
      response.writeHead(200, { "content-length": String(weights.length) }).end(weights);
    }
  });
  t.after(() => cdn.close());
  const setup = await withHub(
    t,
    {
      [WEIGHTS]: ({ request, response }) => {
        if (request.url?.endsWith("?hop=1") !== true) {
          response.writeHead(302, {
            location: `${request.url ?? ""}?hop=1`,
            "x-linked-size": String(weights.length),
            "x-repo-commit": setup.fixture.pins.revision,
          });
        } else {
          response.writeHead(302, { location: `${cdn.base}/hop` });
        }
        response.end();
        return true;
      },
    },
    fixture,
  );
  // the first hop is relative, so the hub sees the query on its second request
  const result = await run(setup);
  assert.ok(result.ok, result.ok ? "" : result.message);
  const entry = result.value.manifest?.files.find((file) => file.name === WEIGHTS);
  assert.equal(entry?.redirects, 3);
  assert.equal(entry?.served_by, cdn.base);
  assert.equal(entry?.payload_bytes_received, weights.length);
  assert.deepEqual(
    cdn.requests.map((request) => request.path),
    ["/hop", "/blob?signature=abc"],
  );
  assert.ok(cdn.requests.every((request) => request.headers.authorization === undefined));

  const loop = await withHub(t, {
    [WEIGHTS]: ({ request, response }) => {
      response.writeHead(302, { location: request.url ?? "/" }).end();
      return true;
    },
  });
  await assertAcquisitionFailed(await run(loop), "redirect_limit", loop.directory, loop.fixture.pins, WEIGHTS);
  const scheme = await withHub(t, {
    [WEIGHTS]: ({ response }) => {
      response.writeHead(302, { location: "file:///etc/passwd" }).end();
      return true;
    },
  });
  await assertAcquisitionFailed(await run(scheme), "redirect_refused", scheme.directory, scheme.fixture.pins, WEIGHTS);
});

function dropAfter(bytes: number, times: number): FileHandler {
  return ({ body, response, attempt }) => {
    if (attempt > times) return false;
    // Raw bytes on the socket, then a half-close: the client reads every byte sent and sees the
    // connection end before Content-Length is reached (the http layer would buffer unpredictably).
    const socket = response.socket;
    if (socket === null) throw new Error("no socket");
    socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`);
    socket.end(body.subarray(0, bytes));
    return true;
  };
}

test("a connection dropped mid-file is retried once, both attempts count, then the acquisition aborts", async (t) => {
  const half = 150_000;
  const setup = await withHub(t, { [WEIGHTS]: dropAfter(half, Infinity) });
  const manifest = await assertAcquisitionFailed(
    await run(setup),
    "transfer_interrupted",
    setup.directory,
    setup.fixture.pins,
    WEIGHTS,
  );
  const entry = weightsEntry(manifest);
  assert.equal(entry.retries, 1);
  assert.equal(entry.payload_bytes_received, 2 * half);
  assert.equal(manifest.totals.retries, 1);
  const small = manifest.files
    .filter((file) => file.name !== WEIGHTS)
    .reduce((sum, file) => sum + file.payload_bytes_received, 0);
  assert.equal(manifest.totals.payload_bytes_received, small + 2 * half);
  assert.equal(setup.hub.requests.filter((request) => request.path.endsWith(WEIGHTS)).length, 2);
});

test("a drop followed by a good retry succeeds with the retry and both attempts recorded", async (t) => {
  const base = makeFixture();
  const total = base.pins.files.reduce((sum, file) => sum + file.bytes, 0);
  const setup = await withHub(t, { [WEIGHTS]: dropAfter(100_000, 1) }, makeFixture({ ceiling: total + 100_000 }));
  const result = await run(setup);
  assert.ok(result.ok, result.ok ? "" : result.message);
  const entry = result.value.manifest?.files.find((file) => file.name === WEIGHTS);
  assert.equal(entry?.retries, 1);
  assert.equal(entry?.payload_bytes_received, 100_000 + (entry?.expected_bytes ?? 0));
  assert.ok((await requireVerifiedModelDirectory(setup.directory, setup.fixture.pins)).ok);
});

test("retries spend the same aggregate allowance: a retry that would exceed it aborts", async (t) => {
  const base = makeFixture();
  const total = base.pins.files.reduce((sum, file) => sum + file.bytes, 0);
  // Room for everything once plus 100,000 bytes: the dropped 150,000 bytes push the retry over.
  const fixture = makeFixture({ ceiling: total + 100_000 });
  const setup = await withHub(t, { [WEIGHTS]: dropAfter(150_000, 1) }, fixture);
  const manifest = await assertAcquisitionFailed(
    await run(setup),
    "allowance_exceeded",
    setup.directory,
    fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 1);
  assert.ok(manifest.totals.payload_bytes_received > fixture.pins.aggregateCeilingBytes);
  assert.ok(manifest.totals.payload_bytes_received <= fixture.pins.aggregateCeilingBytes + 131_072);
});

test("server errors are retried once; a 404 is not retried", async (t) => {
  const flaky = await withHub(t, {
    [WEIGHTS]: ({ response, attempt }) => {
      if (attempt > 1) return false;
      response.writeHead(503).end();
      return true;
    },
  });
  const recovered = await run(flaky);
  assert.ok(recovered.ok);
  assert.equal(recovered.value.manifest?.files.find((file) => file.name === WEIGHTS)?.retries, 1);
  const missing = await withHub(t, {
    LICENSE: ({ response }) => {
      response.writeHead(404).end("not found");
      return true;
    },
  });
  const manifest = await assertAcquisitionFailed(
    await run(missing),
    "http_status",
    missing.directory,
    missing.fixture.pins,
    "LICENSE",
  );
  assert.equal(manifest.files.find((file) => file.name === "LICENSE")?.retries, 0);
});

test("hub metadata that disagrees with the pins (revision, linked size) aborts", async (t) => {
  const revision = await withHub(t, {
    "config.json": ({ body, response }) => {
      response.writeHead(200, { "content-length": String(body.length), "x-repo-commit": "0".repeat(40) }).end(body);
      return true;
    },
  });
  await assertAcquisitionFailed(
    await run(revision),
    "metadata_mismatch",
    revision.directory,
    revision.fixture.pins,
    "config.json",
  );
  const size = await withHub(t, {
    [WEIGHTS]: ({ response }) => {
      response.writeHead(302, { location: "/elsewhere", "x-linked-size": "1" }).end();
      return true;
    },
  });
  await assertAcquisitionFailed(await run(size), "metadata_mismatch", size.directory, size.fixture.pins, WEIGHTS);
});

test("a slow server runs into the monotonic deadline (fake clock, no sleeping)", async (t) => {
  const clock = new FakeClock();
  const setup = await withHub(t, {
    [WEIGHTS]: ({ body, response }) => {
      response.writeHead(200, { "content-length": String(body.length) });
      // Some bytes, then the server stalls; time passes beyond 20 minutes.
      response.write(body.subarray(0, 10_000), () => setImmediate(() => clock.advance(20 * 60 * 1000 + 1)));
      return true;
    },
  });
  const manifest = await assertAcquisitionFailed(
    await run(setup, { clock }),
    "deadline_exceeded",
    setup.directory,
    setup.fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 0); // a deadline is an outcome, not a retry
  assert.equal(manifest.elapsed_ms, 20 * 60 * 1000 + 1);
});

test("an unexpected file appearing in the directory during acquisition fails the final check", async (t) => {
  const fixtureWithHook = await withHub(t, {
    LICENSE: ({ body, response }) => {
      void writeFile(join(fixtureWithHook.directory, "pytorch_model.bin"), "pickle").then(() => {
        response.writeHead(200, { "content-length": String(body.length) }).end(body);
      });
      return true;
    },
  });
  const manifest = await assertAcquisitionFailed(
    await run(fixtureWithHook),
    "unexpected_executable_file",
    fixtureWithHook.directory,
    fixtureWithHook.fixture.pins,
    "pytorch_model.bin",
  );
  // every pinned file itself was fine; the directory as a whole is refused
  assert.equal(manifest.totals.files_verified, 8);
});

test("a local file failure is an io_error, not a retried interruption", async (t) => {
  const { mkdir: makeDirectory, rm: remove } = await import("node:fs/promises");
  const blocker = (): string => join(fixtureWithHook.directory, `.${WEIGHTS}.partial`);
  const fixtureWithHook = await withHub(t, {
    [WEIGHTS]: ({ body, response }) => {
      // Something occupies the temporary name with a directory: the temporary file cannot be created.
      void makeDirectory(blocker()).then(() => {
        response.writeHead(200, { "content-length": String(body.length) }).end(body);
      });
      return true;
    },
  });
  const result = await run(fixtureWithHook);
  await remove(blocker(), { recursive: true });
  const manifest = await assertAcquisitionFailed(
    result,
    "io_error",
    fixtureWithHook.directory,
    fixtureWithHook.fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 0);
});
