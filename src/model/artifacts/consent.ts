// Explicit learner opt-in before any byte is requested (Part 1). Interactive use asks the
// spec's question and accepts only "yes"; non-interactive use needs the explicit --yes flag.
// The form of consent is recorded in the manifest and the ledger.
import type { PinSet } from "../pins.ts";
import type { ConsentForm } from "./manifest.ts";
import { formatCount } from "../../core/numberFormat.ts";

export type ConsentDecision =
  | { readonly given: true; readonly form: ConsentForm }
  | { readonly given: false; readonly code: "consent_required" | "consent_refused"; readonly message: string };

/** Asks (or answers from a flag) the consent question; injected so tests never touch a terminal. */
export type ConsentDecider = (prompt: string) => Promise<ConsentDecision>;

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** The spec's prompt, with the file count and byte total taken from the pin set. */
export function consentPrompt(pins: PinSet): string {
  const count = pins.files.length;
  const countText = NUMBER_WORDS[count] ?? String(count);
  const total = formatCount(pins.files.reduce((sum, file) => sum + file.bytes, 0));
  const owner = pins.repository.split("/")[0] ?? pins.repository;
  return `Download the ${countText} listed model files, totaling ${total} bytes, from ${owner}’s public Hugging Face repository into this new model directory?`;
}

/** Only an explicit "yes" counts; an empty line, "y", or anything else is a refusal. */
export function isExplicitYes(answer: string): boolean {
  return answer.trim().toLowerCase() === "yes";
}

export function decisionFromAnswer(answer: string | null): ConsentDecision {
  if (answer !== null && isExplicitYes(answer)) return { given: true, form: "interactive_prompt" };
  return {
    given: false,
    code: "consent_refused",
    message: "acquisition needs an explicit yes; nothing was downloaded",
  };
}
