// The settings of expert iteration (rft.ts), its record's fields in the registry (algorithms.ts): how it samples and
// filters, and how each round fine-tunes (the SFT stage's fields, with RFT's defaults: 1-2 epochs at a cosine 3e-4).
// It shares none of the policy-gradient settings (iterations, minibatches, clip, KL): its update is the SFT step.
import { z } from 'zod';
import { engineFields } from '@rlhf-code/engine';
import { baseDtypeField } from '@rlhf-code/model';
import { PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { loraFields, optimFields, runFields } from '@rlhf-code/trainer-core';

const int = () => z.number().int();
// Rounds write --out as they go; resuming a round half-way is not offered (a round is minutes), nor periodic saves.
const { maxSteps: _m, saveEvery: _s, resume: _r, ...run } = runFields({ out: 'results/rft', epochs: 2, batchSize: 8, gradAccum: 1, saveEvery: 0 });
const { loraDropout: _d, ...lora } = loraFields();

export const RFT_FIELDS = {
  model: z.string().min(1).default('results/sft').describe('starting policy (SFT checkpoint, or a LoRA adapter folder)'),
  data: z.string().min(1).default('data/suite/rl.jsonl').describe('RL prompts with tests, one {"prompt", "tests"} per line or problems in MBPP\'s schema; prompts without tests are skipped'),
  replayData: z.string().min(1).default('data/suite/sft.jsonl').describe('SFT data replayed beside the kept programs ({prompt, response} or MBPP\'s schema)'),
  rounds: int().positive().default(1).describe('sample -> filter -> fine-tune rounds, each from the previous round\'s policy'),
  samples: int().positive().default(8).describe('responses sampled per prompt in a round'),
  temperature: z.number().positive().default(0.7).describe('sampling temperature of the rounds (pure sampling: top-k 0, top-p 1)'),
  keepPerPrompt: int().positive().default(2).describe('most distinct passing programs kept per prompt'),
  replayRatio: z.number().nonnegative().default(1).describe('rows of --replay-data mixed in per kept program (0 = none; capped at the file)'),
  maxNewTokens: int().positive().default(128).describe('longest response; one cut here is never kept'),
  maxPromptLen: int().positive().default(256).describe('prompts are cut from the left to this many tokens'),
  template: z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format: raw text (code models) or ChatML (instruct models)'),
  ...engineFields,
  sampleBatchSize: int().positive().default(256).describe('sequences decoded together (whole prompts: --samples copies each)'),
  execTimeoutMs: int().positive().default(5000).describe('sandbox wall-clock limit per response'),
  limit: int().nonnegative().default(0).describe('use only the first n prompts (0 = all)'),
  maxLen: int().min(8).default(512).describe('longest fine-tuning example in tokens (the prompt is cut from the left first)'),
  pack: z.boolean().default(false).describe('pack several examples into each window of --max-len tokens'),
  ...run,
  out: run.out.describe('checkpoint folder: the last round\'s policy, rft.jsonl (a line per round) and rft_data.jsonl (its fine-tuning data)'),
  epochs: run.epochs.describe('passes over each round\'s data'),
  seed: run.seed.describe('seed of sampling, the replay draw and the data order'),
  ...optimFields({ lr: 3e-4, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  ...lora,
  baseDtype: baseDtypeField.describe('the frozen base\'s matrices under LoRA (fp32, bf16 or int8), in sampling and fine-tuning'),
};
