// Public API of the expression room (issue 2). Pure functions, no I/O.
export type { ExprErrorCode } from "./errorCodes.ts";
export { EXPR_ERROR_CODES } from "./errorCodes.ts";
export { checkExpressionString } from "./expressionString.ts";
export type { ValidatedExpression } from "./compileExpression.ts";
export { compileExpression, evaluateExpression } from "./compileExpression.ts";
export type { ToyMathSource } from "./toyMathSource.ts";
export { parseToyMathSource } from "./toyMathSource.ts";
export { renderToyMathSource } from "./toyMathRender.ts";
export type { CaseRecord } from "./fixtureEvaluation.ts";
export { evaluateFixtures } from "./fixtureEvaluation.ts";
export type { ExprNode } from "./syntaxTree.ts";
