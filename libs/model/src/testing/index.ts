// @rlhf-code/model/testing: helpers for the libs' and apps' tests, never imported by product code.
export { promoteToken } from './promote-token';
export { saveTinyAdapter, saveTinyAppModel, saveTinyModel, tempDir, tinyConfig, TOKENIZER_DIR, type TinyModelOptions } from './tiny-model';
