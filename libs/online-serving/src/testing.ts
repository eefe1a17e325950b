// What the generation tests share (not part of the lib's public face): a request of two rows, a FIM prompt under
// Continue's line rule and a plain one, on the server's default clock.
import { lineRuleFor } from '@rlhf-code/continue';
import { CompletionServerSchema } from '@rlhf-code/online-core';
import { formatFim, type Tokenizer } from '@rlhf-code/tokenizer';
import type { GenerationRequest } from './generation';

const serving = (() => {
  const c = CompletionServerSchema.parse({});
  return { clock: c.clock, simulatedLatency: c.simulatedLatency, prefillChunk: c.prefillChunk };
})();

/** Two rows (`def add` completed in FIM order under the line rule, and `x = `), sampled at temperature 1 unless `over` says. */
export function twoRowRequest(tok: Tokenizer, over: Partial<GenerationRequest> = {}): GenerationRequest {
  const prefix = 'def add(a, b):\n    return ';
  const suffix = '\n\nprint(add(1, 2))\n';
  return {
    model: 'policy',
    rows: [
      { ids: tok.encode(formatFim(prefix, suffix)), line: lineRuleFor({ prefix, suffix }, 'always', 1e9) },
      { ids: tok.encode('x = '), line: null },
    ],
    maxNewTokens: 12,
    minNewTokens: 1,
    trainedMinNewTokens: null,
    temperature: 1,
    topP: 1,
    seed: 'gen-thread',
    stopStrings: [],
    t0: Date.now(),
    delayMs: 0,
    serving,
    cacheKey: null,
    ...over,
  };
}
