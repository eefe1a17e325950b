// A simulated clock for Continue's time rules (line-rule.ts: the 150 ms rule; continueDisplay: the 10-chunk / 375 ms
// cut). Timed by the wall clock, what Continue displays depends on how busy the machine is and on how a server sends
// a suggestion (streamed line by line, or held and sent whole), not only on what the model wrote. With this model the
// server and the simulated user agree on when each piece counts as arriving, whatever the machine's speed:
//
//   ms after the request at which decoding step k (1-based) of a prompt of P tokens is done
//     = fixedMs + prefillMsPerToken * P + stepMs * k
//   a suggestion held until complete (the show gate) arrives at the end of decoding + judgeMs
//
// The defaults are the shipped model (models/base, 6 layers x 256) served on this machine (2 cores, tfjs-node,
// 2026-11-27, another engineer's jobs sharing the cores), measured once by a throwaway script (`online:latency` times
// whole answers only): non-streamed requests through the completion server, 9 repetitions of each setting, four runs;
// the medians of the runs' medians. Prefill (max_tokens = min_tokens = 1): 13, 28, 60, 86 and 117 ms for prompts of
// 31, 126, 256, 383 and 493 tokens; decoding on a 256-token prompt: 55, 103, 137 and 193 ms for 1, 16, 32 and 48
// tokens. Least squares over the nine: 0.226 ms a prompt token, 2.74 ms a step, intercept -1 ms (0 within the fit's
// residuals of +-4 ms: fixedMs 0). judgeMs: the show gate's features of two candidates (compile checks in the
// sandbox's long-lived python process) took 2 ms at p50 and 7 ms at p90 (30 calls); the decision itself is a dot product.
// Candidates decoded together in one batch are charged as one row.

export interface LatencyModel {
  /** Per request: HTTP, tokenizing, the event loop. */
  fixedMs: number;
  /** Prefill, per prompt token. */
  prefillMsPerToken: number;
  /** One decoding step (one token of every row of the batch). */
  stepMs: number;
  /** The show gate's verdict on a held suggestion (its features and decision), before it is sent. */
  judgeMs: number;
}

export const DEFAULT_LATENCY: Readonly<LatencyModel> = { fixedMs: 0, prefillMsPerToken: 0.226, stepMs: 2.74, judgeMs: 7 };

/** Simulated milliseconds after the request at which decoding step `steps` of a prompt of `promptTokens` is done (0 steps: the prefill). */
export function simulatedMs(m: LatencyModel, promptTokens: number, steps: number): number {
  return m.fixedMs + m.prefillMsPerToken * promptTokens + m.stepMs * steps;
}
