// Assembles the single self-contained HTML file. The evidence travels as JSON inside a
// non-executing <script type="application/json"> with <, > and & written as \u escapes, so no
// evidence text can close the element or start markup; the viewer draws it with textContent.
// The Content-Security-Policy allows exactly the one inline script and the one inline style, by
// their sha256 hashes, and nothing else: no network, no other scripts, no inline handlers.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { EVIDENCE_JSON_MAX_DEPTH } from "../core/boundedJson.ts";
import type { ReportDocument } from "./reportDocument.ts";

/** The viewer's parts, concatenated in this order into the page's one inline script. */
const VIEWER_PARTS = ["common.js", "labView.js", "checksView.js", "benchView.js", "main.js"] as const;

/** Longest string embedded as is; longer evidence strings are cut with a note naming the cut. */
export const EMBED_MAX_CHARS = 256 * 1024;

function viewerAsset(name: string): string {
  return readFileSync(new URL(`./viewer/${name}`, import.meta.url), "utf8");
}

let cachedAssets: { script: string; style: string } | null = null;

/** The inline script and style, read once from src/report/viewer/. */
export function viewerAssets(): { script: string; style: string } {
  if (cachedAssets === null) {
    // Each part runs in its own block so its private names stay private; `tca` is the shared namespace.
    const parts = VIEWER_PARTS.map((name) => `{\n${viewerAsset(name)}\n}`).join("\n");
    cachedAssets = {
      script: `(() => {\n"use strict";\nconst tca = {};\n${parts}\n})();\n`,
      style: viewerAsset("reportViewer.css"),
    };
  }
  return cachedAssets;
}

export function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

export function contentSecurityPolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${cspHash(script)}`,
    `style-src ${cspHash(style)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The one escaping function for text placed into HTML markup by the generator. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** JSON safe inside a <script> element: no <, >, & (so no </script> or <!--), no line separators. */
export function jsonForScriptElement(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * The page's document nests the evidence's JSON a few levels down; anything deeper than this is
 * not embedded. Every evidence reader already refuses JSON deeper than EVIDENCE_JSON_MAX_DEPTH
 * (src/core/boundedJson), so this bound only keeps the copy's recursion finite by construction.
 */
export const EMBED_MAX_DEPTH = EVIDENCE_JSON_MAX_DEPTH + 32;

/** Copies a JSON value, cutting strings longer than maxChars and values nested past EMBED_MAX_DEPTH (with a visible note). */
export function capEmbeddedStrings(value: unknown, maxChars: number = EMBED_MAX_CHARS, depth = 0): unknown {
  if (typeof value === "string") {
    if (value.length <= maxChars) return value;
    return `${value.slice(0, maxChars)}\n[report: ${value.length - maxChars} more characters not embedded; see the evidence file]`;
  }
  if (typeof value === "object" && value !== null && depth >= EMBED_MAX_DEPTH)
    return `[report: nested deeper than ${EMBED_MAX_DEPTH} levels; not embedded]`;
  if (Array.isArray(value)) return value.map((item) => capEmbeddedStrings(item, maxChars, depth + 1));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = capEmbeddedStrings(inner, maxChars, depth + 1);
    return out;
  }
  return value;
}

export function renderReportHtml(document: ReportDocument): string {
  const { script, style } = viewerAssets();
  const title =
    document.kind === "lab"
      ? document.lab.directoryName
      : document.kind === "checks"
        ? document.checks.directoryName
        : document.bench.directoryName;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script, style))}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>tca report (${escapeHtml(document.kind)}): ${escapeHtml(title)}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
    "<noscript>This report draws its content with its one inline script; allow scripts for this file to read it. The evidence is embedded as JSON below.</noscript>",
    '<main id="app"></main>',
    `<script type="application/json" id="report-data">${jsonForScriptElement(capEmbeddedStrings(document))}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
