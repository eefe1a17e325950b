// One PPO (or GRPO) iteration: rollout -> score -> advantages -> a few epochs of clipped updates.
//
//   1. sample responses (pure sampling at the temperature) for a batch of prompts (GRPO: n per prompt)
//   2. forward passes without gradients: the policy's log-probs, entropies and values, the reference's log-probs
//   3. scores from the scorer, then the missing-EOS penalty and clipping
//   4. PPO: per-token rewards (KL penalty + score at the end), GAE, whitening.
//      GRPO: group-normalised advantages per response (0 in zero-variance groups, which stay for the KL term unless
//      dropUniformGroups leaves them out of the update)
//   5. ppoEpochs passes over the rollout in miniBatches minibatches, one optimizer step each
//      (PPO: clipped policy loss + vfCoef * clipped value loss; GRPO: clipped policy loss + klCoef * k3 KL),
//      stopped early when the approximate KL to the rollout policy passes targetKlStop. During PPO's first
//      valueWarmup iterations only the value head learns (value loss, its own optimizer): the policy waits
//      until the critic's advantages mean something.
//   6. the KL controller sees the rollout's KL
// Everything here is token-id level; text, files and checkpoints belong to the caller (ppo-run.ts, the app).
import * as tf from '@tensorflow/tfjs';
import { resumableRng, Qwen2Model, Rng, ScalarHead } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { MicroBatch, Trainer, trainerConfig } from '@rlhf-code/trainer-core';
import { computeGae } from './gae';
import { groupAdvantages } from './grpo';
import { createKlController, KlController, KlControllerState, restoreKlController } from './kl-controller';
import { LossAggregation, maskedMean } from './masked';
import { mean, METRICS, MetricRecord, rolloutMetrics } from './metrics';
import { forwardResponses, forwardResponsesToHost } from './policy-forward';
import { clippedUpdate, policyLoss } from './clipped-update';
import { applyMissingEosPenalty, clipScores, perTokenRewards } from './rewards';
import { chunksByLength, layoutSequences, sampleResponses, selectRows, SequenceBatch, takeRows } from './rollout';
import { CombinedScorer, rolloutSamples } from './scorers';
import type { PpoSettings } from './settings';
import { clippedValueLoss } from './value-loss';
import { whiten } from './whiten';

export interface PpoModels {
  /** Trained. */
  policy: Qwen2Model;
  /** The frozen starting policy: a copy, or with LoRA the policy's own base without its adapter (policy.view(null)). */
  reference: Qwen2Model;
  /** PPO: the critic's head on the policy's hidden states; GRPO: null. */
  valueHead: ScalarHead | null;
}

export interface PpoPrompt {
  /** Index in the caller's prompt list (passed on to the scorer). */
  index: number;
  ids: number[];
}

/** What --resume needs besides weights and optimizer moments. */
export interface PpoTrainerState {
  ppoStep: number;
  kl: KlControllerState;
  rng: object;
}

/** Host arrays of one rollout, rows [N] and tokens [N][R]. */
interface Rollout {
  batch: SequenceBatch;
  oldLogprobs: number[][];
  refLogprobs: number[][];
  advantages: number[][];
  /** PPO only. */
  oldValues?: number[][];
  returns?: number[][];
  /** The rows the update trains on (default all; GRPO with dropUniformGroups: those of groups with a signal). */
  rows?: number[];
}

export class PpoTrainer {
  readonly trainer: Trainer;
  /** The value head's own optimizer for the warm-up iterations (null without warm-up). */
  readonly valueTrainer: Trainer | null;
  kl: KlController;
  rng: Rng;
  /** PPO iterations done. */
  ppoStep = 0;

  constructor(
    readonly models: PpoModels,
    readonly scorer: CombinedScorer,
    readonly config: PpoSettings,
    readonly tokens: { padId: number; stopTokenIds: number[]; vocabSize?: number },
  ) {
    checkConfig(config, models);
    // With LoRA: the adapter (and the value head); the base has no gradient and no optimizer state.
    const params: Record<string, tf.Variable> = { ...models.policy.trainableParams(), ...(models.valueHead?.params ?? {}) };
    this.trainer = new Trainer(params, trainerConfig(config, config.steps * config.ppoEpochs * config.miniBatches));
    const warmup = config.algo === 'ppo' && models.valueHead && config.valueWarmup > 0 ? config.valueWarmup * config.ppoEpochs * config.miniBatches : 0;
    this.valueTrainer =
      warmup && config.algo === 'ppo'
        ? new Trainer(models.valueHead!.params, {
            optimizer: { lr: config.valueWarmupLr, weightDecay: 0, beta1: config.beta1, beta2: config.beta2 },
            schedule: { totalSteps: warmup, kind: 'constant' },
            maxGradNorm: config.maxGradNorm,
          })
        : null;
    this.kl = createKlController({ initValue: config.initKlCoef, target: config.klTarget, horizon: config.klHorizon });
    this.rng = resumableRng(`ppo:${config.seed}`);
  }

  /** True while only the value head learns. */
  get warmingUp(): boolean {
    return this.valueTrainer !== null && this.config.algo === 'ppo' && this.ppoStep < this.config.valueWarmup;
  }

  state(): PpoTrainerState {
    return { ppoStep: this.ppoStep, kl: this.kl.state(), rng: this.rng.state() };
  }

  /** Continue from state(); the optimizer is restored separately (restoreTrainingState). */
  restore(state: unknown, where = 'PPO trainer state'): void {
    const s = state as Partial<PpoTrainerState> | null;
    if (!s || !Number.isInteger(s.ppoStep) || (s.ppoStep as number) < 0 || typeof s.rng !== 'object' || s.rng === null) {
      throw new Error(`${where}: expected {ppoStep, kl, rng}`);
    }
    this.kl = restoreKlController(s.kl, `${where}: kl`);
    this.rng = resumableRng(`ppo:${this.config.seed}`, s.rng);
    this.ppoStep = s.ppoStep!;
  }

  /** One iteration on these prompts; returns the step's metrics (TRL names). */
  async step(prompts: readonly PpoPrompt[]): Promise<MetricRecord> {
    if (prompts.length === 0) throw new Error('PpoTrainer.step: no prompts');
    const cfg = this.config;
    const { policy, reference, valueHead } = this.models;

    const t0 = Date.now();
    // 1. Rollout. GRPO repeats each prompt groupSize times, the copies next to each other.
    const rows = cfg.algo === 'grpo' ? prompts.flatMap((p) => new Array<PpoPrompt>(cfg.groupSize).fill(p)) : [...prompts];
    const promptIds = rows.map((p) => p.ids);
    const gen = await sampleResponses(policy, promptIds, {
      maxNewTokens: cfg.maxNewTokens,
      temperature: cfg.temperature,
      padId: this.tokens.padId,
      stopTokenIds: this.tokens.stopTokenIds,
      vocabSize: this.tokens.vocabSize,
      rng: this.rng,
      batchSize: cfg.microBatchSize,
    });
    const batch = layoutSequences(promptIds, gen.responseIds, this.tokens.padId);
    const mask = batch.responseMask;

    // 2. Log-probs (the "old" policy of the ratio), entropy, values, reference log-probs.
    const chunk = { chunkSize: cfg.microBatchSize, padId: this.tokens.padId, temperature: cfg.temperature };
    const pol = forwardResponsesToHost(policy, batch, { ...chunk, valueHead, entropy: true });
    const ref = forwardResponsesToHost(reference, batch, chunk);

    const t1 = Date.now();
    // 3. Scores.
    const samples = rolloutSamples(rows, gen);
    const scored = await this.scorer(samples);
    let scores = cfg.missingEosPenalty > 0 ? applyMissingEosPenalty(scored.scores, gen.endedWithEos, { mode: 'subtract', value: cfg.missingEosPenalty }) : scored.scores;
    scores = clipScores(scores, cfg.scoreClip);

    // 4. Advantages.
    const klCoef = this.kl.value;
    const shaped = perTokenRewards({ logprobs: pol.logprobs, refLogprobs: ref.logprobs, mask, scores, klCoef: cfg.algo === 'grpo' ? 0 : klCoef });
    const kl = shaped.kl;
    const rollout: Rollout = { batch, oldLogprobs: pol.logprobs, refLogprobs: ref.logprobs, advantages: [] };
    const extra: MetricRecord = {};
    let rawAdvantages: number[][];
    if (cfg.algo === 'grpo') {
      const g = groupAdvantages(scores, cfg.groupSize);
      rawAdvantages = mask.map((row, b) => row.map((m) => (m ? g.advantages[b] : 0)));
      rollout.advantages = rawAdvantages;
      extra[METRICS.groups] = g.groups;
      extra[METRICS.zeroVarianceGroups] = g.zeroVarianceGroups;
      if (cfg.dropUniformGroups) rollout.rows = rows.map((_, b) => b).filter((b) => !g.uniform[Math.floor(b / cfg.groupSize)]);
    } else {
      const gae = computeGae(shaped.rewards, pol.values!, mask, cfg.gamma, cfg.lam);
      rawAdvantages = gae.advantages;
      rollout.advantages = cfg.whitenAdvantages ? whiten(gae.advantages, mask) : gae.advantages;
      rollout.oldValues = pol.values;
      rollout.returns = gae.returns;
    }
    for (const [name, s] of Object.entries(scored.parts)) extra[`env/${name}_mean`] = mean(s);
    extra[METRICS.logprobMismatch] = mean(gen.samplerLogprobs.flatMap((row, b) => row.map((lp, t) => Math.abs(lp - pol.logprobs[b][t]))));

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
        advantages: rawAdvantages,
      }),
      ...update,
      ...extra,
      [METRICS.timeRollout]: (t1 - t0) / 1000,
      [METRICS.timeScore]: (t2 - t1) / 1000,
      [METRICS.timeUpdate]: (t3 - t2) / 1000,
    };
    this.kl.update(metrics[METRICS.kl], rows.length);
    this.ppoStep++;
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
      order: (epoch) => shuffle(allRows, `${cfg.seed}:${this.ppoStep}:${epoch}`),
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
      // GRPO: the k3 KL to the reference is in the loss; PPO: the KL is in the rewards instead.
      const grpoKl = cfg.algo === 'grpo' ? this.kl.value : 0;
      const pg = policyLoss(f.logprobs, host(r.oldLogprobs), host(r.advantages), mask, { clipRange: cfg.cliprange, aggregation: cfg.lossAggregation, klCoef: grpoKl }, grpoKl > 0 ? host(r.refLogprobs) : undefined);
      const aux = pg.aux;
      let loss: tf.Scalar = pg.loss;
      if (cfg.algo === 'ppo') {
        const v = clippedValueLoss(f.values!, host(r.oldValues!), host(r.returns!), mask, cfg.cliprangeValue, cfg.lossAggregation);
        loss = valueOnly ? v.loss : tf.add(loss, tf.mul(cfg.vfCoef, v.loss));
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
function checkConfig(c: PpoSettings, models: PpoModels): void {
  const fail = (msg: string) => {
    throw new Error(`PPO config: ${msg}`);
  };
  if (c.algo === 'ppo' && !models.valueHead) fail('PPO needs a value head (GRPO does not)');
  if (models.policy.config.vocab_size !== models.reference.config.vocab_size) {
    fail(`policy and reference vocabularies differ (${models.policy.config.vocab_size} vs ${models.reference.config.vocab_size})`);
  }
}
