// The page's safety rules, checked on the generated text: one inline script whose hash is the
// CSP's only script source, evidence embedded as JSON with no raw <, > or &, no network.
// And the --open server: only its one page, only on its own Host, with the CSP header.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { request } from "node:http";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { capEmbeddedStrings, escapeHtml, jsonForScriptElement, viewerAssets } from "../../src/report/htmlPage.ts";
import { serveReport } from "../../src/report/reportServer.ts";
import { freshRoot, hostileRun, INJECTED_CLOSE, INJECTED_IMG, INJECTED_SCRIPT } from "./reportFixtures.ts";

const root = freshRoot("page");
const hostile = await hostileRun(root);
after(() => rmSync(root, { recursive: true, force: true }));
const built = buildReport(hostile);
if (!built.ok) throw new Error("the hostile report does not build");
const html = built.value.html;

function sha256Base64(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

test("the CSP allows exactly the inline script and style by hash, and no network", () => {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp !== undefined);
  const { script, style } = viewerAssets();
  const policy = csp.replace(/&#39;/g, "'");
  assert.match(policy, /^default-src 'none'; /);
  assert.ok(policy.includes(`script-src 'sha256-${sha256Base64(script)}'`));
  assert.ok(policy.includes(`style-src 'sha256-${sha256Base64(style)}'`));
  assert.ok(policy.includes("img-src data:"));
  assert.ok(!policy.includes("unsafe"), "no unsafe-inline or unsafe-eval");
  // The script element's text is exactly the hashed text.
  const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.deepEqual(inline, [script]);
  assert.equal((html.match(/<script/g) ?? []).length, 2, "the data element and the viewer, nothing else");
  // The only URL in the page is the SVG namespace name, which is never fetched.
  assert.doesNotMatch(
    html.replaceAll("http://www.w3.org/2000/svg", ""),
    /https?:\/\//,
    "no URL to fetch anything from",
  );
});

test("evidence is embedded as JSON with no raw markup characters, and round-trips exactly", () => {
  const data = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(data !== undefined);
  assert.doesNotMatch(data, /[<>&]/);
  const parsed = JSON.parse(data) as { kind: string; lab: { proposals: { rawText: string | null }[] } };
  assert.equal(parsed.kind, "lab");
  assert.ok(parsed.lab.proposals[2]?.rawText?.startsWith(`${INJECTED_SCRIPT}${INJECTED_IMG}`));
  assert.ok(JSON.stringify(parsed).includes(JSON.stringify(INJECTED_CLOSE).slice(1, -1)));
  for (const injected of [INJECTED_SCRIPT, INJECTED_IMG, "</script><script>"])
    assert.ok(!html.includes(injected), injected);
});

test("the escaping helpers", () => {
  assert.equal(
    escapeHtml(`<a href="x" onclick='y'>&</a>`),
    "&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
  );
  const tricky = { s: "</script><!-- \u2028 \u2029 & >" };
  const encoded = jsonForScriptElement(tricky);
  assert.doesNotMatch(encoded, /[<>&\u2028\u2029]/);
  assert.deepEqual(JSON.parse(encoded), tricky);
  const capped = capEmbeddedStrings({ a: ["x".repeat(20)], b: 3 }, 10) as { a: string[]; b: number };
  assert.match(capped.a[0] ?? "", /^x{10}\n\[report: 10 more characters not embedded/);
  assert.equal(capped.b, 3);
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(url: string, options: { host?: string; method?: string; path?: string } = {}): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? "GET",
        headers: { host: options.host ?? target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

test("--open serves only its one page on 127.0.0.1, to its own Host, with the CSP header", async () => {
  const served = await serveReport(html);
  assert.ok(served.ok);
  const { url, close } = served.value;
  try {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/report\.html$/);
    const page = await get(url);
    assert.equal(page.status, 200);
    assert.equal(page.body, html);
    assert.match(String(page.headers["content-security-policy"]), /^default-src 'none'; script-src 'sha256-/);
    assert.equal(page.headers["x-content-type-options"], "nosniff");
    assert.equal((await get(url, { path: "/" })).status, 404);
    assert.equal((await get(url, { path: "/etc/passwd" })).status, 404);
    assert.equal((await get(url, { path: `${new URL(url).pathname}/../x` })).status, 404);
    assert.equal((await get(url, { host: "evil.example:80" })).status, 404, "DNS rebinding: a foreign Host is refused");
    assert.equal((await get(url, { method: "POST" })).status, 405);
  } finally {
    await close();
  }
  await assert.rejects(get(url));
});
