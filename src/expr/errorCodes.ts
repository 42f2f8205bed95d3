// Every error code the expression room can return, as one closed union. Tests assert these
// codes, never messages; docs/expression-language.md carries the same table.
import type { ExpressionStringErrorCode } from "./expressionString.ts";

export const EXPR_ERROR_CODES = [
  // Expression-string bounds (expressionString.ts): bytes, printable ASCII, one line.
  "expression_too_long",
  "expression_not_printable_ascii",
  "expression_multiline",
  // Whole-source bounds, checked before anything else in a source file.
  "source_not_utf8",
  "source_too_long",
  "source_not_printable_ascii",
  // Lexical pre-parse checks, in this order.
  "paren_nesting_too_deep",
  "numeric_token_not_decimal",
  "integer_token_too_long",
  "comment_not_allowed",
  "line_continuation_not_allowed",
  // Parser: generic syntax, then one code per named forbidden construct.
  "syntax_error",
  "forbidden_call",
  "forbidden_attribute",
  "forbidden_subscript",
  "forbidden_string",
  "forbidden_container",
  "forbidden_comprehension",
  "forbidden_boolean_operator",
  "forbidden_not",
  "forbidden_power",
  "forbidden_division",
  "forbidden_floor_division",
  "forbidden_modulo",
  "forbidden_matrix_multiplication",
  "forbidden_bitwise",
  "forbidden_lambda",
  "forbidden_walrus",
  "forbidden_chained_comparison",
  "forbidden_membership_test",
  "forbidden_identity_test",
  "forbidden_keyword_constant",
  "forbidden_ellipsis",
  "forbidden_starred",
  "forbidden_assignment",
  "forbidden_keyword",
  "unknown_name",
  "underscore_name",
  // Tree limits (iterative, before any recursive work).
  "too_many_nodes",
  "tree_too_deep",
  // Structural type rules and literal range.
  "operand_not_integer",
  "condition_not_boolean",
  "result_not_integer",
  "literal_out_of_range",
  // Evaluation.
  "input_count_mismatch",
  "input_not_integer",
  "input_out_of_range",
  "value_out_of_range",
  "visit_limit_exceeded",
  "too_many_fixtures",
  // The outer toy_math.py source.
  "decorator_not_allowed",
  "async_not_allowed",
  "default_not_allowed",
  "annotation_not_allowed",
  "type_parameters_not_allowed",
  "variadic_parameter_not_allowed",
  "signature_mismatch",
  "docstring_not_allowed",
  "statement_not_allowed",
  "module_expression_not_allowed",
  "extra_definition",
  "missing_function",
  "unexpected_indentation",
  "function_body_invalid",
  // CLI argument problems (the CLI is a thin layer but its answers use this table too).
  "unknown_function",
  "arguments_invalid",
  "file_unreadable",
] as const;

export type ExprErrorCode = (typeof EXPR_ERROR_CODES)[number];

// Compile-time proof that the expression-string codes are members of the closed union.
const expressionStringCodesAreIncluded: ExpressionStringErrorCode extends ExprErrorCode ? true : never = true;
void expressionStringCodesAreIncluded;
