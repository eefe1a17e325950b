// The settings of the speed benchmarks: a model preset (named as tools/torch_ref_bench.py takes it, so
// `bench compare` passes the same flags to both), and compare's own settings.
import { z } from 'zod';
import { backendField } from '@rlhf-code/cli';
import { DEFAULT_PYTHON, DEFAULT_TORCH_SCRIPT } from './compare';

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

export const BenchSettings = z.strictObject({ ...PRESET_FIELDS, backend: backendField });
export type BenchSettings = z.output<typeof BenchSettings>;

export const BenchCompareSettings = z.strictObject({
  ...PRESET_FIELDS,
  runs: int().default(3).describe('alternated pairs (ours, torch) per mode'),
  mode: z.enum(['train', 'generate', 'both']).default('both').describe('which benchmarks'),
  python: z.string().min(1).default(DEFAULT_PYTHON).describe('python with torch (Debian: apt-get install -y python3-torch libopenblas0-pthread)'),
  torchScript: z.string().min(1).default(DEFAULT_TORCH_SCRIPT).describe('the PyTorch yardstick'),
  backend: backendField,
});
export type BenchCompareSettings = z.output<typeof BenchCompareSettings>;
