// @rlhf-code/online/testing: what other projects' tests use of the online lib's test support.
export { makeTinyModelDir } from './tiny-model';
