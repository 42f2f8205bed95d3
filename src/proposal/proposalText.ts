// Turns a raw proposal (the model's bytes, or a string from a source that already holds
// text) into checked text BEFORE any parsing: first the 2,048-byte limit, then strict UTF-8.
// Size comes first so that no decoding work is ever spent on an oversized proposal.
import { PROPOSAL_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { InputErrorCode } from "./errorCodes.ts";

// fatal: invalid sequences (overlong forms, encoded surrogates, > U+10FFFF, truncated
// sequences) are errors, never U+FFFD. ignoreBOM: a leading U+FEFF is kept as a character,
// so the parser rejects it instead of the decoder silently dropping it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function tooLarge(): Result<string, InputErrorCode> {
  return err("proposal_too_large", `proposal exceeds the ${PROPOSAL_LIMITS.maxBytes}-byte limit`);
}

function invalidUtf8(): Result<string, InputErrorCode> {
  return err("invalid_utf8", "proposal is not valid UTF-8");
}

/** True when the string has no unpaired UTF-16 surrogate (so it has an exact UTF-8 encoding). */
function isWellFormedUtf16(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (next < 0xdc00 || next > 0xdfff) return false;
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false;
    }
  }
  return true;
}

export function decodeProposal(raw: Uint8Array | string): Result<string, InputErrorCode> {
  if (typeof raw === "string") {
    // Every UTF-16 unit encodes to at least one byte, so a long string is too large in bytes.
    if (raw.length > PROPOSAL_LIMITS.maxBytes) return tooLarge();
    // A string with an unpaired surrogate has no UTF-8 encoding; encoding it would silently
    // substitute U+FFFD, so it counts as invalid UTF-8.
    if (!isWellFormedUtf16(raw)) return invalidUtf8();
    if (Buffer.byteLength(raw, "utf8") > PROPOSAL_LIMITS.maxBytes) return tooLarge();
    return ok(raw);
  }
  if (raw.byteLength > PROPOSAL_LIMITS.maxBytes) return tooLarge();
  try {
    return ok(strictUtf8.decode(raw));
  } catch {
    return invalidUtf8();
  }
}
