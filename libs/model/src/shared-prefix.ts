// The forward pass of a batch whose rows begin with the same tokens (a shared system prompt with its tool list, a
// group of samples of one prompt), computing those tokens once. The common first tokens go through the layers as one
// row; every row's own tokens attend to that row's keys and values and to their own, causally (the native attention
// kernel's `prefix`). The result is the batch's ordinary forward pass: the same hidden states at every real position,
// up to float rounding; gradients reach the shared tokens from every row, summed, so they train as the full batch would.
//
//   cost     B*T token-layers become n + B*(T - n): with a 173-token tool prompt under rows of ~270, about half
//   stream   one matrix z [n + B*Tr, D]: the shared row's n positions, then each row's own window of Tr columns, so the
//            projections and the MLP run once over both; only the attention is split
//   layout   any left/right padding: a row's real tokens are its mask's 1s in order, and position = their count - 1
import * as tf from '@tensorflow/tfjs';
import { fusedAttention, weightShape, type Weight } from '@rlhf-code/backend';
import type { AttentionWeights } from './attention';
import { decoderLayer, type Attend, type BlockWeights } from './block';
import { embedTokens } from './embedding';
import { recomputedLayer } from './recompute';
import { linear } from './linear';
import { rmsNorm } from './norm';

/** Shared tokens worth computing once (fewer go with the rest). */
export const MIN_SHARED_PREFIX = 8;

/** How many first tokens every row shares, leaving each at least one of its own; 0 when under MIN_SHARED_PREFIX. */
export function sharedPrefixLength(rows: readonly (readonly number[])[]): number {
  let n = Math.min(...rows.map((p) => p.length)) - 1;
  const first = rows[0];
  for (const p of rows) {
    let i = 0;
    while (i < n && p[i] === first[i]) i++;
    n = i;
  }
  return n >= MIN_SHARED_PREFIX ? n : 0;
}

/** Where each position of the [B, T] batch goes when its first n real tokens are computed once. */
export interface PrefixLayout {
  /** Shared tokens. */
  n: number;
  prefixIds: Int32Array; // [n]
  /** Each row's own tokens: columns [c0, T) of the batch (Tr = T - c0), its shared tokens and padding masked out. */
  c0: number;
  restIds: Int32Array; // [B, Tr]
  restMask: Float32Array; // [B, Tr]
  restPositions: Int32Array; // [B, Tr]: n + (own real tokens before) ; n on masked columns
  /** For each of the B*T positions, its row of z = [shared (n); own (B*Tr); a zero row]. */
  index: Int32Array;
}

/** The layout for ids / mask [B, T] on the host, or null when the rows share fewer than MIN_SHARED_PREFIX tokens (or B < 2). */
export function prefixLayout(ids: ArrayLike<number>, mask: ArrayLike<number>, B: number, T: number): PrefixLayout | null {
  if (B < 2) return null;
  const columns: number[][] = []; // each row's real columns
  for (let b = 0; b < B; b++) {
    const cols: number[] = [];
    for (let c = 0; c < T; c++) if (mask[b * T + c] > 0) cols.push(c);
    if (cols.length === 0) return null;
    columns.push(cols);
  }
  const n = sharedPrefixLength(columns.map((cols, b) => cols.map((c) => ids[b * T + c])));
  if (n === 0) return null;
  const own = columns.map((cols) => cols[n]); // first column of each row's own tokens
  const c0 = Math.min(...own);
  const Tr = T - c0;
  const restIds = new Int32Array(B * Tr);
  const restMask = new Float32Array(B * Tr);
  const restPositions = new Int32Array(B * Tr).fill(n);
  const index = new Int32Array(B * T).fill(n + B * Tr); // padding: the zero row
  for (let b = 0; b < B; b++) {
    columns[b].slice(0, n).forEach((c, i) => (index[b * T + c] = i));
    let seen = 0;
    for (let c = c0; c < T; c++) {
      const r = b * Tr + (c - c0);
      restIds[r] = ids[b * T + c];
      if (c >= own[b] && mask[b * T + c] > 0) {
        restMask[r] = 1;
        restPositions[r] = n + seen++;
        index[b * T + c] = n + r;
      }
    }
  }
  return { n, prefixIds: Int32Array.from(columns[0].slice(0, n), (c) => ids[c]), c0, restIds, restMask, restPositions, index };
}

export interface SharedPrefixModel {
  embed: Weight; // [V, D]
  layers: BlockWeights[];
  finalNorm: tf.Tensor1D; // [D]
  heads: number;
  kvHeads: number;
  headDim: number;
  eps: number;
  theta: number;
  recomputeLayers: boolean;
}

/**
 * The attention of one layer over z's normalised rows h [n + B*Tr, D]: the shared row attends to itself, every row's
 * own tokens to the shared keys and values and to their own. ctx: positions and key masks of both (kept for
 * layer recomputation's rerun).
 */
function splitAttention(m: SharedPrefixModel, n: number, B: number, Tr: number, [prefixPos, prefixMask, restPos, restMask]: tf.Tensor[]): Attend {
  const dims = { heads: m.heads, kvHeads: m.kvHeads, headDim: m.headDim, theta: m.theta };
  return (h: tf.Tensor2D, w: AttentionWeights) => {
    const N = h.shape[0];
    const q = linear(h, w.q_proj.weight, w.q_proj.bias, w.q_proj.lora); // [N, H*hd]
    const k = linear(h, w.k_proj.weight, w.k_proj.bias, w.k_proj.lora); // [N, KV*hd]
    const v = linear(h, w.v_proj.weight, w.v_proj.bias, w.v_proj.lora); // [N, KV*hd]
    const [qp, qr] = tf.split(q, [n, N - n], 0) as tf.Tensor2D[];
    const [kp, kr] = tf.split(k, [n, N - n], 0) as tf.Tensor2D[];
    const [vp, vr] = tf.split(v, [n, N - n], 0) as tf.Tensor2D[];
    const shared = fusedAttention(qp, kp, vp, prefixPos as tf.Tensor2D, prefixMask as tf.Tensor2D, { ...dims, batch: 1, seq: n }); // [n, H*hd]
    const own = fusedAttention(qr, kr, vr, restPos as tf.Tensor2D, restMask as tf.Tensor2D, { ...dims, batch: B, seq: Tr }, { k: kp, v: vp }); // [B*Tr, H*hd]
    return { out: linear(tf.concat([shared, own], 0) as tf.Tensor2D, w.o_proj.weight, undefined, w.o_proj.lora) }; // [N, D]
  };
}

/** Final hidden states [B*T, D] (after the final norm; zeros at padding) of the batch that `layout` describes. */
export function sharedPrefixForward(m: SharedPrefixModel, layout: PrefixLayout, B: number, T: number): tf.Tensor2D {
  return tf.tidy(() => {
    const { n, c0 } = layout;
    const Tr = T - c0;
    const ctx = [
      tf.tensor2d(Int32Array.from({ length: n }, (_, i) => i), [1, n], 'int32'),
      tf.ones([1, n]),
      tf.tensor2d(layout.restPositions, [B, Tr], 'int32'),
      tf.tensor2d(layout.restMask, [B, Tr]),
    ];
    const attendWith = (c: tf.Tensor[]) => splitAttention(m, n, B, Tr, c);
    const attend = attendWith(ctx);
    let z = embedTokens(m.embed, tf.tensor1d(Int32Array.from([...layout.prefixIds, ...layout.restIds]), 'int32')); // [n + B*Tr, D]
    for (const w of m.layers) z = m.recomputeLayers ? recomputedLayer(z, w, m.eps, attendWith, ctx) : decoderLayer(z, w, m.eps, attend).out;
    const hidden = tf.concat([rmsNorm(z, m.finalNorm, m.eps), tf.zeros([1, weightShape(m.embed)[1]])], 0); // [n + B*Tr + 1, D]
    return tf.gather(hidden, tf.tensor1d(layout.index, 'int32')) as tf.Tensor2D; // [B*T, D]
  });
}
