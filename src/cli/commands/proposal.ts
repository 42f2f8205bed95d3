// tca proposal check: reads one proposal from stdin or a file (the bytes exactly as given, no
// decoding or trimming here) and prints one JSON verdict line. Exit 0 accepted, 1 rejected,
// 2 when the file cannot be read. The verdict is the controller's: its parse and contract, then,
// for a replace, the expression check its edit applies before anything is written (issue 28:
// "x ** 2" and __import__("os") were accepted here while the controller refused them). Checks
// that depend on a run's state (read first, current version, old expression) need a run.
import { resolve } from "node:path";
import type { Command } from "commander";
import { PROPOSAL_LIMITS } from "../../constants/labConstants.ts";
import { parseProposal } from "../../proposal/index.ts";
import { compileExpression } from "../../expr/index.ts";
import { readRegularFile } from "../../core/safeRead.ts";
import { printCommandError } from "../commandError.ts";
import { inputFile } from "../pathArguments.ts";
import type { SetExitCode } from "./index.ts";

/** The printed verdict's shape; `error` is a proposal code or, for a replace, an expression code. */
export type CheckVerdict =
  | { readonly ok: true; readonly action: unknown }
  | { readonly ok: false; readonly error: string; readonly message: string };

/** The controller's verdict on one proposal's bytes, without a run: parse, contract, then the replace's expression. */
export function checkProposal(bytes: Uint8Array): CheckVerdict {
  const verdict = parseProposal(bytes);
  if (!verdict.ok) return { ok: false, error: verdict.error, message: verdict.message };
  if (verdict.action.action === "replace") {
    const compiled = compileExpression(verdict.action.function, verdict.action.new);
    if (!compiled.ok) return { ok: false, error: compiled.error, message: compiled.message };
  }
  return { ok: true, action: verdict.action };
}

/** Stop reading stdin past this many bytes: enough to know a proposal is too large, never unbounded. */
export const STDIN_BYTE_CAP = 4 * PROPOSAL_LIMITS.maxBytes;

/**
 * Reads at most cap + 1 bytes, then stops consuming the stream (leaving the async iterator
 * destroys it), so an endless or huge input costs a bounded amount of memory and time.
 */
export async function readBoundedBytes(input: AsyncIterable<Uint8Array | string>, cap: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of input) {
    const bytes =
      typeof chunk === "string"
        ? Buffer.from(chunk, "utf8")
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const room = cap + 1 - total;
    chunks.push(bytes.byteLength > room ? bytes.subarray(0, room) : bytes);
    total += Math.min(bytes.byteLength, room);
    if (total > cap) break;
  }
  return Buffer.concat(chunks, total);
}

/** The printed verdict: exactly {"ok":true,"action":{...}} or {"ok":false,"error":...,"message":...}. */
export function formatVerdict(verdict: CheckVerdict): string {
  if (verdict.ok) return JSON.stringify({ ok: true, action: verdict.action });
  return JSON.stringify({ ok: false, error: verdict.error, message: verdict.message });
}

export function registerProposalCommands(program: Command, setExitCode: SetExitCode): void {
  const proposal = program.command("proposal").description("strict proposal parsing and the closed action contract");
  proposal
    .command("check")
    .description(
      `check one proposal (at most ${PROPOSAL_LIMITS.maxBytes} bytes of UTF-8 JSON) from a file or stdin as the controller does, and print its verdict as JSON`,
    )
    .argument("[file]", "the proposal file (default: stdin)")
    .action(async (file: string | undefined) => {
      let bytes: Uint8Array;
      if (file === undefined) {
        bytes = await readBoundedBytes(process.stdin, STDIN_BYTE_CAP);
      } else {
        const found = inputFile("the file", resolve(file));
        // Bounded like stdin, and never a blocking open (a FIFO or device is refused at once).
        const read = found.ok ? readRegularFile(found.value, STDIN_BYTE_CAP + 1, { prefixOnly: true }) : found;
        if (!read.ok) {
          printCommandError(
            found.ok ? "path_unreadable" : found.error,
            found.ok ? `${found.value} cannot be read` : found.message,
          );
          setExitCode(2);
          return;
        }
        bytes = new Uint8Array(read.value);
      }
      const verdict = checkProposal(bytes);
      process.stdout.write(`${formatVerdict(verdict)}\n`);
      setExitCode(verdict.ok ? 0 : 1);
    });
}
