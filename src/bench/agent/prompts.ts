// The prompts, as versioned templates. The one-shot prompt, the agent system prompt and the
// D refusal texts are the spec's method section word for word; the pieces the spec leaves
// open ({tests_line}, {verify_line}, the first user message) are this project's, written
// before any run. Every run records PROMPT_SET_VERSION and the SHA-256 of each template.
import { sha256Hex } from "../../core/digest.ts";

// v2: run_tests' observations became templates here, the pass text with pytest's progress line
// as the document's recorded run shows it; a v1 run cannot be resumed under v2 (its fingerprint differs).
export const PROMPT_SET_VERSION = "quixbugs-prompts-v2";

export const PROMPT_TEMPLATES = {
  one_shot:
    "The following Python program has a bug. Fix it. Return the complete corrected file in a single ```python code block and nothing else.\n\nFile {target}:\n```python\n{source}\n```",
  agent_system:
    "You are a careful software engineer fixing a bug in a small Python program. The buggy file is {target}. You may only modify that file. {tests_line}Use the tools to inspect the code, write the corrected file (write_file replaces the whole file), {verify_line}When you are done, reply with one short sentence describing the fix and do not call any tool.",
  agent_user: "Fix the bug in {target}.",
  tests_line_without_tests: "",
  tests_line_with_tests:
    "The tests are in {test_file}; you may read them and run them with run_tests, but you may not change them. ",
  verify_line_without_tests: "then finish. ",
  verify_line_with_tests: "then run the tests with run_tests. ",
  harness_refusal_D_not_run:
    "Not done: the tests have not been run since your last change. Continue until run_tests passes.",
  harness_refusal_D_fail: "Not done: the tests still fail. Continue until run_tests passes.",
  // What run_tests returns, in the document's recorded run's words: "PASSED: all tests pass.
  // ......... [100%] 9 passed in 0.01s" and "FAILED. TIMEOUT after 60s"; a failure shows pytest's own output.
  run_tests_passed: "PASSED: all tests pass. {progress} {summary}",
  run_tests_timeout: "FAILED. TIMEOUT after {seconds}s",
  run_tests_failed: "FAILED.\n{output}",
} as const;
export type PromptName = keyof typeof PROMPT_TEMPLATES;

export function promptHashes(): Record<PromptName, string> {
  const out = {} as Record<PromptName, string>;
  for (const name of Object.keys(PROMPT_TEMPLATES) as PromptName[]) {
    out[name] = sha256Hex(PROMPT_TEMPLATES[name]);
  }
  return out;
}

/** Fills {name} slots in one pass; a value is never re-scanned for slots (file text may contain braces). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => (key in values ? (values[key] ?? "") : whole));
}
