// Teacher-forced log-probabilities of given response tokens under a causal LM: what KL(model || sft) needs,
// since the SFT model never generated the policy's responses itself.
import * as tf from '@tensorflow/tfjs';
import { Qwen2Model } from '@rlhf-code/model';
import { tokenLogProbs } from '@rlhf-code/train';

export interface ScoredSequence {
  prompt: number[];
  /** The tokens whose log-probs we want, in order, following the prompt. */
  response: number[];
}

/**
 * For each row, log p(response_t | prompt, response_<t) under softmax(logits / temperature) (default 1: the model's
 * own distribution), one number per response token. Rows are right-padded into batches of `batchSize`; with causal attention a real
 * token never sees the padding after it, and positions (cumsum(mask) - 1) are unaffected.
 */
export function responseLogProbs(model: Qwen2Model, rows: readonly ScoredSequence[], padId: number, batchSize = 8, temperature = 1): number[][] {
  const out: number[][] = [];
  for (let start = 0; start < rows.length; start += batchSize) {
    const chunk = rows.slice(start, start + batchSize);
    const seqs = chunk.map((r) => {
      if (r.prompt.length === 0) throw new Error('responseLogProbs: every row needs at least one prompt token');
      return [...r.prompt, ...r.response];
    });
    const T = Math.max(...seqs.map((s) => s.length));
    const ids = seqs.map((s) => [...s, ...new Array<number>(T - s.length).fill(padId)]);
    const mask = seqs.map((s) => [...new Array<number>(s.length).fill(1), ...new Array<number>(T - s.length).fill(0)]);
    // Response token j of row b sits at column P_b + j and is predicted by the hidden state at P_b + j - 1:
    // only those rows of the flattened [B*T, D] hidden states go through the LM head (the prompt's do not).
    const at: number[] = [];
    const targets: number[] = [];
    chunk.forEach((r, b) => r.response.forEach((tok, j) => (at.push(b * T + r.prompt.length - 1 + j), targets.push(tok))));
    if (at.length === 0) {
      chunk.forEach(() => out.push([]));
      continue;
    }
    const lp = tf.tidy(() => {
      const hidden = model.forward(tf.tensor2d(ids, [chunk.length, T], 'int32'), { mask: tf.tensor2d(mask, [chunk.length, T]) }); // [B, T, D]
      const h = tf.gather(tf.reshape(hidden, [chunk.length * T, -1]), tf.tensor1d(at, 'int32')) as tf.Tensor2D; // [N, D]
      return tokenLogProbs(model.lmHead(h), tf.tensor1d(targets, 'int32'), temperature); // [N]
    });
    const flat = Array.from(lp.dataSync());
    lp.dispose();
    let k = 0;
    for (const r of chunk) {
      out.push(flat.slice(k, k + r.response.length));
      k += r.response.length;
    }
  }
  return out;
}
