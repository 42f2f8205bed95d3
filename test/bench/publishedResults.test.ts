// compare --reference published: the document's numbers, beside runs or alone, and a check of
// every figure in publishedResults.json against the document's own text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CONDITIONS, CONDITION_IDS } from "../../src/bench/agent/conditions.ts";
import { PUBLISHED } from "../../src/bench/runs/publishedResults.ts";
import { loadComparison, parseReference, renderComparison } from "../../src/bench/runs/runComparison.ts";
import { benchSpecText } from "../support/optionalResources.ts";
import { overlongLines } from "../../src/core/textWidth.ts";

const spec = benchSpecText();

test("every published figure is the document's, cell by cell and sentence by sentence", { skip: spec.skip }, () => {
  const text = readFileSync(spec.path, "utf8");
  assert.ok(text.includes(`- ${PUBLISHED.measured}`), "the measurement date");
  assert.ok(PUBLISHED.label.includes(`measured ${PUBLISHED.measured}`));
  assert.ok(text.includes(PUBLISHED.environment), "the environment line");
  assert.ok(text.includes(PUBLISHED.grading), "the grading line");
  for (const rates of PUBLISHED.fixedRates) {
    const block = [rates.model, ...CONDITION_IDS.map((c) => `- ${CONDITIONS[c].label}${rates[c]}`)].join("\n");
    assert.ok(text.includes(block), `the fixed rates of ${rates.model}`);
    assert.ok(
      text.includes(`| ${rates.model} | ${CONDITION_IDS.map((c) => rates[c]).join(" | ")} |`),
      `the comparison row of ${rates.model}`,
    );
  }
  for (const table of [PUBLISHED.outcomes, PUBLISHED.guardrails]) {
    assert.ok(text.includes(`| ${table.columns.join(" | ")} | |`), `header ${table.columns.join(", ")}`);
    for (const row of table.rows) assert.ok(text.includes(`| ${row.join(" | ")} |`), `row ${row[0]}`);
  }
  for (const claim of PUBLISHED.claims) {
    for (const words of claim.words) assert.ok(text.includes(words), `the sentence: ${words}`);
    // Each stated figure is in one of the sentences it is taken from.
    for (const figure of [
      claim.falseFixed,
      claim.finalChangeNotRerun,
      claim.afterFailingRun,
      claim.claimedWithoutPassingRun,
      claim.sentBack,
    ]) {
      if (figure === "–" || figure === "not stated") continue;
      const said = figure === "0" ? /no false “fixed”/i : new RegExp(`\\b${figure}\\b`);
      assert.ok(
        claim.words.some((w) => said.test(w)),
        `${claim.model} ${claim.condition}: ${figure}`,
      );
    }
  }
});

test("--reference published with no run: the published table alone, every row labelled", () => {
  const loaded = loadComparison([], "published");
  assert.ok(loaded.ok);
  const out = renderComparison(loaded.ok ? loaded.value : [], "published");
  PUBLISHED.fixedRates.forEach((rates, i) => {
    assert.ok(out.includes(`- P${i + 1}: ${rates.model}: ${PUBLISHED.label}\n`), rates.model);
    for (const c of CONDITION_IDS)
      assert.ok(
        out.includes(`| P${i + 1} | ${c} | ${rates[c]} | not stated | 40 | not stated |`),
        `${rates.model} ${c}`,
      );
  });
  assert.match(out, /not re-run here/);
  assert.ok(out.includes(`| ${PUBLISHED.outcomes.rows[2]?.join(" | ")} |`));
  assert.ok(out.includes(`| ${PUBLISHED.guardrails.rows[5]?.join(" | ")} |`));
  assert.match(out, /\| Qwen3-8B Q4_K_M \| D \| 0 \| – \| – \| – \| 14 \|/);
  // No run, so no run's claim table.
  assert.equal(out.includes("| Run | Cond | Claimed |"), false);
  // The prose is wrapped; only the document's own wide tables (reproduced cell by cell) pass 100 columns.
  assert.deepEqual(
    overlongLines(out).filter((line) => !line.startsWith("| ")),
    [],
  );
});

test("an unknown reference and an empty compare are refused with their code", () => {
  const bad = parseReference("paper");
  assert.equal(bad.ok ? "" : bad.error, "invalid_option");
  assert.match(bad.ok ? "" : bad.message, /--reference must be one of: published/);
  assert.deepEqual(parseReference(undefined), { ok: true, value: null });
  const empty = loadComparison([]);
  assert.equal(empty.ok ? "" : empty.error, "invalid_option");
});
