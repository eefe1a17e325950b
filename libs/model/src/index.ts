// @rlhf-code/model: the Qwen2 architecture on TensorFlow.js, its checkpoints, and generation (generateBatch: the one
// entry point for continuing prompts). The backend is @rlhf-code/backend; stop sets come from @rlhf-code/tokenizer.
export { readConfig, makeConfig, isSequenceClassifier, expectedParameterShapes, headDim } from './config';
export type { Qwen2Config } from './config';
export { f16BitsToNumber, f32BitsToF16Bits, readSafetensors, readSafetensorsHeader, writeFileAtomic } from './safetensors';
export type { HostTensor } from './safetensors';
export { loadMergedWeights, modelConfigOf, saveCheckpoint, saveTrainingState } from './checkpoint-folder';
export type { CheckpointContent } from './checkpoint-folder';
export { loadTrainingState, OPTIMIZER_FILE, TRAINER_STATE_FILE, type TrainingState } from './trainer-state';

export { parameterCount, Qwen2Model } from './model';
export { isFrozenMatrix } from './frozen-weights';
export { ScalarHead } from './heads';
export { RewardModel } from './reward';
export { generateBatch, sampledIds } from './generate-batch';
export { finalTextEnd } from './generate';
export type { Completion } from './generate-batch';
export { PrefixCache } from './prefix-cache';
export { resumableRng } from './sampling';
export type { Rng } from './sampling';
export { baseDtypeField, GenerateLogitsSettings, int8ActivationsField, GenerateRunSettings, InitSettings } from './settings';
export { Checkpoint, checkpointAt, checkpointOr, checkVocabulary, openCheckpoint } from './open-checkpoint';
export { runInit } from './random-checkpoint';
export { checkResumedRank, isAdapterFolder, LORA_TARGETS, readAdapter, type AdapterFiles, type LoraConfig } from './lora';
