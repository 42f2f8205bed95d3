// The EngineGeneration a fake engine returns in tests: the ids a test chooses, everything else
// fixed (no reused prefix, 1 ms timings, no thread record), so tests state only what they vary.
import type { EngineGeneration, StopCause } from "../../src/model/engine/llamaEngine.ts";

export function fakeEngineGeneration(
  inputIds: readonly number[],
  rawOutputIds: number[],
  stopCause: StopCause,
): EngineGeneration {
  return {
    rawOutputIds,
    stopCause,
    inputTokens: inputIds.length,
    prefixTokensReused: 0,
    prefillTokensEvaluated: inputIds.length,
    timings: { prefillMs: 1, decodeMs: 1, totalMs: 2 },
    threadsUsed: { prefill: {}, decode: {} },
    threadChoice: [],
  };
}
