// Issue #35 item 8 and #34's report rows, measured in a real headless Chromium at 1280 x 900
// (browserSession.ts): the checks table reads without a word broken across lines (codes wrap only
// after an underscore), each status badge and header on one line, no empty problems column, and a
// passed check's run folded away (a disclosure row under each of 44 checks doubled the page); the
// bench verdict box is short, the claim breakdown a table where a condition without tests has no
// test-related count; a task's grading run, guardrails, statements and fix size are labeled rows
// in words, the false-"fixed" note in the value column.
import { after, before } from "node:test";
import { browserTest as test, chromiumPackage } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { writeReport } from "../../src/report/reportBuilder.ts";
import { STATEMENT_LABELS } from "../../src/bench/results/claimStatements.ts";
import { openReport, screenshot, startBrowser, type BrowserSession } from "./browserSession.ts";
import { checksRun, freshRoot } from "./reportFixtures.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";

const browserPresent = chromiumPackage().skip === false;
const root = freshRoot("layout");
let session: BrowserSession;
let checks: Promise<string>;

before(async () => {
  if (!browserPresent) return;
  checks = checksRun(root, true);
  checks.catch(() => undefined);
  session = await startBrowser();
});

after(async () => {
  await session?.close();
  rmSync(root, { recursive: true, force: true });
});

function reportOf(runDirectory: string): string {
  const written = writeReport(runDirectory, { out: join(root, `${runDirectory.split("/").pop() ?? "run"}.html`) });
  if (!written.ok) throw new Error(`report not written: ${written.error}`);
  return written.value.path;
}

/**
 * Every word of the visible cells under `selector` that the browser laid out on more than one
 * line. A word is a run of non-space characters up to and including an underscore or hyphen (the
 * places a code or a compound may wrap); its Range's client rects lie on one line unless it broke.
 */
async function brokenWords(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll(${JSON.stringify(selector)})) {
      if (cell.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const match of node.data.matchAll(/[^\\s_-]+[_-]?|[_-]/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`)) as string[];
}

/** How many lines the element's text takes (distinct line tops of its text's client rects). */
async function linesOf(page: Page, selector: string): Promise<number[]> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((node) => node.getClientRects().length > 0)
    .map((node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    })`)) as number[];
}

// The checks page at 1280 x 900 measured 2,746 px with passed checks' runs folded (4,865 px with a
// disclosure row under every check, as before). The bound leaves room for fonts to differ between
// Chromium builds and is still below the page with one disclosure row per check.
const CHECKS_PAGE_BOUND_PX = 3_600;

test("the checks table at 1280 px: no word broken, badges and headers on one line, no empty problems column, passed runs folded", async () => {
  const opened = await openReport(session, reportOf(await checks));
  const { page } = opened;
  const headers = await page.locator("#checks-table thead th").allTextContents();
  assert.deepEqual(headers, [
    "check",
    "description",
    "expected",
    "observed",
    "unchanged",
    "run's stop",
    "result",
    "its run",
  ]);
  const rows = page.locator("#checks-table tbody tr.check");
  assert.equal(await rows.count(), 44);
  for (const cells of await rows.evaluateAll((trs) =>
    trs.map((tr) => (tr as unknown as { cells: { length: number } }).cells.length),
  ))
    assert.equal(cells, headers.length, "each row has a cell per header: no column without a header");
  assert.deepEqual(await brokenWords(page, "#checks-table th, #checks-table tr.check td"), []);
  assert.ok(
    (await linesOf(page, "#checks-table th")).every((n) => n === 1),
    "every header on one line",
  );
  const badges = await linesOf(page, "#checks-table td.result .badge");
  assert.equal(badges.length, 44);
  assert.ok(
    badges.every((n) => n === 1),
    `each status on one line: ${badges.join(",")}`,
  );
  // The status cell is one line high: no taller than the row's one-line cells (the run's button).
  const heights = (await page.evaluate(
    `[...document.querySelectorAll("#checks-table tr.check td.result .badge")].map((b) => b.getBoundingClientRect().height)`,
  )) as number[];
  assert.ok(
    Math.max(...heights) < 2 * Math.min(...heights) && Math.max(...heights) <= 24,
    `badge heights ${Math.max(...heights)} px`,
  );
  // Only the failed check's run row is shown; a passed one's opens with its button.
  assert.equal(await page.locator("#checks-table tr.check-run:visible").count(), 1);
  assert.equal(await page.locator("#checks-table tr.check-run.failed:visible").count(), 1);
  const height = (await page.evaluate("document.documentElement.scrollHeight")) as number;
  assert.ok(height <= CHECKS_PAGE_BOUND_PX, `checks page ${height} px high`);
  assert.ok(
    ((await page.evaluate("document.documentElement.scrollWidth")) as number) <= 1280,
    "no horizontal scrolling",
  );
  await screenshot(page, "checks-layout");
  const extra = page.locator("#checks-table tr.check", { hasText: "extra field" });
  await extra.locator("button.run-toggle").click();
  assert.equal(await extra.locator("button.run-toggle").textContent(), "hide run");
  const shown = page.locator("#checks-table tr.check-run.passed:visible");
  assert.equal(await shown.count(), 1);
  await shown.locator("details[open] details.proposal").first().waitFor();
  assert.match((await shown.locator("summary").first().textContent()) ?? "", /^its run extra_field: /);
  // The filter hides passed checks and their runs; lifting it keeps the one run that was shown.
  await page.check("#only-failed");
  assert.equal(await page.locator("#checks-table tr.check-run.passed:visible").count(), 0);
  await page.uncheck("#only-failed");
  assert.equal(await page.locator("#checks-table tr.check-run:visible").count(), 2);
  assert.deepEqual(opened.pageErrors, []);
  await page.close();
});

// The bench box with the claim breakdown (5 sentences per condition) was 430 px high at 1280 px;
// the headline and four short lines measure about 190 px.
const VERDICT_BOX_BOUND_PX = 280;

test("the bench page: a short verdict box, the claims table without test counts for A and B, statements and fix sizes per condition", async () => {
  const dir = join(root, "bench");
  writeBenchRun(dir, { programs: 3, turns: 1, alongTheWay: true });
  const opened = await openReport(session, reportOf(dir));
  const { page } = opened;
  assert.ok((await page.locator("#verdict li").count()) <= 4);
  const box = await page.locator("#verdict").boundingBox();
  assert.ok(box !== null && box.height <= VERDICT_BOX_BOUND_PX, `verdict box ${box?.height} px`);
  assert.doesNotMatch((await page.locator("#verdict").innerText()) ?? "", /never ran the tests|not re-run/);
  const claims = page.locator("#bench-claims");
  const header = await claims.locator("thead th").allTextContents();
  const testColumns = ["verified", "(a)", "(b)", "(c)", 'unverified and false "fixed"'].map((name) =>
    header.indexOf(name),
  );
  assert.ok(testColumns.every((i) => i > 0));
  for (const condition of ["A", "B", "C", "D"]) {
    const cells = await claims.locator(`tbody tr[data-condition=${condition}] td`).allTextContents();
    const shown = testColumns.map((i) => cells[i]);
    if (condition === "A" || condition === "B") assert.deepEqual(shown, ["—", "—", "—", "—", "—"], condition);
    else
      assert.ok(
        shown.every((cell) => /^\d+$/.test(cell ?? "")),
        `${condition}: ${shown.join(",")}`,
      );
    const refused = cells[header.indexOf("refused stop attempts")];
    assert.equal(refused === "—", condition !== "D", `${condition}'s refused stops: ${refused}`);
  }
  assert.equal(await page.locator("#bench-guardrails tbody tr[data-condition=A] td.not-applicable").count(), 7);
  assert.equal(await page.locator("#bench-statements tbody tr").count(), 4);
  assert.equal(await page.locator("#bench-fix-sizes tbody tr").count(), 4);
  const statementTotal = (await page.locator("#bench-statements tbody td:nth-child(3)").allTextContents()).reduce(
    (sum, cell) => sum + Number(cell),
    0,
  );
  assert.equal(statementTotal, 3, "three of the twelve tasks said the original was already correct (tasks 1, 5, 9)");
  assert.ok(
    (await page.locator("#bench-fix-sizes tbody td:nth-child(5)").allTextContents()).some((cell) => Number(cell) > 0),
    "a rewrite is counted",
  );
  await screenshot(page, "bench-layout");
  assert.deepEqual(opened.pageErrors, []);
  await page.close();
});

test("a task's view: the grading run and guardrails as labeled rows in words, the false-fixed note in the value column, statements and fix size", async () => {
  const dir = join(root, "bench-task");
  const tasks = writeBenchRun(dir, { programs: 3, turns: 1, alongTheWay: true });
  const falseFixed = tasks.find((t) => t.falseFixed && t.condition === "C");
  assert.ok(falseFixed !== undefined);
  const opened = await openReport(session, reportOf(dir));
  const { page } = opened;
  const task = page.locator("#tasks details.task", { hasText: falseFixed.taskId });
  await task.locator("> summary").click();
  const outcome = task.locator(".field", { has: page.locator(".name", { hasText: /^outcome$/ }) });
  const label = await outcome.locator(".name").boundingBox();
  const note = await outcome.locator(".claim-note").boundingBox();
  assert.ok(label !== null && note !== null);
  assert.ok(note.x >= label.x + label.width, "the note is in the value column, right of the label");
  assert.ok(Math.abs(note.y - label.y) < 12, "on the outcome's own line");
  assert.equal(
    (await outcome.locator(".claim-note").textContent())?.trim(),
    'claimed fixed, and the grading run failed: a false "fixed"',
  );
  assert.deepEqual(await task.locator("table.grade-rows th").allTextContents(), [
    "grade",
    "public cases",
    "time",
    "summary",
  ]);
  assert.deepEqual((await task.locator("table.grade-rows td").allTextContents()).slice(0, 2), [
    "failed: a public case failed",
    `${falseFixed.grade.counts.passed} passed, ${falseFixed.grade.counts.failed} failed`,
  ]);
  assert.equal(await task.locator("pre", { hasText: '"passed"' }).count(), 0, "no JSON of the counts");
  const guardrailLabels = await task.locator("table.guardrail-rows th").allTextContents();
  assert.equal(guardrailLabels.length, 7);
  for (const name of guardrailLabels) assert.doesNotMatch(name, /[a-z][A-Z]/, `a label in words: ${name}`);
  assert.equal(
    await task.locator("table.guardrail-rows tr", { hasText: "refused stop attempts" }).locator("td").textContent(),
    "none: only condition D refuses a stop",
  );
  const index = tasks.indexOf(falseFixed) + 1;
  const expected = [
    "none of the three",
    STATEMENT_LABELS.original_correct,
    STATEMENT_LABELS.tests_at_fault,
    STATEMENT_LABELS.fix_announced_not_made,
  ][index % 4];
  assert.deepEqual(await task.locator("ul.statements li").allTextContents(), [expected]);
  assert.match((await task.locator(".fix-size").textContent()) ?? "", /^(\d+ lines? changed: .+|no change)$/);
  // A one-shot task (A) has no tools: its guardrails say so in one row.
  const oneShot = page.locator("#tasks details.task", { hasText: tasks.find((t) => t.condition === "A")!.taskId });
  await oneShot.locator("> summary").click();
  // The body is built on the details' toggle event, a task after the click: wait for it, as the other views' tests do.
  await oneShot.locator("table.guardrail-rows td").first().waitFor();
  assert.deepEqual(await oneShot.locator("table.guardrail-rows td").allTextContents(), [
    "condition A has no tools: nothing to count",
  ]);
  await screenshot(page, "bench-task-layout");
  assert.deepEqual(opened.pageErrors, []);
  await page.close();
});
