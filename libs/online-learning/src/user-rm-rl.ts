// RL against the reward model of the user (objective user-rm / both), in the training thread. One step:
//
//   1. positions  `positions` distinct cursor positions drawn from the recent requests the HTTP thread passed with the
//                 update (their FIM prompts, encoded as the completion server reads them)
//   2. rollouts   `samples` suggestions per position from the policy (the local rollout engine, temperature
//                 `temperature`, the server's stop set, minTokens and Continue's stop strings), each ended by
//                 Continue's line rule on the latency model's clock (libs/continue line-rule.ts, latency.ts: what the
//                 `update` arm streams), then what Continue displays of it (showCompletion: its trimming, its blank
//                 and repeated-line rules)
//   3. reward     Cursor's expected utility under the reward model: (1 - c) p - c (1 - p), c = training.reward.p (0.25),
//                 for a displayed suggestion; 0 for one Continue shows nothing of (blank): silence is an action
//   4. advantage  libs/rl's GRPO group advantages without the std scaling (Dr. GRPO): the reward model's small
//                 differences stay small (a user it cannot read, like `coin`, gives near-equal rewards, and scaling
//                 them to unit spread would train on its noise); groups whose rewards are all equal are dropped
//   5. tokens     a displayed suggestion is trained as displayed: its text re-tokenized, then the end token, so a
//                 suggestion the line rule cut teaches the model to stop where the cut was; a blank one trains the
//                 tokens the policy sampled (the action that made it blank: a newline first, a repeated line)
//   6. update     the online trainer's one training step (OnlineTrainer.optimise: libs/rl's clipped update, k3 KL to
//                 the start model with weight userRm.klCoef, the guard), with an AdamW of its own (lr userRm.lr)
// With userRm.hindsight (hindsight.ts) an outcome waits until another request shows what the user wrote at its
// cursor; the reward model then also reads how the suggestion compares with that, and the RL positions are the cursors
// whose written code is known, each rollout compared with it.
// Log-probs (old, reference, the reward model's log-prob features) all come from libs/rl's responseLogProbs.
import * as tf from '@tensorflow/tfjs';
import { shuffle } from '@rlhf-code/data';
import { type Completion, type HostTensor, type Qwen2Model } from '@rlhf-code/model';
import { LocalEngine } from '@rlhf-code/engine';
import { groupAdvantages, layoutSequences, responseLogProbs } from '@rlhf-code/rl';
import { encodeServedPrompt, parseFim, stopTokenIds, type Tokenizer } from '@rlhf-code/tokenizer';
import { CONTINUE_STOP_STRINGS, LineRule, lineRuleFor, showCompletion, simulatedMs } from '@rlhf-code/continue';
import { Trainer, trainerConfig, yieldToEventLoop } from '@rlhf-code/trainer-core';
import type { OnlineConfig } from '@rlhf-code/online-core';
import type { TrainableEvent } from '@rlhf-code/online-feedback';
import { gateFeatures } from '@rlhf-code/online-gate';
import type { OnlineTrainer, TrainingSample } from './online-trainer';
import { eventKind } from './rewards';
import { expectedUtility, rmProbability, UserRewardModel, type RmObservation } from './user-reward-model';
import { hindsightFeatures, writtenAt, type CursorCode } from './hindsight';
import type { HindsightReport, RlStepMetrics } from './update-metrics';


/**
 * A suggestion to score: its request's prompt (text and ids), what Continue displays of it, the model ended it itself,
 * and (hindsight) what the user wrote at its cursor.
 */
interface Scored {
  prompt: string;
  promptIds: number[];
  displayed: string;
  endedByModel: boolean;
  written?: string;
}

/** An outcome waiting for what was written at its cursor (hindsight), and the updates it has waited. */
interface Waiting extends Scored, CursorCode {
  accepted: boolean;
  waited: number;
}

/** A cursor whose written code is known (hindsight): an RL position. */
interface KnownCursor extends CursorCode {
  prompt: string;
  written: string;
}


/** The code around a prompt's cursor (its FIM parts); null for plain text or a malformed prompt. */
function fimCode(prompt: string): CursorCode | null {
  try {
    const parts = parseFim(prompt);
    return parts && { prefix: parts.prefix, suffix: parts.suffix };
  } catch {
    return null;
  }
}

/** Updates an outcome waits for another request to show what was written at its cursor before it is dropped. */
const HINDSIGHT_WAIT = 16;

/**
 * The tokens a rollout is trained on (see the top of this file): the displayed text re-tokenized then the end token, or,
 * when nothing is displayed, the tokens the policy sampled (its stop token too), or the end token alone if it sampled none.
 */
export function trainedTokens(tok: Tokenizer, displayed: string, sampled: readonly number[]): number[] {
  if (displayed !== '') return [...tok.encode(displayed, { parseSpecialTokens: false }), tok.eosId];
  return sampled.length > 0 ? [...sampled] : [tok.eosId];
}

/**
 * The start model's last hidden state mean-pooled over each row's last prompt position and its response tokens
 * ([rows][D], host arrays), `chunk` rows per forward pass.
 */
export function pooledHidden(model: Qwen2Model, promptIds: readonly number[][], responseIds: readonly number[][], padId: number, chunk = 8): number[][] {
  const out: number[][] = [];
  for (let s = 0; s < promptIds.length; s += chunk) {
    const ps = promptIds.slice(s, s + chunk) as number[][];
    const rs = responseIds.slice(s, s + chunk) as number[][];
    const batch = layoutSequences(ps, rs, padId);
    const B = ps.length;
    const T = batch.promptWidth + batch.responseWidth;
    const w = new Float32Array(B * T);
    rs.forEach((r, b) => {
      for (let t = batch.promptWidth - 1; t < batch.promptWidth + r.length; t++) w[b * T + t] = 1 / (r.length + 1);
    });
    const pooled = tf.tidy(() => {
      const hidden = model.forward(tf.tensor2d(batch.ids, [B, T], 'int32'), { mask: tf.tensor2d(batch.attention, [B, T], 'int32') }); // [B, T, D]
      return tf.sum(tf.mul(hidden, tf.tensor3d(w, [B, T, 1])), 1); // [B, D]
    });
    out.push(...(pooled.arraySync() as number[][]));
    pooled.dispose();
  }
  return out;
}

export interface UserRmRlOptions {
  policy: Qwen2Model;
  /** The frozen start model: the KL reference, and what the reward model's inputs are computed under. */
  start: Qwen2Model;
  tokenizer: Tokenizer;
  config: OnlineConfig;
  trainer: OnlineTrainer;
  /** Awaited between decoding steps and pieces of work; default one event-loop turn. */
  pause?: () => Promise<void>;
}

export class UserRmRl {
  readonly rm: UserRewardModel;
  /** The RL steps' own AdamW (lr userRm.lr). */
  readonly optimiser: Trainer;
  private stepCount = 0;
  private readonly pause: () => Promise<void>;
  private readonly waiting: Waiting[] = [];
  private readonly known: KnownCursor[] = [];
  private readonly counts = { matched: 0, dropped: 0 };

  constructor(private readonly o: UserRmRlOptions) {
    const t = o.config.training;
    this.rm = new UserRewardModel(t.userRm);
    this.optimiser = new Trainer(o.policy.trainableParams(), trainerConfig({ ...t, lr: t.userRm.lr, schedule: 'constant', warmupSteps: 0 }, 0));
    this.pause = o.pause ?? yieldToEventLoop;
  }

  /** The longest prompt a position or an outcome is read with (the completion server's budget). */
  private promptBudget(completionTokens: number): number {
    const c = this.o.config.completion;
    const window = Math.min(this.o.config.training.maxSeqLen, this.o.policy.config.max_position_embeddings);
    return Math.min(window - completionTokens, c.maxPromptTokens);
  }

  private encodePrompt(prompt: string, completionTokens: number) {
    try {
      return encodeServedPrompt(this.o.tokenizer, prompt, this.promptBudget(completionTokens), this.o.config.completion.repoContext);
    } catch {
      return null; // a prompt the server would refuse: not a position, not an outcome to learn from
    }
  }

  /** The reward model's inputs of displayed suggestions (log-probs and hidden states under the start model). */
  private async inputs(rows: readonly Scored[]): Promise<Pick<RmObservation, 'features' | 'hidden'>[]> {
    if (rows.length === 0) return [];
    const { tokenizer: tok, start } = this.o;
    const ids = rows.map((r) => tok.encode(r.displayed, { parseSpecialTokens: false }));
    const logprobs = responseLogProbs(start, rows.map((r) => r.promptIds), ids, { temperature: 1, padId: tok.padId, chunkSize: 8 });
    await this.pause();
    const hidden = this.rm.needsHidden ? pooledHidden(start, rows.map((r) => r.promptIds), ids, tok.padId) : null;
    await this.pause();
    const features = await gateFeatures(rows.map((r, i) => ({ prompt: r.prompt, text: r.displayed, tokens: ids[i].length, endedByModel: r.endedByModel, logprobs: logprobs[i] })));
    const compared = (r: Scored) => (r.written === undefined ? [] : hindsightFeatures(r.displayed, r.written));
    return features.map((f, i) => ({ features: [...f, ...compared(rows[i])], hidden: hidden ? hidden[i] : null }));
  }

  private get hindsight(): boolean {
    return this.o.config.training.userRm.hindsight;
  }

  /**
   * Feed a batch's outcomes (accepted / rejected suggestions with text) to the reward model. With hindsight they
   * first wait for what was written at their cursor, read from `prompts` (the recent requests) and the other outcomes.
   */
  async observe(events: readonly TrainableEvent[], prompts: readonly string[] = []): Promise<void> {
    const rows: (Scored & { accepted: boolean })[] = [];
    for (const e of events) {
      const kind = eventKind(e);
      if (kind === 'silent' || e.outcome.completion.trim() === '') continue;
      const n = this.o.tokenizer.encode(e.outcome.completion, { parseSpecialTokens: false }).length;
      const p = this.encodePrompt(e.outcome.prompt, n + 1);
      if (!p || n === 0) continue;
      const row = { prompt: e.outcome.prompt, promptIds: p.ids, displayed: e.outcome.completion, endedByModel: e.served?.eos === true, accepted: kind === 'accepted' };
      if (!this.hindsight) rows.push(row);
      else if (p.prefix !== null) this.waiting.push({ ...row, prefix: p.prefix, suffix: p.suffix!, waited: 0 });
    }
    if (this.hindsight) rows.push(...this.matchWritten(prompts));
    const xs = await this.inputs(rows);
    await this.rm.add(xs.map((x, i) => ({ ...x, accepted: rows[i].accepted })));
  }

  /** The waiting outcomes whose written code the requests now show (removed from the wait); the oldest are dropped. */
  private matchWritten(prompts: readonly string[]): Waiting[] {
    const others: CursorCode[] = [...this.waiting];
    for (const prompt of new Set(prompts)) {
      const code = fimCode(prompt);
      if (code) others.push(code);
    }
    const ready: Waiting[] = [];
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i];
      const written = writtenAt(w, others);
      if (written !== null) {
        ready.push({ ...w, written });
        this.known.push({ prompt: w.prompt, prefix: w.prefix, suffix: w.suffix, written });
        this.counts.matched += 1;
      } else if (++w.waited <= HINDSIGHT_WAIT) continue;
      else this.counts.dropped += 1;
      this.waiting.splice(i, 1);
    }
    const keep = this.o.config.training.userRm.recentPositions;
    if (this.known.length > keep) this.known.splice(0, this.known.length - keep);
    return ready.reverse();
  }

  /** Hindsight's counts (null when it is off). */
  hindsightReport(): HindsightReport | null {
    return this.hindsight ? { ...this.counts, waiting: this.waiting.length, known_cursors: this.known.length } : null;
  }

  /** A reward model to optimise against: fitted, and validated unless userRm.validate is off. */
  get ready(): boolean {
    const m = this.rm.model;
    return m !== null && (m.validated || !this.o.config.training.userRm.validate);
  }

  /** `steps` RL steps on positions drawn from `prompts`; the new weights after the last good one (null: none). */
  async run(prompts: readonly string[]): Promise<{ weights: Map<string, HostTensor> | null; steps: RlStepMetrics[] }> {
    const steps: RlStepMetrics[] = [];
    let weights: Map<string, HostTensor> | null = null;
    for (let k = 0; k < this.o.config.training.userRm.steps; k++) {
      const r = await this.step(prompts);
      if (!r) break;
      steps.push(r.metrics);
      if (r.weights) weights = r.weights;
    }
    return { weights, steps };
  }

  /** One RL step (see the top of this file); null when there is no reward model or no usable position. */
  async step(prompts: readonly string[]): Promise<{ weights: Map<string, HostTensor> | null; metrics: RlStepMetrics } | null> {
    const rm = this.rm.model;
    if (!rm || !this.ready) return null;
    const t0 = Date.now();
    const { policy, tokenizer: tok, config, trainer } = this.o;
    const u = config.training.userRm;
    const c = config.completion;
    const step = this.stepCount++;

    // 1. positions: distinct prompts, a seeded draw per step (hindsight: the cursors whose written code is known).
    const positions: { prompt: string; ids: number[]; prefix: string | null; suffix: string | null; written?: string }[] = [];
    const written = new Map(this.known.map((k) => [k.prompt, k.written]));
    const pool = this.hindsight ? [...written.keys()] : [...new Set(prompts)];
    for (const prompt of shuffle(pool, `user-rm:${step}`)) {
      if (positions.length >= u.positions) break;
      const e = this.encodePrompt(prompt, u.maxNewTokens);
      if (e) positions.push({ prompt, ids: e.ids, prefix: e.prefix, suffix: e.suffix, written: written.get(prompt) });
    }
    if (positions.length === 0) return null;

    // 2. rollouts, each ended by Continue's line rule on the latency model's clock, then what Continue displays.
    const G = u.samples;
    const rows = positions.flatMap((p) => Array.from({ length: G }, () => p));
    const rules = rows.map((p) => (p.prefix === null ? null : new LineRule(lineRuleFor({ prefix: p.prefix, suffix: p.suffix! }, c.multiline, c.showWithinMs))));
    const decoded = rows.map(() => 0);
    // The trainer's own model through the local engine: these rollouts must sample the weights being trained.
    const gens: Completion[] = await new LocalEngine(policy, tok).sample(
      rows.map((p) => p.ids),
      {
        maxNewTokens: u.maxNewTokens,
        minNewTokens: u.minTokens,
        temperature: u.temperature,
        seed: `user-rm:${step}`,
        stopIds: stopTokenIds(tok, 'fim'),
        vocabSize: tok.vocabSize,
        stopStrings: CONTINUE_STOP_STRINGS,
        stopWhen: (i, text) => rules[i]?.cut(text, simulatedMs(c.simulatedLatency, rows[i].ids.length, ++decoded[i])) ?? null,
        beforeStep: this.pause,
      },
    );
    const displayed = gens.map((g, i) => (rows[i].prefix === null ? g.text.trimEnd() : (showCompletion(g.text, rows[i].prefix!, rows[i].suffix!) ?? '')));

    // 3. rewards under the reward model (the displayed ones), 0 for the blank ones.
    const shownAt = displayed.flatMap((d, i) => (d !== '' ? [i] : []));
    const xs = await this.inputs(
      shownAt.map((i) => ({ prompt: rows[i].prompt, promptIds: rows[i].ids, displayed: displayed[i], endedByModel: gens[i].stopId !== null && displayed[i] === gens[i].text.trim(), written: rows[i].written })),
    );
    const ps: (number | null)[] = rows.map(() => null);
    shownAt.forEach((i, k) => (ps[i] = rmProbability(rm, xs[k])));
    const threshold = config.training.reward.p;
    const rewards = ps.map((p) => expectedUtility(p, threshold)); // p null: nothing displayed, 0

    // 4. group advantages (no std scaling), uniform groups dropped.
    const adv = groupAdvantages(rewards, G, { scaleByStd: false });
    const keep = rows.flatMap((_, i) => (adv.uniform[Math.floor(i / G)] ? [] : [i]));

    // 5-6. the samples as displayed, one optimiser step of the online trainer's.
    const samples: TrainingSample[] = keep.map((i) => ({
      promptIds: rows[i].ids,
      completionIds: trainedTokens(tok, displayed[i], [...gens[i].ids, ...(gens[i].stopId === null ? [] : [gens[i].stopId!])]),
      advantage: adv.advantages[i],
    }));
    const base = {
      positions: positions.length,
      rollouts: rows.length,
      blank: rows.length - shownAt.length,
      lines_mean: shownAt.length ? shownAt.reduce((s, i) => s + displayed[i].split('\n').filter((l) => l.trim() !== '').length, 0) / shownAt.length : 0,
      reward_mean: rewards.reduce((a, b) => a + b, 0) / rewards.length,
      p_mean: shownAt.length ? shownAt.reduce((s, i) => s + ps[i]!, 0) / shownAt.length : null,
      uniform_groups: adv.zeroVarianceGroups,
      trained_rows: samples.length,
    };
    if (samples.length === 0) {
      return { weights: null, metrics: { ...base, tokens: 0, loss: 0, kl: 0, kl_ref: null, grad_norm: 0, discarded: 'empty', duration_s: (Date.now() - t0) / 1000 } };
    }
    const padId = tok.padId;
    const toF32 = (rowsLp: number[][]) => rowsLp.map((r) => Float32Array.from(r));
    const old = toF32(responseLogProbs(policy, samples.map((s) => s.promptIds), samples.map((s) => s.completionIds), { temperature: 1, padId, chunkSize: G }));
    await this.pause();
    const ref = u.klCoef > 0 ? toF32(responseLogProbs(this.o.start, samples.map((s) => s.promptIds), samples.map((s) => s.completionIds), { temperature: 1, padId, chunkSize: G })) : undefined;
    const r = await trainer.optimise(samples, { trainer: this.optimiser, klCoef: u.klCoef, old, ref });
    const m = r.metrics;
    return {
      weights: r.weights,
      metrics: { ...base, tokens: m.tokens, loss: m.loss, kl: m.kl, kl_ref: m.kl_ref, grad_norm: m.grad_norm, discarded: m.discarded, duration_s: (Date.now() - t0) / 1000 },
    };
  }

  dispose(): void {
    this.optimiser.dispose();
  }
}
