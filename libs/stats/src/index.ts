// @rlhf-code/stats: numbers with error bars. Means with their standard errors, paired differences with a t
// interval, the jackknife for pooled ratios, the unbiased pass@k estimator, the cluster bootstrap and the sign-flip
// permutation test; logistic regression with cross-validation (logistic.ts); used by the evaluation, PPO's held-out measurements and the online A/B experiment.
export { clusterBootstrap, fisherExact, jackknife, jackknifeDiff, meanSe, paired, passAtK, signFlipTest, wilson, type MeanSe, type PairedDiff } from './stats';
export { chooseL2ByCv, cvLogLikelihood, fitLogistic, kFolds, logisticProbability, type LogisticFit } from './logistic';
