// The closed set of stable error codes of the proposal room: strict JSON parsing (input
// and syntax) and the closed action contract. Tests assert these codes, never messages.
// Codes are never built from strings at run time.
import type { ExpressionStringErrorCode } from "../expr/expressionString.ts";

/** Input checks done on the raw bytes before any parsing. */
export const INPUT_ERROR_CODES = ["proposal_too_large", "invalid_utf8"] as const;

/** Strict JSON syntax: each rule a model is likely to break has its own code. */
export const JSON_ERROR_CODES = [
  "empty_proposal",
  "code_fence",
  "leading_text",
  "trailing_text",
  "multiple_json_values",
  "duplicate_key",
  "nesting_too_deep",
  "non_json_constant",
  "invalid_literal",
  "single_quoted_string",
  "unquoted_key",
  "comment",
  "trailing_comma",
  "control_character_in_string",
  "invalid_escape",
  "lone_surrogate",
  "invalid_number",
  "truncated_json",
  "json_syntax",
] as const;

/** The closed action contract (Part 5). The three expression codes are shared with src/expr. */
export const CONTRACT_ERROR_CODES = [
  "not_an_object",
  "unknown_action",
  "missing_key",
  "extra_key",
  "wrong_type",
  "not_an_integer",
  "version_out_of_range",
  "unknown_file",
  "unknown_function",
  "expression_too_long",
  "expression_not_printable_ascii",
  "expression_multiline",
] as const;

export const PROPOSAL_ERROR_CODES = [...INPUT_ERROR_CODES, ...JSON_ERROR_CODES, ...CONTRACT_ERROR_CODES] as const;

export type InputErrorCode = (typeof INPUT_ERROR_CODES)[number];
export type JsonErrorCode = (typeof JSON_ERROR_CODES)[number];
export type ContractErrorCode = (typeof CONTRACT_ERROR_CODES)[number];
export type ProposalErrorCode = (typeof PROPOSAL_ERROR_CODES)[number];

// Compile-time guard: every expression-string code the contract passes through is listed here.
type Covers<Sub extends Super, Super> = Sub;
export type ExpressionCodesAreContractCodes = Covers<ExpressionStringErrorCode, ContractErrorCode>;

/** Membership test without any property lookup on model-influenced text. */
export function isProposalErrorCode(value: string): value is ProposalErrorCode {
  return (PROPOSAL_ERROR_CODES as readonly string[]).includes(value);
}
