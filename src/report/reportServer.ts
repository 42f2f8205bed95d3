// `tca report --open`: serves one report page on 127.0.0.1 at an ephemeral port. It serves only
// that page, at an unguessable path, only to requests whose Host is that exact address (so a
// web page elsewhere cannot reach it by DNS rebinding), with the page's CSP also sent as a
// header. Everything else gets 404 (or 405 for methods other than GET/HEAD).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { err, ok, type Result } from "../core/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";
import { contentSecurityPolicy, viewerAssets } from "./htmlPage.ts";

export interface ReportServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveReport(html: string): Promise<Result<ReportServer, ReportErrorCode>> {
  const token = randomBytes(16).toString("hex");
  const pagePath = `/${token}/report.html`;
  const body = Buffer.from(html, "utf8");
  const { script, style } = viewerAssets();
  let expectedHost = "";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const send = (status: number, text: string): void => {
      response.writeHead(status, {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      });
      response.end(text);
    };
    if (request.headers.host !== expectedHost) return send(404, "not found\n");
    if (request.method !== "GET" && request.method !== "HEAD") return send(405, "method not allowed\n");
    if (request.url !== pagePath) return send(404, "not found\n");
    response.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.length),
      "Content-Security-Policy": contentSecurityPolicy(script, style),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cross-Origin-Resource-Policy": "same-origin",
    });
    response.end(request.method === "HEAD" ? undefined : body);
  });
  const listening = await new Promise<Result<AddressInfo, ReportErrorCode>>((resolve) => {
    server.once("error", () => resolve(err("server_failed", "cannot listen on 127.0.0.1")));
    server.listen(0, "127.0.0.1", () => resolve(ok(server.address() as AddressInfo)));
  });
  if (!listening.ok) return listening;
  expectedHost = `127.0.0.1:${listening.value.port}`;
  return ok({
    url: `http://${expectedHost}${pagePath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
