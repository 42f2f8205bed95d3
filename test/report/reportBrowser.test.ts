// The reports in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// verdict text, a denied proposal with its error code, a rendered diff, injected markup shown as
// text and never run, the CSP enforced, no network, lazy "show all", and a screenshot of each.
import { after, before } from "node:test";
import { browserTest as test, chromiumAndSandbox, chromiumPackage } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writeReport } from "../../src/report/reportBuilder.ts";
import { REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { BENCH_INJECTED, scriptedBenchRun } from "./benchFixture.ts";
import { openReport, type PageGlobals, screenshot, startBrowser, type BrowserSession } from "./browserSession.ts";
import {
  baselineRun,
  checksRun,
  freshRoot,
  hostileRun,
  INJECTED_CLOSE,
  INJECTED_IMG,
  INJECTED_SCRIPT,
  syntheticModelRun,
} from "./reportFixtures.ts";

// Without Chromium these tests are skipped with the install command (TCA_REQUIRE_SYSTEM=1 fails them).
const browserPresent = chromiumPackage().skip === false;

const root = freshRoot("browser");
let session: BrowserSession;

function reportOf(runDirectory: string): string {
  const written = writeReport(runDirectory, { out: join(root, `${runDirectory.split("/").pop() ?? "run"}.html`) });
  if (!written.ok) throw new Error(`report not written: ${written.error}`);
  return written.value.path;
}

// The evidence runs start at once and overlap with the browser start (the model trial and the
// bench run mostly wait on child processes); each test awaits its own.
let fixtures: {
  baseline: Promise<string>;
  hostile: Promise<string>;
  synthetic: Promise<string>;
  checks: Promise<string>;
  bench: Promise<string>;
};

before(async () => {
  if (!browserPresent) return;
  fixtures = {
    baseline: baselineRun(root),
    hostile: hostileRun(root),
    synthetic: syntheticModelRun(root),
    checks: checksRun(root, true),
    // The bench run needs the sandbox too; its tests are gated by chromiumAndSandbox.
    bench:
      chromiumAndSandbox().skip === false
        ? scriptedBenchRun(root)
        : Promise.reject(new Error(String(chromiumAndSandbox().skip))),
  };
  // Nothing may reject unobserved while an earlier test runs; each test re-awaits its own.
  for (const pending of Object.values(fixtures)) pending.catch(() => undefined);
  session = await startBrowser();
});

after(async () => {
  await session?.close();
  rmSync(root, { recursive: true, force: true });
});

test("baseline report: verified success, scripted label, every proposal accepted, diffs rendered", async () => {
  const opened = await openReport(session, reportOf(await fixtures.baseline));
  const { page } = opened;
  assert.equal(await page.textContent("#verdict-headline"), "SCRIPTED BASELINE · VERIFIED SUCCESS");
  assert.match((await page.textContent("#kind-label")) ?? "", /SCRIPTED BASELINE/);
  assert.equal(await page.locator("details.proposal").count(), 6);
  assert.equal(await page.locator("details.proposal[data-status=accepted]").count(), 6);
  const added = await page.locator("#edits .diff .add").allTextContents();
  assert.ok(
    added.some((line) => line.includes(REPAIR_EXPRESSIONS.clamp)),
    "the clamp edit's diff",
  );
  assert.ok(
    added.some((line) => line.includes(REPAIR_EXPRESSIONS.total)),
    "the total edit's diff",
  );
  assert.ok((await page.locator("#edits .diff .del").allTextContents()).some((line) => line.includes("return x")));
  assert.ok((await page.locator("#charts svg").count()) >= 1, "phase times chart");
  // The manifest is drawn when its details is opened (closed by default: it is long).
  await page.click("#manifest-details > summary");
  await page.locator("#manifest-table").waitFor();
  assert.match((await page.textContent("#manifest-table")) ?? "", /runtime\.node/);
  // The audit trail is paginated and drawn only when opened.
  assert.equal(await page.locator("#audit .record").count(), 0);
  await page.click("#audit > summary");
  // The body is drawn on the toggle event, which fires after the click returns: wait for it.
  await page.locator("#audit .record").first().waitFor();
  assert.equal(await page.locator("#audit .record").count(), 50, "one page of at most 50 records");
  assert.deepEqual(opened.pageErrors, []);
  assert.deepEqual(
    opened.consoleMessages.filter((m) => m.startsWith("error")),
    [],
  );
  await screenshot(page, "lab-baseline");
  await page.close();
});

test("hostile report: the denial shows its code, injected markup is text and never runs", async () => {
  const opened = await openReport(session, reportOf(await fixtures.hostile));
  const { page } = opened;
  assert.equal(await page.textContent("#verdict-headline"), "MODEL TRIAL (MODEL NOT VERIFIED) · NOT VERIFIED");
  const denied = page.locator("#proposal-1");
  assert.equal(await denied.getAttribute("data-status"), "denied");
  assert.match((await denied.locator("> summary").textContent()) ?? "", /DENIED\s*read_required/);
  assert.match((await denied.textContent()) ?? "", /read_required.*replace requires a prior read/);
  assert.match((await page.locator("#proposal-3 > summary").textContent()) ?? "", /INVALID\s*leading_text/);
  // Only the first proposal (here also the first failure) is open; the outline opens the others.
  for (const n of [3, 5, 6]) await page.click(`nav#outline a[href="#proposal-${n}"]`);
  await page.locator("#proposal-6 .diff").first().waitFor();
  // The raw text is displayed exactly, as text.
  const raw = await page.locator("#proposal-3 .raw-text pre").textContent();
  assert.equal(raw, `${INJECTED_SCRIPT}${INJECTED_IMG} {"action":"test"}`);
  assert.ok(
    ((await page.locator("#proposal-5 .raw-text pre").textContent()) ?? "").includes(
      JSON.stringify(INJECTED_CLOSE).slice(1, -1),
    ),
  );
  // Nothing from the evidence became markup or ran.
  assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned), undefined);
  assert.equal(await page.locator("#app img").count(), 0);
  assert.equal(await page.locator("script").count(), 2);
  assert.deepEqual(opened.dialogs, []);
  assert.deepEqual(opened.pageErrors, []);
  assert.ok((await page.locator("#proposal-6 .diff .add").count()) > 0, "the committed edit's diff");
  // The CSP is in force: an inline script added at run time is refused.
  const blocked = await page.evaluate(() => {
    const browser = globalThis as unknown as PageGlobals;
    const element = browser.document.createElement("script");
    element.textContent = "window.__cspProbe = 1";
    browser.document.body.appendChild(element);
    return browser.__cspProbe;
  });
  assert.equal(blocked, undefined);
  assert.deepEqual(session.outsideRequests, [], "the page made no request beyond its own file");
  await screenshot(page, "lab-denied-and-injected");
  await page.close();
});

test("pipeline-check report of a real tiny synthetic checkpoint run: labelled PIPELINE CHECK, token chart, invalid proposals with codes", async () => {
  const opened = await openReport(session, reportOf(await fixtures.synthetic));
  const { page } = opened;
  const label = page.locator("#kind-label");
  assert.match((await label.textContent()) ?? "", /PIPELINE CHECK.*NOT a model result/);
  assert.match((await label.getAttribute("class")) ?? "", /pipeline-check/);
  // Random weights never produce a valid proposal: not verified, and every failure shows its code.
  assert.equal(await page.textContent("#verdict-headline"), "PIPELINE CHECK · NOT VERIFIED");
  const proposals = page.locator("details.proposal");
  assert.ok((await proposals.count()) >= 1);
  for (const summary of await page.locator("details.proposal > summary").allTextContents())
    assert.match(summary, /INVALID\s*[a-z_]+|DENIED\s*[a-z_]+|TOOL ERROR\s*[a-z_]+/);
  const tokenChart = page.locator("#charts figure", { hasText: "Token counts per proposal" });
  assert.ok((await tokenChart.locator("rect").count()) >= 2, "input and output bars");
  assert.match((await page.locator("#proposal-1").textContent()) ?? "", /input \d+, output \d+/);
  assert.deepEqual(opened.pageErrors, []);
  await screenshot(page, "lab-pipeline-check");
  await page.close();
});

test("checks report: failures first with expected and observed codes, a filter, a bounded long text", async () => {
  const opened = await openReport(session, reportOf(await fixtures.checks));
  const { page } = opened;
  assert.equal(await page.textContent("#verdict-headline"), "NEGATIVE CHECKS · 1 OF 44 CHECKS FAILED");
  // The heading names the kind once; the folder (often named "checks") is on its own line.
  assert.equal(await page.locator("h1").first().textContent(), "Negative checks");
  assert.doesNotMatch(await page.locator("body").innerText(), /Negative checks\s+checks/);
  const first = page.locator("#checks-table tbody tr.check").first();
  assert.equal(await first.getAttribute("data-status"), "failed");
  assert.equal(await first.locator(".expected").textContent(), "unknown_action");
  assert.equal(await first.locator(".observed").textContent(), "proposal_too_large");
  const extraField = page.locator("#checks-table tr.check", { hasText: "extra field" });
  assert.equal(await extraField.locator(".observed").textContent(), "extra_key");
  // Each row shows its own run's stop reason (script_exhausted: the scripted check ran out of proposals).
  assert.equal(await extraField.locator(".stop-reason").textContent(), "script_exhausted");
  // The failed check's own run: its 2,049-byte proposal is cut at 2,000 characters until "show all".
  await page.locator("#checks-table tr.check-run.failed summary").first().click();
  const nested = page.locator("#checks-table tr.check-run.failed details.proposal").first();
  await nested.waitFor();
  await nested.locator("> summary").click();
  await nested.locator(".raw-text pre").waitFor();
  const pre = nested.locator(".raw-text pre");
  assert.equal(((await pre.textContent()) ?? "").length, 2000);
  await nested.locator("button.show-all").click();
  assert.equal(((await pre.textContent()) ?? "").length, 2049);
  // Issue 28: the table fits a 1,400-px page (it wraps long codes inside the 1,200-px column), so
  // nothing scrolls sideways at this 1,280-px viewport; measured here, not assumed.
  const width = (await page.locator("#checks-table").boundingBox())?.width ?? Infinity;
  assert.ok(width <= 1_400, `checks table ${width} px wide`);
  assert.ok(
    ((await page.evaluate("document.documentElement.scrollWidth")) as number) <= 1280,
    "no horizontal scrolling",
  );
  // A passed check's run is refused by design: its summary says so instead of a bare "not verified".
  const passedRun = (await page.locator("#checks-table tr.check-run.passed summary").first().textContent()) ?? "";
  assert.match(passedRun, /refused as this check expects \(the run's own verdict: not verified, by design\)$/);
  assert.doesNotMatch(passedRun, /^[^(]*not verified/);
  assert.match(
    (await page.locator("#checks-table tr.check-run.failed summary").first().textContent()) ?? "",
    /proposals?, not verified$/,
  );
  await page.check("#only-failed");
  assert.equal(await page.locator("#checks-table tr.check:visible").count(), 1);
  assert.deepEqual(opened.pageErrors, []);
  await screenshot(page, "checks");
  await page.close();
});

test(
  "bench report: tables, outcome chart, filter by outcome, guardrail flags, a task's transcript, diff, test output and refused tool call",
  { skip: chromiumAndSandbox().skip },
  async () => {
    const opened = await openReport(session, reportOf(await fixtures.bench));
    const { page } = opened;
    assert.equal(
      await page.textContent("#verdict-headline"),
      "PIPELINE CHECK · 2 OF 4 TASKS FIXED (graded by the harness's own test run); 1 OF THEM WITH GUARDRAIL HITS",
    );
    assert.match((await page.textContent("#kind-label")) ?? "", /PIPELINE CHECK/);
    assert.equal(await page.locator("#bench-summary tbody tr").count(), 2);
    assert.equal(await page.locator("#outcome-chart rect").count(), 4);
    await page.selectOption("#outcome-filter", "fixed");
    assert.equal(await page.locator("#tasks details.task:visible").count(), 2);
    assert.equal(await page.textContent("#task-count"), "2 of 4 tasks shown");
    await page.selectOption("#outcome-filter", "");
    // The fixed C-gcd row is amber and names its refused attempts; A-gcd (nothing refused) stays green.
    const fixed = page.locator("#tasks details.task", { hasText: "C-gcd" });
    assert.equal(
      await fixed.locator("> summary .badge.warn").textContent(),
      "fixed · tried to read the reference fix (1) · tried to edit tests (1)",
    );
    assert.equal(
      await page.locator("#tasks details.task", { hasText: "A-gcd" }).locator("> summary .badge.pass").textContent(),
      "fixed",
    );
    assert.equal(await page.locator("#tasks [data-testid=guardrail-flag]").count(), 1);
    assert.equal(await fixed.locator(".diff").count(), 0, "task bodies render only when opened");
    await fixed.locator("> summary").click();
    await fixed.locator(".diff .add").first().waitFor();
    assert.ok(
      (await fixed.locator(".diff .add").allTextContents()).some((line) => line.includes("return gcd(b, a % b)")),
    );
    assert.match((await fixed.textContent()) ?? "", /6 passed/);
    // The transcript: model turns with their tool calls and arguments, tool results, the harness's steps, in order.
    const steps = fixed.locator(".transcript .step");
    const roles = await steps.locator(".role").allTextContents();
    assert.deepEqual(roles.slice(0, 9), [
      "harness",
      "model",
      "tool",
      "model",
      "tool",
      "model",
      "tool",
      "model",
      "tool",
    ]);
    const modelSteps = fixed.locator(".transcript .step-model");
    assert.equal(await modelSteps.count(), 5);
    assert.match(
      (await modelSteps.nth(0).locator(".tool-call").textContent()) ?? "",
      /→ read_file[\s\S]*"path": "correct_python_programs\/gcd.py"/,
    );
    assert.match(
      (await fixed.locator(".transcript .step[data-status=tool_refused]").first().textContent()) ?? "",
      /read_reference_fix/,
    );
    assert.match(
      (await modelSteps.nth(2).locator(".tool-call").textContent()) ?? "",
      /→ write_file[\s\S]*python_programs\/gcd\.py/,
    );
    // The written program is shown as its lines, not as an escaped JSON string.
    assert.ok(
      (await modelSteps.nth(2).locator(".call-arguments pre").allTextContents()).some((text) =>
        text.includes("\n        return gcd(b, a % b)\n"),
      ),
    );
    assert.match(
      (await fixed.locator(".transcript .step[data-status=tool_result]").textContent()) ?? "",
      /wrote python_programs\/gcd.py: \d+ characters/,
    );
    assert.match(
      (await fixed.locator(".transcript .step[data-status=test_run]").textContent()) ?? "",
      /run_tests: passed/,
    );
    assert.equal(await modelSteps.nth(4).locator(".model-text pre").textContent(), "Done.");
    assert.match(
      (await fixed.locator(".transcript .step[data-status=stop_attempt]").textContent()) ?? "",
      /the model says it is done: the task ends, claimed done/,
    );
    // The raw events are one click away, all of them.
    assert.equal(await fixed.locator(".raw-events .trace-event").count(), 0);
    await fixed.locator(".raw-events > summary").click();
    await fixed.locator(".raw-events .trace-event").first().waitFor();
    const rawCount = Number(
      /raw events \((\d+)\)/.exec((await fixed.locator(".raw-events > summary").textContent()) ?? "")?.[1],
    );
    assert.ok(rawCount > 10);
    assert.equal(await fixed.locator(".raw-events .trace-event").count(), Math.min(rawCount, 40));
    const refused = page.locator("#tasks details.task", { hasText: "C-pascal" });
    await refused.locator("> summary").click();
    await refused.locator(".transcript .step").first().waitFor();
    assert.match(
      (await refused.locator(".transcript .step[data-status=tool_refused]").textContent()) ?? "",
      /read_not_allowed/,
    );
    assert.ok(((await refused.textContent()) ?? "").includes(BENCH_INJECTED), "the refused path is shown as text");
    const oneShot = page.locator("#tasks details.task", { hasText: "A-pascal" });
    await oneShot.locator("> summary").click();
    await oneShot.locator(".model-text pre").waitFor();
    assert.equal(await oneShot.locator(".model-text pre").textContent(), `I cannot fix this. ${BENCH_INJECTED}`);
    // A one-shot reply without a code block is no answer, never called a refused stop.
    assert.match(
      (await oneShot.locator(".transcript .step[data-status=stop_attempt]").textContent()) ?? "",
      /the reply has no code block: no answer; the task ends/,
    );
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned), undefined);
    assert.equal(await page.locator("#app img").count(), 0);
    assert.deepEqual(opened.dialogs, []);
    assert.deepEqual(opened.pageErrors, []);
    await screenshot(page, "bench");
    await page.close();
  },
);
