// Next-token cross-entropy for a Qwen2 model on an LmBatch: position t predicts ids[t+1], counted where
// the loss mask of ids[t+1] is 1 (response tokens in SFT, every token in pretraining).
import * as tf from '@tensorflow/tfjs';
import type { Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy, tokenLogProbs, type MicroBatch } from '@rlhf-code/trainer-core';
import type { LmBatch } from './lm-data';
import { targetCount } from './lm-data';

/** The last hidden state of positions 0..T-2, [B*(T-1), D], and the ids they predict, [B*(T-1)] (inside a tidy). */
function nextTokenInputs(model: Qwen2Model, batch: LmBatch): { h: tf.Tensor2D; targets: tf.Tensor1D } {
  const B = batch.ids.length;
  const T = batch.ids[0].length;
  const ids = tf.tensor2d(batch.ids, [B, T], 'int32');
  const hidden = model.forward(ids, { mask: tf.tensor2d(batch.attention, [B, T], 'int32') }); // [B, T, D]
  const D = hidden.shape[2];
  const h = tf.reshape(tf.slice(hidden, [0, 0, 0], [B, T - 1, D]), [B * (T - 1), D]) as tf.Tensor2D;
  return { h, targets: tf.reshape(tf.slice(ids, [0, 1], [B, T - 1]), [-1]) as tf.Tensor1D };
}

/** Mean cross-entropy over the batch's target tokens (a scalar inside the caller's tape / tidy). */
export function causalLmLoss(model: Qwen2Model, batch: LmBatch): tf.Scalar {
  return tf.tidy(() => {
    const { h, targets } = nextTokenInputs(model, batch);
    // Only positions with a target need the LM head (a quarter of the forward pass of this model size, and of the
    // backward): with a prompt or tool answers in the window (SFT) those are gathered first; when nearly every
    // position has one (pretraining) the first T-1 are taken whole.
    const loss = batch.loss.flatMap((row) => row.slice(1));
    const at = loss.flatMap((m, i) => (m > 0 ? [i] : []));
    if (at.length > 0 && at.length < 0.75 * loss.length) {
      const idx = tf.tensor1d(at, 'int32');
      const logits = model.lmHead(tf.gather(h, idx) as tf.Tensor2D); // [N, V], N = target tokens
      return sparseCrossEntropy(logits, tf.gather(targets, idx), tf.tensor1d(at.map((i) => loss[i]), 'float32'));
    }
    const logits = model.lmHead(h); // [B*(T-1), V]
    const mask = tf.tensor1d(loss, 'float32');
    return sparseCrossEntropy(logits, targets, mask);
  });
}

/** A micro-batch for Trainer.step, weighted by its number of target tokens (a token-level mean overall). */
export function lmMicroBatch(model: Qwen2Model, batch: LmBatch): MicroBatch {
  return { loss: () => ({ loss: causalLmLoss(model, batch) }), weight: Math.max(1, targetCount(batch)) };
}

/** Token-weighted mean loss over batches, without gradients (held-out evaluation). */
export function evaluateLmLoss(model: Qwen2Model, batches: readonly LmBatch[]): { loss: number; tokens: number } {
  let sum = 0;
  let tokens = 0;
  for (const b of batches) {
    const n = targetCount(b);
    if (n === 0) continue;
    const l = causalLmLoss(model, b);
    sum += l.dataSync()[0] * n;
    l.dispose();
    tokens += n;
  }
  return { loss: tokens > 0 ? sum / tokens : NaN, tokens };
}

/**
 * Each row's summed next-token cross-entropy and its target count, without gradients: the units a held-out loss's
 * standard error is computed over (the token-weighted mean over rows is evaluateLmLoss's figure).
 */
export function lmRowLosses(model: Qwen2Model, batch: LmBatch): { sum: number; tokens: number }[] {
  const B = batch.ids.length;
  const T = batch.ids[0].length;
  const mask = batch.loss.map((row) => row.slice(1)); // [B, T-1]: position t predicts ids[t+1]
  const sums = tf.tidy(() => {
    const { h, targets } = nextTokenInputs(model, batch);
    const logp = tf.reshape(tokenLogProbs(model.lmHead(h), targets), [B, T - 1]); // logits [B*(T-1), V]
    return tf.sum(tf.mul(tf.neg(logp), tf.tensor2d(mask, [B, T - 1], 'float32')), 1); // [B]
  });
  const values = Array.from(sums.dataSync());
  sums.dispose();
  return values.map((sum, i) => ({ sum, tokens: mask[i].reduce((n, m) => n + m, 0) }));
}
