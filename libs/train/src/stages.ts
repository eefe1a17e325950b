// The supervised stages behind `sft pretrain | train` and `rm train` (apps/sft and apps/rm are their command lines):
//   runPretrain  a model from scratch (or --init) on a folder of Python files or a token cache (streamed, resumable in
//                chunks), next-token and fill-in-the-middle
//   runSft       fine-tuning on {prompt, response} jsonl, the loss on the response only
//   runRm        the reward model: a Qwen2 backbone + scalar head, regression on {prompt, response, score}
// Each reads its files, loads the model, trains (runLmStage / runRmStage) and returns the command's result line.
import { UsageError } from '@rlhf-code/cli';
import { initBackend, withLowPrecisionActivations } from '@rlhf-code/backend';
import { corpusDirs, openTokenCache, readCorpora, readRmData, readSftData, readTokenCacheDocs, splitHeldOut, tokenizerSha256, type RmRecord } from '@rlhf-code/data';
import { checkpointAt, checkResumedRank, loadMergedWeights, makeConfig, openCheckpoint, parameterCount, Qwen2Config, Qwen2Model, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { encodePair, FimMode, loadTokenizer, readFimMode, Tokenizer } from '@rlhf-code/tokenizer';
import { loraConfigOf, RunDir } from '@rlhf-code/trainer-core';
import { fimSftExample, LmExample, packExamples, pretrainWindows, sftExample } from './lm-data';
import { CacheWindows, heldOutWindows, lineEndTable, parsePackageWeights } from './lm-stream';
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
 * `carried`: a cache run's position.json and optional bf16 moments (RunDir.exportFiles).
 */
async function exportWeights(
  dir: string,
  model: Qwen2Model,
  weights: ReturnType<Qwen2Model['hostWeights']>,
  o: { tokenizerDir: string; tokenizerConfig?: Record<string, unknown>; dtype: 'F32' | 'BF16'; trainingArgs: object; carried?: Awaited<ReturnType<RunDir['exportFiles']>> },
  result: Awaited<ReturnType<typeof runLmStage>>,
): Promise<void> {
  await saveCheckpoint(dir, {
    config: model.config,
    weights,
    dtype: o.dtype,
    tokenizerDir: o.tokenizerDir,
    tokenizerConfig: o.tokenizerConfig,
    extraFiles: { 'training_args.json': o.trainingArgs, 'eval.json': { step: result.position.step, ...result.lastEval }, ...o.carried?.extraFiles },
    extraTensors: o.carried?.extraTensors,
    extraTensorsDtype: o.carried?.extraTensorsDtype,
  });
}

export async function runPretrain(f: PretrainSettings, log: (line: string) => void = console.error) {
  // Continued pretraining keeps the FIM order of the --init checkpoint unless --fim-mode says otherwise.
  const init = f.init ? checkpointAt(f.init, '--init') : undefined;
  const initMode = init ? readFimMode(init.dir) : undefined;
  const { tok, tokenizerConfig } = withFimMode(loadTokenizer(f.tokenizer), f.fimMode, initMode);
  const data = f.cache ? cacheData(f, tok) : corpusData(f, tok);
  const backend = await initBackend();
  log(`sft pretrain: backend ${backend.name}; ${data.summary}`);

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
  // With a token cache, --init goes on from the position its checkpoint records (step, data, tokens), if any.
  const start = f.cache && init ? await new RunDir(init.dir).startState(f.initOptimizer === 'carry') : undefined;
  if (f.cache && init && f.initOptimizer === 'carry' && !start) throw new UsageError(`--init-optimizer carry: ${f.init} records no position (no position.json or trainer_state.json) to carry an optimizer from`);
  const from = resumeDir(f);
  const model = from ? await Qwen2Model.load(from) : init ? (await openCheckpoint(init, { merge: true, tokenizer: false })).model : Qwen2Model.init(config, { seed: f.seed });
  model.recomputeLayers = f.recomputeLayers;
  const shape = (c: typeof config) =>
    JSON.stringify([c.vocab_size, c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.intermediate_size, c.rope_theta]);
  if (from && shape(model.config) !== shape(config)) {
    model.dispose();
    throw new UsageError(`${from}: cannot resume: its config.json differs from the model these flags describe (resume with the same settings)`);
  }
  log(`sft pretrain: ${(model.numParams / 1e6).toFixed(2)}M parameters, windows of ${f.seqLen} tokens, FIM rate ${f.fimRate} (${tok.fimMode.toUpperCase()} order), precision ${f.precision}`);

  const result = await runLmStage({
    label: 'pretrain',
    model,
    tokenizerDir: f.tokenizer,
    tokenizerConfig,
    padId: tok.padId,
    ...data.examples,
    heldOut: data.heldOut,
    maxEvalExamples: HELD_OUT_WINDOWS,
    ...runSettings(f),
    maxSteps: data.maxSteps,
    maxMinutes: f.maxMinutes,
    start,
    extraFiles: { 'training_args.json': { stage: 'pretrain', ...f } },
  });
  if (f.export && !result.interrupted) {
    // A cache run's export carries its position (and, asked, the optimizer's moments) for --init in another clone.
    const carried = f.cache ? await new RunDir(f.out).exportFiles(f.exportMoments) : undefined;
    await exportWeights(f.export, model, model.hostWeights(), { tokenizerDir: f.tokenizer, tokenizerConfig, dtype: f.exportDtype, trainingArgs: { stage: 'pretrain', ...f }, carried }, result);
    log(`sft pretrain: exported ${f.export} (${f.exportDtype}${carried ? `, position${f.exportMoments ? ' and bf16 optimizer moments' : ''}` : ''})`);
  }
  if (result.outOfTime) {
    log(
      `sft pretrain: --max-minutes ${f.maxMinutes} spent at step ${result.position.step}; checkpoint saved in ${f.out}. ` +
        `Continue with the same command and --resume` + (f.export ? `, or in a fresh clone with --init ${f.export}` : ''),
    );
  }
  const tokens = data.examples.stream ? { tokens: data.examples.stream.tokens } : {};
  return { stage: 'pretrain', out: f.out, step: result.position.step, interrupted: result.interrupted, outOfTime: result.outOfTime, ...tokens, ...result.lastEval };
}

/** Held-out windows evaluated at each save (the same ones every time). */
const HELD_OUT_WINDOWS = 64;

/** What pretraining trains on: the examples (an epoch's windows, or a stream), the held-out windows, the steps, and a line about them. */
interface PretrainData {
  examples: { examplesOf: (epoch: number) => LmExample[]; stream?: undefined } | { stream: CacheWindows; examplesOf?: undefined };
  heldOut: LmExample[];
  maxSteps: number;
  summary: string;
}

/** --corpus: the folders' files, tokenized and cut into windows afresh every epoch (pretrainWindows). */
function corpusData(f: PretrainSettings, tok: Tokenizer): PretrainData {
  const corpus = readCorpora(corpusDirs(f.corpus));
  const texts = corpus.train.map((c) => c.text);
  const opts = { seqLen: f.seqLen, fimRate: f.fimRate };
  return {
    // Fresh chunk boundaries and FIM splits every epoch.
    examples: { examplesOf: (epoch) => pretrainWindows(tok, texts, { ...opts, seed: `${f.seed}:${epoch}` }) },
    heldOut: pretrainWindows(tok, corpus.test.map((c) => c.text), { ...opts, seed: 'heldout' }),
    maxSteps: f.maxSteps,
    summary: `corpus ${corpus.train.length} training files, ${corpus.test.length} held-out files`,
  };
}

/**
 * --cache: windows streamed from the token cache's train split (CacheWindows), the held-out ones from its heldout
 * split. The cache must hold this tokenizer's ids: the same tokenizer.json (sha256) and vocabulary size.
 */
function cacheData(f: PretrainSettings, tok: Tokenizer): PretrainData {
  const dir = f.cache!;
  const cache = openTokenCache(dir);
  const made = cache.meta.tokenizer;
  const sha256 = tokenizerSha256(f.tokenizer);
  if (made.sha256 !== sha256 || made.vocab_size !== tok.vocabSize) {
    throw new UsageError(
      `--cache ${dir} was made with the tokenizer ${made.dir} (tokenizer.json sha256 ${made.sha256}, ${made.vocab_size} tokens), ` +
        `not with --tokenizer ${f.tokenizer} (sha256 ${sha256}, ${tok.vocabSize} tokens): its ids would mean other tokens (pass that tokenizer, or rebuild the cache with this one)`,
    );
  }
  const weights = parsePackageWeights(f.packageWeights);
  const packages = weights.size > 0 ? readTokenCacheDocs(cache, 'train').map((d) => d.package) : undefined;
  if (packages) {
    const known = new Set(packages);
    const unknown = [...weights.keys()].filter((p) => !known.has(p));
    if (unknown.length > 0) throw new UsageError(`--package-weights: ${unknown.join(', ')} not in ${dir}'s train split (it has ${[...known].sort().join(', ')})`);
  }
  const lineEnds = lineEndTable(tok);
  const train = cache.split('train');
  const info = cache.meta.splits.train;
  const stream = new CacheWindows(tok, train, {
    seqLen: f.seqLen,
    fimRate: f.fimRate,
    seed: f.seed,
    packageWeights: weights,
    packages,
    identity: { docs: info.docs, tokens: info.tokens, tokenizer: sha256 },
  }, lineEnds);
  const heldOut = cache.meta.splits.heldout ? heldOutWindows(tok, cache.split('heldout'), { seqLen: f.seqLen, fimRate: f.fimRate, count: HELD_OUT_WINDOWS, lineEnds }) : [];
  // Without --max-steps, --epochs passes over the weighted data (the FIM markers' few tokens not counted).
  const maxSteps = f.maxSteps > 0 ? f.maxSteps : Math.max(1, Math.round((f.epochs * stream.epochTokens()) / (f.seqLen * f.batchSize * f.gradAccum)));
  const weighted = weights.size > 0 ? `, ${(stream.epochTokens() / 1e6).toFixed(2)}M an epoch under --package-weights` : '';
  return {
    examples: { stream },
    heldOut,
    maxSteps,
    summary:
      `cache ${dir}: ${info.docs} training documents, ${(info.tokens / 1e6).toFixed(2)}M tokens${weighted}; ` +
      `${heldOut.length} held-out windows${cache.meta.splits.heldout ? '' : ' (no heldout split)'}; ${maxSteps} steps of ${f.batchSize * f.gradAccum} x ${f.seqLen} tokens`,
  };
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
  rm.backbone.recomputeLayers = f.recomputeLayers;
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
