// GRPO over tool-use episodes: each task is tried `groupSize` times; an episode's reward is its verdict's score (the
// caller's judge: 1 for a question answered exactly, the final code's executionScore on a programming task's hidden
// tests) minus `malformedPenalty` per malformed tool call; advantages are group-normalised
// (libs/rl's groupAdvantages) and spread over the model's own tokens only. The loss per token of the model:
// clipped surrogate + klCoef x k3 KL to the reference - entropyCoef x entropy (libs/rl's policyLoss and
// clippedUpdate; the entropy bonus is new here). Tool tokens are context for the forward pass, never targets.
import * as tf from '@tensorflow/tfjs';
import type { Qwen2Model } from '@rlhf-code/model';
import { aggregate, chunksByLength, clippedUpdate, forwardResponses, forwardResponsesToHost, groupAdvantages, METRICS, policyLoss, selectRows, takeRows, truncatedIsWeights, type LossAggregation, type SequenceBatch } from '@rlhf-code/rl';
import type { TemplateMessage, Tokenizer } from '@rlhf-code/tokenizer';
import { Trainer, type TrainerConfig } from '@rlhf-code/trainer-core';
import { runEpisodes, type Episode, type EpisodeTool, type TurnGenerator } from './episode';
import type { Verdict } from './judge';
import { afterPrompt, episodeBatch } from './policy-turns';

export interface ToolGrpoConfig {
  groupSize: number;
  klCoef: number;
  entropyCoef: number;
  cliprange: number;
  ppoEpochs: number;
  miniBatches: number;
  /** Episodes per forward/backward pass. */
  microBatchSize: number;
  temperature: number;
  maxTurns: number;
  maxTurnTokens: number;
  maxTotalTokens: number;
  malformedPenalty: number;
  /** token-mean: every model token counts once; seq-mean: every episode counts once (long failed episodes no more). */
  lossAggregation: LossAggregation;
  /** The engine / trainer mismatch's truncated importance weight (rl train's --rollout-is); default off. */
  rolloutIs?: 'off' | 'token-truncate';
  rolloutIsCap?: number;
}

export interface ToolGrpoParts {
  policy: Qwen2Model;
  /** The frozen start (with LoRA: policy.view(null)). */
  reference: Qwen2Model;
  tokenizer: Tokenizer;
  template: string;
  toolFor: (episode: number) => EpisodeTool;
  /** Each episode's verdict on its task (`tasks[i]` is the index of episode i's task in the step's list). */
  judge: (episodes: Episode[], tasks: number[]) => Promise<Verdict[]>;
  trainer: TrainerConfig;
  /** Tool answers beyond this many characters are cut (default: runEpisodes'). */
  maxToolChars?: number;
  /** A step's turn generator (one per runEpisodes call): policyTurns on the run's rollout engine at the temperature, or a script in tests. */
  generate: () => TurnGenerator;
}

export class ToolGrpoTrainer {
  readonly trainer: Trainer;

  constructor(readonly parts: ToolGrpoParts, readonly config: ToolGrpoConfig) {
    this.trainer = new Trainer(parts.policy.trainableParams(), parts.trainer);
  }

  /**
   * One iteration on these tasks' opening messages, the trainer's policy being version `policyVersion` (what the
   * engine's turns are compared with: the lag of each turn's version); returns the metrics.
   */
  async step(tasks: readonly TemplateMessage[][], policyVersion = 0): Promise<Record<string, number>> {
    const c = this.config;
    const p = this.parts;
    const rows = tasks.flatMap((m, t) => new Array<number>(c.groupSize).fill(t));
    const t0 = performance.now();
    const episodes = await runEpisodes(p.generate(), rows.map((t) => tasks[t]), {
      tokenizer: p.tokenizer, template: p.template, maxTurns: c.maxTurns, maxTurnTokens: c.maxTurnTokens, maxTotalTokens: c.maxTotalTokens, toolFor: p.toolFor, maxToolChars: p.maxToolChars,
    });
    const t1 = performance.now();
    const verdicts = await p.judge(episodes, rows);
    const t2 = performance.now();
    const rewards = episodes.map((e, i) => verdicts[i].score - c.malformedPenalty * e.malformedCalls);
    const g = groupAdvantages(rewards, c.groupSize);
    const pad = p.tokenizer.padId;
    const batch = episodeBatch(episodes, pad);
    const chunk = { temperature: c.temperature, chunkSize: c.microBatchSize, padId: pad };
    // The ratio's denominator is recomputed, as every trainer of the project does: a pass of the policy before this
    // iteration's updates over the sampled episodes, in the update's GEMM precision (the sampler decodes in fp32 and
    // with a KV cache, so its log-probs differ from the training forward's by the precision's rounding), and so is the
    // reference's. The sampler's own log-probs only measure that gap (tokens/logprob_mismatch, as in rl train).
    const [old, ref] = this.trainer.inStepPrecision(() => [p.policy, p.reference].map((m) => forwardResponsesToHost(m, batch, chunk).logprobs));
    const sampled = episodes.map((e) => afterPrompt(e, e.samplerLogprobs, batch.responseWidth)); // the sampler's, laid out as `old`
    const mismatch = logprobMismatch(sampled, old, batch.responseMask);
    const isWeights = c.rolloutIs === 'token-truncate' ? truncatedIsWeights(old, sampled, c.rolloutIsCap ?? 2) : undefined;
    const t3 = performance.now();
    const u = await clippedUpdate({
      trainer: this.trainer,
      rows: episodes.length,
      epochs: c.ppoEpochs,
      miniBatches: c.miniBatches,
      microBatches: (idx) => {
        const out = [];
        for (const part of chunksByLength(idx, c.microBatchSize, (r) => episodes[r].ids.length)) {
          const tokens = part.reduce((n, r) => n + episodes[r].trainMask.slice(episodes[r].promptLength).reduce((s, m) => s + m, 0), 0);
          out.push({ weight: c.lossAggregation === 'token-mean' ? Math.max(1, tokens) : part.length, loss: () => this.loss(selectRows(batch, part, pad), part, old, ref, g.advantages, isWeights) });
        }
        return out;
      },
    });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const model = episodes.reduce((n, e) => n + e.trainMask.reduce((s, m) => s + m, 0), 0);
    const after = episodes.reduce((n, e) => n + e.ids.length - e.promptLength, 0);
    const calls = episodes.reduce((n, e) => n + e.toolCalls + e.malformedCalls, 0);
    const lags = episodes.flatMap((e) => e.turnVersions.map((v) => policyVersion - v)); // none for scripted turns
    const malformed = episodes.reduce((n, e) => n + e.malformedCalls, 0);
    return {
      'env/success_mean': mean(verdicts.map((v) => Number(v.success))),
      'env/reward_mean': mean(rewards),
      'env/tool_calls_mean': mean(episodes.map((e) => e.toolCalls)),
      'env/turns_mean': mean(episodes.map((e) => e.turns)),
      'env/malformed_rate': calls > 0 ? malformed / calls : 0, // of all tool calls
      'tokens/masked_share': after > 0 ? 1 - model / after : 0,
      [METRICS.zeroVarianceGroups]: g.zeroVarianceGroups,
      ...u.means,
      [METRICS.updates]: u.steps,
      'time/episodes_s': (t1 - t0) / 1000, // sampling the turns + running the tool calls
      [METRICS.timeScore]: (t2 - t1) / 1000,
      [METRICS.logprobMismatch]: mismatch, // over the trained tokens only (tool outputs are not sampled)
      ...(lags.length > 0 ? { [METRICS.policyLagMean]: mean(lags), [METRICS.policyLagMax]: Math.max(...lags) } : {}),
      ...(isWeights ? { [METRICS.isWeightMean]: mean(isWeights.flatMap((row, i) => row.filter((_, t) => batch.responseMask[i][t] > 0))) } : {}),
      'time/logprobs_s': (t3 - t2) / 1000, // the policy's and the reference's no-gradient passes
      [METRICS.timeUpdate]: (performance.now() - t3) / 1000,
    };
  }

  /** The loss of rows `rows` (laid out as `sub`) of the rollout's host arrays [N][R] (inside the trainer's tape). */
  private loss(sub: SequenceBatch, rows: number[], old: number[][], ref: number[][], adv: number[], isWeights?: number[][]): { loss: tf.Scalar; aux: Record<string, tf.Scalar> } {
    const c = this.config;
    const R = sub.responseWidth;
    const B = rows.length;
    const host = (x: number[][]) => tf.tensor2d(takeRows(x, rows, R), [B, R], 'float32');
    return tf.tidy(() => {
      const mask = tf.tensor2d(sub.responseMask, [B, R], 'float32');
      const f = forwardResponses(this.parts.policy, sub, { temperature: c.temperature, entropy: c.entropyCoef > 0 });
      const advantages = tf.mul(tf.tensor2d(rows.map((r) => new Array<number>(R).fill(adv[r])), [B, R], 'float32'), mask) as tf.Tensor2D;
      const pg = policyLoss(f.logprobs, host(old), advantages, mask, { clipRange: c.cliprange, aggregation: c.lossAggregation, klCoef: c.klCoef, isWeights: isWeights && host(isWeights) }, host(ref));
      let loss: tf.Scalar = pg.loss;
      if (c.entropyCoef > 0) {
        const entropy = aggregate(f.entropy!, mask, c.lossAggregation);
        pg.aux['objective/entropy'] = entropy;
        loss = tf.sub(loss, tf.mul(c.entropyCoef, entropy)) as tf.Scalar;
      }
      pg.aux[METRICS.lossTotal] = loss;
      return { loss, aux: pg.aux };
    });
  }

  dispose(): void {
    this.trainer.dispose();
  }
}

/** Mean |sampler log-prob - recomputed log-prob| over the tokens the policy is trained on (the batch's response mask: each episode's trainMask), 0 without any. */
function logprobMismatch(sampled: readonly number[][], recomputed: readonly number[][], mask: readonly number[][]): number {
  let sum = 0;
  let n = 0;
  mask.forEach((row, i) =>
    row.forEach((m, t) => {
      if (m === 0) return;
      sum += Math.abs(sampled[i][t] - recomputed[i][t]);
      n++;
    }),
  );
  return n > 0 ? sum / n : 0;
}
