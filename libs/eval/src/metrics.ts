// The numbers of one model's evaluation, computed from per-problem facts. Pure functions, no tfjs:
// everything here is checked against hand-computed values in metrics.test.ts.
import { jackknife, jackknifeDiff, meanSe, MeanSe, paired, PairedDiff, passAtK } from '@rlhf-code/stats';

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

/** What the evaluation knows about one response of a model to a problem. */
export interface ProblemOutcome {
  /** Response token ids as generated, without the end token. */
  tokens: number[];
  syntaxOk: boolean;
  passed: boolean;
  /** The sandbox's executionScore (RL's default reward): 1 all tests pass, -0.1 does not compile, else 0. */
  execScore: number;
  /** Share of the problem's tests that passed, in 0..1 (a diagnostic: trivial programs earn some). */
  testsPassed: number;
  /** The code defines the function(s) the problem's tests call. */
  definesCalled: boolean;
  /** Reward-model score of (prompt, response), or null without a reward model. */
  rmScore: number | null;
  /** sequenceLogRatio against the reference model, or null when KL is not measured for this model. */
  logRatio: number | null;
}

/** eval.json's numbers for one model: means over problems (of the per-problem means over samples). */
export interface ModelMetrics {
  syntax_valid: number;
  pass_at_1: number;
  exec_score: number;
  tests_passed: number;
  defines_called_function: number;
  rm_score: number | null;
  distinct_1: number | null;
  distinct_2: number | null;
  mean_len: number;
  kl_to_sft: number | null;
}

export const METRIC_KEYS = [
  'syntax_valid', 'pass_at_1', 'exec_score', 'tests_passed', 'defines_called_function', 'rm_score', 'distinct_1', 'distinct_2', 'mean_len', 'kl_to_sft',
] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];

/** The metrics that are means of per-problem values (distinct-n pools n-grams instead). */
const PER_PROBLEM_KEYS = ['syntax_valid', 'pass_at_1', 'exec_score', 'tests_passed', 'defines_called_function', 'rm_score', 'mean_len', 'kl_to_sft'] as const;
type PerProblemKey = (typeof PER_PROBLEM_KEYS)[number];

/** One model's outcomes, grouped by problem: outcomes[i] are its samples for problem i (all problems, same order). */
export type ProblemGroups = readonly (readonly ProblemOutcome[])[];

/** The unbiased pass@k of one problem from its responses' pass flags. */
export const problemPassAtK = (passed: readonly boolean[], k: number): number => passAtK(passed.length, passed.filter(Boolean).length, k);

/** Problem-major items (problem i's at i * perProblem ...) grouped by problem. */
export function byProblem<T>(items: readonly T[], perProblem: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / perProblem) }, (_, i) => items.slice(i * perProblem, (i + 1) * perProblem));
}

/** The per-problem value of each metric (the mean over the problem's samples; pass@1 by the unbiased estimator). */
function perProblemValues(groups: ProblemGroups): Record<PerProblemKey, number[] | null> {
  const all = <T>(xs: (T | null)[]): T[] | null => (xs.every((x) => x !== null) ? (xs as T[]) : null);
  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const over = (f: (o: ProblemOutcome) => number | null) => all(groups.map((g) => {
    const vs = g.map(f);
    return vs.every((v) => v !== null) ? avg(vs as number[]) : null;
  }));
  return {
    syntax_valid: over((o) => Number(o.syntaxOk)),
    pass_at_1: all(groups.map((g) => problemPassAtK(g.map((o) => o.passed), 1))),
    exec_score: over((o) => o.execScore),
    tests_passed: over((o) => o.testsPassed),
    defines_called_function: over((o) => Number(o.definesCalled)),
    rm_score: over((o) => o.rmScore),
    mean_len: over((o) => o.tokens.length),
    kl_to_sft: over((o) => o.logRatio),
  };
}

/** The k of pass@k reported for n samples per problem: the powers of two up to n, and n itself. */
export function passAtKs(n: number): number[] {
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`passAtKs: n must be a positive integer, got ${n}`);
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  if (ks[ks.length - 1] !== n) ks.push(n);
  return ks;
}

/** pass@k at one k: the unbiased estimate per problem, and their mean ± SE over problems. */
export type PassAtK = MeanSe & { perProblem: number[] };

/** pass@k for every k of passAtKs(n), keyed "1", "2", ...; {} when the problems have different numbers of samples. */
function passAtKCurve(groups: ProblemGroups): Record<string, PassAtK> {
  const n = groups[0].length;
  if (groups.some((g) => g.length !== n)) return {};
  const passed = groups.map((g) => g.map((o) => o.passed));
  return Object.fromEntries(
    passAtKs(n).map((k) => {
      const perProblem = passed.map((flags) => problemPassAtK(flags, k));
      return [String(k), { ...meanSe(perProblem), perProblem }];
    }),
  );
}

/** distinct-n over the responses of every problem but `skip` (-1: all): the statistic the jackknife recomputes. */
const distinctWithout = (groups: ProblemGroups, n: number) => (skip: number) =>
  distinctN(groups.flatMap((g, i) => (i === skip ? [] : g.map((o) => o.tokens))), n);

/** A model's evaluation: the metrics, their standard errors, and what a paired comparison needs. */
export interface ModelSummary {
  metrics: ModelMetrics;
  se: Record<MetricKey, number | null>;
  groups: ProblemGroups;
  perProblem: Record<PerProblemKey, number[] | null>;
  /** pass@k from the problems' samples (see passAtKCurve). */
  passAtK: Record<string, PassAtK>;
}

/**
 * Means over problems of the per-problem values, with standard errors across problems (the problems are the sample:
 * a model's several answers to one problem are not independent evidence); distinct-n pooled, with a jackknife SE.
 */
export function summarize(groups: ProblemGroups): ModelSummary {
  if (groups.length === 0) throw new Error('summarize: no problems were evaluated');
  if (groups.some((g) => g.length === 0)) throw new Error('summarize: a problem has no responses');
  const perProblem = perProblemValues(groups);
  const metrics = {} as Record<MetricKey, number | null>;
  const se = {} as Record<MetricKey, number | null>;
  for (const key of PER_PROBLEM_KEYS) {
    const values = perProblem[key];
    const r = values ? meanSe(values) : null;
    metrics[key] = r?.mean ?? null;
    se[key] = r?.se ?? null;
  }
  for (const [key, n] of [['distinct_1', 1], ['distinct_2', 2]] as const) {
    const r = jackknife(groups.length, distinctWithout(groups, n));
    metrics[key] = r.value;
    se[key] = r.se;
  }
  return { metrics: metrics as unknown as ModelMetrics, se, groups, perProblem, passAtK: passAtKCurve(groups) };
}

/** Every metric of `a` minus `b` on the same problems, paired per problem (null where either lacks the metric). */
export function compareModels(a: ModelSummary, b: ModelSummary): Record<MetricKey, PairedDiff | null> {
  if (a.groups.length !== b.groups.length) throw new Error(`compareModels: ${a.groups.length} problems against ${b.groups.length}`);
  const out = {} as Record<MetricKey, PairedDiff | null>;
  for (const key of PER_PROBLEM_KEYS) {
    const x = a.perProblem[key];
    const y = b.perProblem[key];
    out[key] = x && y ? paired(x, y) : null;
  }
  for (const [key, n] of [['distinct_1', 1], ['distinct_2', 2]] as const) {
    out[key] = jackknifeDiff(a.groups.length, distinctWithout(a.groups, n), distinctWithout(b.groups, n));
  }
  return out;
}

/** pass@k of `a` minus `b` on the same problems, paired per problem, at every k both have. */
export function comparePassAtK(a: ModelSummary, b: ModelSummary): Record<string, PairedDiff> {
  return Object.fromEntries(Object.keys(a.passAtK).filter((k) => k in b.passAtK).map((k) => [k, paired(a.passAtK[k].perProblem, b.passAtK[k].perProblem)]));
}

/** Whether `code` defines (`def name(`) every function the tests call; false when the tests call none. */
export function definesCalledFunctions(code: string, called: readonly string[]): boolean {
  if (called.length === 0) return false;
  const defined = new Set([...code.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(/gm)].map((m) => m[1]));
  return called.every((n) => defined.has(n));
}
