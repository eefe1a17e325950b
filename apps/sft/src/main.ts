// sft: supervised training of a Qwen2 code model.
//   pretrain  from scratch on a folder of Python files (next-token + fill-in-the-middle): makes models/base
//   train     fine-tune on {prompt, response} jsonl with the loss on the response only
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { runCli, settingsCommand, UsageError } from '@rlhf-code/cli';
import { corpusDirs, readCorpora, readSftData, splitHeldOut } from '@rlhf-code/data';
import { checkModelFolder, checkVocabulary, InitSettings, makeConfig, modelConfigOf, Qwen2Config, Qwen2Model, saveCheckpoint, writeRandomCheckpoint } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { defaultTokenizerDir, FimMode, loadTokenizer, readFimMode, Tokenizer } from '@rlhf-code/tokenizer';
import { fimSftExample, LmExample, loadLmStageModel, packExamples, PretrainSettings, pretrainWindows, RunDir, runLmStage, SftSettings, sftExample } from '@rlhf-code/train';

/** With --resume and a checkpoint in --out, training continues from the weights saved there. */
const resumeDir = (f: { resume: boolean; out: string }) => new RunDir(f.out).resumeFrom(f.resume);

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

async function pretrain(f: PretrainSettings): Promise<void> {
  // Continued pretraining keeps the FIM order of the --init checkpoint unless --fim-mode says otherwise.
  if (f.init) checkModelFolder(f.init, '--init');
  const initMode = f.init ? readFimMode(f.init) : undefined;
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.tokenizer), f.fimMode, initMode);
  const corpus = readCorpora(corpusDirs(f.corpus));
  const backend = await initBackend({ backend: f.backend });
  console.error(`sft pretrain: backend ${backend.name}; corpus ${corpus.train.length} training files, ${corpus.test.length} held-out files`);

  // --init: continued pretraining from an existing checkpoint's weights (its config.json gives the architecture);
  // otherwise the shape flags describe a fresh random model.
  const config: Qwen2Config = f.init ? modelConfigOf(f.init) : makeConfig({
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
  const model = from ? await Qwen2Model.load(from) : f.init ? await Qwen2Model.load(f.init, { merge: true }) : Qwen2Model.init(config, { seed: f.seed });
  model.gradCheckpointing = f.gradCheckpointing;
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
    optim: f,
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

async function train(f: SftSettings): Promise<void> {
  checkModelFolder(f.model, '--model');
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.model), f.fimMode);
  const records = await readSftData(f.data);
  const { train: trainRecords, heldOut: heldRecords } = splitHeldOut(records, { fraction: f.heldoutFraction, seed: f.seed });
  const backend = await initBackend({ backend: f.backend });
  const model = await loadLmStageModel(f, resumeDir(f), (line) => console.error(`sft train: ${line}`));
  checkVocabulary(tok, model.config.vocab_size, f.model);
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
    optim: f,
    saveEvery: f.saveEvery,
    seed: f.seed,
    resume: f.resume,
    quiet: f.quiet,
    extraFiles: { 'training_args.json': { stage: 'sft', base_model: f.model, ...f } },
    baseModel: f.model,
  });
  if (f.export && !result.interrupted) await exportWeights('sft', model, f.model, tokenizerConfig, f, result);
  if (f.mergeExport && !result.interrupted) {
    await saveCheckpoint(f.mergeExport, {
      config: model.config,
      weights: model.mergedWeights(),
      dtype: f.exportDtype,
      tokenizerDir: f.model,
      tokenizerConfig,
      extraFiles: { 'training_args.json': { stage: 'sft', base_model: f.model, ...f }, 'eval.json': { step: result.position.step, ...result.lastEval } },
    });
    console.error(`sft train: merged the adapters into ${f.mergeExport} (${f.exportDtype})`);
  }
  console.log(JSON.stringify({ stage: 'sft', out: f.out, step: result.position.step, interrupted: result.interrupted, ...result.lastEval }));
  if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
}

async function init(f: InitSettings): Promise<void> {
  const t0 = Date.now();
  const tokenizerDir = f.tokenizer === 'qwen' ? defaultTokenizerDir() : f.tokenizer;
  const { config, params } = await writeRandomCheckpoint(f.out, { configFile: f.modelConfig, tokenizerDir, seed: f.seed, dtype: f.dtype });
  const shape = `hidden ${config.hidden_size}, ${config.num_hidden_layers} layers, ${config.num_attention_heads}/${config.num_key_value_heads} heads, vocab ${config.vocab_size}`;
  console.error(`sft init: ${f.out}: ${(params / 1e6).toFixed(1)}M random parameters (${shape}), ${f.dtype}, tokenizer ${tokenizerDir}`);
  console.log(JSON.stringify({ stage: 'init', out: f.out, params, dtype: f.dtype, seconds: (Date.now() - t0) / 1000 }));
}

const program = new Command('sft').description('Supervised training of a Qwen2 code model: pretraining with FIM, and SFT on {prompt, response} data.');
settingsCommand(
  program
    .command('pretrain')
    .description('Train a model from scratch on a folder of .py files (next-token and fill-in-the-middle). Held-out files: 1 in 10 by path hash.'),
  PretrainSettings,
  pretrain,
);
settingsCommand(
  program
    .command('init')
    .description(
      'Write a randomly initialised checkpoint (config.json, model.safetensors, tokenizer) of any Qwen2 config.json, in the layout of a real one: ' +
        'to run a real model\'s shape here before its weights are available. --tokenizer qwen copies the full Qwen tokenizer.',
    ),
  InitSettings,
  init,
);
settingsCommand(program.command('train').description('Fine-tune on {prompt, response} jsonl; the loss covers the response and EOS only.'), SftSettings, train);

runCli(program, shutdownBackend);
