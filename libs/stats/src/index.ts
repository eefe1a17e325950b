// @rlhf-code/stats: numbers with error bars. Means with their standard errors, paired differences with a t
// interval, the jackknife for pooled ratios, the unbiased pass@k estimator, flips and their exact sign test
// (McNemar's), the cluster bootstrap and the sign-flip permutation test; the choice of a temperature on dev figures
// (temperature.ts); the one quantile rule (quantile: R's type 7); logistic regression with cross-validation (logistic.ts). Used by the evaluation (offline and tool use), PPO's held-out measurements, the
// online gate and the online A/B experiment.
export { clusterBootstrap, fisherExact, flips, jackknife, jackknifeDiff, meanSe, paired, passAtK, quantile, signFlipTest, wilson, type Flips, type MeanSe, type PairedDiff } from './stats';
export { bestSamplingTemperature, bestTemperature, temperatureKey, type DevPoint } from './temperature';
export { chooseL2ByCv, cvLogLikelihood, fitLogistic, kFolds, logisticProbability, type LogisticFit } from './logistic';
