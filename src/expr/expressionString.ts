// The expression-string bounds of Part 4 (and of replace's old/new in Part 5):
// at most 256 bytes, printable ASCII only (0x20-0x7E), one line. Checked before any parsing.
import { EXPR_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";

export type ExpressionStringErrorCode =
  "expression_too_long" | "expression_not_printable_ascii" | "expression_multiline";

export function checkExpressionString(text: string): Result<string, ExpressionStringErrorCode> {
  // Length first, in UTF-16 units: a string longer than the byte limit in units is too long in bytes too.
  if (text.length > EXPR_LIMITS.expressionMaxBytes) {
    return err("expression_too_long", `expression exceeds ${EXPR_LIMITS.expressionMaxBytes} bytes`);
  }
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x0a || unit === 0x0d) {
      return err("expression_multiline", "expression must be a single line");
    }
    if (unit < 0x20 || unit > 0x7e) {
      return err("expression_not_printable_ascii", "expression must be printable ASCII");
    }
  }
  return ok(text);
}
