// @rlhf-code/stats: numbers with error bars. Means with their standard errors, paired differences with a t
// interval, the jackknife for pooled ratios, and the unbiased pass@k estimator; used by the evaluation and by
// PPO's held-out measurements.
export { fisherExact, jackknife, jackknifeDiff, meanSe, paired, passAtK, wilson, type MeanSe, type PairedDiff } from './stats';
