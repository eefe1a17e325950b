// The settings of the speed benchmarks: a model preset (named as tools/torch_ref_bench.py takes it, so
// `bench compare` passes the same flags to both), compare's own settings, and the GEMM microbenchmark's.
import { z } from 'zod';
import { engineFields } from '@rlhf-code/engine';
import { baseDtypeField, int8ActivationsField, LORA_TARGETS } from '@rlhf-code/model';
import { precisionField } from '@rlhf-code/trainer-core';
import { DEFAULT_PYTHON, DEFAULT_TORCH_SCRIPT } from './compare';
import { MEMORY_STAGES } from './memory';

const int = () => z.number().int().positive();

/** The preset's fields, in the order both benchmarks take them. */
export const PRESET_FIELDS = {
  hidden: int().default(256).describe('hidden size'),
  layers: int().default(4).describe('decoder layers'),
  heads: int().default(4).describe('attention heads'),
  kv: int().default(2).describe('key/value heads'),
  ffn: int().default(704).describe('MLP intermediate size'),
  vocab: int().default(16384).describe('vocabulary size (tied embeddings)'),
  seq: int().default(256).describe('training sequence length / prompt length'),
  batch: int().default(8).describe('training batch size'),
  steps: z.number().int().min(5).default(5).describe('timed repetitions after one warm-up (median reported, >= 5)'),
  new: int().default(32).describe('new tokens to generate'),
};
export const PRESET_KEYS = Object.keys(PRESET_FIELDS) as (keyof typeof PRESET_FIELDS)[];

/** How the benchmarked model holds and trains its weights (ours only: torch keeps fp32, with LoRA when asked too). */
export const WEIGHT_FIELDS = {
  baseDtype: baseDtypeField.describe('the frozen matrices (projections, embedding / LM head) in fp32, bf16 or int8 (bf16 / int8 need --lora-rank > 0 to train)'),
  loraRank: z.number().int().min(0).default(0).describe('train: LoRA rank on every projection, the base frozen (0: full fine-tuning); generate: decode with such an adapter'),
  int8Activations: int8ActivationsField('int16').describe('train with --base-dtype int8: the activations multiply the int8 weights as int16 (as sft and rm train by default) or fp32 (as PPO and the online service do)'),
  precision: precisionField, // the training stages' own --precision
};

export const BenchSettings = z.strictObject({
  ...PRESET_FIELDS,
  ...WEIGHT_FIELDS,
  sharedPrefix: z.number().int().min(0).default(0).describe('train: the rows begin with this many identical tokens (a shared system prompt), which the model computes once (0: random rows, as the torch reference)'),
});
export type BenchSettings = z.output<typeof BenchSettings>;

/** `bench train`: the preset's step, and optionally where its time goes. */
export const BenchTrainSettings = BenchSettings.extend({
  profile: z.boolean().default(false).describe("after the timed steps, one more step under tf.profile: each kernel's milliseconds in it (summed over its calls), a table on stderr and \"profile\" in the record"),
});
export type BenchTrainSettings = z.output<typeof BenchTrainSettings>;

/** `bench generate`: the preset's random model on the project's decoder, or a checkpoint on any rollout engine. */
export const BenchGenerateSettings = BenchSettings.extend({
  model: z.string().min(1).optional().describe("a checkpoint folder to decode instead of the preset's random model (its shape and vocabulary; the preset's shape flags are then not used); needed by --engine llamacpp / openai:URL"),
  ...engineFields,
  engineThreads: z.number().int().positive().optional().describe("llamacpp engine: llama.cpp's CPU threads (default: every core)"),
});
export type BenchGenerateSettings = z.output<typeof BenchGenerateSettings>;

export const BenchCompareSettings = z.strictObject({
  ...PRESET_FIELDS,
  ...WEIGHT_FIELDS,
  runs: int().default(3).describe('alternated pairs (ours, torch) per mode'),
  mode: z.enum(['train', 'generate', 'both']).default('both').describe('which benchmarks'),
  python: z.string().min(1).default(DEFAULT_PYTHON).describe('python with torch (Debian: apt-get install -y python3-torch libopenblas0-pthread)'),
  torchScript: z.string().min(1).default(DEFAULT_TORCH_SCRIPT).describe('the PyTorch yardstick'),
});
export type BenchCompareSettings = z.output<typeof BenchCompareSettings>;

/** The sandbox benchmark's settings (bench sandbox). */
export const SandboxBenchSettings = z.strictObject({
  runs: int().default(300).describe('scoring jobs per measurement (a short function and three asserts each)'),
  repetitions: int().default(3).describe('alternated pairs of measurements (one python process per run, batched; the order swaps every pair)'),
  concurrency: int().default(2).describe('slots of the sandbox pool (python runs at once)'),
  batchSize: z.number().int().min(2).optional().describe("runs per batch of the batched pool (default: the pool's)"),
  python: z.string().min(1).optional().describe('interpreter name or path (default: $RLHF_PYTHON or python3)'),
});
export type SandboxBenchSettings = z.output<typeof SandboxBenchSettings>;

/** The interpreter benchmark's settings (bench interpreter). */
export const InterpreterBenchSettings = z.strictObject({
  calls: int().default(100).describe('stateless interpreter calls per measurement'),
  episodes: int().default(50).describe('stateful episodes of 2 calls per measurement (all open at once, as a batch of rollouts)'),
  repetitions: int().default(5).describe('alternated pairs of measurements (spawn, fork; the order swaps every pair)'),
  concurrency: int().default(2).describe('slots of the sandbox pool (interpreter calls at once)'),
  python: z.string().min(1).optional().describe('interpreter name or path (default: $RLHF_PYTHON or python3)'),
});
export type InterpreterBenchSettings = z.output<typeof InterpreterBenchSettings>;

/** The memory planner's settings (bench memory). */
export const MemorySettings = z.strictObject({
  model: z.string().min(1).describe('a checkpoint folder, a LoRA adapter folder (its base) or a config.json file: only the config is read'),
  stage: z.enum(MEMORY_STAGES).describe('the stage to plan'),
  loraRank: z.number().int().nonnegative().default(0).describe('LoRA rank (0 = full fine-tuning)'),
  loraTargets: z.array(z.enum(LORA_TARGETS)).min(1).default([...LORA_TARGETS]).describe('projections that get adapters (comma-separated)'),
  baseDtype: WEIGHT_FIELDS.baseDtype.describe('the frozen base\'s matrices in fp32, bf16 or int8 (bf16 / int8 need --lora-rank > 0; --measure runs fp32)'),
  batchSize: z.number().int().positive().optional().describe("rows per micro-batch (default: the stage's: sft/rm --batch-size, ppo --micro-batch-size, online 1)"),
  seqLen: z.number().int().min(2).optional().describe("tokens per row (default: the stage's longest: sft/rm --max-len, ppo prompt + response, online prompt + completion)"),
  responseLen: z.number().int().positive().optional().describe('ppo / online: response tokens per row (default: the stage\'s)'),
  recomputeLayers: z.boolean().default(false).describe('plan with layer recomputation'),
  rewardModel: z.enum(['shared', 'separate', 'none']).optional().describe('ppo: the reward model as an adapter on the policy\'s base (default with LoRA), its own copy (default without), or none'),
  measure: z.boolean().default(false).describe('also run two steps of the stage on a random model of this config and print the measured peak (sft, rm, ppo; needs the memory)'),
});
export type MemorySettings = z.output<typeof MemorySettings>;

/** The GEMM microbenchmark's settings (bench gemm). */
export const GemmBenchSettings = z.strictObject({
  model: z.string().min(1).default('models/base').describe('a checkpoint folder or a config.json: the products of its training step are timed (only the config is read)'),
  batch: int().default(4).describe('training rows per step'),
  seq: int().default(512).describe('tokens per row (N = batch x seq rows per product)'),
  threads: z.array(int()).min(1).default([1, 2]).describe('thread counts to measure, comma-separated'),
  reps: z.number().int().min(3).default(5).describe('timed calls per product after one warm-up (median reported)'),
  peakSeconds: z.number().positive().max(10).default(0.5).describe('seconds of each register-only peak loop'),
});
export type GemmBenchSettings = z.output<typeof GemmBenchSettings>;
