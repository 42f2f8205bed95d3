// EVIDENCE INVALID is what a person sees first: in a real headless Chromium, a report of a run
// whose final.json claims success beside an audit that stopped on model_error opens with the
// EVIDENCE INVALID headline above the title and everything else, and says success nowhere.
import { after, before } from "node:test";
import { browserTest as test, chromiumPackage } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeReport } from "../../src/report/reportBuilder.ts";
import { openReport, screenshot, startBrowser, type BrowserSession } from "./browserSession.ts";
import { baselineRun, freshRoot } from "./reportFixtures.ts";

// Without Chromium these tests are skipped with the install command (TCA_REQUIRE_SYSTEM=1 fails them).
const browserPresent = chromiumPackage().skip === false;

const root = freshRoot("invalid-browser");
let session: BrowserSession;
before(async () => {
  if (!browserPresent) return;
  session = await startBrowser();
});
after(async () => {
  await session?.close();
  rmSync(root, { recursive: true, force: true });
});

test("a planted success: EVIDENCE INVALID is the first thing on the page, above the title, and nothing says success", async () => {
  const baseline = await baselineRun(root);
  const planted = join(root, "planted");
  cpSync(baseline, planted, { recursive: true });
  const audit = readFileSync(join(planted, "audit.jsonl"), "utf8");
  writeFileSync(
    join(planted, "audit.jsonl"),
    audit.replaceAll('"stop_reason":"finish_accepted"', '"stop_reason":"model_error"'),
  );
  const written = writeReport(planted, { out: join(root, "planted.html") });
  assert.ok(written.ok);
  const opened = await openReport(session, written.value.path);
  const { page } = opened;
  assert.equal(await page.textContent("#verdict-headline"), "SCRIPTED BASELINE · EVIDENCE INVALID");
  assert.equal(
    await page.locator("#app > *").first().getAttribute("id"),
    "verdict",
    "the verdict is the page's first element",
  );
  const text = await page.locator("body").innerText();
  assert.ok(text.trimStart().startsWith("SCRIPTED BASELINE · EVIDENCE INVALID"), "the first words a reader meets");
  assert.ok(!text.includes("VERIFIED SUCCESS"), "no success anywhere on the page");
  const verdictBox = await page.locator("#verdict").boundingBox();
  const title = await page.locator("h1").first().boundingBox();
  assert.ok(verdictBox !== null && title !== null);
  assert.ok(verdictBox.y < title.y, "above the title");
  assert.ok(verdictBox.y + verdictBox.height <= 900, "inside the first screen without scrolling");
  const details = await page.locator("#verdict li").allTextContents();
  assert.ok(
    details.some((line) => line.includes("stop_reason")),
    "the disagreement is named in the headline box",
  );
  assert.match((await page.textContent("#summary")) ?? "", /verified_success \(final\.json claims; not verified\)/);
  assert.deepEqual(opened.pageErrors, []);
  await screenshot(page, "lab-evidence-invalid");
  await page.close();
});
