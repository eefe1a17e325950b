// @rlhf-code/stats: numbers with error bars. Means with their standard errors, paired differences with a t
// interval, the jackknife for pooled ratios, the unbiased pass@k estimator, the cluster bootstrap and the sign-flip
// permutation test, and the choice of a temperature on dev figures; used by the evaluation (offline and tool use), PPO's
// held-out measurements and the online A/B experiment.
export { clusterBootstrap, fisherExact, jackknife, jackknifeDiff, meanSe, paired, passAtK, signFlipTest, wilson, type MeanSe, type PairedDiff } from './stats';
export { bestSamplingTemperature, bestTemperature, temperatureKey, type DevPoint } from './temperature';
