// The tool schemas offered to the model, per condition (OpenAI function-calling format).
import type { ToolFunctionSchema } from "../../sources/openaiCompatibleChat.ts";
import type { Condition, ToolName } from "./conditions.ts";

const SCHEMAS: Readonly<Record<ToolName, ToolFunctionSchema>> = {
  read_file: {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file of the task folder. Paths are relative, e.g. python_programs/example.py.",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "relative path of the file" } },
        required: ["path"],
        additionalProperties: false,
      },
    },
  },
  write_file: {
    type: "function",
    function: {
      name: "write_file",
      description: "Replace the whole content of a file. Only the file being fixed may be written.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "relative path of the file" },
          content: { type: "string", description: "the complete new file content" },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
    },
  },
  run_tests: {
    type: "function",
    function: {
      name: "run_tests",
      description: "Run the program's tests on the current file and return the result.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
    },
  },
};

export function toolSchemasFor(condition: Condition): ToolFunctionSchema[] {
  return condition.tools.map((t) => SCHEMAS[t]);
}
