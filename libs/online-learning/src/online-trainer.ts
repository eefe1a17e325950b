// One online update: a batch of feedback events -> critic-free PPO on the policy -> new weights (or a discard).
//
//   1. reward -> advantage per event (rewards.ts), broadcast over that event's completion tokens
//   2. re-tokenize: prompt (FIM-aware left truncation, as served) + the completion as displayed, + <|endoftext|> only
//      when the displayed text is all the model wrote and it ended there itself (served.eos): accepting it then says
//      "this, then stop"; a suggestion Continue or the line rule cut is trained without an end the model never chose
//   3. old log-probs: recomputed under the policy before this update (the weights that served the batch, up to
//      the one-update lag of events that arrived while the previous update ran). The served log-probs are not
//      reused because Continue samples at temperature 0.01, where they say nothing about the policy at T = 1.
//   4. PPO: libs/rl's clipped update, the one PPO and GRPO use: `epochs` passes over `minibatches` slices of the
//      batch, one AdamW step (shared Trainer: gradient accumulation, clipping by global norm) per slice; libs/rl's
//      policy loss, averaged over all completion tokens of the slice (token-mean), + klCoef * k3 KL to the start.
//      Sequences are at most min(maxSeqLen, the model's max_position_embeddings) tokens.
//   5. guard: a non-finite loss or gradient, or KL(old || new) on the batch (0.5 * mean (logp_new - logp_old)^2
//      over completion tokens) above maxUpdateKl -> restore the last good weights and optimizer state.
// Each event is its own micro-batch, so nothing is padded and memory stays bounded by the longest event; the LM
// head runs only over completion positions ([C, V] instead of [T, V]). Between events and steps the update awaits
// `pause()`, so the completion server keeps decoding while an update runs (inference never stops for training).
import * as tf from '@tensorflow/tfjs';
import type { HostTensor, Qwen2Model } from '@rlhf-code/model';
import { clippedUpdate, forwardResponses, layoutSequences, METRICS, policyLoss } from '@rlhf-code/rl';
import { encodeServedPrompt, type RepoContextMode, type Tokenizer } from '@rlhf-code/tokenizer';
import { Trainer, trainerConfig, yieldToEventLoop } from '@rlhf-code/trainer-core';
import type { TrainingConfig } from '@rlhf-code/online-core';
import type { TrainableEvent } from '@rlhf-code/online-feedback';
import { eventKind, RewardScheme } from './rewards';
import type { DiscardReason, UpdateMetrics, UpdateResult } from './update-metrics';

export interface TrainingSample {
  promptIds: number[];
  completionIds: number[];
  advantage: number;
}

export interface OnlineTrainerOptions {
  /** The trainable policy (not the served copy). */
  model: Qwen2Model;
  /** The frozen starting model (KL reference). */
  reference: Qwen2Model;
  tokenizer: Tokenizer;
  config: TrainingConfig;
  /** How a repository header before <|fim_prefix|> is encoded: as the completion server encodes it (completion.repoContext). */
  repoContext?: RepoContextMode;
  /** Longest prompt, as the completion server reads it (completion.maxPromptTokens); default: no limit of its own. */
  maxPromptTokens?: number;
  /** Running reward baseline to resume from (binary scheme). */
  baseline?: number | null;
  /** Awaited between events and optimizer steps; default: yield to the event loop once. */
  pause?: () => Promise<void>;
}

/** What one optimise() call did: new weights (null: discarded) and its part of UpdateMetrics. */
export interface StepOutcome {
  weights: Map<string, HostTensor> | null;
  metrics: Pick<UpdateMetrics, 'tokens' | 'loss' | 'clipfrac' | 'kl' | 'kl_ref' | 'grad_norm' | 'lr' | 'optimizer_steps' | 'discarded'>;
}

/** The outcome counts of a batch of events (accepted, rejected, silent, acceptance). */
export function outcomeCounts(events: readonly TrainableEvent[]): Pick<UpdateMetrics, 'events' | 'accepted' | 'rejected' | 'silent' | 'acceptance'> {
  const kinds = events.map(eventKind);
  const count = (k: string) => kinds.filter((x) => x === k).length;
  const accepted = count('accepted');
  const rejected = count('rejected');
  return { events: events.length, accepted, rejected, silent: count('silent'), acceptance: accepted + rejected > 0 ? accepted / (accepted + rejected) : null };
}

export class OnlineTrainer {
  readonly trainer: Trainer;
  readonly rewards: RewardScheme;
  private lastGood: Map<string, HostTensor>;
  private readonly pause: () => Promise<void>;

  constructor(private readonly opts: OnlineTrainerOptions) {
    const c = opts.config;
    this.trainer = new Trainer(opts.model.trainableParams(), trainerConfig({ ...c, schedule: 'constant', warmupSteps: 0 }, 0)); // constant: no end to decay to
    this.rewards = new RewardScheme(c.reward, opts.baseline ?? null);
    this.lastGood = opts.model.trainableWeights(); // with LoRA: the adapter only
    this.pause = opts.pause ?? yieldToEventLoop;
  }

  /** Token ids of one event (see the top of this file), within maxSeqLen. */
  sample(e: TrainableEvent, advantage: number): TrainingSample {
    const { tokenizer: tok, config } = this.opts;
    const maxSeqLen = Math.min(config.maxSeqLen, this.opts.model.config.max_position_embeddings); // never past the window
    const maxCompletion = Math.floor(maxSeqLen / 2);
    // The completion as the user saw it; the end token only where the model itself ended the text the user judged.
    const shown = tok.encode(e.outcome.completion, { parseSpecialTokens: false }).slice(0, maxCompletion - 1);
    const completionIds = e.served?.eos === true ? [...shown, tok.eosId] : shown;
    const budget = Math.min(maxSeqLen - completionIds.length, this.opts.maxPromptTokens ?? Infinity);
    let promptIds: number[];
    try {
      promptIds = encodeServedPrompt(tok, e.outcome.prompt, budget, this.opts.repoContext).ids;
    } catch {
      // A prompt the completion server would refuse (malformed FIM, empty): train on it as plain text.
      promptIds = tok.encode(e.outcome.prompt, { parseSpecialTokens: false }).slice(-budget);
      if (promptIds.length === 0) promptIds = [tok.eosId];
    }
    return { promptIds, completionIds, advantage };
  }

  /**
   * log p(completion tokens | prompt) under `model` at temperature 1: [1, C] (differentiable when called under a
   * gradient tape), by libs/rl's forwardResponses, so only the C positions that predict completion tokens go through
   * the LM head. One row is never padded, so the pad id is never used.
   */
  static completionLogProbs(model: Qwen2Model, s: TrainingSample): tf.Tensor2D {
    return forwardResponses(model, layoutSequences([s.promptIds], [s.completionIds], 0), { temperature: 1 }).logprobs;
  }

  /**
   * log p(completion tokens | prompt) at temperature 1 of each sample under `model`, on the host, one sample at a
   * time, each forward in `trainer`'s step precision (the ratio and KL compare these with the step's own; the
   * precision is set only around each synchronous forward, so decoding between the pauses keeps its own).
   */
  async logProbsOf(model: Qwen2Model, samples: TrainingSample[], trainer: Trainer): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const s of samples) {
      const lp = trainer.inStepPrecision(() => OnlineTrainer.completionLogProbs(model, s));
      out.push((await lp.data()) as Float32Array);
      lp.dispose();
      await this.pause();
    }
    return out;
  }

  /** Train on one batch. Never throws for bad numbers: a bad update is discarded and reported. */
  async update(events: TrainableEvent[]): Promise<UpdateResult> {
    const t0 = Date.now();
    if (events.length === 0) throw new Error('OnlineTrainer.update: no events');
    const kinds = events.map(eventKind);
    const baselineBefore = this.rewards.baseline;
    const { rewards, advantages, baseline } = this.rewards.batch(kinds);
    // An event with nothing to train on (a blank answer the model did not end itself) takes no part in the loss.
    const samples = events.map((e, i) => this.sample(e, advantages[i])).filter((s) => s.completionIds.length > 0);
    const o = await this.optimise(samples, { trainer: this.trainer, klCoef: this.opts.config.klCoef });
    if (o.metrics.discarded) this.rewards.baseline = baselineBefore;
    return {
      weights: o.weights,
      metrics: {
        ...outcomeCounts(events),
        reward_mean: rewards.reduce((a, b) => a + b, 0) / rewards.length,
        baseline,
        ...o.metrics,
        duration_s: (Date.now() - t0) / 1000,
      },
    };
  }

  /**
   * The one training step of every objective: old log-probs under the current policy (unless given), the k3 KL to the
   * start model when klCoef > 0, libs/rl's clipped update (`epochs` x `minibatches`, each sample its own micro-batch,
   * weighted by its tokens) with `trainer`'s AdamW, then the guard (non-finite, or KL(old || new) above maxUpdateKl:
   * weights and `trainer`'s optimizer state restored). Returns the new weights (null when discarded).
   */
  async optimise(samples: TrainingSample[], o: { trainer: Trainer; klCoef: number; old?: Float32Array[]; ref?: Float32Array[] }): Promise<StepOutcome> {
    const { model, reference, config: c } = this.opts;
    const optimizerBefore = o.trainer.optimizer.getState();
    const old = o.old ?? (await this.logProbsOf(model, samples, o.trainer));
    const ref = o.klCoef > 0 ? (o.ref ?? (await this.logProbsOf(reference, samples, o.trainer))) : null;
    const tokens = samples.reduce((n, s) => n + s.completionIds.length, 0);
    let klRef: number | null = null;
    if (ref) {
      let sum = 0;
      old.forEach((row, i) => row.forEach((lp, t) => (sum += Math.exp(ref[i][t] - lp) - (ref[i][t] - lp) - 1)));
      klRef = sum / tokens;
    }

    // PPO epochs x minibatches (libs/rl's clipped update); each sample is its own micro-batch, weighted by its tokens.
    const u = await clippedUpdate({
      trainer: o.trainer,
      rows: samples.length,
      epochs: c.epochs,
      miniBatches: Math.min(c.minibatches, Math.max(1, samples.length)),
      microBatches: (rows) => rows.map((i) => ({ weight: samples[i].completionIds.length, loss: () => this.lossOf(samples[i], old[i], ref?.[i], o.klCoef) })),
      pause: this.pause,
    });
    let discarded: DiscardReason | null = samples.length === 0 ? 'empty' : u.nonFinite ? 'nan' : null;

    let kl = NaN;
    if (!discarded) {
      const now = await this.logProbsOf(model, samples, o.trainer);
      let sum = 0;
      now.forEach((row, i) => row.forEach((lp, t) => (sum += 0.5 * (lp - old[i][t]) ** 2)));
      kl = sum / tokens;
      if (!Number.isFinite(kl)) discarded = 'nan';
      else if (kl > c.maxUpdateKl) discarded = 'kl';
    }

    let weights: Map<string, HostTensor> | null = null;
    if (discarded) {
      model.assignWeights(this.lastGood);
      o.trainer.optimizer.setState(optimizerBefore, model.trainableParams());
    } else {
      weights = model.trainableWeights();
      this.lastGood = weights;
    }
    return {
      weights,
      metrics: {
        tokens,
        loss: u.loss,
        clipfrac: u.means[METRICS.clipfrac] ?? 0,
        kl,
        kl_ref: klRef,
        grad_norm: u.means[METRICS.gradNorm] ?? 0,
        lr: u.lr,
        optimizer_steps: u.steps,
        discarded,
      },
    };
  }

  /** The loss of one event (built under the gradient tape): libs/rl's policy loss, token-mean, + klCoef x k3 KL. */
  private lossOf(s: TrainingSample, old: Float32Array, ref: Float32Array | undefined, klCoef: number) {
    const C = s.completionIds.length;
    const logp = OnlineTrainer.completionLogProbs(this.opts.model, s); // [1, C]
    const advantages = tf.fill([1, C], s.advantage) as tf.Tensor2D; // the event's advantage on every token
    const { clip } = this.opts.config;
    const refLogp = ref && klCoef > 0 ? tf.tensor2d(ref, [1, C]) : undefined;
    return policyLoss(logp, tf.tensor2d(old, [1, C]), advantages, tf.ones([1, C]), { clipRange: clip, aggregation: 'token-mean', klCoef }, refLogp);
  }

  /** Weights the service serves after a restart or discard: the last good ones. */
  get lastGoodWeights(): Map<string, HostTensor> {
    return this.lastGood;
  }

  /** Restore after a resume: weights are already in the model; set optimizer state and baseline. */
  dispose(): void {
    this.trainer.dispose();
  }
}
