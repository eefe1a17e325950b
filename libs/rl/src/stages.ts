// The RL stage behind `rl train` (apps/rl is its command line): runRl, an algorithm of the registry (--algo) on the SFT policy
// against the tests of the prompts and / or the reward model. It reads the prompts and the held-out prompts, loads
// the models, builds the reward from its sources, runs the loop (runRlLoop) and returns the command's result line.
import * as fs from 'fs';
import { initBackend } from '@rlhf-code/backend';
import { UsageError } from '@rlhf-code/cli';
import { openEngine } from '@rlhf-code/engine';
import { readPpoData, PpoRecord } from '@rlhf-code/data';
import { checkpointAt, checkVocabulary, loadMergedWeights, parameterCount, saveCheckpoint } from '@rlhf-code/model';
import { SandboxPool } from '@rlhf-code/sandbox';
import { encodePrompt, endTokenId, stopTokenIds, type Tokenizer } from '@rlhf-code/tokenizer';
import { loraConfigOf, RunDir } from '@rlhf-code/trainer-core';
import { execPromptOf, executionScorer } from './execution-scorer';
import { HeldOutProbe, HeldOutRecord } from './heldout';
import { loadRlModels, saveRlCheckpoint } from './rl-models';
import { runRlLoop } from './rl-run';
import { RlTrainer } from './rl-trainer';
import { combineScorers, rewardModelScorer, Scorer } from './scorers';
import type { PolicyGradientSettings, RlSettings } from './settings';
import { runRft } from './rft';

/**
 * The prompts of --heldout-data (null for "none"), checked before any model is loaded: the file exists, has at
 * least 2 prompts, and none of them is a training prompt (that is what makes them held out).
 */
async function readHeldOut(f: PolicyGradientSettings, training: readonly PpoRecord[]): Promise<PpoRecord[] | null> {
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

/** Draws the held-out history so far (heldout.svg in --out), after each measurement. */
export type HeldOutPlot = (history: readonly HeldOutRecord[]) => Promise<void>;

/** The first and last held-out measurement, for the final JSON line. */
function heldOutSummary(records: readonly HeldOutRecord[]): Record<string, unknown> | null {
  if (records.length === 0) return null;
  const last = records[records.length - 1];
  return { first_step: records[0].step, last_step: last.step, start: records[0].metrics, end: last.metrics, vs_start: last.vs_start ?? null };
}

/**
 * The training prompts and the reward weights they imply, and the held-out prompts: everything checked before a
 * model is loaded.
 */
async function readPrompts(f: PolicyGradientSettings) {
  let records = await readPpoData(f.data);
  if (f.limit > 0) records = records.slice(0, f.limit);
  if (records.length < f.batchSize) throw new UsageError(`--batch-size ${f.batchSize}: ${f.data} has only ${records.length} prompt${records.length === 1 ? '' : 's'} (after --limit)`);
  const withTests = records.filter((r) => r.tests && r.tests.length > 0).length;
  // The default reward: the tests when the prompts have them (the reward model is then scored beside, weight 0), else
  // the reward model.
  const execWeight = f.execRewardWeight ?? (withTests > 0 ? 1 : 0);
  const useRm = f.rewardModel !== 'none';
  const rmWeight = f.rmWeight ?? (withTests > 0 ? 0 : 1);
  if (!useRm && execWeight === 0) throw new UsageError('--reward-model none needs an execution reward: prompts with tests and --exec-reward-weight > 0');
  if (execWeight === 0 && rmWeight === 0) throw new UsageError('--exec-reward-weight 0 and --rm-weight 0 leave no reward');
  if (execWeight > 0 && withTests === 0) throw new UsageError(`--exec-reward-weight ${execWeight}: no prompt in ${f.data} has tests`);
  const heldOutRecords = await readHeldOut(f, records);
  return { records, withTests, execWeight, rmWeight, useRm, heldOutRecords };
}

/** The policy, reference, reward model and value head of the run (from --out with --resume), checked against the tokenizer and the lengths. */
async function loadModels(f: PolicyGradientSettings, tok: Tokenizer, useRm: boolean, log: (line: string) => void) {
  const backend = await initBackend();
  const resumeDir = new RunDir(f.out).resumeFrom(f.resume);
  if (f.resume && !resumeDir) log(`rl: --resume: no checkpoint in ${f.out} yet, starting from ${f.model}`);
  const lora = loraConfigOf({ ...f, loraDropout: 0 });
  const models = await loadRlModels({ modelDir: f.model, resumeDir, algo: f.algo, rewardModelDir: useRm ? f.rewardModel : null, lora, baseDtype: f.baseDtype, seed: f.seed });
  const rm = models.rm;
  models.policy.recomputeLayers = f.recomputeLayers; // the update's backward pass; rollouts and scoring have none
  const maxPos = models.policy.config.max_position_embeddings;
  if (f.maxPromptLen + f.maxNewTokens > maxPos) {
    throw new UsageError(`--max-prompt-len ${f.maxPromptLen} + --max-new-tokens ${f.maxNewTokens} exceed the model's ${maxPos} positions`);
  }
  for (const [name, vocab] of [['policy', models.policy.config.vocab_size], ['reward model', rm?.config.vocab_size ?? Infinity]] as const) {
    checkVocabulary(tok, vocab, f.model, `the ${name}'s`);
  }
  return { backend, lora, models, rm };
}

/** The stage behind `rl train`: the algorithm's own runner (expert iteration) or the policy-gradient loop. */
export async function runRl(f: RlSettings, plot?: HeldOutPlot, log: (line: string) => void = console.error) {
  return f.algo === 'rft' ? runRft(f, log) : runPolicyGradient(f, plot, log);
}

async function runPolicyGradient(f: PolicyGradientSettings, plot?: HeldOutPlot, log: (line: string) => void = console.error) {
  const sft = checkpointAt(f.model, '--model');
  if (f.rewardModel !== 'none') checkpointAt(f.rewardModel, '--reward-model', 'reward-model');
  const tok = sft.tokenizer();
  const { records, withTests, execWeight, rmWeight, useRm, heldOutRecords } = await readPrompts(f);

  const { backend, lora, models, rm } = await loadModels(f, tok, useRm, log);

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
    if (rm) sources.push({ name: 'rm_score', weight: rmWeight, scorer: rewardModelScorer(rm, { padId: tok.padId, endId: endTokenId(tok, f.template), batchSize: 8 }) });
    if (execWeight > 0 || (execAlways && rs.some((r) => r.tests && r.tests.length > 0))) {
      sources.push({ name: 'exec_score', weight: execWeight, scorer: executionScorer({ pool, prompts: rs.map(execPromptOf), decode, stopTokenIds: stops, template: f.template }) });
    }
    return sources;
  };
  const sources = scoreSources(records, false);
  const heldOut = heldOutRecords
    ? {
        probe: new HeldOutProbe({
          prompts: encode(heldOutRecords),
          scorer: combineScorers(scoreSources(heldOutRecords, true)),
          samples: f.heldoutSamples,
          maxNewTokens: f.maxNewTokens,
          temperature: f.temperature,
          stopTokenIds: stops,
          seed: f.seed,
          batchSize: f.heldoutBatchSize,
          vocabSize: tok.vocabSize,
        }),
        every: f.heldoutEvery,
        onRecord: plot,
      }
    : null;
  log(
    `rl: backend ${backend.name}; ${f.algo} on ${records.length} prompts from ${f.data} (${withTests} with tests)` +
      (heldOut
        ? `, measured ${f.heldoutEvery > 0 ? `every ${f.heldoutEvery} iterations` : 'at the start and the end'} on ${heldOut.probe.options.prompts.length} held-out prompts of ${f.heldoutData}; `
        : '; ') +
      `policy ${f.model} (${(models.policy.numParams / 1e6).toFixed(2)}M parameters` +
      (lora ? `, LoRA r=${lora.r}: ${parameterCount(models.policy.trainableParams()).toLocaleString('en-US')} trainable, reference = the base without the adapter` : '') +
      ')' +
      (rm ? `; reward model ${f.rewardModel}${models.rmSharesBase ? ' (an adapter on the same base)' : ''}` : '') +
      (models.valueHeadSource ? `, value head from ${models.valueHeadSource}` : '') +
      `; score = ${sources.map((s) => `${s.weight} x ${s.name}`).join(' + ')}`,
  );

  const engine = await openEngine(f, { model: models.policy, tokenizer: tok, checkpointDir: f.model, publishes: true });
  const rl = new RlTrainer(models, combineScorers(sources), f, { padId: tok.padId, stopTokenIds: stops, vocabSize: tok.vocabSize }, { engine, baseModel: f.model });
  const trainingArgs = { stage: f.algo, base_model: f.model, reward_model: f.rewardModel, exec_reward_weight: execWeight, rm_weight: rmWeight, value_head: models.valueHeadSource, ...f };
  try {
    const result = await runRlLoop({
      rl,
      prompts,
      batchSize: f.batchSize,
      steps: f.steps,
      outDir: f.out,
      saveEvery: f.saveEvery,
      save: (trainingState) => saveRlCheckpoint(f.out, models, { tokenizerDir: f.model, baseModel: f.model, trainingState, extraFiles: { 'training_args.json': trainingArgs } }),
      resume: f.resume,
      label: f.algo,
      quiet: f.quiet,
      seed: f.seed,
      heldOut: heldOut ?? undefined,
    });
    if (f.mergeExport && !result.interrupted) {
      // A low-precision base is folded into --model's own weights: no int8 / bf16 rounding in the export.
      const original = f.baseDtype !== 'fp32' && lora ? (await loadMergedWeights(f.model)).weights : undefined;
      const weights = models.policy.mergedWeights(original);
      for (const [name, t] of models.valueHead?.hostWeights() ?? []) weights.set(name, t);
      await saveCheckpoint(f.mergeExport, { config: models.policy.config, weights, tokenizerDir: f.model, extraFiles: { 'training_args.json': trainingArgs } });
      log(`${f.algo}: merged the adapter into ${f.mergeExport}`);
    }
    const first = result.history[0];
    const last = result.history[result.history.length - 1];
    return {
      stage: f.algo,
      out: f.out,
      step: result.steps,
      interrupted: result.interrupted,
      first_reward_mean: first?.['env/reward_mean'] ?? null,
      last_reward_mean: last?.['env/reward_mean'] ?? null,
      last_kl: last?.['objective/kl'] ?? null,
      heldout: heldOutSummary(result.heldOut),
    };
  } finally {
    await engine.close();
    rl.dispose();
    rm?.dispose();
  }
}
