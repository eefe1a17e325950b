// One forward pass of a causal LM over a SequenceBatch, read at the positions that predict the response:
// per-token log-probs of the response tokens, and optionally values (a scalar head on the same hidden
// states) and entropies. The project's one teacher-forced log-prob function: PPO / GRPO training and rollout
// scoring, the online trainer (forwardResponses, with gradients) and the evaluation's KL to the SFT model
// (responseLogProbs) all go through here, so log-probs are computed the same way everywhere.
import * as tf from '@tensorflow/tfjs';
import type { Qwen2Model, ScalarHead } from '@rlhf-code/model';
import { entropyFromLogits, tokenLogProbs } from '@rlhf-code/trainer-core';
import { chunksByLength, layoutSequences, selectRows, SequenceBatch } from './rollout';

export interface ResponseForwardOptions {
  /** Logits are divided by it, as in sampling. */
  temperature: number;
  valueHead?: ScalarHead | null;
  entropy?: boolean;
}

export interface ResponseForward {
  /** [B, R] log p(response token) under softmax(logits / temperature) where the response mask is 1; 0 or junk elsewhere (mask them). */
  logprobs: tf.Tensor2D;
  /** [B, R] value estimates of the state before each response token. */
  values?: tf.Tensor2D;
  /** [B, R] per-token entropy, 0 on padding. */
  entropy?: tf.Tensor2D;
}

export function forwardResponses(model: Qwen2Model, batch: SequenceBatch, opts: ResponseForwardOptions): ResponseForward {
  const B = batch.ids.length;
  const P = batch.promptWidth;
  const R = batch.responseWidth;
  return tf.tidy(() => {
    const ids = tf.tensor2d(batch.ids, [B, P + R], 'int32');
    const hidden = model.forward(ids, { mask: tf.tensor2d(batch.attention, [B, P + R], 'int32') }); // [B, P+R, D]
    const D = hidden.shape[2];
    const h = tf.slice(hidden, [0, P - 1, 0], [B, R, D]) as tf.Tensor3D; // [B, R, D]
    const flat = tf.reshape(h, [B * R, D]) as tf.Tensor2D;
    const targets = tf.tensor1d(batch.targets.flat(), 'int32'); // [B*R]
    const mask = batch.responseMask.flat();
    // The LM head (as much compute as the rest of this model's forward pass) only where the mask is 1: padding and a
    // multi-turn episode's tool tokens are left out, as causalLmLoss does. The N results go back to their [B, R]
    // places through one gather over [results, 0]; the rest hold 0.
    const at = mask.flatMap((m, i) => (m > 0 ? [i] : []));
    const sparse = at.length > 0 && at.length < 0.9 * mask.length;
    let spread = (x: tf.Tensor1D): tf.Tensor2D => tf.reshape(x, [B, R]) as tf.Tensor2D;
    let logits: tf.Tensor2D;
    let chosen = targets;
    if (sparse) {
      const idx = tf.tensor1d(at, 'int32');
      logits = model.lmHead(tf.gather(flat, idx) as tf.Tensor2D); // [N, V]
      chosen = tf.gather(targets, idx) as tf.Tensor1D;
      const place = new Int32Array(B * R).fill(at.length);
      at.forEach((i, k) => (place[i] = k));
      const back = tf.tensor1d(place, 'int32');
      spread = (x) => tf.reshape(tf.gather(tf.concat([x, tf.zeros([1])]), back), [B, R]) as tf.Tensor2D;
    } else {
      logits = model.lmHead(flat); // [B*R, V]
    }
    const out: ResponseForward = {
      logprobs: spread(tokenLogProbs(logits, chosen, opts.temperature) as tf.Tensor1D),
    };
    if (opts.valueHead) out.values = opts.valueHead.perToken(h);
    if (opts.entropy) {
      out.entropy = tf.mul(spread(entropyFromLogits(logits, opts.temperature) as tf.Tensor1D), tf.tensor2d(batch.responseMask, [B, R], 'float32')) as tf.Tensor2D;
    }
    return out as unknown as tf.TensorContainerObject;
  }) as unknown as ResponseForward;
}

/**
 * The same, without gradients, in chunks of `chunkSize` rows, copied to host arrays [B][R]. Rows go into chunks in
 * order of length, so a chunk of short rows is not padded to a long one; the results come back in row order.
 */
export function forwardResponsesToHost(
  model: Qwen2Model,
  batch: SequenceBatch,
  opts: ResponseForwardOptions & { chunkSize?: number; padId: number },
): { logprobs: number[][]; values?: number[][]; entropy?: number[][] } {
  const B = batch.ids.length;
  const R = batch.responseWidth;
  const chunk = opts.chunkSize && opts.chunkSize > 0 ? opts.chunkSize : B;
  const logprobs: number[][] = new Array(B);
  const values: number[][] = new Array(B);
  const entropy: number[][] = new Array(B);
  // Each chunk is laid out again (narrower), then padded back to width R; padding positions hold 0.
  const widen = (row: number[], r: number) => [...row, ...new Array<number>(R - row.length).fill(0)].map((x, t) => (batch.responseMask[r][t] ? x : 0));
  const all = Array.from({ length: B }, (_, r) => r);
  for (const rows of chunksByLength(all, chunk, (r) => batch.promptIds[r].length + batch.responseIds[r].length)) {
    const sub = selectRows(batch, rows, opts.padId);
    const f = forwardResponses(model, sub, opts);
    const put = (t: tf.Tensor2D | undefined, into: number[][]) => t?.arraySync().forEach((row, k) => (into[rows[k]] = widen(row, rows[k])));
    put(f.logprobs, logprobs);
    put(f.values, values);
    put(f.entropy, entropy);
    tf.dispose([f.logprobs, f.values, f.entropy].filter((t): t is tf.Tensor2D => t !== undefined));
  }
  return { logprobs, values: opts.valueHead ? values : undefined, entropy: opts.entropy ? entropy : undefined };
}

/**
 * Log-probs of free-standing prompt + response rows under `model` at `temperature`, each row as long as its response
 * (forwardResponsesToHost on `chunkSize` rows at a time, default all). An empty response, which layoutSequences
 * refuses, gets [] without a forward pass.
 */
export function responseLogProbs(
  model: Qwen2Model,
  promptIds: readonly number[][],
  responseIds: readonly number[][],
  opts: { temperature: number; padId: number; chunkSize?: number },
): number[][] {
  const out = responseIds.map((): number[] => []);
  const rows = responseIds.flatMap((r, i) => (r.length > 0 ? [i] : []));
  const chunk = opts.chunkSize && opts.chunkSize > 0 ? opts.chunkSize : rows.length;
  for (let start = 0; start < rows.length; start += chunk) {
    const part = rows.slice(start, start + chunk);
    const batch = layoutSequences(part.map((i) => promptIds[i]), part.map((i) => responseIds[i]), opts.padId);
    const { logprobs } = forwardResponsesToHost(model, batch, { temperature: opts.temperature, padId: opts.padId }); // [part][R]
    part.forEach((i, k) => (out[i] = logprobs[k].slice(0, responseIds[i].length)));
  }
  return out;
}
