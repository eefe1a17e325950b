// The settings of the training-data builders (`prep data`, `prep rm`, `prep syntax`), declared once: flags, --help
// and --config come from these schemas.
import { z } from 'zod';
import { engineFields } from '@rlhf-code/engine';
import { baseDtypeField } from '@rlhf-code/model';
import { PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { REPEATED_LINE_LIMIT } from '@rlhf-code/eval';

const int = () => z.number().int();

/** Prompts sampled together by prep rm --sft-model: one left-padded batch of 8 x --samples sequences. */
export const DEFAULT_SAMPLE_BATCH = 8;
const MBPP = 'data/mbpp/mbpp.jsonl';
const mbppField = z.string().min(1).default(MBPP).describe('MBPP JSONL file');
const seedField = (what: string) => int().nonnegative().default(0).describe(what);
const pythonField = z.string().min(1).optional().describe('Python 3 interpreter (env RLHF_PYTHON, default python3 on PATH)');

export const PrepDataSettings = z.strictObject({
  mbpp: mbppField,
  outDir: z.string().min(1).default('data').describe('output folder'),
});
export type PrepDataSettings = z.output<typeof PrepDataSettings>;

export const PrepSuiteSettings = z.strictObject({
  outDir: z.string().min(1).default('data/suite').describe('output folder: sft.jsonl, rl.jsonl, dev.jsonl, test.jsonl (MBPP schema) and README.md'),
  seed: seedField('seed of the statements chosen for each split and of the test inputs (the same seed writes the same files)'),
  python: pythonField,
});
export type PrepSuiteSettings = z.output<typeof PrepSuiteSettings>;

export const PrepRmSettings = z.strictObject({
  mbpp: mbppField,
  problems: z
    .string()
    .min(1)
    .optional()
    .describe("problems in MBPP's schema to build rows from instead of MBPP's training split: those with a reference (`code`), e.g. data/suite/sft.jsonl"),
  out: z.string().min(1).default('data/rm_data.jsonl').describe('output JSONL file ({prompt, response, score, task_id, source} lines)'),
  stubs: z.boolean().default(true).describe('also score the trivial answers of every problem (stub:pass, constant returns, echoing an argument, ...)'),
  seed: seedField('seed for the mutations (and sampling)'),
  mutantsPerKind: int().nonnegative().default(1).describe('mutated variants per mutation kind and prompt (9 kinds)'),
  sftModel: z.string().min(1).optional().describe('also score samples from this checkpoint folder (config.json, model.safetensors, tokenizer.json) or LoRA adapter folder'),
  samples: int().positive().default(4).describe('samples per prompt with --sft-model'),
  maxNewTokens: int().positive().default(256).describe('longest sample with --sft-model'),
  temperature: z.number().positive().default(0.8).describe('sampling temperature with --sft-model'),
  template: z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format for --sft-model: raw text, or a ChatML turn for instruct checkpoints'),
  batchSize: int().positive().default(DEFAULT_SAMPLE_BATCH).describe('prompts sampled together with --sft-model (each with its --samples, left-padded in one batch); lower it for big checkpoints'),
  ...engineFields,
  baseDtype: baseDtypeField.describe("--sft-model's matrices in fp32, bf16 or int8 (per-output-channel scales) while sampling: faster decoding of big checkpoints"),
  limit: int().positive().optional().describe('a seeded subset of n problems (default: all)'),
  timeoutMs: int().min(100).default(3000).describe('wall-clock limit per run'),
  memoryMb: int().nonnegative().default(512).describe('memory limit per run (0 = none)'),
  concurrency: int().positive().default(2).describe('python processes at once'),
  python: pythonField,
});
export type PrepRmSettings = z.output<typeof PrepRmSettings>;

const syntaxShared = {
  model: z.string().min(1).default('models/base').describe('checkpoint folder that writes the bodies'),
  corpus: z
    .string()
    .min(1)
    .default('data/vendor/cpython/python-stdlib,data/vendor/cpython/python-stdlib-extra')
    .describe('corpus folder(s), comma separated; the functions come from their training files (path-hash split)'),
  out: z.string().min(1).default('results/syntax/syntax_data.jsonl').describe('output JSONL file ({prompt, suffix?, response, path, name, similarity} lines)'),
  samples: int().positive().default(2).describe('bodies sampled per function (middles per FIM example)'),
  temperature: z.number().positive().default(0.6).describe('sampling temperature (top-k 0, top-p 1)'),
  maxPromptTokens: int()
    .positive()
    .default(256)
    .describe('prompts (the file up to the docstring) are cut from the left to this many tokens (--source fim: the FIM prompt is cut to the window as the online server does)'),
  batchSize: int().positive().default(16).describe('sequences generated together'),
  maxLineRepeats: int().positive().default(REPEATED_LINE_LIMIT).describe('a body whose most frequent line occurs more often than this is not kept'),
  seed: seedField('seed of the function subset, of sampling and of the example forms'),
  python: pythonField,
};

const SyntaxFunctions = z.strictObject({
  source: z.literal('functions').describe('what the model writes: "functions" (bodies of documented functions) or "fim" (middles of --fim-data)'),
  ...syntaxShared,
  functions: int().nonnegative().default(1200).describe('documented functions sampled (a seeded subset of those whose true body compiles; 0 = all)'),
  maxNewTokens: int().positive().default(128).describe('longest body (middle) in tokens; one not ended by then is not kept'),
  fimRate: z.number().min(0).max(1).default(0.5).describe('share of examples written in fill-in-the-middle form ({prompt, suffix, response}: the file after the body as suffix)'),
  maxSuffixTokens: int().nonnegative().default(128).describe('fill-in-the-middle examples: the suffix is cut to this many tokens'),
  references: z
    .boolean()
    .default(false)
    .describe("also write every sampled function's true body as an example (plain or FIM form by a coin of its own, marked reference: true): real bodies of real length beside the model's own"),
});

const SyntaxFim = z.strictObject({
  source: z.literal('fim'),
  ...syntaxShared,
  fimData: z
    .string()
    .min(1)
    .default('data/fim/fim.jsonl')
    .describe('FIM examples {prefix, suffix, middle, path, split} from `online prep-fim`; only split "train" is used, and each must come from a training file of --corpus'),
  fimCases: int().nonnegative().default(0).describe('FIM examples sampled (a seeded subset of the train split; 0 = all)'),
  maxNewTokens: int().positive().default(64).describe('longest body (middle) in tokens; one not ended by then is not kept'),
});

/** `prep syntax`: function bodies (default) or FIM middles a model wrote, kept when they compile. */
export const PrepSyntaxSettings = z.preprocess(
  (v) => (typeof v === 'object' && v !== null && !('source' in v) ? { ...v, source: 'functions' } : v),
  z.discriminatedUnion('source', [SyntaxFunctions, SyntaxFim]),
);
export type PrepSyntaxSettings = z.output<typeof PrepSyntaxSettings>;

/** `online prep-fim`: fill-in-the-middle cases cut from a folder of Python files, split by file. */
export const PrepFimSettings = z.strictObject({
  src: z.string().min(1).describe("folder searched recursively for .py files, or several separated by commas (paths then start with the folder's name)"),
  out: z.string().min(1).describe('output JSONL (fields prefix, suffix, middle, path, split, kind)'),
  format: z
    .enum(['fim', 'sft'])
    .default('fim')
    .describe("fim: every example {prefix, suffix, middle, path, split, kind}; sft: only the train split, as sft train's fill-in-the-middle records {prompt, suffix, response, path, kind}"),
  perFile: int().positive().default(4).describe('examples per file'),
  seed: int().default(0).describe('seed of the cursor positions'),
  maxPrefixChars: int().positive().default(2000).describe('keep at most this much text before the cursor'),
  maxSuffixChars: int().positive().default(1000).describe('keep at most this much text after the middle'),
});
export type PrepFimSettings = z.output<typeof PrepFimSettings>;

export const PrepToolsSettings = z.strictObject({
  outDir: z.string().min(1).default('data/tools').describe('output folder: train.jsonl, heldout.jsonl, heldout_new_ops.jsonl, mbpp_train.jsonl, mbpp_validation.jsonl and README.md'),
  perKind: int().positive().default(100).describe('training tasks per training operation'),
  heldoutPerKind: int().positive().default(32).describe('held-out tasks per operation (in heldout.jsonl and in heldout_new_ops.jsonl)'),
  trainKinds: z.array(z.string().min(1)).min(1).optional().describe('operations trained on (comma-separated; default: all but the new-operation ones)'),
  newOperationKinds: z.array(z.string().min(1)).optional().describe('operations never trained on, for heldout_new_ops.jsonl (default: digit_count, reverse_words, multiples_sum, two_step_range)'),
  trainTemplates: z.array(z.string().min(1)).min(1).optional().describe('question templates trained on (default: what_is, calculate, value_of)'),
  heldoutTemplates: z.array(z.string().min(1)).min(1).optional().describe('question templates of the held-out file, never trained on (default: compute, evaluate, result_of)'),
  seed: seedField('seed of the generated tasks (training and held-out tasks use different streams)'),
  mbpp: mbppField.describe('MBPP JSONL file: its train (601-974) and validation (511-600) problems become tool tasks with tests, for real models ("none" = skip)'),
  python: pythonField,
});
export type PrepToolsSettings = z.output<typeof PrepToolsSettings>;

/** `prep corpus`: the pretraining corpus from the pinned Debian packages and the vendored standard library, as a token cache. */
export const PrepCorpusSettings = z.strictObject({
  manifest: z.string().min(1).default('data/corpus/manifest.json').describe('the pinned Debian packages: {suite, architecture, packages: [{package, version, sha256, licence, max_mb?, strip_strings?}], reserved: [...]}'),
  debs: z.string().min(1).default('data/corpus/debs').describe('folder of the downloaded .deb files (one with the pinned sha256 is not downloaded again)'),
  extracted: z.string().min(1).default('data/corpus/extracted').describe('folder the packages are unpacked into (dpkg-deb -x), one sub-folder per package'),
  out: z.string().min(1).default('data/corpus/cache').describe('token cache folder written (splits train and heldout; meta.json last, with the corpus table in `source`; removed.jsonl: each removed file and why)'),
  tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe('tokenizer folder the cache is made with'),
  stdlib: z
    .string()
    .min(1)
    .default('data/vendor/cpython/python-stdlib,data/vendor/cpython/python-stdlib-extra')
    .describe('standard-library corpus folders, comma separated: their training files join the cache as package cpython-stdlib, their held-out files (path hash) are held-out material'),
  mbpp: mbppField.describe('MBPP JSONL file: the reference code of its test split (11-510) is held-out material'),
  heldOutProblems: z
    .array(z.string().min(1))
    .default(['data/suite/dev.jsonl', 'data/suite/test.jsonl'])
    .describe("problem files (MBPP's schema) whose reference code (else text) is held-out material"),
  maxFileKb: int().positive().default(200).describe('files bigger than this (KB as shipped) are left out'),
  nearDuplicateJaccard: z.number().gt(0).max(1).default(0.8).describe('a file whose set of code lines has at least this Jaccard similarity with an earlier kept file is left out'),
  heldOutJaccard: z
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe('a file whose set of code lines has at least this Jaccard similarity with a held-out document (reserved packages, stdlib held-out files, MBPP test, --held-out-problems) is left out'),
  heldOutOverlap: z
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe('... and so is one sharing at least 10 code lines with a held-out document that are this share of the smaller of the two (a partial copy)'),
  repin: z.boolean().default(false).describe('instead of building: rewrite --manifest with the versions and sha256 apt offers now (after a Debian point release), and list what changed'),
});
export type PrepCorpusSettings = z.output<typeof PrepCorpusSettings>;
