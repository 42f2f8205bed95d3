// One attempt to fetch one pinned file into a temporary name. Node's own http/https client
// is used (not a download library) so every payload byte can be counted where it arrives:
// redirects are followed by hand, a Content-Length that disagrees with the plan aborts
// before the body is read, each chunk is charged to the shared allowance before it is
// written, and no attempt may exceed the file's expected size. No token is ever sent: the
// request headers are built here, from nothing but constants. Two idle timeouts, on the one
// injected monotonic clock, keep a stalled server from eating the acquisition window: no
// response headers within headerTimeoutMs, or no body byte for bodyIdleTimeoutMs, ends the
// attempt with its own code (retryable once, like any interruption).
import { type IncomingMessage } from "node:http";
import * as http from "node:http";
import * as https from "node:https";
import { open, rm, type FileHandle } from "node:fs/promises";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { StreamingIdentity, type ObservedIdentity } from "./fileIdentity.ts";
import { after, systemClock, type MonotonicClock } from "../../core/clock.ts";

/** Defaults for the two idle timeouts (configurable per acquisition, recorded in its manifest). */
export const DEFAULT_IDLE_TIMEOUTS: IdleTimeouts = { headerMs: 30_000, bodyIdleMs: 30_000 };

export interface IdleTimeouts {
  /** From sending the request to the response headers (each redirect hop starts it anew). */
  readonly headerMs: number;
  /** The longest gap between two body chunks (and before the first). */
  readonly bodyIdleMs: number;
}

/** The aggregate payload allowance, shared by every attempt of every file in one acquisition. */
export interface ByteAllowance {
  readonly limit: number;
  used: number;
}

export interface TransferRequest {
  readonly url: string;
  readonly expectedBytes: number;
  /**
   * When true, expectedBytes is a ceiling, not the exact size: a shorter body that ends cleanly
   * is complete (for archives generated on request, whose exact size cannot be pinned; their
   * contents are verified file by file afterwards). Longer bodies are refused as always.
   */
  readonly sizeIsCeiling?: boolean;
  /** Pinned values the hub's metadata headers must agree with when it sends them. */
  readonly revision: string;
  readonly expectedSha256: string | undefined;
  readonly temporaryPath: string;
  readonly allowance: ByteAllowance;
  readonly maxRedirects: number;
  /** Fires at the acquisition deadline; the transfer then ends as deadline_exceeded. */
  readonly deadline: AbortSignal;
  readonly onPayloadBytes: (count: number) => void;
  /** The clock the idle timeouts run on (default: the system clock). */
  readonly clock?: MonotonicClock;
  /** Default: DEFAULT_IDLE_TIMEOUTS. */
  readonly idleTimeouts?: IdleTimeouts;
}

export interface TransferFailure {
  readonly code: ArtifactErrorCode;
  readonly message: string;
  /** Only interruptions and server errors may be retried; wrong bytes or sizes never are. */
  readonly retryable: boolean;
}

export interface TransferOutcome {
  /** Payload bytes this attempt received (already charged to the allowance). */
  readonly payloadBytes: number;
  readonly redirects: number;
  readonly servedBy: string | null;
  readonly result:
    { readonly ok: true; readonly identity: ObservedIdentity } | ({ readonly ok: false } & TransferFailure);
}

const REQUEST_HEADERS = {
  "user-agent": "tiny-coding-agent/0.1 (anonymous, revision-pinned)",
  accept: "*/*",
  // The bytes hashed must be the file's bytes, not a compressed encoding of them.
  "accept-encoding": "identity",
} as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

class TransferError extends Error {
  constructor(readonly failure: TransferFailure) {
    super(failure.message);
  }
}

export async function transferOnce(given: TransferRequest): Promise<TransferOutcome> {
  const request = {
    ...given,
    clock: given.clock ?? systemClock,
    idleTimeouts: given.idleTimeouts ?? DEFAULT_IDLE_TIMEOUTS,
  };
  let payloadBytes = 0;
  let redirects = 0;
  let servedBy: string | null = null;
  const finish = (result: TransferOutcome["result"]): TransferOutcome => ({
    payloadBytes,
    redirects,
    servedBy,
    result,
  });
  const failWith = (failure: TransferFailure): TransferOutcome => finish({ ok: false, ...failure });

  if (request.deadline.aborted) return failWith(deadlineFailure());
  let url = new URL(request.url);
  let response: IncomingMessage;
  for (;;) {
    try {
      response = await openResponse(url, request.deadline, request.clock, request.idleTimeouts.headerMs);
    } catch (error) {
      if (request.deadline.aborted) return failWith(deadlineFailure());
      if (error instanceof HeaderTimeout) {
        return failWith({
          code: "header_timeout",
          message: `no response headers from ${url.origin} within ${request.idleTimeouts.headerMs} ms`,
          retryable: true,
        });
      }
      return failWith({
        code: "transfer_interrupted",
        message: `connection to ${url.origin} failed: ${connectionFailureCause(error, url.hostname)}`,
        retryable: true,
      });
    }
    const metadata = checkMetadataHeaders(response, request);
    if (metadata !== null) {
      response.destroy();
      return failWith(metadata);
    }
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0)) break;
    // Redirect bodies are never read: the response is dropped before any payload arrives.
    const location = response.headers.location;
    response.destroy();
    redirects += 1;
    if (redirects > request.maxRedirects) {
      return failWith({
        code: "redirect_limit",
        message: `more than ${request.maxRedirects} redirects`,
        retryable: false,
      });
    }
    const next = nextLocation(url, location);
    if (typeof next === "string") return failWith({ code: "redirect_refused", message: next, retryable: false });
    url = next;
  }
  servedBy = url.origin;

  const status = response.statusCode ?? 0;
  if (status !== 200) {
    response.destroy();
    const retryable = status >= 500 || status === 429;
    return failWith({ code: "http_status", message: `the server answered HTTP ${status}`, retryable });
  }
  const encoding = response.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
    response.destroy();
    return failWith({
      code: "metadata_mismatch",
      message: `the server sent a ${encoding}-encoded body`,
      retryable: false,
    });
  }
  const lengthHeader = response.headers["content-length"];
  const lengthRefused =
    request.sizeIsCeiling === true
      ? !(Number(lengthHeader) <= request.expectedBytes)
      : lengthHeader !== String(request.expectedBytes);
  if (lengthHeader !== undefined && lengthRefused) {
    response.destroy();
    return failWith({
      code: "content_length_mismatch",
      message: `Content-Length ${lengthHeader} disagrees with the planned ${request.expectedBytes} bytes`,
      retryable: false,
    });
  }

  const identity = new StreamingIdentity(request.expectedBytes);
  let handle: FileHandle;
  try {
    await rm(request.temporaryPath, { force: true });
    handle = await open(request.temporaryPath, "wx", 0o600);
  } catch {
    response.destroy();
    return failWith({ code: "io_error", message: "the temporary file could not be created", retryable: false });
  }
  const onDeadline = (): void => {
    response.destroy(new Error("deadline"));
  };
  request.deadline.addEventListener("abort", onDeadline, { once: true });
  // The body idle timer: armed now, re-armed by every chunk; firing ends the body read.
  let idleFired = false;
  let cancelIdle = (): void => undefined;
  const armIdle = (): void => {
    cancelIdle();
    cancelIdle = after(request.clock, request.idleTimeouts.bodyIdleMs, () => {
      idleFired = true;
      response.destroy(new Error("body idle timeout"));
    });
  };
  armIdle();
  try {
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        armIdle();
        // Charge first: bytes that arrived count against the allowance whatever happens next.
        payloadBytes += chunk.length;
        request.allowance.used += chunk.length;
        request.onPayloadBytes(chunk.length);
        if (request.allowance.used > request.allowance.limit) {
          throw new TransferError({
            code: "allowance_exceeded",
            message: `the aggregate allowance of ${request.allowance.limit} bytes is exhausted`,
            retryable: false,
          });
        }
        if (payloadBytes > request.expectedBytes) {
          throw new TransferError({
            code: "oversized_transfer",
            message: `the body exceeds the planned ${request.expectedBytes} bytes`,
            retryable: false,
          });
        }
        identity.update(chunk);
        try {
          await handle.write(chunk);
        } catch {
          // A local write failure (disk full, permissions) is not a network interruption: no retry.
          throw new TransferError({
            code: "io_error",
            message: "writing the temporary file failed (is the disk full?)",
            retryable: false,
          });
        }
        if (request.deadline.aborted) throw new TransferError(deadlineFailure());
      }
    } catch (error) {
      // Body bytes that arrived but were still buffered when reading stopped (an abort, or a
      // connection that ended early) were received all the same: they count too.
      const unread = response.readableLength;
      response.destroy();
      payloadBytes += unread;
      request.allowance.used += unread;
      if (unread > 0) request.onPayloadBytes(unread);
      if (error instanceof TransferError) throw error;
      if (request.deadline.aborted) throw new TransferError(deadlineFailure());
      if (idleFired) {
        throw new TransferError({
          code: "body_idle_timeout",
          message: `no body bytes for ${request.idleTimeouts.bodyIdleMs} ms after ${payloadBytes} of ${request.expectedBytes} bytes`,
          retryable: true,
        });
      }
      throw new TransferError({
        code: "transfer_interrupted",
        message: `the connection ended after ${payloadBytes} of ${request.expectedBytes} bytes`,
        retryable: true,
      });
    }
    if (request.deadline.aborted) throw new TransferError(deadlineFailure());
    if (payloadBytes < request.expectedBytes && request.sizeIsCeiling !== true) {
      // The server ended the body cleanly (an interruption raises an error above): a wrong size, not a retry case.
      throw new TransferError({
        code: "size_mismatch",
        message: `the body ended cleanly after ${payloadBytes} of ${request.expectedBytes} bytes`,
        retryable: false,
      });
    }
    await handle.sync();
    await handle.close();
    return finish({ ok: true, identity: identity.digest() });
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(request.temporaryPath, { force: true });
    if (error instanceof TransferError) return failWith(error.failure);
    return failWith({ code: "io_error", message: "writing the temporary file failed", retryable: false });
  } finally {
    cancelIdle();
    request.deadline.removeEventListener("abort", onDeadline);
  }
}

function deadlineFailure(): TransferFailure {
  return { code: "deadline_exceeded", message: "the acquisition deadline passed", retryable: false };
}

class HeaderTimeout extends Error {}

/**
 * Why a connection could not be opened, in words, with the system's code: "connection failed"
 * alone hides whether the name did not resolve (DNS, a proxy-only network), nothing listened, or
 * the network is down, and each has another fix.
 */
export function connectionFailureCause(error: unknown, host: string): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case "ENOTFOUND":
      return `the host name ${host} did not resolve (ENOTFOUND: no DNS answer; check the network, a proxy, or HF_ENDPOINT / --endpoint)`;
    case "EAI_AGAIN":
      return `the host name ${host} could not be resolved now (EAI_AGAIN: the DNS server did not answer; no network?)`;
    case "ECONNREFUSED":
      return "the connection was refused (ECONNREFUSED: nothing listens at that address and port)";
    case "ECONNRESET":
      return "the connection was reset by the other side (ECONNRESET)";
    case "ETIMEDOUT":
      return "the connection timed out (ETIMEDOUT: no answer from that address; a firewall?)";
    case "ENETUNREACH":
    case "EHOSTUNREACH":
      return `no route to ${host} (${code}: no network, or the network blocks it)`;
    case "CERT_HAS_EXPIRED":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
      return `the TLS certificate was not accepted (${code}; an intercepting proxy?)`;
    default:
      return typeof code === "string" ? `system error ${code}` : "the connection closed before any response";
  }
}

function openResponse(
  url: URL,
  signal: AbortSignal,
  clock: MonotonicClock,
  headerTimeoutMs: number,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    // agent:false: one connection per request, nothing pooled between attempts.
    const request = client.request(
      url,
      { method: "GET", headers: REQUEST_HEADERS, agent: false, signal },
      (response) => {
        cancel();
        resolve(response);
      },
    );
    const cancel = after(clock, headerTimeoutMs, () => {
      request.destroy();
      reject(new HeaderTimeout());
    });
    request.on("error", (error) => {
      cancel();
      reject(error);
    });
    request.end();
  });
}

/** The hub's own metadata (when present) must agree with the pins: revision, linked size, linked SHA256. */
function checkMetadataHeaders(response: IncomingMessage, request: TransferRequest): TransferFailure | null {
  const header = (name: string): string | undefined => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const commit = header("x-repo-commit");
  if (commit !== undefined && commit !== request.revision) {
    return {
      code: "metadata_mismatch",
      message: "the server reports a different revision than the pinned one",
      retryable: false,
    };
  }
  const linkedSize = header("x-linked-size");
  if (linkedSize !== undefined && linkedSize !== String(request.expectedBytes)) {
    return {
      code: "metadata_mismatch",
      message: `the server reports ${linkedSize} bytes; the plan says ${request.expectedBytes}`,
      retryable: false,
    };
  }
  const linkedEtag = header("x-linked-etag")?.replace(/^W\//, "").replace(/"/g, "");
  if (
    linkedEtag !== undefined &&
    request.expectedSha256 !== undefined &&
    /^[0-9a-f]{64}$/.test(linkedEtag) &&
    linkedEtag !== request.expectedSha256
  ) {
    return {
      code: "metadata_mismatch",
      message: "the server reports a different SHA256 than the pinned one",
      retryable: false,
    };
  }
  return null;
}

/** Resolves a redirect target; a string return is the reason it is refused. */
function nextLocation(current: URL, location: string | undefined): URL | string {
  if (location === undefined || location === "") return "a redirect without a Location";
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    return "a redirect to an invalid URL";
  }
  if (next.protocol !== "https:" && next.protocol !== "http:") return "a redirect to a non-HTTP scheme";
  if (current.protocol === "https:" && next.protocol === "http:") return "a redirect from https down to http";
  if (next.username !== "" || next.password !== "") return "a redirect carrying credentials";
  return next;
}
