// Test stand-ins for the model hub: a fixture pin set over small synthetic files (same
// names as the real eight), a node:http server on 127.0.0.1 with per-file behaviours, and a
// fake monotonic clock. Nothing here contacts anything but 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireModel, type AcquireOptions, type AcquireResult } from "../../src/model/artifacts/acquire.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { resolveEndpoint, type ResolvedEndpoint } from "../../src/model/artifacts/endpoint.ts";
import { createHash } from "node:crypto";
import { gitBlobSha1 } from "../../src/model/artifacts/fileIdentity.ts";

const sha256Hex = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");
import type { ResourceReadings } from "../../src/model/artifacts/resources.ts";
import { PINNED_CONFIG_FILE_TEXT, PINNED_CONFIG_JSON, type PinSet, type PinnedFile } from "../../src/model/pins.ts";

export const FIXTURE_REPOSITORY = "Qwen/Qwen2.5-Coder-0.5B-Instruct";
export const FIXTURE_REVISION = "ea3f2471cf1b1f0db85067f1ef93848e38e88c25";

/** Deterministic pseudo-random bytes (xorshift), so every run serves the same fixture. */
export function deterministicBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

export interface Fixture {
  readonly pins: PinSet;
  readonly contents: ReadonlyMap<string, Buffer>;
}

/** The eight real file names with small contents; weights carry a SHA256, the rest Git blob ids. */
export function makeFixture(
  overrides: { config?: string; expectedConfigJson?: string | null; ceiling?: number } = {},
): Fixture {
  const contents = new Map<string, Buffer>([
    ["config.json", Buffer.from(overrides.config ?? PINNED_CONFIG_FILE_TEXT)],
    ["generation_config.json", Buffer.from('{\n  "bos_token_id": 151643,\n  "do_sample": true\n}\n')],
    ["tokenizer_config.json", Buffer.from('{\n  "tokenizer_class": "Qwen2Tokenizer"\n}\n')],
    ["tokenizer.json", Buffer.from('{"model": {"type": "BPE"}}\n')],
    ["vocab.json", Buffer.from('{"a": 0, "b": 1}\n')],
    ["merges.txt", Buffer.from("#version: 0.2\na b\n")],
    ["model.safetensors", deterministicBytes(300_000, 7)],
    ["LICENSE", Buffer.from("Apache License\nVersion 2.0, January 2004\n")],
  ]);
  const files: PinnedFile[] = [...contents].map(([name, bytes]) =>
    name === "model.safetensors"
      ? { name, bytes: bytes.length, sha256: sha256Hex(bytes) }
      : { name, bytes: bytes.length, gitBlobSha1: gitBlobSha1(bytes) },
  );
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const expectedConfigJson =
    overrides.expectedConfigJson === null ? undefined : (overrides.expectedConfigJson ?? PINNED_CONFIG_JSON);
  const pins: PinSet = {
    repository: FIXTURE_REPOSITORY,
    revision: FIXTURE_REVISION,
    files,
    aggregateCeilingBytes: overrides.ceiling ?? Math.ceil(total * 1.2),
    ...(expectedConfigJson === undefined ? {} : { expectedConfigJson }),
  };
  return { pins, contents };
}

export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
}

/** A per-file behaviour: return true when it handled the response itself. */
export type FileHandler = (context: {
  name: string;
  body: Buffer;
  request: IncomingMessage;
  response: ServerResponse;
  attempt: number;
}) => boolean;

export interface LocalHub {
  readonly base: string;
  readonly requests: RecordedRequest[];
  readonly server: Server;
  close(): Promise<void>;
}

/** Serves `/{repo}/resolve/{rev}/{file}` from the fixture; unknown paths get 404. */
export async function startHub(fixture: Fixture, handlers: Record<string, FileHandler> = {}): Promise<LocalHub> {
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const prefix = `/${FIXTURE_REPOSITORY}/resolve/${FIXTURE_REVISION}/`;
  const server = createServer((request, response) => {
    const path = request.url ?? "";
    requests.push({ path, headers: request.headers });
    const pathname = new URL(path, "http://127.0.0.1").pathname;
    const name = pathname.startsWith(prefix) ? decodeURIComponent(pathname.slice(prefix.length)) : "";
    const body = fixture.contents.get(name);
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    const attempt = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, attempt);
    const handler = handlers[name];
    if (handler !== undefined && handler({ name, body, request, response, attempt })) return;
    response.writeHead(200, { "content-length": String(body.length), "content-type": "application/octet-stream" });
    response.end(body);
  });
  return listen(server, requests);
}

/** A bare server (a stand-in CDN) with one handler for every request. */
export async function startServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LocalHub> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? "", headers: request.headers });
    handler(request, response);
  });
  return listen(server, requests);
}

async function listen(server: Server, requests: RecordedRequest[]): Promise<LocalHub> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The project's one fake clock, starting at 1,000 ms as these tests always have. */
export class FakeClock extends ManualClock {
  constructor() {
    super(1_000);
  }
}

export const PLENTY: ResourceReadings = { freeDiskBytes: 50e9, totalMemoryBytes: 32e9, availableMemoryBytes: 16e9 };

export function localEndpoint(hub: LocalHub): ResolvedEndpoint {
  const resolved = resolveEndpoint(hub.base, {});
  if (!resolved.ok) throw new Error(resolved.message);
  return resolved.value;
}

export async function scratchParent(): Promise<{ parent: string; cleanup: () => Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), "tca-model-artifacts-"));
  return { parent, cleanup: () => rm(parent, { recursive: true, force: true }) };
}

/** Acquisition with the fixture pins, --yes consent, plenty of resources, overridable per test. */
export function acquireFixture(
  fixture: Fixture,
  hub: LocalHub,
  directory: string,
  extra: Partial<AcquireOptions> = {},
): Promise<AcquireResult> {
  return acquireModel({
    directory,
    endpoint: localEndpoint(hub),
    consent: async () => ({ given: true, form: "flag_yes" }),
    pins: fixture.pins,
    readResources: async () => PLENTY,
    ...extra,
  });
}
