// Drives Debian's Chromium (/usr/bin/chromium) through playwright-core for the report tests.
// No browser is ever downloaded; if Chromium is missing the tests are skipped with the install
// command (test/support/systemPackages.ts), or fail with TCA_REQUIRE_SYSTEM=1 (CI).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.TCA_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOT_DIRECTORY = join(process.cwd(), "test-output", "report");

/** The few browser globals the tests touch inside page.evaluate (the project compiles without DOM types). */
export interface PageGlobals {
  __pwned?: unknown;
  __cspProbe?: unknown;
  scrollTo(x: number, y: number): void;
  document: {
    createElement(tag: string): { textContent: string | null };
    body: { appendChild(node: unknown): unknown };
  };
}

export interface BrowserSession {
  readonly context: BrowserContext;
  /** Requests the page tried to make to anything other than its own file (must stay empty). */
  readonly outsideRequests: string[];
  close(): Promise<void>;
}

export function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y --no-install-recommends chromium; .ci/run does this) or set TCA_CHROMIUM`,
    );
  }
}

export async function startBrowser(): Promise<BrowserSession> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), "tca-report-chromium-"));
  // A fresh profile directory per session (Playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    // Root in CI has no user-namespace sandbox; the pages are our own generated files.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  // Short waits: a missing element should fail a test quickly, not after Playwright's 30 s.
  context.setDefaultTimeout(5_000);
  const outsideRequests: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file://")) return route.continue();
    outsideRequests.push(url);
    return route.abort();
  });
  return {
    context,
    outsideRequests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface OpenedPage {
  readonly page: Page;
  readonly consoleMessages: string[];
  readonly dialogs: string[];
  readonly pageErrors: string[];
}

/** Opens a report file and waits until the viewer has drawn it (body[data-rendered]). */
export async function openReport(session: BrowserSession, file: string): Promise<OpenedPage> {
  const page = await session.context.newPage();
  const consoleMessages: string[] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  page.on("console", (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`file://${file}`);
  await page.waitForSelector("body[data-rendered]", { timeout: 15_000 });
  return { page, consoleMessages, dialogs, pageErrors };
}

/** The top of the page (verdict, label, first sections): full-page shots of long traces are slow on a loaded machine. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  const path = join(SCREENSHOT_DIRECTORY, `${name}.png`);
  await page.evaluate(() => (globalThis as unknown as PageGlobals).scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 2000 }, timeout: 30_000 });
  return path;
}
