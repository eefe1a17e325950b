// The numbers of one model's evaluation, computed from per-problem facts. Pure functions, no tfjs:
// everything here is checked against hand-computed values in metrics.test.ts.

/** Arithmetic mean; null for an empty list (a metric with no data is "not measured", not 0). */
export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Fraction of true values in 0..1; null for an empty list. */
export function rate(flags: readonly boolean[]): number | null {
  return mean(flags.map((f) => (f ? 1 : 0)));
}

/** Share of true flags, for lists the caller knows are not empty (NaN when empty). */
export function share(flags: readonly boolean[]): number {
  return flags.filter(Boolean).length / flags.length;
}

/**
 * distinct-n (Li et al. 2016): unique n-grams / total n-grams, pooled over all responses. N-grams are taken
 * inside each response (never across two), so a response shorter than n contributes none. Low values mean
 * the model repeats itself (within a response or across problems). Null when no response has n tokens.
 */
export function distinctN(responses: readonly (readonly number[])[], n: number): number | null {
  if (!Number.isInteger(n) || n < 1) throw new Error(`distinctN: n must be a positive integer, got ${n}`);
  const seen = new Set<string>();
  let total = 0;
  for (const tokens of responses) {
    for (let i = 0; i + n <= tokens.length; i++) {
      seen.add(tokens.slice(i, i + n).join(','));
      total++;
    }
  }
  return total === 0 ? null : seen.size / total;
}

/**
 * Sample estimate of KL(model || ref) for one response y ~ model: sum over its tokens of
 * log p_model(y_t | prompt, y_<t) - log p_ref(y_t | prompt, y_<t). Its expectation over sampled responses is
 * the sequence-level KL; with greedy decoding it is the log-likelihood ratio of the greedy response (it can be
 * negative for a single response, and its mean is not guaranteed to be >= 0).
 */
export function sequenceLogRatio(logpModel: readonly number[], logpRef: readonly number[]): number {
  if (logpModel.length !== logpRef.length) {
    throw new Error(`sequenceLogRatio: ${logpModel.length} model log-probs but ${logpRef.length} reference log-probs`);
  }
  let s = 0;
  for (let t = 0; t < logpModel.length; t++) s += logpModel[t] - logpRef[t];
  return s;
}

/** What the evaluation knows about one (model, problem) pair. */
export interface ProblemOutcome {
  /** Response token ids as generated, without the end token. */
  tokens: number[];
  syntaxOk: boolean;
  passed: boolean;
  /** Reward-model score of (prompt, response), or null without a reward model. */
  rmScore: number | null;
  /** sequenceLogRatio against the reference model, or null when KL is not measured for this model. */
  logRatio: number | null;
}

/** The seven numbers of eval.json for one model. */
export interface ModelMetrics {
  syntax_valid: number;
  pass_at_1: number;
  rm_score: number | null;
  distinct_1: number | null;
  distinct_2: number | null;
  mean_len: number;
  kl_to_sft: number | null;
}

export const METRIC_KEYS = ['syntax_valid', 'pass_at_1', 'rm_score', 'distinct_1', 'distinct_2', 'mean_len', 'kl_to_sft'] as const;

/** Aggregate one model's per-problem outcomes. rm_score / kl_to_sft are null unless every problem has one. */
export function aggregate(outcomes: readonly ProblemOutcome[]): ModelMetrics {
  if (outcomes.length === 0) throw new Error('aggregate: no problems were evaluated');
  const all = <T>(xs: (T | null)[]): T[] | null => (xs.every((x) => x !== null) ? (xs as T[]) : null);
  const rm = all(outcomes.map((o) => o.rmScore));
  const kl = all(outcomes.map((o) => o.logRatio));
  return {
    syntax_valid: rate(outcomes.map((o) => o.syntaxOk))!,
    pass_at_1: rate(outcomes.map((o) => o.passed))!,
    rm_score: rm && mean(rm),
    distinct_1: distinctN(outcomes.map((o) => o.tokens), 1),
    distinct_2: distinctN(outcomes.map((o) => o.tokens), 2),
    mean_len: mean(outcomes.map((o) => o.tokens.length))!,
    kl_to_sft: kl && mean(kl),
  };
}
