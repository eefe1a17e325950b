// Held-out splits and minibatches for the trainers.
import { shuffle, type Seed } from './random';

export interface SplitOptions<T> {
  /** Target share of records in the held-out side, 0 <= fraction < 1. */
  fraction: number;
  seed: Seed;
  /** Records with the same key always land on the same side. Default: the record's `prompt` string. */
  key?: (record: T) => string;
}

function promptKey(record: unknown): string {
  const prompt = (record as { prompt?: unknown } | null)?.prompt;
  if (typeof prompt !== 'string') throw new Error('splitHeldOut: record has no string "prompt"; pass options.key');
  return prompt;
}

/**
 * Split records into train / held-out by key, so e.g. several responses to one prompt never straddle the split
 * (the held-out loss would otherwise measure memorised prompts). Groups are taken in seeded random order until
 * the held-out side holds at least round(fraction * n) records (at least one group when fraction > 0). Both sides keep the
 * input order. Throws when fraction > 0 but there are fewer than two groups to split.
 */
export function splitHeldOut<T>(records: readonly T[], options: SplitOptions<T>): { train: T[]; heldOut: T[] } {
  const { fraction, seed } = options;
  if (!(fraction >= 0 && fraction < 1)) throw new Error(`splitHeldOut: fraction must be in [0, 1), got ${fraction}`);
  if (fraction === 0) return { train: records.slice(), heldOut: [] };
  const key = options.key ?? promptKey;

  const groupSize = new Map<string, number>(); // insertion order = first appearance, so the shuffle input is stable
  for (const record of records) {
    const k = key(record);
    groupSize.set(k, (groupSize.get(k) ?? 0) + 1);
  }
  if (groupSize.size < 2) {
    throw new Error(`splitHeldOut: need at least 2 distinct keys to hold some out, got ${groupSize.size}`);
  }

  const target = Math.round(fraction * records.length);
  const heldKeys = new Set<string>();
  let held = 0;
  for (const k of shuffle([...groupSize.keys()], seed)) {
    if (heldKeys.size > 0 && held >= target) break;
    if (heldKeys.size === groupSize.size - 1) break; // keep at least one group for training
    heldKeys.add(k);
    held += groupSize.get(k)!;
  }

  const train: T[] = [];
  const heldOut: T[] = [];
  for (const record of records) (heldKeys.has(key(record)) ? heldOut : train).push(record);
  return { train, heldOut };
}

export type BatchOptions =
  | { shuffle?: false; dropLast?: boolean }
  // Pass a different seed per epoch (e.g. `${seed}:${epoch}`) for a new order each epoch.
  | { shuffle: true; seed: Seed; dropLast?: boolean };

/**
 * Consecutive batches of `size` items (after a seeded shuffle if asked). The last batch may be smaller unless
 * `dropLast`, which drops it so every batch has exactly `size` items.
 */
export function batches<T>(items: readonly T[], size: number, options: BatchOptions = {}): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`batches: size must be a positive integer, got ${size}`);
  const order = options.shuffle ? shuffle(items, options.seed) : items;
  const out: T[][] = [];
  for (let i = 0; i < order.length; i += size) {
    const batch = order.slice(i, i + size);
    if (batch.length < size && options.dropLast) break;
    out.push(batch);
  }
  return out;
}

/**
 * Reorder (already shuffled) items so that consecutive runs of `batchSize` have similar lengths, as Hugging Face's
 * group_by_length does: cut the list into megabatches of `megabatch * batchSize` items and sort each by length,
 * longest first. Batches are padded to their longest row, so random batches waste about half their compute on
 * padding when lengths vary; grouped ones waste little, and the order is still random at the megabatch scale.
 */
export function groupByLength<T>(items: readonly T[], length: (item: T) => number, batchSize: number, megabatch = 50): T[] {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`groupByLength: batchSize must be a positive integer, got ${batchSize}`);
  const size = batchSize * megabatch;
  const out: T[] = [];
  for (let i = 0; i < items.length; i += size) {
    out.push(...items.slice(i, i + size).sort((a, b) => length(b) - length(a)));
  }
  return out;
}

