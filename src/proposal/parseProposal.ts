// Raw proposal -> verdict: byte limit, strict UTF-8, strict JSON, closed contract.
// Pure: no filesystem, clock or environment access exists in this layer.
import type { Action, ActionName } from "./action.ts";
import { checkActionContract } from "./actionContract.ts";
import type { ProposalErrorCode } from "./errorCodes.ts";
import { parseStrictJson } from "./strictJson.ts";

export type ProposalVerdict =
  | { readonly ok: true; readonly action: Action }
  | {
      readonly ok: false;
      readonly error: ProposalErrorCode;
      readonly message: string;
      /** The action name if the text parsed as an object whose "action" was one of the four. */
      readonly attemptedAction: ActionName | null;
    };

/** Never throws for any string or byte input: every outcome is a verdict. */
export function parseProposal(raw: Uint8Array | string): ProposalVerdict {
  const parsed = parseStrictJson(raw);
  if (!parsed.ok) return { ok: false, error: parsed.error, message: parsed.message, attemptedAction: null };
  return checkActionContract(parsed.value);
}
