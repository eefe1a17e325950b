// Seeded randomness: the same seed gives the same order on every machine and run (seedrandom's ARC4 generator).
import seedrandom from 'seedrandom';

export type Seed = string | number;

/** A deterministic generator of floats in [0, 1). */
export function seededRandom(seed: Seed): () => number {
  return seedrandom(String(seed));
}

/** A shuffled copy of `items` (Fisher-Yates); the input is not modified. */
export function shuffle<T>(items: readonly T[], seed: Seed): T[] {
  const out = items.slice();
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
