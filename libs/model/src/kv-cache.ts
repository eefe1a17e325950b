// Key/value cache for incremental decoding: per layer the rotated keys and the values of every token
// seen so far, plus the attention mask over those tokens (0 marks left padding).
//
// Two layouts, one per forward path (model.ts picks the path, the cache follows it):
// - composite tfjs ops: `layers` holds k, v [B, KV, S, hd], replaced by longer tensors every call;
// - the native decode path (decode.ts): `buffers` holds k, v [B, KV, capacity, hd], allocated once and written
//   in place by the attention kernel (no concat per step), with the mask and per-row token counts on the host.
import * as tf from '@tensorflow/tfjs';
import { LayerKV } from './attention';
import { FusedWeights } from './fused-weights';

export interface KVCacheOptions {
  /** Positions to preallocate on the native path (prompt + new tokens); it grows if a call needs more. */
  capacity?: number;
  /**
   * Fused matrices to decode with, owned by the caller and shared with other caches (a prefix cache keeps one for all
   * its entries); default: the cache's own, freed with it.
   */
  fused?: FusedWeights;
}

export class KVCache {
  /** Composite path, per layer: k, v [B, KV, S, hd]. Empty before the first forward pass. */
  layers: LayerKV[] = [];
  /** Composite path: [B, S], 1 for real tokens, 0 for padding; null before the first forward pass. */
  mask: tf.Tensor2D | null = null;

  /** Native path, per layer: k, v [B, KV, capacity, hd]; positions [0, past) hold data. */
  buffers: { k: tf.Tensor4D; v: tf.Tensor4D }[] = [];
  /** Native path: [B, capacity] key mask on the host, and the real tokens seen per row (for positions). */
  hostMask: Float32Array = new Float32Array(0);
  realTokens: number[] = [];
  /** Native path: positions filled. */
  past = 0;
  /** Native path: the fused q/k/v and gate/up matrices this generation decodes with (freed with the cache unless shared). */
  readonly fused: FusedWeights;
  private readonly ownsFused: boolean;
  readonly capacityHint: number;

  constructor(opts: KVCacheOptions = {}) {
    this.capacityHint = opts.capacity ?? 0;
    this.fused = opts.fused ?? new FusedWeights();
    this.ownsFused = opts.fused === undefined;
  }

  /** S, the number of cached positions. */
  get length(): number {
    return this.mask ? this.mask.shape[1] : this.past;
  }

  /** Composite path: replace the cached tensors with the longer ones of the latest forward pass (takes ownership). */
  update(layers: LayerKV[], mask: tf.Tensor2D): void {
    this.dispose();
    this.layers = layers.map((kv) => ({ k: tf.keep(kv.k), v: tf.keep(kv.v) }));
    this.mask = tf.keep(mask);
  }

  /**
   * Native path: makes room for `needed` positions of `batch` rows in `numLayers` layers of [KV, hd] keys, allocating
   * on first use and doubling when full (copying what is cached).
   */
  reserve(batch: number, needed: number, numLayers: number, kvHeads: number, headDim: number): void {
    if (this.layers.length > 0) throw new Error('KVCache: filled by the composite path, cannot continue on the native one');
    const capacity = this.buffers.length ? this.buffers[0].k.shape[2] : 0;
    if (this.buffers.length && this.buffers[0].k.shape[0] !== batch) {
      throw new Error(`KVCache: holds ${this.buffers[0].k.shape[0]} rows, the call has ${batch}`);
    }
    if (needed <= capacity) return;
    const grown = Math.max(needed, this.capacityHint, 2 * capacity);
    // tf.keep: forward passes run inside callers' tidies, and the cache outlives them.
    const extend = (old: tf.Tensor4D | undefined) =>
      tf.keep(
        tf.tidy(() => {
          const fresh = tf.zeros([batch, kvHeads, grown - capacity, headDim]) as tf.Tensor4D;
          return old ? (tf.concat([old, fresh], 2) as tf.Tensor4D) : fresh;
        }),
      );
    const buffers = [];
    for (let i = 0; i < numLayers; i++) {
      const old = this.buffers[i];
      buffers.push({ k: extend(old?.k), v: extend(old?.v) });
      if (old) tf.dispose([old.k, old.v]);
    }
    this.buffers = buffers;
    const mask = new Float32Array(batch * grown);
    for (let b = 0; b < batch; b++) mask.set(this.hostMask.subarray(b * capacity, b * capacity + this.past), b * grown);
    this.hostMask = mask;
    if (this.realTokens.length === 0) this.realTokens = new Array<number>(batch).fill(0);
  }

  /**
   * Keep only these batch rows, in this order (a generation drops its finished rows, or copies a shared prompt's one
   * row to every row; both layouts). Rows are gathered on the backend (a copy inside its memory; the wasm GatherV2
   * copies long rows a slice at a time), with no round trip of the whole cache through the host.
   */
  keepRows(rows: readonly number[]): void {
    const index = tf.tensor1d(Int32Array.from(rows), 'int32');
    const take = <T extends tf.Tensor>(t: T): T => {
      const out = tf.keep(tf.gather(t, index)) as T;
      t.dispose();
      return out;
    };
    this.layers = this.layers.map((kv) => ({ k: take(kv.k), v: take(kv.v) }));
    if (this.mask) this.mask = take(this.mask);
    if (this.buffers.length > 0) {
      const capacity = this.buffers[0].k.shape[2];
      this.buffers = this.buffers.map((kv) => ({ k: take(kv.k), v: take(kv.v) }));
      const mask = new Float32Array(rows.length * capacity);
      rows.forEach((r, b) => mask.set(this.hostMask.subarray(r * capacity, (r + 1) * capacity), b * capacity));
      this.hostMask = mask;
      this.realTokens = rows.map((r) => this.realTokens[r]);
    }
    index.dispose();
  }

  /** Bytes of keys and values held (both layouts; the native buffers at their full capacity). */
  get bytes(): number {
    const kvs = this.layers.length > 0 ? this.layers : this.buffers;
    return kvs.reduce((n, kv) => n + 4 * (kv.k.size + kv.v.size), 0);
  }

  /**
   * Forget every position from `n` on, of a cache of one row without padding (a prompt's, kept for a later prompt that
   * begins with the same n tokens): the next forward pass continues at position n. Native buffers keep their capacity
   * (positions past n are masked and overwritten); composite tensors are cut to n.
   */
  truncate(n: number): void {
    if (!(Number.isInteger(n) && n >= 0 && n <= this.length)) throw new Error(`KVCache.truncate: ${n} is not within the ${this.length} cached positions`);
    if (this.layers.length > 0) {
      const [B, KV, , hd] = this.layers[0].k.shape;
      if (B !== 1) throw new Error(`KVCache.truncate: holds ${B} rows, truncates one`);
      if (n === 0) {
        for (const kv of this.layers) tf.dispose([kv.k, kv.v]);
        this.mask!.dispose();
        this.layers = [];
        this.mask = null;
        return;
      }
      const cut = <T extends tf.Tensor>(t: T, shape: number[]): T => {
        const out = tf.keep(tf.slice(t, new Array(shape.length).fill(0), shape)) as T;
        t.dispose();
        return out;
      };
      this.layers = this.layers.map((kv) => ({ k: cut(kv.k, [1, KV, n, hd]), v: cut(kv.v, [1, KV, n, hd]) }));
      this.mask = cut(this.mask!, [1, n]);
      return;
    }
    if (this.buffers.length === 0) return;
    if (this.realTokens.length !== 1) throw new Error(`KVCache.truncate: holds ${this.realTokens.length} rows, truncates one`);
    this.hostMask.fill(0, n);
    this.realTokens = [n];
    this.past = n;
  }

  dispose(): void {
    if (this.ownsFused) this.fused.dispose();
    for (const kv of this.layers) tf.dispose([kv.k, kv.v]);
    for (const kv of this.buffers) tf.dispose([kv.k, kv.v]);
    if (this.mask) this.mask.dispose();
    this.layers = [];
    this.buffers = [];
    this.mask = null;
    this.hostMask = new Float32Array(0);
    this.realTokens = [];
    this.past = 0;
  }
}
