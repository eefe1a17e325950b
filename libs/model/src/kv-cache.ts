// Key/value cache for incremental decoding: per layer the rotated keys and the values of every token
// seen so far, plus the attention mask over those tokens (0 marks left padding).
import * as tf from '@tensorflow/tfjs';
import { LayerKV } from './attention';

export class KVCache {
  /** Per layer: k, v [B, KV, S, hd]. Empty before the first forward pass. */
  layers: LayerKV[] = [];
  /** [B, S]: 1 for real tokens, 0 for padding; null before the first forward pass. */
  mask: tf.Tensor2D | null = null;

  /** S, the number of cached positions. */
  get length(): number {
    return this.mask ? this.mask.shape[1] : 0;
  }

  /** Replace the cached tensors with the longer ones of the latest forward pass (takes ownership). */
  update(layers: LayerKV[], mask: tf.Tensor2D): void {
    this.dispose();
    this.layers = layers.map((kv) => ({ k: tf.keep(kv.k), v: tf.keep(kv.v) }));
    this.mask = tf.keep(mask);
  }

  dispose(): void {
    for (const kv of this.layers) tf.dispose([kv.k, kv.v]);
    if (this.mask) this.mask.dispose();
    this.layers = [];
    this.mask = null;
  }
}
