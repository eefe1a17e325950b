// @rlhf-code/model: the Qwen2 architecture on TensorFlow.js, its checkpoints, and generation (generateBatch: the one
// entry point for continuing prompts). The backend is @rlhf-code/backend; stop sets come from @rlhf-code/tokenizer.
export { parseConfig, readConfig, writeConfig, makeConfig, headDim, expectedParameterShapes, isSequenceClassifier, numLabels } from './config';
export type { Qwen2Config, Qwen2ConfigInput } from './config';
export { readSafetensors, readSafetensorsHeader, writeSafetensors, writeFileAtomic } from './safetensors';
export type { HostTensor, WriteDtype } from './safetensors';
export {
  loadCheckpointWeights,
  saveCheckpoint,
  loadTrainingState,
  saveTrainingState,
  MODEL_FILE,
  MODEL_INDEX_FILE,
  OPTIMIZER_FILE,
  TRAINER_STATE_FILE,
  TOKENIZER_FILES,
} from './checkpoint';
export type { TrainingState, SaveCheckpointOptions } from './checkpoint';

export { Qwen2Model } from './model';
export type { ForwardOptions, LoadOptions } from './model';
export { KVCache } from './kv-cache';
export { ScalarHead, lastTokenIndex, gatherLastToken } from './heads';
export { RewardModel } from './reward';
export type { FinishReason } from './generate';
export { generateBatch, sampledIds } from './generate-batch';
export type { GenerateBatchOptions, Completion } from './generate-batch';
export { createRng, sampleToken } from './sampling';
export type { Rng, SamplingOptions } from './sampling';
