// The supervised stages behind `sft pretrain | train` and `rm train` (apps/sft and apps/rm are their command lines):
//   runPretrain  a model from scratch (or --init) on a folder of Python files, next-token and fill-in-the-middle
//   runSft       fine-tuning on {prompt, response} jsonl, the loss on the response only
//   runRm        the reward model: a Qwen2 backbone + scalar head, regression on {prompt, response, score}
// Each reads its files, loads the model, trains (runLmStage / runRmStage) and returns the command's result line.
import { UsageError } from '@rlhf-code/cli';
import { initBackend, withLowPrecisionActivations } from '@rlhf-code/backend';
import { corpusDirs, readCorpora, readRmData, readSftData, splitHeldOut, type RmRecord } from '@rlhf-code/data';
import { checkpointAt, checkResumedRank, loadMergedWeights, makeConfig, openCheckpoint, parameterCount, Qwen2Config, Qwen2Model, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { encodePair, FimMode, loadTokenizer, readFimMode, Tokenizer } from '@rlhf-code/tokenizer';
import { loraConfigOf, RunDir } from '@rlhf-code/trainer-core';
import { fimSftExample, LmExample, packExamples, pretrainWindows, sftExample } from './lm-data';
import { loadLmStageModel } from './lm-model';
import { runLmStage } from './lm-stage';
import { RmExample, runRmStage } from './rm-stage';
import type { PretrainSettings, RmSettings, SftSettings } from './settings';

/** The fields of runLmStage's (and runRmStage's) options that a supervised stage's settings give as they are. */
function runSettings(f: PretrainSettings | SftSettings | RmSettings) {
  return { outDir: f.out, epochs: f.epochs, maxSteps: f.maxSteps, batchSize: f.batchSize, gradAccum: f.gradAccum, optim: f, saveEvery: f.saveEvery, seed: f.seed, resume: f.resume, quiet: f.quiet };
}

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
 * The weights alone (no optimizer state) in `dir`, in the requested dtype, with the tokenizer, training_args.json and
 * eval.json ({step, eval/loss}): --export (how models/base is written) and --merge-export (the adapters merged in).
 */
async function exportWeights(
  dir: string,
  model: Qwen2Model,
  weights: ReturnType<Qwen2Model['hostWeights']>,
  o: { tokenizerDir: string; tokenizerConfig?: Record<string, unknown>; dtype: 'F32' | 'BF16'; trainingArgs: object },
  result: Awaited<ReturnType<typeof runLmStage>>,
): Promise<void> {
  await saveCheckpoint(dir, {
    config: model.config,
    weights,
    dtype: o.dtype,
    tokenizerDir: o.tokenizerDir,
    tokenizerConfig: o.tokenizerConfig,
    extraFiles: { 'training_args.json': o.trainingArgs, 'eval.json': { step: result.position.step, ...result.lastEval } },
  });
}

export async function runPretrain(f: PretrainSettings, log: (line: string) => void = console.error) {
  // Continued pretraining keeps the FIM order of the --init checkpoint unless --fim-mode says otherwise.
  const init = f.init ? checkpointAt(f.init, '--init') : undefined;
  const initMode = init ? readFimMode(init.dir) : undefined;
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.tokenizer), f.fimMode, initMode);
  const corpus = readCorpora(corpusDirs(f.corpus));
  const backend = await initBackend();
  log(`sft pretrain: backend ${backend.name}; corpus ${corpus.train.length} training files, ${corpus.test.length} held-out files`);

  // --init: continued pretraining from an existing checkpoint's weights (its config.json gives the architecture);
  // otherwise the shape flags describe a fresh random model.
  const config: Qwen2Config = init ? init.config : makeConfig({
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
  const model = from ? await Qwen2Model.load(from) : init ? (await openCheckpoint(init, { merge: true, tokenizer: false })).model : Qwen2Model.init(config, { seed: f.seed });
  model.gradCheckpointing = f.gradCheckpointing;
  const shape = (c: typeof config) =>
    JSON.stringify([c.vocab_size, c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.intermediate_size, c.rope_theta]);
  if (from && shape(model.config) !== shape(config)) {
    model.dispose();
    throw new UsageError(`${from}: cannot resume: its config.json differs from the model these flags describe (resume with the same settings)`);
  }
  log(`sft pretrain: ${(model.numParams / 1e6).toFixed(2)}M parameters, windows of ${f.seqLen} tokens, FIM rate ${f.fimRate} (${tok.fimMode.toUpperCase()} order)`);

  const texts = corpus.train.map((c) => c.text);
  const heldOut = pretrainWindows(tok, corpus.test.map((c) => c.text), { seqLen: f.seqLen, fimRate: f.fimRate, seed: 'heldout' });
  const result = await runLmStage({
    label: 'pretrain',
    model,
    tokenizerDir: f.tokenizer,
    tokenizerConfig,
    padId: tok.padId,
    // Fresh chunk boundaries and FIM splits every epoch.
    examplesOf: (epoch) => pretrainWindows(tok, texts, { seqLen: f.seqLen, fimRate: f.fimRate, seed: `${f.seed}:${epoch}` }),
    heldOut,
    maxEvalExamples: 64,
    ...runSettings(f),
    extraFiles: { 'training_args.json': { stage: 'pretrain', ...f } },
  });
  if (f.export && !result.interrupted) {
    await exportWeights(f.export, model, model.hostWeights(), { tokenizerDir: f.tokenizer, tokenizerConfig, dtype: f.exportDtype, trainingArgs: { stage: 'pretrain', ...f } }, result);
    log(`sft pretrain: exported ${f.export} (${f.exportDtype})`);
  }
  return { stage: 'pretrain', out: f.out, step: result.position.step, interrupted: result.interrupted, ...result.lastEval };
}

/** SFT with --int8-activations as the setting of its products with an int8 base, for the stage only. */
export const runSft = (f: SftSettings, log: (line: string) => void = console.error) => withLowPrecisionActivations(f.int8Activations, () => sftStage(f, log));

async function sftStage(f: SftSettings, log: (line: string) => void) {
  const base = checkpointAt(f.model, '--model');
  const { tok, tokenizerConfig } = withFimMode(base.tokenizer(), f.fimMode);
  const records = await readSftData(f.data);
  const { train: trainRecords, heldOut: heldRecords } = splitHeldOut(records, { fraction: f.heldoutFraction, seed: f.seed });
  const backend = await initBackend();
  const model = await loadLmStageModel(f, resumeDir(f), (line) => log(`sft train: ${line}`), base); // its vocabulary checked against the tokenizer
  // A record with a `suffix` is a fill-in-the-middle example (the raw FIM form, whatever --template says).
  const toExample = (r: { prompt: string; response: string; suffix?: string }): LmExample =>
    r.suffix === undefined
      ? sftExample(tok, r.prompt, r.response, { template: f.template, maxLen: f.maxLen })
      : fimSftExample(tok, r.prompt, r.suffix, r.response, { maxLen: f.maxLen });
  const trainExamples = trainRecords.map(toExample);
  const examples = f.pack ? packExamples(trainExamples, f.maxLen) : trainExamples;
  log(
    `sft train: backend ${backend.name}; ${trainRecords.length} training / ${heldRecords.length} held-out examples from ${f.data}` +
      (f.pack ? `, packed into ${examples.length} windows of <= ${f.maxLen} tokens` : ''),
  );
  const result = await runLmStage({
    label: 'sft',
    model,
    tokenizerDir: f.model,
    tokenizerConfig,
    padId: tok.padId,
    examplesOf: () => examples,
    heldOut: heldRecords.map(toExample),
    ...runSettings(f),
    extraFiles: { 'training_args.json': { stage: 'sft', base_model: f.model, ...f } },
    baseModel: f.model,
  });
  const exported = { tokenizerDir: f.model, tokenizerConfig, dtype: f.exportDtype };
  if (f.export && !result.interrupted) {
    await exportWeights(f.export, model, model.hostWeights(), { ...exported, trainingArgs: { stage: 'sft', ...f } }, result);
    log(`sft sft: exported ${f.export} (${f.exportDtype})`);
  }
  if (f.mergeExport && !result.interrupted) {
    const original = f.baseDtype === 'fp32' ? undefined : (await loadMergedWeights(f.model)).weights; // no int8 / bf16 rounding in the export
    await exportWeights(f.mergeExport, model, model.mergedWeights(original), { ...exported, trainingArgs: { stage: 'sft', base_model: f.model, ...f } }, result);
    log(`sft train: merged the adapters into ${f.mergeExport} (${f.exportDtype})`);
  }
  return { stage: 'sft', out: f.out, step: result.position.step, interrupted: result.interrupted, ...result.lastEval };
}

/** Reward-model training with --int8-activations as the setting of its products with an int8 base, for the stage only. */
export const runRm = (f: RmSettings, log: (line: string) => void = console.error) => withLowPrecisionActivations(f.int8Activations, () => rmStage(f, log));

async function rmStage(f: RmSettings, log: (line: string) => void) {
  const tok = checkpointAt(f.model, '--model').tokenizer();
  const records = await readRmData(f.data);
  // Hold out whole prompts: every response to a held-out prompt is unseen in training.
  const split = splitHeldOut(records, { fraction: f.heldoutFraction, seed: f.seed });
  const toExample = (r: RmRecord): RmExample => ({
    ids: encodePair(tok, r.prompt, r.response, { template: f.template, maxLen: f.maxLen }).ids,
    score: r.score,
    group: r.prompt, // the split's key: a group is held out whole
    source: r.source,
  });
  const trainRecords = f.maxExamples > 0 ? split.train.slice(0, f.maxExamples) : split.train;
  const backend = await initBackend();
  log(`rm train: backend ${backend.name}; ${trainRecords.length} training / ${split.heldOut.length} held-out pairs from ${f.data}`);

  const resuming = new RunDir(f.out).resumeFrom(f.resume) !== undefined;
  const rm = resuming ? await RewardModel.load(f.out, { baseDtype: f.baseDtype }) : await RewardModel.fromCausalLM(f.model, { padTokenId: tok.padId, seed: f.seed, baseDtype: f.baseDtype });
  rm.backbone.gradCheckpointing = f.gradCheckpointing;
  const lora = loraConfigOf(f);
  if (resuming) checkResumedRank(f.out, rm.backbone.lora, f.loraRank);
  if (lora && !resuming) rm.addLora(lora, f.seed);
  if (lora) {
    const trainable = parameterCount(rm.trainableParams()).toLocaleString('en-US');
    log(`rm train: LoRA r=${lora.r} alpha=${lora.alpha} on ${lora.targets.join(', ')} + the score head: ${trainable} trainable parameters`);
  }
  const result = await runRmStage({
    rm,
    padId: tok.padId,
    tokenizerDir: f.model,
    train: trainRecords.map(toExample),
    heldOut: split.heldOut.map(toExample),
    ...runSettings(f),
    resume: resuming,
    pairLoss: f.pairLoss,
    pairCoef: f.pairCoef,
    extraFiles: { 'training_args.json': { stage: 'rm', base_model: f.model, ...f } },
  });
  if (f.mergeExport && !result.interrupted) {
    const original = f.baseDtype === 'fp32' ? undefined : (await loadMergedWeights(f.model)).weights; // no int8 / bf16 rounding in the export
    await saveCheckpoint(f.mergeExport, { config: rm.config, weights: rm.backbone.mergedWeights(original), tokenizerDir: f.model, extraFiles: { 'training_args.json': { stage: 'rm', base_model: f.model, ...f } } });
    log(`rm train: merged the adapter into ${f.mergeExport}`);
  }
  return { stage: 'rm', out: f.out, step: result.position.step, interrupted: result.interrupted, heldout: result.heldout };
}
