// Picking the next token from a row of logits on the host: greedy, temperature, top-k, top-p
// (nucleus), with a seeded, serialisable random number generator so runs can be repeated and resumed.
import seedrandom from 'seedrandom';
import { nativeExpTerms } from '@rlhf-code/backend';

export interface SamplingOptions {
  /** argmax instead of sampling (temperature/top-k/top-p are ignored). */
  greedy?: boolean;
  /** logits are divided by it before softmax; default 1. */
  temperature?: number;
  /** keep only the k most likely tokens; 0 = off (default). */
  topK?: number;
  /** keep the smallest set of most likely tokens whose probability reaches p; 1 = off (default). */
  topP?: number;
  /**
   * Also return the model's own log-probability of each chosen token, under softmax(logits) at temperature 1 whatever
   * the sampling temperature (its confidence: at Continue's 0.01 the sampler's own log-probs are all about 0).
   */
  modelLogprobs?: boolean;
}

export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** serialisable state, to save beside a checkpoint */
  state(): object;
}

/**
 * A seeded RNG whose state can be saved and resumed (seedrandom's alea): pass `state` from rng.state() to go on with the
 * same stream. The data's randomness (shuffles, splits) is libs/data's dataRandom, a plain function of another stream.
 */
export function resumableRng(seed: number | string, state?: object): Rng {
  const prng = seedrandom.alea(String(seed), { state: (state as seedrandom.State.Alea | undefined) ?? true });
  return { next: () => prng(), state: () => prng.state() };
}

/**
 * exp((x[i] - max) / t) into `out` (a reused scratch buffer); returns max / t and log of the sum, so that
 * log p(i) = x[i] / t - lse with lse = max / t + log(sum). One exp per token: the sampler's whole cost, so the native
 * addon's vectorised pass does it when loaded (@rlhf-code/backend nativeExpTerms: the same values within 2 ulp).
 */
function softmaxTerms(x: Float32Array, t: number, out: Float64Array): { lse: number; sum: number } {
  const inv = 1 / t;
  const native = nativeExpTerms(x, inv, out);
  if (native) return { lse: native.max * inv + Math.log(native.sum), sum: native.sum };
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const e = Math.exp((x[i] - max) * inv);
    out[i] = e;
    sum += e;
  }
  return { lse: max * inv + Math.log(sum), sum };
}

let scratch = new Float64Array(0);
function scratchOf(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(n);
  return scratch.subarray(0, n);
}

/** How many of the sorted tokens it takes to reach probability p; -1 when they never do. */
function nucleusSize(sorted: number[], probs: Float64Array, p: number): number {
  let cum = 0;
  for (let n = 0; n < sorted.length; n++) {
    cum += probs[sorted[n]];
    if (cum >= p) return n + 1;
  }
  return -1;
}

function argmax(x: Float32Array): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

/** log sum exp(x), stable. */
function logSumExp(x: Float32Array): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.exp(x[i] - max);
  return max + Math.log(sum);
}

/**
 * logits: [V] -> the chosen token and its log-probability under softmax(logits / temperature)
 * (temperature 1 when greedy). The log-prob is that of the unfiltered distribution, as PPO needs
 * (TRL samples with top_k 0 / top_p 1 so the two agree). With `modelLogprobs`, also its log-prob at temperature 1.
 */
export function sampleToken(logits: Float32Array, opts: SamplingOptions, rng?: Rng): { token: number; logprob: number; modelLogprob?: number } {
  const greedy = opts.greedy || (opts.temperature ?? 1) === 0;
  const t = greedy ? 1 : (opts.temperature ?? 1);
  if (!(t > 0)) throw new Error(`sampling: temperature must be > 0, got ${opts.temperature}`);
  // weights[i] = exp((logits[i] - max) / t): the probabilities up to the factor `sum`.
  const weights = scratchOf(logits.length);
  const { lse, sum } = softmaxTerms(logits, t, weights);
  const lse1 = !opts.modelLogprobs ? 0 : t === 1 ? lse : logSumExp(logits); // one more pass only when asked and tempered
  const logprob = (token: number) => ({ token, logprob: logits[token] / t - lse, ...(opts.modelLogprobs ? { modelLogprob: logits[token] - lse1 } : {}) });
  if (greedy) return logprob(argmax(logits));
  if (!rng) throw new Error('sampling: a seeded rng is required unless greedy');

  const topK = opts.topK ?? 0;
  const topP = opts.topP ?? 1;
  if (topK < 0 || !Number.isInteger(topK)) throw new Error(`sampling: topK must be an integer >= 0, got ${topK}`);
  if (!(topP > 0 && topP <= 1)) throw new Error(`sampling: topP must be in (0, 1], got ${topP}`);

  if (topK === 0 && topP === 1) {
    // The whole vocabulary: inverse CDF in id order, on the unnormalised weights (no index list, no second exp).
    let u = rng.next() * sum;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i];
      if (u < 0) return logprob(i);
    }
    for (let i = weights.length - 1; i >= 0; i--) if (weights[i] > 0) return logprob(i); // rounding left u >= 0
  }

  const probs = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) probs[i] = weights[i] / sum;
  const byProb = (a: number, b: number) => probs[b] - probs[a] || a - b;
  // Sorting 151,936 tokens every step is slow; for top-p alone, sort only the tokens above a tiny floor
  // first, and sort everything only when those do not reach p.
  const floor = topK === 0 ? 1e-9 : -1;
  let idx: number[] = [];
  for (let i = 0; i < probs.length; i++) if (probs[i] > floor) idx.push(i);
  idx.sort(byProb);
  if (topK > 0) idx = idx.slice(0, topK);
  if (topP < 1) {
    // As in HF, top-p applies to the distribution renormalised after top-k.
    const target = topP * (topK > 0 ? idx.reduce((m, i) => m + probs[i], 0) : 1);
    let n = nucleusSize(idx, probs, target);
    if (n < 0) {
      idx = Array.from(probs.keys()).sort(byProb);
      n = nucleusSize(idx, probs, target);
    }
    idx = idx.slice(0, n < 0 ? idx.length : n);
  }
  let total = 0;
  for (const i of idx) total += probs[i];
  let u = rng.next() * total;
  for (const i of idx) {
    u -= probs[i];
    if (u < 0) return logprob(i);
  }
  return logprob(idx[idx.length - 1]); // rounding left u >= 0
}
