// sft: supervised training of a Qwen2 code model.
//   pretrain  from scratch on a folder of Python files (next-token + fill-in-the-middle): makes models/base
//   train     fine-tune on {prompt, response} jsonl with the loss on the response only
import * as fs from 'fs';
import * as path from 'path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import { readSftData, splitHeldOut } from '@rlhf-code/data';
import { makeConfig, Qwen2Config, Qwen2Model, readConfig, saveCheckpoint, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { corpusDirs, FIM_MODES, FimMode, loadTokenizer, PROMPT_TEMPLATES, readCorpora, readFimMode, Tokenizer } from '@rlhf-code/tokenizer';
import { fimSftExample, LmExample, packExamples, pretrainWindows, runLmStage, sftExample } from '@rlhf-code/train';

// ---------------------------------------------------------------------------------------------
// Settings with their defaults (one place; --help prints them)

const Optim = {
  lr: z.coerce.number().positive(),
  minLr: z.coerce.number().nonnegative().optional(), // default lr / 10
  warmupSteps: z.coerce.number().int().nonnegative(),
  weightDecay: z.coerce.number().nonnegative(),
  beta1: z.coerce.number().min(0).lt(1).default(0.9),
  beta2: z.coerce.number().min(0).lt(1),
  maxGradNorm: z.coerce.number().nonnegative().default(1),
};

const Common = {
  out: z.string(),
  epochs: z.coerce.number().int().positive(),
  maxSteps: z.coerce.number().int().nonnegative().default(0),
  batchSize: z.coerce.number().int().positive(),
  gradAccum: z.coerce.number().int().positive(),
  saveEvery: z.coerce.number().int().nonnegative(),
  seed: z.coerce.number().int().default(0),
  resume: z.boolean().default(false),
  quiet: z.boolean().default(false),
  backend: backendSchema,
};

const PretrainFlags = z.object({
  ...Optim,
  ...Common,
  corpus: z.string(),
  tokenizer: z.string(),
  seqLen: z.coerce.number().int().min(8),
  fimRate: z.coerce.number().min(0).max(1),
  fimMode: z.enum(FIM_MODES).optional(), // default: the --init checkpoint's, else the tokenizer's
  hiddenSize: z.coerce.number().int().positive(),
  layers: z.coerce.number().int().positive(),
  heads: z.coerce.number().int().positive(),
  kvHeads: z.coerce.number().int().positive(),
  intermediateSize: z.coerce.number().int().positive(),
  maxPosition: z.coerce.number().int().positive(),
  ropeTheta: z.coerce.number().positive(),
  init: z.string().optional(),
  export: z.string().optional(),
  exportDtype: z.enum(['F32', 'BF16']),
});

const TrainFlags = z.object({
  ...Optim,
  ...Common,
  model: z.string(),
  data: z.string(),
  template: z.enum(PROMPT_TEMPLATES as ['raw', 'chat']),
  maxLen: z.coerce.number().int().min(8),
  pack: z.boolean().default(false),
  heldoutFraction: z.coerce.number().min(0).lt(1),
  fimMode: z.enum(FIM_MODES).optional(), // default: the model's
  export: z.string().optional(),
  exportDtype: z.enum(['F32', 'BF16']),
});

// ---------------------------------------------------------------------------------------------

/** With --resume and a checkpoint in --out, training continues from the weights saved there. */
function resumeDir(f: { resume: boolean; out: string }): string | undefined {
  return f.resume && fs.existsSync(path.join(f.out, TRAINER_STATE_FILE)) ? f.out : undefined;
}

/**
 * The tokenizer in the FIM order the run trains (--fim-mode, else `fallback`), and the tokenizer_config.json fields
 * that record that order in every checkpoint it writes (none when the tokenizer folder says so already).
 */
function withFimMode(tok: Tokenizer, mode: FimMode | undefined, fallback: FimMode = tok.fimMode): { tok: Tokenizer; tokenizerConfig?: { fim_mode: FimMode } } {
  const want = mode ?? fallback;
  return want === tok.fimMode ? { tok } : { tok: tok.withFimMode(want), tokenizerConfig: { fim_mode: want } };
}

/**
 * --export: the weights alone (no optimizer state), in the requested dtype, with the tokenizer, training_args.json and
 * eval.json ({step, eval/loss}): how models/base is written.
 */
async function exportWeights(
  stage: 'pretrain' | 'sft',
  model: Qwen2Model,
  tokenizerDir: string,
  tokenizerConfig: Record<string, unknown> | undefined,
  f: { export?: string; exportDtype: 'F32' | 'BF16' },
  result: Awaited<ReturnType<typeof runLmStage>>,
): Promise<void> {
  await saveCheckpoint(f.export!, {
    config: model.config,
    weights: model.hostWeights(),
    dtype: f.exportDtype,
    tokenizerDir,
    tokenizerConfig,
    extraFiles: { 'training_args.json': { stage, ...f }, 'eval.json': { step: result.position.step, ...result.lastEval } },
  });
  console.error(`sft ${stage}: exported ${f.export} (${f.exportDtype})`);
}

async function pretrain(opts: unknown): Promise<void> {
  const f = parseFlags(PretrainFlags, opts);
  if (f.heads % f.kvHeads !== 0) throw new UsageError(`--heads ${f.heads} must be a multiple of --kv-heads ${f.kvHeads}`);
  if (f.hiddenSize % f.heads !== 0) throw new UsageError(`--hidden-size ${f.hiddenSize} must be a multiple of --heads ${f.heads}`);
  // Continued pretraining keeps the FIM order of the --init checkpoint unless --fim-mode says otherwise.
  const initMode = f.init ? readFimMode(f.init) : undefined;
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.tokenizer), f.fimMode, initMode);
  const corpus = readCorpora(corpusDirs(f.corpus));
  const backend = await initBackend({ backend: f.backend });
  console.error(`sft pretrain: backend ${backend.name}; corpus ${corpus.train.length} training files, ${corpus.test.length} held-out files`);

  // --init: continued pretraining from an existing checkpoint's weights (its config.json gives the architecture);
  // otherwise the shape flags describe a fresh random model.
  const config: Qwen2Config = f.init ? readConfig(f.init) : makeConfig({
    vocab_size: tok.vocabSize,
    hidden_size: f.hiddenSize,
    num_hidden_layers: f.layers,
    num_attention_heads: f.heads,
    num_key_value_heads: f.kvHeads,
    intermediate_size: f.intermediateSize,
    max_position_embeddings: f.maxPosition,
    rope_theta: f.ropeTheta,
    tie_word_embeddings: true,
    bos_token_id: tok.eosId,
    eos_token_id: tok.eosId,
    pad_token_id: tok.padId,
  });
  if (config.vocab_size !== tok.vocabSize) {
    throw new UsageError(`--init ${f.init}: its vocab_size is ${config.vocab_size} but the tokenizer ${f.tokenizer} has ${tok.vocabSize} tokens (pass the tokenizer it was trained with)`);
  }
  const from = resumeDir(f);
  const model = from ? await Qwen2Model.load(from) : f.init ? await Qwen2Model.load(f.init) : Qwen2Model.init(config, { seed: f.seed });
  const shape = (c: typeof config) =>
    JSON.stringify([c.vocab_size, c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.intermediate_size, c.rope_theta]);
  if (from && shape(model.config) !== shape(config)) {
    model.dispose();
    throw new UsageError(`${from}: cannot resume: its config.json differs from the model these flags describe (resume with the same settings)`);
  }
  console.error(`sft pretrain: ${(model.numParams / 1e6).toFixed(2)}M parameters, windows of ${f.seqLen} tokens, FIM rate ${f.fimRate} (${tok.fimMode.toUpperCase()} order)`);

  const texts = corpus.train.map((c) => c.text);
  const heldOut = pretrainWindows(tok, corpus.test.map((c) => c.text), { seqLen: f.seqLen, fimRate: f.fimRate, seed: 'heldout' });
  const result = await runLmStage({
    label: 'pretrain',
    model,
    tokenizerDir: f.tokenizer,
    tokenizerConfig,
    padId: tok.padId,
    outDir: f.out,
    // Fresh chunk boundaries and FIM splits every epoch.
    examplesOf: (epoch) => pretrainWindows(tok, texts, { seqLen: f.seqLen, fimRate: f.fimRate, seed: `${f.seed}:${epoch}` }),
    heldOut,
    maxEvalExamples: 64,
    epochs: f.epochs,
    maxSteps: f.maxSteps,
    batchSize: f.batchSize,
    gradAccum: f.gradAccum,
    optim: { ...f, minLr: f.minLr ?? f.lr / 10 },
    saveEvery: f.saveEvery,
    seed: f.seed,
    resume: f.resume,
    quiet: f.quiet,
    extraFiles: { 'training_args.json': { stage: 'pretrain', ...f } },
  });
  if (f.export && !result.interrupted) await exportWeights('pretrain', model, f.tokenizer, tokenizerConfig, f, result);
  console.log(JSON.stringify({ stage: 'pretrain', out: f.out, step: result.position.step, interrupted: result.interrupted, ...result.lastEval }));
  if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
}

async function train(opts: unknown): Promise<void> {
  const f = parseFlags(TrainFlags, opts);
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.model), f.fimMode);
  const records = await readSftData(f.data);
  const { train: trainRecords, heldOut: heldRecords } = splitHeldOut(records, { fraction: f.heldoutFraction, seed: f.seed });
  const backend = await initBackend({ backend: f.backend });
  const model = await Qwen2Model.load(resumeDir(f) ?? f.model);
  if (tok.vocabSize > model.config.vocab_size) {
    throw new UsageError(`${f.model}: its tokenizer has ${tok.vocabSize} tokens, more than the model's ${model.config.vocab_size}`);
  }
  // A record with a `suffix` is a fill-in-the-middle example (the raw FIM form, whatever --template says).
  const toExample = (r: { prompt: string; response: string; suffix?: string }): LmExample =>
    r.suffix === undefined
      ? sftExample(tok, r.prompt, r.response, { template: f.template, maxLen: f.maxLen })
      : fimSftExample(tok, r.prompt, r.suffix, r.response, { maxLen: f.maxLen });
  const trainExamples = trainRecords.map(toExample);
  const examples = f.pack ? packExamples(trainExamples, f.maxLen) : trainExamples;
  console.error(
    `sft train: backend ${backend.name}; ${trainRecords.length} training / ${heldRecords.length} held-out examples from ${f.data}` +
      (f.pack ? `, packed into ${examples.length} windows of <= ${f.maxLen} tokens` : ''),
  );
  const result = await runLmStage({
    label: 'sft',
    model,
    tokenizerDir: f.model,
    tokenizerConfig,
    padId: tok.padId,
    outDir: f.out,
    examplesOf: () => examples,
    heldOut: heldRecords.map(toExample),
    epochs: f.epochs,
    maxSteps: f.maxSteps,
    batchSize: f.batchSize,
    gradAccum: f.gradAccum,
    optim: { ...f, minLr: f.minLr ?? f.lr / 10 },
    saveEvery: f.saveEvery,
    seed: f.seed,
    resume: f.resume,
    quiet: f.quiet,
    extraFiles: { 'training_args.json': { stage: 'sft', base_model: f.model, ...f } },
  });
  if (f.export && !result.interrupted) await exportWeights('sft', model, f.model, tokenizerConfig, f, result);
  console.log(JSON.stringify({ stage: 'sft', out: f.out, step: result.position.step, interrupted: result.interrupted, ...result.lastEval }));
  if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
}

// ---------------------------------------------------------------------------------------------
// Flags

function optimOptions(cmd: Command, d: { lr: number; warmup: number; wd: number; beta2: number }): Command {
  return cmd
    .option('--lr <x>', 'peak learning rate (AdamW)', String(d.lr))
    .option('--min-lr <x>', 'learning rate at the end of the cosine decay (default lr/10)')
    .option('--warmup-steps <n>', 'linear warmup steps', String(d.warmup))
    .option('--weight-decay <x>', 'decoupled weight decay on matrices (not on norms and biases)', String(d.wd))
    .option('--beta1 <x>', 'AdamW beta1', '0.9')
    .option('--beta2 <x>', 'AdamW beta2', String(d.beta2))
    .option('--max-grad-norm <x>', 'clip the global gradient norm to this (0 = off)', '1');
}

function commonOptions(cmd: Command, d: { out: string; epochs: number; batch: number; accum: number; saveEvery: number }): Command {
  return cmd
    .option('--out <dir>', 'checkpoint folder (Hugging Face layout + optimizer state for --resume, metrics.jsonl)', d.out)
    .option('--epochs <n>', 'passes over the training data', String(d.epochs))
    .option('--max-steps <n>', 'stop after this many optimizer steps; the warmup + cosine schedule then spans them, as in transformers (0 = all epochs)', '0')
    .option('--batch-size <n>', 'examples per micro-batch', String(d.batch))
    .option('--grad-accum <n>', 'micro-batches per optimizer step', String(d.accum))
    .option('--save-every <n>', 'also save (and evaluate) every n steps; 0 = at epoch ends only', String(d.saveEvery))
    .option('--seed <n>', 'seed of the data order and initialisation', '0')
    .option('--resume', 'continue from the checkpoint in --out (same settings)')
    .option('--quiet', 'no progress bar')
    .addOption(backendOption());
}

const program = new Command('sft').description('Supervised training of a Qwen2 code model: pretraining with FIM, and SFT on {prompt, response} data.');

optimOptions(
  commonOptions(
    program
      .command('pretrain')
      .description('Train a model from scratch on a folder of .py files (next-token and fill-in-the-middle). Held-out files: 1 in 10 by path hash.'),
    { out: 'results/pretrain', epochs: 2, batch: 4, accum: 1, saveEvery: 100 },
  ),
  { lr: 1e-3, warmup: 50, wd: 0.1, beta2: 0.95 },
)
  .option('--corpus <dirs>', 'folder of Python files, or several separated by commas (held-out files: 1 in 10 of each, by path hash)', 'data/corpus/python-stdlib')
  .option('--tokenizer <dir>', 'tokenizer folder (tokenizer.json); the vocabulary size follows it', 'models/tokenizer-code16k')
  .option('--seq-len <n>', 'window length in tokens', '512')
  .option('--fim-rate <x>', 'share of chunks in fill-in-the-middle form', '0.5')
  .addOption(new Option('--fim-mode <order>', 'order of a FIM example: psm (Qwen\'s <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m) or spm (<|fim_prefix|><|fim_suffix|>s<|fim_middle|>p m, the middle right after the prefix); recorded as "fim_mode" in the checkpoint\'s tokenizer_config.json (default: the --init checkpoint\'s, else the tokenizer\'s, else psm)').choices([...FIM_MODES]))
  .option('--hidden-size <n>', 'model width', '256')
  .option('--layers <n>', 'transformer blocks', '6')
  .option('--heads <n>', 'attention heads', '4')
  .option('--kv-heads <n>', 'key/value heads (grouped-query attention)', '2')
  .option('--intermediate-size <n>', 'SwiGLU MLP width', '704')
  .option('--max-position <n>', 'max_position_embeddings in config.json', '1024')
  .option('--rope-theta <x>', 'rotary embedding base', '10000')
  .option('--init <dir>', 'start from the weights of this checkpoint (continued pretraining) instead of a random initialisation; its config.json replaces the shape flags; optimizer and schedule start fresh')
  .option('--export <dir>', 'at the end, also write the weights alone (no optimizer state) here, e.g. models/base')
  .addOption(new Option('--export-dtype <dtype>', 'storage dtype of --export').choices(['F32', 'BF16']).default('BF16'))
  .action(pretrain);

optimOptions(
  commonOptions(program.command('train').description('Fine-tune on {prompt, response} jsonl; the loss covers the response and EOS only.'), {
    out: 'results/sft',
    epochs: 3,
    batch: 8,
    accum: 1,
    saveEvery: 0,
  }),
  { lr: 3e-4, warmup: 10, wd: 0.0, beta2: 0.999 },
)
  .addOption(new Option('--model <dir>', 'starting checkpoint (Hugging Face folder)').env('MODEL_PATH').default('models/base'))
  .option('--data <file>', 'training data, one {"prompt", "response"} per line; a line with "suffix" too is a fill-in-the-middle example (prompt = before the cursor, response = the middle)', 'data/sft_data.jsonl')
  .addOption(new Option('--template <name>', 'prompt format: raw text (code models) or ChatML (instruct models)').choices(['raw', 'chat']).default('raw'))
  .option('--max-len <n>', 'longest example in tokens (the prompt is cut from the left first)', '512')
  .option('--pack', 'pack several examples into each window of --max-len tokens')
  .option('--heldout-fraction <x>', 'share of prompts held out for the evaluation loss', '0.1')
  .addOption(new Option('--fim-mode <order>', 'order of the fill-in-the-middle examples (records with "suffix"): psm or spm (see sft pretrain --help); recorded in the checkpoint\'s tokenizer_config.json (default: the --model checkpoint\'s)').choices([...FIM_MODES]))
  .option('--export <dir>', 'at the end, also write the weights alone (no optimizer state) here')
  .addOption(new Option('--export-dtype <dtype>', 'storage dtype of --export').choices(['F32', 'BF16']).default('BF16'))
  .action(train);

runCli(program, shutdownBackend);
