// The settings of the supervised stages (pretrain, sft, rm), declared once here with their defaults and descriptions;
// the fields every training stage shares (optimiser, run, LoRA) come from @rlhf-code/trainer-core. The apps' flags,
// --help, --config files and --print-config all come from these schemas (@rlhf-code/cli), and tests build settings as
// Schema.parse({ ... }).
import { z } from 'zod';
import { baseDtypeField, int8ActivationsField } from '@rlhf-code/model';
import { FIM_MODES, PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { PACKAGE_WEIGHT } from './lm-stream';
import { checkBaseDtype, checkMergeExport, checkOptim, loraFields, mergeExportField, optimFields, runFields } from '@rlhf-code/trainer-core';

const int = () => z.number().int();

const exportFields = {
  export: z.string().min(1).optional().describe('at the end, also write the weights alone (no optimizer state) to this folder, e.g. models/base'),
  exportDtype: z.enum(['F32', 'BF16']).default('BF16').describe('storage dtype of --export'),
};

const FIM_ORDER =
  "order of a fill-in-the-middle example: psm (Qwen's <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m) or spm (<|fim_prefix|><|fim_suffix|>s<|fim_middle|>p m, the middle right after the prefix); recorded as fim_mode in the checkpoint's tokenizer_config.json";

export const PretrainSettings = z
  .strictObject({
    corpus: z.string().min(1).default('data/vendor/cpython/python-stdlib').describe('folder of Python files, or several separated by commas (held-out files: 1 in 10 of each, by path hash)'),
    cache: z
      .string()
      .min(1)
      .optional()
      .describe(
        'token cache folder (prep:corpus) to train on instead of --corpus: windows streamed from its train split (documents in a seeded order per epoch, <|endoftext|> between them), the held-out loss on 64 windows of its heldout split; its position is saved in every checkpoint. --max-steps sets the length (0: --epochs passes, estimated)',
      ),
    packageWeights: z
      .array(z.string().regex(PACKAGE_WEIGHT, 'expected package=weight, e.g. cpython-stdlib=4'))
      .default([])
      .describe('with --cache: weights of packages, comma-separated package=weight (e.g. cpython-stdlib=4,python3-sage=0.5): each epoch repeats a document of a package floor(w) times and once more with probability w - floor(w); unnamed packages weigh 1'),
    tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe('tokenizer folder (tokenizer.json); the vocabulary size follows it'),
    seqLen: int().min(8).default(512).describe('window length in tokens'),
    fimRate: z.number().min(0).max(1).default(0.5).describe('share of chunks in fill-in-the-middle form'),
    fimMode: z.enum(FIM_MODES).optional().describe(`${FIM_ORDER} (default: the --init checkpoint's, else the tokenizer's, else psm)`),
    hiddenSize: int().positive().default(256).describe('model width'),
    layers: int().positive().default(6).describe('transformer blocks'),
    heads: int().positive().default(4).describe('attention heads'),
    kvHeads: int().positive().default(2).describe('key/value heads (grouped-query attention)'),
    intermediateSize: int().positive().default(704).describe('SwiGLU MLP width'),
    maxPosition: int().positive().default(1024).describe('max_position_embeddings in config.json'),
    ropeTheta: z.number().positive().default(10000).describe('rotary embedding base'),
    init: z
      .string()
      .min(1)
      .optional()
      .describe(
        "start from the weights of this checkpoint (continued pretraining) instead of a random initialisation; its config.json replaces the shape flags. With --cache and a checkpoint that records a position (a run folder's trainer_state.json, an export's position.json), the run goes on from its step, data position and tokens, with the optimizer as --init-optimizer says; otherwise optimizer and schedule start fresh",
      ),
    initOptimizer: z
      .enum(['restart', 'carry'])
      .default('restart')
      .describe("with --cache and an --init checkpoint's position: restart AdamW there (fresh moments, --warmup-steps of warmup again) or carry its moments (the export's optimizer.bf16.safetensors from --export-moments, or a run folder's optimizer.safetensors)"),
    maxMinutes: z.number().nonnegative().default(0).describe('stop after this many minutes of training: evaluate, save a checkpoint (weights, optimizer, position; --export too) and exit 0; continue with --resume (0 = no limit)'),
    exportMoments: z.boolean().default(false).describe("with --cache and --export: also write AdamW's moments in bf16 (optimizer.bf16.safetensors, twice the size of bf16 weights) for --init-optimizer carry"),
    ...exportFields,
    ...runFields({ out: 'results/pretrain', epochs: 2, batchSize: 4, gradAccum: 1, saveEvery: 100 }),
    ...optimFields({ lr: 1e-3, schedule: 'cosine', warmupSteps: 50, weightDecay: 0.1, beta2: 0.95 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    if (!s.cache && s.packageWeights.length > 0) ctx.addIssue({ code: 'custom', path: ['packageWeights'], message: 'needs --cache (a token cache knows each document\'s package)' });
    if (s.exportMoments && !(s.cache && s.export)) ctx.addIssue({ code: 'custom', path: ['exportMoments'], message: 'needs --cache and --export' });
    if (s.initOptimizer === 'carry' && !(s.cache && s.init)) ctx.addIssue({ code: 'custom', path: ['initOptimizer'], message: 'carry needs --cache and --init (a checkpoint with a position)' });
    if (s.heads % s.kvHeads !== 0) ctx.addIssue({ code: 'custom', path: ['heads'], message: `${s.heads} must be a multiple of kvHeads (${s.kvHeads})` });
    if (s.hiddenSize % s.heads !== 0) ctx.addIssue({ code: 'custom', path: ['hiddenSize'], message: `${s.hiddenSize} must be a multiple of heads (${s.heads})` });
  });
export type PretrainSettings = z.output<typeof PretrainSettings>;

const templateField = z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format: raw text (code models) or ChatML (instruct models)');
const modelField = (d: string, what: string) => z.string().min(1).default(d).describe(what);

export const SftSettings = z
  .strictObject({
    model: modelField('models/base', 'starting checkpoint (Hugging Face folder), or a LoRA adapter folder (its base with the adapter folded in)'),
    data: z
      .string()
      .min(1)
      .default('data/sft_data.jsonl')
      .describe('training data, one {"prompt", "response"} per line; a line with "suffix" too is a fill-in-the-middle example (prompt = before the cursor, response = the middle)'),
    template: templateField,
    maxLen: int().min(8).default(512).describe('longest example in tokens (the prompt is cut from the left first)'),
    pack: z.boolean().default(false).describe('pack several examples into each window of --max-len tokens'),
    heldoutFraction: z.number().min(0).lt(1).default(0.1).describe('share of prompts held out for the evaluation loss'),
    fimMode: z.enum(FIM_MODES).optional().describe(`${FIM_ORDER} (default: the --model checkpoint's)`),
    ...exportFields,
    ...loraFields(),
    baseDtype: baseDtypeField.describe('the frozen base\'s matrices (projections, embedding / LM head) in fp32, bf16 or int8 (per-output-channel scales) under LoRA (needs --lora-rank > 0); --merge-export folds the adapters into --model\'s own weights'),
    int8Activations: int8ActivationsField('int16'),
    mergeExport: mergeExportField,
    ...runFields({ out: 'results/sft', epochs: 3, batchSize: 8, gradAccum: 1, saveEvery: 0 }),
    ...optimFields({ lr: 3e-4, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
    if (s.export && s.loraRank > 0) ctx.addIssue({ code: 'custom', path: ['export'], message: 'with LoRA, use --merge-export (the adapters merged into a full checkpoint)' });
    checkBaseDtype(s, ctx);
  });
export type SftSettings = z.output<typeof SftSettings>;

export const PAIR_LOSSES = ['none', 'diff', 'bt'] as const;
export type PairLoss = (typeof PAIR_LOSSES)[number];

export const RmSettings = z
  .strictObject({
    model: modelField('results/sft', 'starting checkpoint (causal LM, Hugging Face folder), or a LoRA adapter folder (its base with the adapter folded in)'),
    data: z
      .string()
      .min(1)
      .default('data/rm_data.jsonl')
      .describe('one {"prompt", "response", "score"} per line (optional "source": "reference" / "mutant:<kind>" for the pairwise accuracy)'),
    template: templateField,
    maxLen: int().min(8).default(384).describe('longest pair in tokens (the prompt is cut from the left first, then the response; the end token always stays)'),
    heldoutFraction: z.number().gt(0).lt(1).default(0.1).describe('share of prompts held out (all their responses) for MSE / Pearson / pairwise accuracy'),
    maxExamples: int().nonnegative().default(0).describe('use only the first n training pairs (0 = all)'),
    pairLoss: z
      .enum(PAIR_LOSSES)
      .default('none')
      .describe(
        'within-prompt term added to the MSE: diff = squared error of the predicted difference between two responses to one prompt against their score difference, bt = Bradley-Terry on the better/worse pairs, none = MSE alone (batches then sorted by length instead of holding whole prompts)',
      ),
    pairCoef: z.number().nonnegative().default(1).describe('weight of the within-prompt term'),
    ...loraFields(),
    baseDtype: baseDtypeField.describe("the frozen backbone's matrices (projections, embedding) in fp32, bf16 or int8 (per-output-channel scales) under LoRA (needs --lora-rank > 0; the adapter and the score head stay fp32); --merge-export folds the adapter into --model's own weights"),
    int8Activations: int8ActivationsField('int16'),
    mergeExport: mergeExportField,
    // lr 2e-4 and batch 16: measured for the RM on MBPP's and the suite's data (EXPERIMENTS.md 2026-11-24, 2026-11-27):
    // 2e-4 beat 5e-4 and 1e-3; batch 8 did no better.
    ...runFields({ out: 'results/rm', epochs: 1, batchSize: 16, gradAccum: 1, saveEvery: 0 }),
    ...optimFields({ lr: 2e-4, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
    checkBaseDtype(s, ctx);
  });
export type RmSettings = z.output<typeof RmSettings>;
