// The scripted proposal source: returns fixed proposal texts in order. It verifies the harness
// (the Lab's baseline and negative checks); it is never a model and is labelled "scripted".
import type { ProposalOutcome, ProposalRequest, ProposalSource } from "../controller/proposalSource.ts";
import { sha256Hex } from "../core/digest.ts";

/** One scripted generation: its text, plus an optional action taken while "generating" (checks
 *  use it to advance a manual clock or to cancel, reproducing late and cancelled generations). */
export type ScriptedStep = string | { readonly text: string; readonly duringGeneration?: () => void | Promise<void> };

export class ScriptedSource implements ProposalSource {
  readonly label = "scripted";
  private next = 0;
  /** Requests seen, kept so tests can assert what a model would have been shown. */
  readonly requests: ProposalRequest[] = [];

  constructor(private readonly steps: readonly ScriptedStep[]) {}

  describe(): Readonly<Record<string, unknown>> {
    const texts = this.steps.map((step) => (typeof step === "string" ? step : step.text));
    return {
      proposal_source: "scripted",
      steps: texts.length,
      script_sha256: sha256Hex(JSON.stringify(texts)),
    };
  }

  exhausted(): boolean {
    return this.next >= this.steps.length;
  }

  async propose(request: ProposalRequest): Promise<ProposalOutcome> {
    this.requests.push(request);
    const step = this.steps[this.next++];
    // The controller asks exhausted() first; reaching this is a caller that did not.
    if (step === undefined) return { kind: "model_error", message: "the script has no further proposal", metadata: {} };
    if (typeof step === "string") return { kind: "text", text: step, metadata: { scripted: true } };
    await step.duringGeneration?.();
    return { kind: "text", text: step.text, metadata: { scripted: true } };
  }

  async close(): Promise<void> {}
}
