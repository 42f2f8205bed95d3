// Public API of the proposal room: strict JSON parsing and the closed action contract.
export type { Action, ActionName } from "./action.ts";
export { ACTION_NAMES, actionKeys } from "./action.ts";
export type { ProposalErrorCode, InputErrorCode, JsonErrorCode, ContractErrorCode } from "./errorCodes.ts";
export {
  PROPOSAL_ERROR_CODES,
  INPUT_ERROR_CODES,
  JSON_ERROR_CODES,
  CONTRACT_ERROR_CODES,
  isProposalErrorCode,
} from "./errorCodes.ts";
export type { JsonValue, JsonObject } from "./jsonValue.ts";
export type { ProposalVerdict } from "./parseProposal.ts";
export { parseProposal } from "./parseProposal.ts";
export { parseStrictJson } from "./strictJson.ts";
export { checkActionContract, type ContractVerdict } from "./actionContract.ts";
export type { FunctionName, ManagedFileName } from "../constants/labConstants.ts";
