// tca proposal check: reads one proposal from stdin (the bytes exactly as given, no
// decoding or trimming here) and prints one JSON verdict line. Exit 0 accepted, 1 rejected.
import type { Command } from "commander";
import { PROPOSAL_LIMITS } from "../../spec/constants.ts";
import { parseProposal, type ProposalVerdict } from "../../proposal/index.ts";
import type { SetExitCode } from "./index.ts";

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
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const room = cap + 1 - total;
    chunks.push(bytes.byteLength > room ? bytes.subarray(0, room) : bytes);
    total += Math.min(bytes.byteLength, room);
    if (total > cap) break;
  }
  return Buffer.concat(chunks, total);
}

/** The printed verdict: exactly {"ok":true,"action":{...}} or {"ok":false,"error":...,"message":...}. */
export function formatVerdict(verdict: ProposalVerdict): string {
  if (verdict.ok) return JSON.stringify({ ok: true, action: verdict.action });
  return JSON.stringify({ ok: false, error: verdict.error, message: verdict.message });
}

export function registerProposalCommands(program: Command, setExitCode: SetExitCode): void {
  const proposal = program.command("proposal").description("strict proposal parsing and the closed action contract");
  proposal
    .command("check")
    .description(`read one proposal from stdin (at most ${PROPOSAL_LIMITS.maxBytes} bytes of UTF-8 JSON) and print its verdict as JSON`)
    .action(async () => {
      const bytes = await readBoundedBytes(process.stdin, STDIN_BYTE_CAP);
      const verdict = parseProposal(bytes);
      process.stdout.write(`${formatVerdict(verdict)}\n`);
      setExitCode(verdict.ok ? 0 : 1);
    });
}
