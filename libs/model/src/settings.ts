// The settings of `generate logits` and `generate run` (a checkpoint run directly), declared once: flags, --help and
// --config come from these schemas. Token ids are given as JSON text (--ids '[[1, 2]]') and checked where they are read.
import { z } from 'zod';
import { LOW_PRECISION_ACTIVATIONS, WEIGHT_DTYPES, type LowPrecisionActivations, type WeightDtype } from '@rlhf-code/backend';

/** How a model holds its frozen matrices (LoadOptions.baseDtype), as a flag. */
export const baseDtypeField = z
  .enum(WEIGHT_DTYPES as [WeightDtype, ...WeightDtype[]])
  .default('fp32')
  .describe('the frozen matrices (projections, embedding / LM head) in fp32, bf16 or int8 (per-output-channel scales): 1/2 or 1/4 of the bytes, faster decoding');

/**
 * How a training stage multiplies its activations with an int8 base (libs/backend LowPrecisionActivations): int16
 * for speed (adapter gradients within 3e-4), fp32 to keep log-probs within 1e-4 of the decode path (measured:
 * EXPERIMENTS.md). No effect on fp32 or bf16 bases.
 */
export const int8ActivationsField = (d: LowPrecisionActivations) =>
  z
    .enum(LOW_PRECISION_ACTIVATIONS as [LowPrecisionActivations, ...LowPrecisionActivations[]])
    .default(d)
    .describe('with --base-dtype int8: the activations multiply the int8 weights as int16 (per row and 512-value block; faster training, gradients within 3e-4) or as fp32 (log-probs within 1e-4 of sampling)');

export const GenerateLogitsSettings = z.strictObject({
  model: z.string().min(1).describe('checkpoint folder (config.json + model.safetensors or a sharded index), or a LoRA adapter folder (its base plus the adapter)'),
  ids: z.string().min(1).describe('token ids as a JSON matrix [[...], ...] with rows of equal length'),
  mask: z.string().min(1).optional().describe('attention mask of the same shape: 1 = token, 0 = left padding'),
  baseDtype: baseDtypeField,
});
export type GenerateLogitsSettings = z.output<typeof GenerateLogitsSettings>;

export const GenerateRunSettings = z
  .strictObject({
    model: z.string().min(1).describe('checkpoint or LoRA adapter folder; its tokenizer.json encodes --prompt and decodes the output'),
    prompt: z
      .string()
      .optional()
      .describe("prompt text; a fill-in-the-middle prompt in Qwen's form (<|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>) is reordered for a checkpoint trained in SPM order"),
    ids: z.string().min(1).optional().describe('prompt token ids as a JSON array [...]'),
    maxNewTokens: z.number().int().nonnegative().default(64).describe('maximum number of new tokens'),
    greedy: z.boolean().default(false).describe('always pick the most likely token (the default when no sampling flag is given)'),
    temperature: z.number().positive().optional().describe('sample from softmax(logits / t)'),
    topP: z.number().gt(0).lte(1).optional().describe('nucleus sampling: sample among the most likely tokens whose probability adds up to p'),
    topK: z.number().int().nonnegative().optional().describe('sample among the k most likely tokens (0 = all)'),
    seed: z.number().int().default(0).describe('random seed for sampling'),
    stop: z.array(z.string()).default([]).describe('stop when the output contains this string').meta({ repeat: true }),
    json: z.boolean().default(false).describe('print {"ids": [...new ids...], "text": "..."} as one JSON line'),
    baseDtype: baseDtypeField,
  })
  .superRefine((f, ctx) => {
    if ((f.prompt === undefined) === (f.ids === undefined)) ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'pass exactly one of --prompt or --ids' });
    if (f.greedy && (f.temperature !== undefined || f.topP !== undefined || f.topK !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['greedy'], message: 'cannot be combined with --temperature, --top-p or --top-k' });
    }
  });
export type GenerateRunSettings = z.output<typeof GenerateRunSettings>;

/** `sft init`: a randomly initialised checkpoint of any Qwen2 config.json, in the layout of a real one. */
export const InitSettings = z.strictObject({
  modelConfig: z.string().min(1).describe("a Hugging Face config.json (model_type qwen2): the shape to initialise, e.g. models/configs/qwen2.5-coder-0.5b.json"),
  tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe("tokenizer folder copied beside the weights; its vocabulary must fit the config's vocab_size"),
  out: z.string().min(1).describe('checkpoint folder to write'),
  seed: z.number().int().default(0).describe('seed of the weights'),
  dtype: z.enum(['F32', 'BF16']).default('BF16').describe('storage dtype of the weights'),
});
export type InitSettings = z.output<typeof InitSettings>;
