// ppo: reinforcement learning of the SFT policy against the reward model (and, when the prompts carry
// tests, the code's execution score), with PPO or GRPO. The loop lives in @rlhf-code/rl; this file turns
// flags, files and text into its inputs.
import * as fs from 'fs';
import * as path from 'path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import { readPpoData, PpoRecord } from '@rlhf-code/data';
import { heldOutSpec, renderSvg } from '@rlhf-code/eval';
import { loadTrainingState, RewardModel, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import {
  combineScorers,
  executionScorer,
  ExecPrompt,
  HELDOUT_SVG,
  HeldOutProbe,
  HeldOutRecord,
  LOSS_AGGREGATIONS,
  loadPpoModels,
  PpoConfig,
  PpoTrainer,
  rewardModelScorer,
  runPpo,
  savePpoCheckpoint,
  Scorer,
} from '@rlhf-code/rl';
import { SandboxPool } from '@rlhf-code/sandbox';
import { encodePrompt, endTokenId, loadTokenizer, PROMPT_TEMPLATES, stopTokenIds } from '@rlhf-code/tokenizer';

// ---------------------------------------------------------------------------------------------
// Settings with their defaults (one place; --help prints them)

const num = () => z.coerce.number();
const int = () => z.coerce.number().int();

const TrainFlags = z
  .object({
    model: z.string(),
    rewardModel: z.string(),
    data: z.string(),
    out: z.string(),
    algo: z.enum(['ppo', 'grpo']),
    groupSize: int().min(2),
    steps: int().positive(),
    batchSize: int().positive(),
    miniBatches: int().positive(),
    microBatchSize: int().nonnegative(),
    ppoEpochs: int().positive(),
    maxNewTokens: int().positive(),
    maxPromptLen: int().positive(),
    temperature: num().positive(),
    template: z.enum(PROMPT_TEMPLATES as ['raw', 'chat']),
    lr: num().positive(),
    minLr: num().nonnegative().optional(),
    warmupSteps: int().nonnegative(),
    weightDecay: num().nonnegative(),
    beta1: num().min(0).lt(1),
    beta2: num().min(0).lt(1),
    maxGradNorm: num().nonnegative(),
    initKlCoef: num().nonnegative(),
    klTarget: num().positive().optional(),
    klHorizon: num().positive(),
    targetKlStop: num().nonnegative(),
    cliprange: num().positive(),
    cliprangeValue: num().positive(),
    vfCoef: num().nonnegative(),
    valueWarmup: int().nonnegative(),
    valueWarmupLr: num().positive(),
    gamma: num().min(0).max(1),
    lam: num().min(0).max(1),
    whitenAdvantages: z.boolean(),
    lossAggregation: z.enum(LOSS_AGGREGATIONS as ['token-mean', 'seq-mean']),
    missingEosPenalty: num().nonnegative(),
    scoreClip: num().nonnegative(),
    rmWeight: num().nonnegative(),
    execRewardWeight: num().nonnegative().optional(),
    execTimeoutMs: int().positive(),
    limit: int().nonnegative(),
    heldoutData: z.string(),
    heldoutEvery: int().nonnegative(),
    heldoutSamples: int().positive(),
    heldoutLimit: int().nonnegative(),
    saveEvery: int().nonnegative(),
    seed: int(),
    resume: z.boolean().default(false),
    quiet: z.boolean().default(false),
    backend: backendSchema,
  });

type Flags = z.output<typeof TrainFlags>;

function ppoConfig(f: Flags): PpoConfig {
  return {
    algo: f.algo,
    groupSize: f.groupSize,
    maxNewTokens: f.maxNewTokens,
    temperature: f.temperature,
    ppoEpochs: f.ppoEpochs,
    miniBatches: f.miniBatches,
    microBatchSize: f.microBatchSize,
    gamma: f.gamma,
    lam: f.lam,
    clipRange: f.cliprange,
    clipRangeValue: f.cliprangeValue,
    vfCoef: f.vfCoef,
    whitenAdvantages: f.whitenAdvantages,
    lossAggregation: f.lossAggregation,
    targetKlStop: f.targetKlStop,
    missingEos: f.missingEosPenalty > 0 ? { mode: 'subtract', value: f.missingEosPenalty } : null,
    scoreClip: f.scoreClip,
    kl: { initValue: f.initKlCoef, target: f.klTarget, horizon: f.klHorizon },
    optim: {
      lr: f.lr,
      minLr: f.minLr ?? f.lr,
      warmupSteps: f.warmupSteps,
      weightDecay: f.weightDecay,
      beta1: f.beta1,
      beta2: f.beta2,
      maxGradNorm: f.maxGradNorm,
    },
    valueWarmup: f.valueWarmup,
    valueWarmupLr: f.valueWarmupLr,
    totalSteps: f.steps,
    seed: f.seed,
  };
}

/** MBPP rows carry `setup`; older files MBPP's own `test_setup_code`. */
function execPrompt(r: PpoRecord): ExecPrompt {
  const setup = typeof r.setup === 'string' ? r.setup : r.test_setup_code;
  return { prompt: r.prompt, tests: r.tests, setup: setup || undefined };
}

/**
 * The prompts of --heldout-data (null for "none"), checked before any model is loaded: the file exists, has at
 * least 2 prompts, and none of them is a training prompt (that is what makes them held out).
 */
async function readHeldOut(f: Flags, training: readonly PpoRecord[]): Promise<PpoRecord[] | null> {
  if (f.heldoutData === 'none') return null;
  if (!fs.existsSync(f.heldoutData)) throw new UsageError(`--heldout-data ${f.heldoutData}: file not found (pass --heldout-data none to train without held-out measurements)`);
  let rs = await readPpoData(f.heldoutData);
  if (f.heldoutLimit > 0) rs = rs.slice(0, f.heldoutLimit);
  const trained = new Set(training.map((r) => r.prompt));
  const overlap = rs.filter((r) => trained.has(r.prompt)).length;
  if (overlap > 0) throw new UsageError(`--heldout-data ${f.heldoutData}: ${overlap} of its prompts are also in --data ${f.data}; held-out prompts must not be trained on`);
  if (rs.length < 2) throw new UsageError(`--heldout-data ${f.heldoutData}: need at least 2 prompts, found ${rs.length}`);
  return rs;
}

/** The held-out measurement of those prompts, plotted to heldout.svg in --out after each record. */
function heldOutMeasurement(
  f: Flags,
  probe: HeldOutProbe,
): { probe: HeldOutProbe; every: number; onRecord: (h: readonly HeldOutRecord[]) => Promise<void> } {
  const svg = path.join(f.out, HELDOUT_SVG);
  const onRecord = async (history: readonly HeldOutRecord[]) => {
    try {
      fs.writeFileSync(svg, await renderSvg(heldOutSpec(history)));
    } catch (e) {
      console.error(`ppo: warning: could not draw ${svg}: ${(e as Error).message}`);
    }
  };
  return { probe, every: f.heldoutEvery, onRecord };
}

/** The first and last held-out measurement, for the final JSON line. */
function heldOutSummary(records: readonly HeldOutRecord[]): Record<string, unknown> | null {
  if (records.length === 0) return null;
  const last = records[records.length - 1];
  return { first_step: records[0].step, last_step: last.step, start: records[0].metrics, end: last.metrics, vs_start: last.vs_start ?? null };
}

// ---------------------------------------------------------------------------------------------

async function train(opts: unknown): Promise<void> {
  const f = parseFlags(TrainFlags, opts);
  const cfg = ppoConfig(f);
  const tok = loadTokenizer(f.model);
  let records = await readPpoData(f.data);
  if (f.limit > 0) records = records.slice(0, f.limit);
  if (records.length < f.batchSize) throw new UsageError(`--batch-size ${f.batchSize}: ${f.data} has only ${records.length} prompt${records.length === 1 ? '' : 's'} (after --limit)`);
  const withTests = records.filter((r) => r.tests && r.tests.length > 0).length;
  const execWeight = f.execRewardWeight ?? (withTests > 0 ? 0.5 : 0);
  const useRm = f.rewardModel !== 'none';
  if (!useRm && execWeight === 0) throw new UsageError('--reward-model none needs an execution reward: prompts with tests and --exec-reward-weight > 0');
  if (execWeight > 0 && withTests === 0) throw new UsageError(`--exec-reward-weight ${execWeight}: no prompt in ${f.data} has tests`);
  const heldOutRecords = await readHeldOut(f, records);

  const backend = await initBackend({ backend: f.backend });
  const resumeDir = f.resume && fs.existsSync(path.join(f.out, TRAINER_STATE_FILE)) ? f.out : undefined;
  if (f.resume && !resumeDir) console.error(`ppo: --resume: no checkpoint in ${f.out} yet, starting from ${f.model}`);
  const rm = useRm ? await RewardModel.load(f.rewardModel, { trainable: false }) : null;
  const models = await loadPpoModels({ modelDir: f.model, resumeDir, algo: f.algo, rewardHead: rm?.head, seed: f.seed });
  const maxPos = models.policy.config.max_position_embeddings;
  if (f.maxPromptLen + f.maxNewTokens > maxPos) {
    throw new UsageError(`--max-prompt-len ${f.maxPromptLen} + --max-new-tokens ${f.maxNewTokens} exceed the model's ${maxPos} positions`);
  }
  for (const [name, vocab] of [['policy', models.policy.config.vocab_size], ['reward model', rm?.config.vocab_size ?? Infinity]] as const) {
    if (tok.vocabSize > vocab) throw new UsageError(`${f.model}: its tokenizer has ${tok.vocabSize} tokens, more than the ${name}'s ${vocab}`);
  }

  // Prompts cut from the left (the end of a prompt sits next to the response).
  const encode = (rs: readonly PpoRecord[]) => rs.map((r, index) => ({ index, ids: encodePrompt(tok, r.prompt, f.template).slice(-f.maxPromptLen) }));
  const prompts = encode(records);
  const stops = stopTokenIds(tok, f.template);
  const pool = new SandboxPool({ concurrency: 2, timeoutMs: f.execTimeoutMs });
  const decode = (ids: number[]) => tok.decode(ids);
  // The score sources for a prompt list: the reward model, and running the code when the prompts carry tests.
  // `execAlways`: keep the execution score (at its weight, maybe 0) even when it is not part of the reward.
  const scoreSources = (rs: readonly PpoRecord[], execAlways: boolean) => {
    const sources: { name: string; weight: number; scorer: Scorer }[] = [];
    if (rm) sources.push({ name: 'rm_score', weight: f.rmWeight, scorer: rewardModelScorer(rm, { padId: tok.padId, endId: endTokenId(tok, f.template), batchSize: 8 }) });
    if (execWeight > 0 || (execAlways && rs.some((r) => r.tests && r.tests.length > 0))) {
      sources.push({ name: 'exec_score', weight: execWeight, scorer: executionScorer({ pool, prompts: rs.map(execPrompt), decode, stopTokenIds: stops, template: f.template }) });
    }
    return sources;
  };
  const sources = scoreSources(records, false);
  const heldOut = heldOutRecords
    ? heldOutMeasurement(
        f,
        new HeldOutProbe({
          prompts: encode(heldOutRecords),
          scorer: combineScorers(scoreSources(heldOutRecords, true)),
          samples: f.heldoutSamples,
          maxNewTokens: f.maxNewTokens,
          temperature: f.temperature,
          padId: tok.padId,
          stopTokenIds: stops,
          seed: f.seed,
          batchSize: 32,
        }),
      )
    : null;
  console.error(
    `ppo: backend ${backend.name}; ${f.algo} on ${records.length} prompts from ${f.data} (${withTests} with tests)` +
      (heldOut
        ? `, measured ${f.heldoutEvery > 0 ? `every ${f.heldoutEvery} iterations` : 'at the start and the end'} on ${heldOut.probe.options.prompts.length} held-out prompts of ${f.heldoutData}; `
        : '; ') +
      `policy ${f.model} (${(models.policy.numParams / 1e6).toFixed(2)}M parameters)` +
      (models.valueHeadSource ? `, value head from ${models.valueHeadSource}` : '') +
      `; score = ${sources.map((s) => `${s.weight} x ${s.name}`).join(' + ')}`,
  );

  const ppo = new PpoTrainer(models, combineScorers(sources), cfg, { padId: tok.padId, stopTokenIds: stops });
  const trainingArgs = { stage: f.algo, base_model: f.model, reward_model: f.rewardModel, exec_reward_weight: execWeight, value_head: models.valueHeadSource, ...f };
  try {
    const result = await runPpo({
      ppo,
      prompts,
      batchSize: f.batchSize,
      steps: f.steps,
      outDir: f.out,
      saveEvery: f.saveEvery,
      save: (trainingState) => savePpoCheckpoint(f.out, models, { tokenizerDir: f.model, trainingState, extraFiles: { 'training_args.json': trainingArgs } }),
      resumeState: resumeDir ? await loadTrainingState(resumeDir) : undefined,
      label: f.algo,
      quiet: f.quiet,
      seed: f.seed,
      heldOut: heldOut ?? undefined,
    });
    const first = result.history[0];
    const last = result.history[result.history.length - 1];
    console.log(
      JSON.stringify({
        stage: f.algo,
        out: f.out,
        step: result.steps,
        interrupted: result.interrupted,
        first_reward_mean: first?.['env/reward_mean'] ?? null,
        last_reward_mean: last?.['env/reward_mean'] ?? null,
        last_kl: last?.['objective/kl'] ?? null,
        heldout: heldOutSummary(result.heldOut),
      }),
    );
    if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
  } finally {
    ppo.dispose();
    rm?.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Flags

const program = new Command('ppo').description('Reinforcement learning of a code policy: PPO (critic = value head) or GRPO (critic-free).');
program
  .command('train')
  .description(
    'RL from the SFT checkpoint against the reward model (+ execution score); saves the policy in Hugging Face layout. ' +
      "PPO's critic is a value head (v_head) on the policy's own final hidden states (no second model: CPU budget), " +
      "initialised from the reward model's score head when the widths match.",
  )
  .addOption(new Option('--model <dir>', 'starting policy (SFT checkpoint); also the frozen reference and the tokenizer').env('MODEL_PATH').default('results/sft'))
  .option('--reward-model <dir>', 'reward model folder (Qwen2ForSequenceClassification); "none" = execution reward only', 'results/rm')
  .option('--data <file>', 'prompts, one {"prompt", "tests"?, "setup"?} per line', 'data/ppo_prompts.jsonl')
  .option('--out <dir>', 'checkpoint folder (policy + v_head, optimizer and KL state for --resume, metrics.jsonl)', 'results/ppo')
  .addOption(new Option('--algo <name>', 'ppo: GAE with a value head; grpo: group-normalised rewards, no critic').choices(['ppo', 'grpo']).default('ppo'))
  .option('--group-size <n>', 'grpo: responses sampled per prompt', '4')
  .option('--steps <n>', 'PPO iterations (rollout + update)', '30')
  .option('--batch-size <n>', 'prompts per iteration (grpo: each sampled --group-size times; run_all uses 4 with grpo)', '16')
  .option('--mini-batches <n>', 'optimizer steps per epoch over the rollout', '2')
  .option('--micro-batch-size <n>', 'rows per forward/backward pass (gradient accumulation); 0 = a whole minibatch', '4')
  .option('--ppo-epochs <n>', 'passes over each rollout', '4')
  .option('--max-new-tokens <n>', 'longest response; a response cut here gets --missing-eos-penalty', '128')
  .option('--max-prompt-len <n>', 'prompts are cut from the left to this many tokens', '256')
  .option('--temperature <t>', 'sampling temperature (pure sampling: top-k 0, top-p 1); log-probs use the same', '0.7')
  .addOption(new Option('--template <name>', 'prompt format: raw text (code models) or ChatML (instruct models)').choices(['raw', 'chat']).default('raw'))
  .option('--lr <x>', 'learning rate (AdamW)', '5e-5')
  .option('--min-lr <x>', 'learning rate at the end of the cosine decay (default: --lr, i.e. constant)')
  .option('--warmup-steps <n>', 'linear warmup, in optimizer steps', '0')
  .option('--weight-decay <x>', 'decoupled weight decay on matrices', '0')
  .option('--beta1 <x>', 'AdamW beta1', '0.9')
  .option('--beta2 <x>', 'AdamW beta2', '0.999')
  .option('--max-grad-norm <x>', 'clip the global gradient norm (0 = off)', '1')
  .option('--init-kl-coef <x>', 'KL coefficient (ppo: penalty in the reward; grpo: k3 KL term in the loss)', '0.05')
  .option('--kl-target <x>', 'adapt the KL coefficient towards this KL per response (Ziegler et al.); unset = fixed')
  .option('--kl-horizon <n>', 'adaptive KL: horizon in samples', '10000')
  .option('--target-kl-stop <x>', 'stop an iteration\'s epochs when a minibatch\'s approx KL exceeds this (0 = never)', '0')
  .option('--cliprange <x>', 'policy ratio clip', '0.2')
  .option('--cliprange-value <x>', 'value clip around the rollout values', '0.2')
  .option('--vf-coef <x>', 'weight of the value loss', '0.1')
  .option('--value-warmup <n>', 'ppo: the first n iterations train only the value head (policy frozen), so the advantages mean something when the policy starts to move', '0')
  .option('--value-warmup-lr <x>', 'ppo: learning rate of the value head during --value-warmup', '1e-3')
  .option('--gamma <x>', 'discount', '1')
  .option('--lam <x>', 'GAE lambda', '0.95')
  .option('--no-whiten-advantages', 'do not normalise advantages to mean 0, variance 1 (ppo)')
  .addOption(new Option('--loss-aggregation <mode>', 'token-mean: every token counts once; seq-mean: every response counts once').choices([...LOSS_AGGREGATIONS]).default('token-mean'))
  .option('--missing-eos-penalty <x>', 'subtracted from the score of responses that never emitted EOS (0 = off)', '1')
  .option('--score-clip <x>', 'clip scores to [-x, x] (0 = off)', '5')
  .option('--rm-weight <x>', 'weight of the reward-model score', '1')
  .option('--exec-reward-weight <x>', 'weight of the sandbox execution score in [0, 1] (default 0.5 when prompts have tests, else 0)')
  .option('--exec-timeout-ms <n>', 'sandbox wall-clock limit per response', '5000')
  .option('--limit <n>', 'use only the first n prompts (0 = all)', '0')
  .option('--heldout-data <file>', 'prompts PPO never trains on, measured before the first iteration, every --heldout-every iterations and at the end (heldout.jsonl, heldout.svg in --out); "none" = off', 'data/mbpp_validation.jsonl')
  .option('--heldout-every <n>', 'iterations between held-out measurements (0 = only at the start and the end)', '10')
  .option('--heldout-samples <k>', 'responses sampled per held-out prompt (at --temperature, the same seed every time)', '2')
  .option('--heldout-limit <n>', 'measure only the first n held-out prompts (0 = all)', '0')
  .option('--save-every <n>', 'also save every n iterations (0 = only at the end)', '10')
  .option('--seed <n>', 'seed of sampling, prompt order and value-head initialisation', '0')
  .option('--resume', 'continue from the checkpoint in --out (same settings)')
  .option('--quiet', 'no progress bar')
  .addOption(backendOption())
  .action(train);

runCli(program, shutdownBackend);
