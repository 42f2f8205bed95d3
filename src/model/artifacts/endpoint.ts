// Where files come from: the public hub by default, a mirror through `--endpoint` or the
// ecosystem's HF_ENDPOINT variable. Retrieval is anonymous: an endpoint carrying credentials
// is refused, and nothing here reads HF_TOKEN or a token file. The real hub is never contacted
// when CI is set (Part 1: never from a CI job).
import { err, ok, type Result } from "../../core/result.ts";
import { DEFAULT_HUB_ENDPOINT, type PinSet } from "../pins.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";

export interface ResolvedEndpoint {
  /** Normalized base URL without a trailing slash, e.g. "https://huggingface.co". */
  readonly base: string;
  readonly source: "flag" | "HF_ENDPOINT" | "default";
  readonly isRealHub: boolean;
}

const REAL_HUB_ORIGIN = new URL(DEFAULT_HUB_ENDPOINT).origin;

/** Only the two variables this module is allowed to look at; the rest of the environment is not read. */
export interface EndpointEnvironment {
  readonly HF_ENDPOINT?: string | undefined;
  readonly CI?: string | undefined;
}

export function resolveEndpoint(
  flag: string | undefined,
  environment: EndpointEnvironment,
): Result<ResolvedEndpoint, ArtifactErrorCode> {
  const hfEndpoint =
    environment.HF_ENDPOINT !== undefined && environment.HF_ENDPOINT !== "" ? environment.HF_ENDPOINT : undefined;
  const [text, source] =
    flag !== undefined
      ? [flag, "flag" as const]
      : hfEndpoint !== undefined
        ? [hfEndpoint, "HF_ENDPOINT" as const]
        : [DEFAULT_HUB_ENDPOINT, "default" as const];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return err("endpoint_invalid", `the endpoint (${source}) is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return err("endpoint_invalid", `the endpoint (${source}) must use https or http`);
  }
  if (url.username !== "" || url.password !== "") {
    return err("endpoint_invalid", `the endpoint (${source}) must not carry credentials; retrieval is anonymous`);
  }
  if (url.search !== "" || url.hash !== "") {
    return err("endpoint_invalid", `the endpoint (${source}) must not have a query or fragment`);
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  const isRealHub = url.origin === REAL_HUB_ORIGIN;
  if (isRealHub && isCiSet(environment)) {
    return err("ci_refuses_real_hub", "CI is set: acquisition never contacts the real hub from a CI job");
  }
  return ok({ base, source, isRealHub });
}

/** CI counts as set whenever the variable is present and not empty (GitHub sets CI=true). */
export function isCiSet(environment: EndpointEnvironment): boolean {
  return environment.CI !== undefined && environment.CI !== "";
}

/** `{endpoint}/{repository}/resolve/{revision}/{file}`: the revision is always the pinned commit, never `main`. */
export function fileUrl(endpoint: ResolvedEndpoint, pins: PinSet, fileName: string): string {
  const repository = pins.repository.split("/").map(encodeURIComponent).join("/");
  return `${endpoint.base}/${repository}/resolve/${encodeURIComponent(pins.revision)}/${encodeURIComponent(fileName)}`;
}
