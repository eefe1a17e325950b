// @rlhf-code/online-core/testing: the online libs' shared test support (the tiny model, a served record, JSON bodies).
export { jsonOf } from './http';
export { servedRecord } from './served-record';
export { makeTinyModelDir } from './tiny-model';
