// One RL iteration of a policy-gradient algorithm (algorithms.ts: PPO, GRPO, RLOO): rollout -> score ->
// advantages -> a few epochs of clipped updates. The algorithm's record says how many responses a prompt gets,
// whether a critic trains, where the KL goes and how advantages are made; this file has no branch on its name.
//
//   1. sample responses (pure sampling at the temperature) for a batch of prompts (samplesPerPrompt each, together)
//   2. forward passes without gradients: the policy's log-probs, entropies and values (critic), the reference's
//   3. scores from the scorer, then the missing-EOS penalty and clipping
//   4. per-token rewards (the score at the last token, minus the k1 KL penalty when the KL goes in the reward), then
//      the record's advantages (PPO: GAE + whitening; GRPO: group-normalised, maybe dropping uniform groups; RLOO:
//      leave-one-out on the sequence reward)
//   5. ppoEpochs passes over the rollout in miniBatches minibatches, one optimizer step each: clipped policy loss
//      (+ klCoef * k3 KL when the KL goes in the loss, + vfCoef * clipped value loss with a critic), stopped early
//      when the approximate KL to the rollout policy passes targetKlStop. During a critic's first valueWarmup
//      iterations only the value head learns (value loss, its own optimizer): the policy waits until the critic's
//      advantages mean something.
//   6. the KL controller sees the rollout's KL
//   7. the updated policy is published to the rollout engine as the next version (a no-op write for the local engine)
// Everything here is token-id level; text, files and checkpoints belong to the caller (rl-run.ts, the app).
import * as tf from '@tensorflow/tfjs';
import { LocalEngine, publishPolicy, type RolloutEngine } from '@rlhf-code/engine';
import { resumableRng, Qwen2Model, Rng, ScalarHead } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { MicroBatch, Trainer, trainerConfig } from '@rlhf-code/trainer-core';
import { criticOf, CriticSettings, PolicyGradientAlgorithm, policyGradientOf } from './algorithms';
import { createKlController, KlController, KlControllerState, restoreKlController } from './kl-controller';
import { LossAggregation, maskedMean } from './masked';
import { mean, METRICS, MetricRecord, rolloutMetrics } from './metrics';
import { forwardResponses, forwardResponsesToHost } from './policy-forward';
import { clippedUpdate, policyLoss } from './clipped-update';
import { truncatedIsWeights } from './policy-loss';
import { applyMissingEosPenalty, clipScores, perTokenRewards } from './rewards';
import { chunksByLength, layoutSequences, sampleResponses, selectRows, SequenceBatch, takeRows } from './rollout';
import { CombinedScorer, rolloutSamples } from './scorers';
import type { PolicyGradientSettings } from './settings';
import { clippedValueLoss } from './value-loss';

export interface RlModels {
  /** Trained. */
  policy: Qwen2Model;
  /** The frozen starting policy: a copy, or with LoRA the policy's own base without its adapter (policy.view(null)). */
  reference: Qwen2Model;
  /** A critic's head on the policy's hidden states (algorithms with a critic); else null. */
  valueHead: ScalarHead | null;
}

export interface RlPrompt {
  /** Index in the caller's prompt list (passed on to the scorer). */
  index: number;
  ids: number[];
}

/** What --resume needs besides weights and optimizer moments. */
export interface RlTrainerState {
  iteration: number;
  kl: KlControllerState;
  rng: object;
}

/** What samples the rollouts, and what a published policy version names as its base. */
export interface RolloutEngineLink {
  engine: RolloutEngine;
  /** The adapter's base_model_name_or_path, and the tokenizer files of a full checkpoint. */
  baseModel: string;
}

/** Host arrays of one rollout, rows [N] and tokens [N][R]. */
interface Rollout {
  batch: SequenceBatch;
  oldLogprobs: number[][];
  refLogprobs: number[][];
  advantages: number[][];
  /** With a critic. */
  oldValues?: number[][];
  returns?: number[][];
  /** The rows the update trains on (default all; GRPO with dropUniformGroups: those of groups with a signal). */
  rows?: number[];
  /** --rollout-is token-truncate: the per-token weights of the clipped loss. */
  isWeights?: number[][];
}

export class RlTrainer {
  readonly trainer: Trainer;
  /** The value head's own optimizer for the warm-up iterations (null without warm-up). */
  readonly valueTrainer: Trainer | null;
  readonly algorithm: PolicyGradientAlgorithm;
  /** The critic's settings (algorithms with a critic), else null. */
  readonly critic: CriticSettings | null;
  kl: KlController;
  rng: Rng;
  /** Iterations done. */
  iteration = 0;

  constructor(
    readonly models: RlModels,
    readonly scorer: CombinedScorer,
    readonly config: PolicyGradientSettings,
    /** vocabSize: default the policy's rows. */
    readonly tokens: { padId: number; stopTokenIds: number[]; vocabSize?: number },
    /** Default: the local engine on the policy. */
    readonly rollouts: RolloutEngineLink = { engine: new LocalEngine(models.policy), baseModel: '' },
  ) {
    this.algorithm = policyGradientOf(config.algo);
    this.critic = criticOf(config);
    checkConfig(this.algorithm, models);
    // With LoRA: the adapter (and the value head); the base has no gradient and no optimizer state.
    const params: Record<string, tf.Variable> = { ...models.policy.trainableParams(), ...(models.valueHead?.params ?? {}) };
    this.trainer = new Trainer(params, trainerConfig(config, config.steps * config.ppoEpochs * config.miniBatches));
    const critic = this.critic;
    const warmup = critic && models.valueHead && critic.valueWarmup > 0 ? critic.valueWarmup * config.ppoEpochs * config.miniBatches : 0;
    this.valueTrainer =
      warmup && critic
        ? new Trainer(models.valueHead!.params, {
            optimizer: { lr: critic.valueWarmupLr, weightDecay: 0, beta1: config.beta1, beta2: config.beta2 },
            schedule: { totalSteps: warmup, kind: 'constant' },
            maxGradNorm: config.maxGradNorm,
          })
        : null;
    this.kl = createKlController({ initValue: config.initKlCoef, target: config.klTarget, horizon: config.klHorizon });
    this.rng = resumableRng(`ppo:${config.seed}`); // the stream keeps its first name: the same seed samples as before
  }

  /** True while only the value head learns. */
  get warmingUp(): boolean {
    return this.valueTrainer !== null && this.iteration < this.critic!.valueWarmup;
  }

  state(): RlTrainerState {
    return { iteration: this.iteration, kl: this.kl.state(), rng: this.rng.state() };
  }

  /** Continue from state(); the optimizer is restored separately (restoreTrainingState). */
  restore(state: unknown, where = 'RL trainer state'): void {
    const s = state as Partial<RlTrainerState> | null;
    if (!s || !Number.isInteger(s.iteration) || (s.iteration as number) < 0 || typeof s.rng !== 'object' || s.rng === null) {
      throw new Error(`${where}: expected {iteration, kl, rng}`);
    }
    this.kl = restoreKlController(s.kl, `${where}: kl`);
    this.rng = resumableRng(`ppo:${this.config.seed}`, s.rng);
    this.iteration = s.iteration!;
  }

  /** The engine the rollouts (and the held-out probe) sample from. */
  get engine(): RolloutEngine {
    return this.rollouts.engine;
  }

  /** The policy as it is now, as version `iteration` of the engine. */
  private async publish(): Promise<void> {
    const { engine, baseModel } = this.rollouts;
    await publishPolicy(engine, this.models.policy, { version: this.iteration, baseModel });
  }

  /** After a resume the engine still holds version 0 (the checkpoint it opened on): give it the resumed policy. */
  async catchUpEngine(): Promise<void> {
    if (this.engine.policyVersion < this.iteration) await this.publish();
  }

  /** One iteration on these prompts; returns the step's metrics (TRL names). */
  async step(prompts: readonly RlPrompt[]): Promise<MetricRecord> {
    if (prompts.length === 0) throw new Error('RlTrainer.step: no prompts');
    const cfg = this.config;
    const algorithm = this.algorithm;
    const { policy, reference, valueHead } = this.models;
    await this.catchUpEngine();

    const t0 = Date.now();
    // 1. Rollout: each prompt samplesPerPrompt times, the copies next to each other.
    const n = algorithm.samplesPerPrompt(cfg);
    const rows = prompts.flatMap((p) => new Array<RlPrompt>(n).fill(p));
    const promptIds = rows.map((p) => p.ids);
    const gen = await sampleResponses(this.engine, promptIds, {
      maxNewTokens: cfg.maxNewTokens,
      temperature: cfg.temperature,
      stopTokenIds: this.tokens.stopTokenIds,
      vocabSize: this.tokens.vocabSize ?? policy.config.vocab_size,
      rng: this.rng,
      batchSize: cfg.microBatchSize,
    });
    const batch = layoutSequences(promptIds, gen.responseIds, this.tokens.padId);
    const mask = batch.responseMask;

    // 2. Log-probs (the "old" policy of the ratio), entropy, values, reference log-probs: in the update's GEMM
    // precision, so the first update's ratio is exactly 1 and the KL compares like with like.
    const chunk = { chunkSize: cfg.microBatchSize, padId: this.tokens.padId, temperature: cfg.temperature };
    const pol = this.trainer.inStepPrecision(() => forwardResponsesToHost(policy, batch, { ...chunk, valueHead, entropy: true }));
    const ref = this.trainer.inStepPrecision(() => forwardResponsesToHost(reference, batch, chunk));

    const t1 = Date.now();
    // 3. Scores.
    const samples = rolloutSamples(rows, gen);
    const scored = await this.scorer(samples);
    let scores = cfg.missingEosPenalty > 0 ? applyMissingEosPenalty(scored.scores, gen.endedWithEos, { mode: 'subtract', value: cfg.missingEosPenalty }) : scored.scores;
    scores = clipScores(scores, cfg.scoreClip);

    // 4. Advantages.
    const klCoef = this.kl.value;
    const shaped = perTokenRewards({ logprobs: pol.logprobs, refLogprobs: ref.logprobs, mask, scores, klCoef: algorithm.kl === 'reward' ? klCoef : 0 });
    const kl = shaped.kl;
    const adv = algorithm.advantages({ scores, rewards: shaped.rewards, values: pol.values ?? null, mask }, cfg);
    const isWeights = cfg.rolloutIs === 'token-truncate' ? truncatedIsWeights(pol.logprobs, gen.samplerLogprobs, cfg.rolloutIsCap) : undefined;
    const rollout: Rollout = { batch, oldLogprobs: pol.logprobs, refLogprobs: ref.logprobs, advantages: adv.advantages, oldValues: pol.values, returns: adv.returns, rows: adv.rows, isWeights };
    const extra: MetricRecord = { ...adv.metrics };
    for (const [name, s] of Object.entries(scored.parts)) extra[`env/${name}_mean`] = mean(s);
    extra[METRICS.logprobMismatch] = mean(gen.samplerLogprobs.flatMap((row, b) => row.map((lp, t) => Math.abs(lp - pol.logprobs[b][t]))));
    const lags = gen.policyVersions.map((v) => this.iteration - v);
    extra[METRICS.policyLagMean] = mean(lags);
    extra[METRICS.policyLagMax] = Math.max(...lags);
    if (isWeights) extra[METRICS.isWeightMean] = mean(isWeights.flatMap((row, b) => row.filter((_, t) => mask[b][t] > 0)));

    // 5. Update.
    const t2 = Date.now();
    const update: MetricRecord = rollout.rows?.length === 0 ? { [METRICS.updates]: 0 } : await this.update(rollout);
    const t3 = Date.now();

    // 6. KL controller: the mean per-response KL over the rollout, measured with the coefficient just used.
    const metrics: MetricRecord = {
      ...rolloutMetrics({
        scores,
        kl,
        entropy: pol.entropy!,
        mask,
        endedWithEos: gen.endedWithEos,
        klCoef,
        values: pol.values,
        returns: rollout.returns,
        advantages: adv.logged ?? adv.advantages,
      }),
      ...update,
      ...extra,
      [METRICS.timeRollout]: (t1 - t0) / 1000,
      [METRICS.timeScore]: (t2 - t1) / 1000,
      [METRICS.timeUpdate]: (t3 - t2) / 1000,
    };
    this.kl.update(metrics[METRICS.kl], rows.length);
    this.iteration++;
    await this.publish();
    return metrics;
  }

  /** ppoEpochs x miniBatches optimizer steps over the rollout's rows (of the value head alone while warming up). */
  private async update(r: Rollout): Promise<MetricRecord> {
    const cfg = this.config;
    const valueOnly = this.warmingUp;
    const trainer = valueOnly ? this.valueTrainer! : this.trainer;
    const allRows = r.rows ?? r.batch.promptIds.map((_, i) => i);
    const u = await clippedUpdate({
      trainer,
      rows: allRows.length,
      epochs: cfg.ppoEpochs,
      miniBatches: cfg.miniBatches,
      order: (epoch) => shuffle(allRows, `${cfg.seed}:${this.iteration}:${epoch}`),
      microBatches: (rows) => this.microBatches(r, rows, valueOnly),
      stopAfter: (aux) => cfg.targetKlStop > 0 && aux[METRICS.approxKl] > cfg.targetKlStop,
    });
    return {
      ...u.means,
      [METRICS.learningRate]: u.lr,
      [METRICS.updates]: u.steps,
      [METRICS.earlyStopped]: Number(u.earlyStopped),
      ...(this.valueTrainer ? { [METRICS.valueWarmup]: Number(valueOnly) } : {}),
    };
  }

  /** The loss of each micro-batch of `rows`, weighted so that the accumulated mean matches the aggregation. */
  private microBatches(r: Rollout, rows: number[], valueOnly: boolean): MicroBatch[] {
    const cfg = this.config;
    const size = cfg.microBatchSize > 0 ? cfg.microBatchSize : rows.length;
    const out: MicroBatch[] = [];
    for (const part of chunksByLength(rows, size, (i) => r.batch.promptIds[i].length + r.batch.responseIds[i].length)) {
      const sub = selectRows(r.batch, part, this.tokens.padId);
      const tokens = sub.responseMask.flat().reduce((s, m) => s + m, 0);
      out.push({ loss: () => this.loss(r, part, sub, valueOnly), weight: cfg.lossAggregation === 'token-mean' ? tokens : part.length });
    }
    return out;
  }

  /** valueOnly: the value loss alone (warm-up; the policy terms are still computed for the metrics). */
  private loss(r: Rollout, rows: number[], sub: SequenceBatch, valueOnly: boolean): { loss: tf.Scalar; aux: Record<string, tf.Scalar> } {
    const cfg = this.config;
    const { policy, valueHead } = this.models;
    const R = sub.responseWidth;
    const host = (x: number[][]) => tf.tensor2d(takeRows(x, rows, R), [rows.length, R], 'float32');
    return tf.tidy(() => {
      const mask = tf.tensor2d(sub.responseMask, [rows.length, R], 'float32');
      const f = forwardResponses(policy, sub, { temperature: cfg.temperature, valueHead });
      // The k3 KL to the reference in the loss (GRPO); the other algorithms have it in the rewards instead.
      const lossKl = this.algorithm.kl === 'loss' ? this.kl.value : 0;
      const pg = policyLoss(f.logprobs, host(r.oldLogprobs), host(r.advantages), mask, { clipRange: cfg.cliprange, aggregation: cfg.lossAggregation, klCoef: lossKl, isWeights: r.isWeights && host(r.isWeights) }, lossKl > 0 ? host(r.refLogprobs) : undefined);
      const aux = pg.aux;
      let loss: tf.Scalar = pg.loss;
      const critic = this.critic;
      if (critic) {
        const v = clippedValueLoss(f.values!, host(r.oldValues!), host(r.returns!), mask, critic.cliprangeValue, cfg.lossAggregation);
        loss = valueOnly ? v.loss : tf.add(loss, tf.mul(critic.vfCoef, v.loss));
        aux[METRICS.lossValue] = v.loss;
        aux[METRICS.valClipfrac] = v.clipfrac;
        aux[METRICS.vpred] = maskedMean(f.values!, mask);
      }
      aux[METRICS.lossTotal] = loss;
      return { loss, aux };
    });
  }

  dispose(): void {
    this.trainer.dispose();
    this.valueTrainer?.dispose();
  }
}

/** What the settings schema cannot see: the models must fit the algorithm and each other. */
function checkConfig(algorithm: PolicyGradientAlgorithm, models: RlModels): void {
  const fail = (msg: string) => {
    throw new Error(`${algorithm.name} config: ${msg}`);
  };
  if (algorithm.critic && !models.valueHead) fail(`${algorithm.name} trains a critic: it needs a value head`);
  if (models.policy.config.vocab_size !== models.reference.config.vocab_size) {
    fail(`policy and reference vocabularies differ (${models.policy.config.vocab_size} vs ${models.reference.config.vocab_size})`);
  }
}
