// A prefix cache for the decoder: the KV cache of a key's previous prompt (a user's, a file's), kept after its
// generation, so that the key's next prompt reuses the keys and values of the longest token prefix the two share and
// prefills only the rest. A user typing in one file sends a prompt per pause that differs from the last one only after
// the cursor (the FIM prefix grows there), so a keystroke costs its new tokens, not the whole prompt.
//
//   entry     per key: the token ids whose keys/values the cache holds (a prompt and the tokens generated after it,
//             all but the last sampled one), the KVCache of one row (native buffers [1, KV, capacity, hd] per layer,
//             or composite k, v [1, KV, S, hd]), and the weights it was computed with (their tensors' identities)
//   take      a prompt's longest shared prefix with its key's entry, at most all but its last token (that token gives
//             the first logits): the entry leaves the cache and its KVCache, cut to that prefix, decodes the prompt;
//             an entry of other weights (a published policy version, a trainer's step, another adapter) is dropped
//   put       after the generation, its KVCache comes back as the key's entry; least recently used entries are freed
//             (every tensor disposed) until the entries' bytes fit `maxBytes`
// Per model, one FusedWeights (fused-weights.ts's stacked q/k/v and gate/up matrices, rebuilt when the weights they were
// built from change) serves every generation, instead of one built per generation; the views of one LoRA base share
// theirs. Several models may share a cache: an entry serves only the weights it was computed with, so a caller's keys
// name the model too.
import { FusedWeights } from './fused-weights';
import { KVCache } from './kv-cache';
import type { Qwen2Model } from './model';

export interface PrefixCacheOptions {
  /** Bytes of keys and values the entries may hold together (the least recently used go first); 0: keep none. */
  maxBytes: number;
}

/** The identities of the tensors a model computes with: equal lists, equal weights (tfjs gives a reassigned variable a new dataId). */
type WeightsIdentity = readonly unknown[];

/** What the model's forward pass reads now: every parameter, the frozen matrices, the active adapter and its variables. */
function weightsIdentity(model: Qwen2Model): WeightsIdentity {
  return [
    model.activeAdapter,
    ...Object.values(model.params).map((v) => v.dataId),
    ...Object.values(model.frozen).map((m) => m.packed.dataId),
    ...Object.values(model.adapters).map((v) => v.dataId),
  ];
}

const sameWeights = (a: WeightsIdentity, b: WeightsIdentity) => a.length === b.length && a.every((x, i) => x === b[i]);

/** How many first tokens `a` and `b` share. */
function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

interface Entry {
  tokens: number[];
  cache: KVCache;
  weights: WeightsIdentity;
}

/** A taken entry: its cache holds the prompt's first `reused` positions, computed with `weights`. */
export interface TakenPrefix {
  cache: KVCache;
  reused: number;
  weights: WeightsIdentity;
}

export class PrefixCache {
  /** Least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  /** The stacked matrices each model's generations decode with (decode.ts), by its parameters (which views share). */
  private readonly fused = new Map<object, FusedWeights>();

  constructor(readonly opts: PrefixCacheOptions) {
    if (!(opts.maxBytes >= 0)) throw new Error(`PrefixCache: maxBytes must be >= 0, got ${opts.maxBytes}`);
  }

  /** Entries held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of keys and values the entries hold now. */
  get bytes(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.cache.bytes;
    return n;
  }

  /**
   * The cache `prompt` decodes with on `model`: `key`'s entry cut to the longest prefix it shares with the prompt (the
   * entry leaves the cache until put back), or a fresh one (reused 0) when the key has none, or one of other weights.
   * `capacity`: positions a fresh cache preallocates (prompt + new tokens).
   */
  take(key: string, prompt: readonly number[], model: Qwen2Model, capacity: number): TakenPrefix {
    const weights = weightsIdentity(model);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry && sameWeights(entry.weights, weights)) {
      const reused = Math.min(commonPrefixLength(entry.tokens, prompt), prompt.length - 1);
      entry.cache.truncate(reused);
      return { cache: entry.cache, reused, weights };
    }
    entry?.cache.dispose();
    let fused = this.fused.get(model.params);
    if (!fused) this.fused.set(model.params, (fused = new FusedWeights()));
    return { cache: new KVCache({ capacity, fused }), reused: 0, weights };
  }

  /**
   * Keep a taken cache, now holding the keys and values of `tokens`, as `key`'s entry (the most recently used), then
   * free the least recently used entries until the entries fit maxBytes (this one too, when alone it does not). A cache
   * whose weights changed while it decoded (a policy swapped in between steps) holds a mix: it is freed, not kept.
   */
  put(key: string, tokens: readonly number[], taken: TakenPrefix, model: Qwen2Model): void {
    const { cache, weights } = taken;
    if (cache.length !== tokens.length) throw new Error(`PrefixCache.put: the cache holds ${cache.length} positions, not the ${tokens.length} tokens given`);
    if (!sameWeights(weightsIdentity(model), weights)) {
      cache.dispose();
      return;
    }
    this.entries.get(key)?.cache.dispose();
    this.entries.delete(key);
    this.entries.set(key, { tokens: [...tokens], cache, weights });
    let bytes = this.bytes;
    for (const [k, e] of this.entries) {
      if (bytes <= this.opts.maxBytes) break;
      bytes -= e.cache.bytes;
      e.cache.dispose();
      this.entries.delete(k);
    }
  }

  /** Free every entry and the fused matrices. */
  dispose(): void {
    for (const e of this.entries.values()) e.cache.dispose();
    this.entries.clear();
    for (const f of this.fused.values()) f.dispose();
    this.fused.clear();
  }
}
