// The settings of `eval run` (checkpoints compared on held-out coding problems), `eval seeds` (several runs of the
// pipeline, one per seed, averaged) and `eval base` (the pretrained base model's held-out loss and FIM figures),
// declared once: flags, --help and --config come from these schemas.
import { z } from 'zod';
import { engineFields } from '@rlhf-code/engine';
import { baseDtypeField } from '@rlhf-code/model';
import { PROMPT_TEMPLATES, SERVED_MIN_TOKENS } from '@rlhf-code/tokenizer';
import { DEFAULT_EVAL_DATA } from './data';
import { DEFAULT_DEV_SAMPLES, DEFAULT_DEV_TEMPERATURES, DEFAULT_EVAL_SAMPLES, DEFAULT_EVAL_TEMPERATURE } from './evaluate';

const int = () => z.number().int();

export const EvalRunSettings = z
  .strictObject({
    // Required by `eval run` itself (runEval), not here: --print-config shows the settings without it.
    models: z.string().min(1).optional().describe('models to compare as name=DIR pairs, e.g. base=models/base,sft=results/sft,ppo=results/ppo; a DIR is a checkpoint or a LoRA adapter folder (its base plus the adapter)'),
    data: z
      .string()
      .min(1)
      .default(DEFAULT_EVAL_DATA)
      .describe("problems as JSONL {prompt, tests, setup?, task_id?, group?} or MBPP's {task_id, text, code?, test_list, test_setup_code?, group?}; problems with a group get a table per group"),
    limit: int().positive().optional().describe('evaluate only the first n problems of the file (default: all)'),
    out: z.string().min(1).default('results/eval').describe('output folder'),
    rewardModel: z.string().min(1).optional().describe('reward-model checkpoint or LoRA adapter folder for rm_score, or "none" (default results/rm; skipped with a warning if absent)'),
    sftRef: z.string().min(1).optional().describe('KL reference: a name from --models, a checkpoint or LoRA adapter folder, or "none" (default: the model named "sft", else none)'),
    maxNewTokens: int().positive().default(128).describe('longest response; generation also stops at the end token'),
    batchSize: int().positive().default(16).describe('prompts generated (and scored) together; lower it for big checkpoints'),
    seed: int().default(0).describe('random seed for sampling (each answer its own stream, the same streams for every model)'),
    samples: int()
      .nonnegative()
      .default(DEFAULT_EVAL_SAMPLES)
      .describe('responses sampled per problem (they also give pass@k); the means and SEs are over problems of the per-problem means (0 = greedy only)'),
    temperature: z
      .number()
      .positive()
      .default(DEFAULT_EVAL_TEMPERATURE)
      .describe("sampling temperature without --dev-data (and with it, when --temperatures has none above 0), top-k 0, top-p 1 (the default is PPO's)"),
    devData: z
      .string()
      .min(1)
      .optional()
      .describe("dev problems (same shapes as --data): each model is evaluated at the temperature of --temperatures with its best pass@1 there (default: none, every model at --temperature)"),
    temperatures: z
      .array(z.number().nonnegative())
      .min(1)
      .default(DEFAULT_DEV_TEMPERATURES)
      .refine((ts) => new Set(ts).size === ts.length, { error: 'lists a temperature twice' })
      .describe('candidate temperatures on --dev-data, 0 = greedy; the best dev pass@1 wins (ties: the lower), and the best above 0 samples the pass@k answers'),
    devSamples: int().positive().default(DEFAULT_DEV_SAMPLES).describe('answers per dev problem at each temperature above 0 (greedy answers once)'),
    stubs: z.boolean().default(true).describe('also score trivial programs (stub:pass, stub:return-0, ...: what no metric should reward) as rows beside the models'),
    greedyPass: z.boolean().default(true).describe('also report the greedy response per problem beside the sampled ones'),
    greedy: z.boolean().default(false).describe('greedy decoding only, one response per problem (same as --samples 0)'),
    template: z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format: raw text (code models) or a ChatML user turn (instruct models)'),
    ...engineFields,
    concurrency: int().positive().default(2).describe('python sandbox processes running at once'),
    timeoutMs: int().positive().default(5000).describe('wall-clock limit of one sandbox run (response + all its tests)'),
    chart: z.boolean().default(true).describe('render eval.svg'),
    baseDtype: baseDtypeField.describe(
      'every loaded model (the compared models, the KL reference, the reward model) holds its matrices in fp32, bf16 or int8 (per-output-channel scales): faster decoding of big checkpoints; int8 moves logits by a few % of the largest, so compare rows evaluated in one dtype',
    ),
  })
  .superRefine((f, ctx) => {
    if (f.greedy && !f.greedyPass) ctx.addIssue({ code: 'custom', path: ['greedy'], message: 'cannot be combined with --no-greedy-pass' });
    if (!f.greedy && f.samples === 0 && !f.greedyPass) ctx.addIssue({ code: 'custom', path: ['samples'], message: '0 with --no-greedy-pass leaves nothing to evaluate' });
    if (f.devData !== undefined && (f.greedy || f.samples === 0)) {
      ctx.addIssue({ code: 'custom', path: ['devData'], message: 'needs sampled answers (a chosen temperature above 0 is sampled): not with --greedy or --samples 0' });
    }
  });
export type EvalRunSettings = z.output<typeof EvalRunSettings>;

export const EvalSeedsSettings = z.strictObject({
  runs: z
    .array(z.string().min(1))
    .min(1)
    .refine((dirs) => new Set(dirs).size === dirs.length, { error: 'lists a folder twice' })
    .describe('eval:run output folders (eval.json + per_problem.json), one per seed, e.g. results/seed-1/eval/suite,results/seed-2/eval/suite; same problems and models in each'),
  out: z.string().min(1).default('results/eval-seeds').describe('output folder: eval.json, eval.md and per_problem.json of the seed-averaged evaluation'),
});
export type EvalSeedsSettings = z.output<typeof EvalSeedsSettings>;

export const EvalBaseSettings = z.strictObject({
  model: z.string().min(1).default('models/base').describe('checkpoint folder (Hugging Face layout with tokenizer.json)'),
  corpus: z
    .string()
    .min(1)
    .default('data/vendor/cpython/python-stdlib')
    .describe("Python corpus: its held-out files (path-hash split, as in pretraining) give the loss; the FIM examples' source files give syntax_valid_in_file"),
  fim: z.string().min(1).default('data/fim/fim.jsonl').describe('FIM examples as JSONL {prefix, suffix, middle, split?, path?}'),
  fimSplit: z.string().min(1).default('test').describe('which FIM examples: records whose split equals this, or "all"'),
  limit: int().positive().default(200).describe('at most n FIM examples (a seeded random subset when the split has more)'),
  maxNewTokens: int().positive().default(64).describe('longest completion; generation also stops at <|endoftext|> and the FIM tokens'),
  minNewTokens: int()
    .nonnegative()
    .default(SERVED_MIN_TOKENS)
    .describe("no end token before this many tokens; the default is the online server's (completion.minTokens); 0 = the model's raw choice, empty middles included"),
  batchSize: int().positive().default(16).describe('FIM prompts generated together (left padded)'),
  seqLen: int().min(2).optional().describe("held-out window length (default: seqLen in the model's training_args.json, else 512)"),
  lossBatchSize: int().positive().default(4).describe('held-out windows per forward pass'),
  heldoutWindows: int().nonnegative().default(0).describe('use only the first n held-out windows, 0 = all'),
  samples: int().nonnegative().default(20).describe('FIM examples written to fim_samples.jsonl (and functions to function_samples.jsonl)'),
  functions: int()
    .nonnegative()
    .default(100)
    .describe('held-out documented functions whose body the model writes after the true signature + docstring (a seeded subset); 0 = skip'),
  functionMaxNewTokens: int().positive().default(256).describe("longest function body; it also ends at a line back at the def's indentation or <|endoftext|>"),
  out: z.string().min(1).default('results/eval-base').describe('output folder'),
  seed: int().default(0).describe('seed of the --limit subset (decoding is greedy)'),
});
export type EvalBaseSettings = z.output<typeof EvalBaseSettings>;

export const EvalBaseCompareSettings = z.strictObject({
  // Required by `eval base-compare` itself (runBaseCompare), not here: --print-config shows the settings without them.
  baseline: z.string().min(1).optional().describe('the eval base output folder (or its base_eval.json) compared against, e.g. of models/base v1'),
  candidate: z.string().min(1).optional().describe('the eval base output of the model compared, run with the same settings; differences are candidate - baseline'),
  out: z.string().min(1).optional().describe('also write the comparison here: <out>/base_compare.json and base_compare.md'),
});
export type EvalBaseCompareSettings = z.output<typeof EvalBaseCompareSettings>;
