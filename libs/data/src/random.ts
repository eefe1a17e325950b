// The randomness of the data: shuffles, splits, cuts and mutations. The same seed gives the same order on every
// machine and run (seedrandom's ARC4 generator). Its stream never changes: the shipped data files were drawn from it.
// Randomness a run saves and resumes (sampling, initialisation, routing) is libs/model's resumableRng instead.
import seedrandom from 'seedrandom';

export type Seed = string | number;

/** A deterministic generator of floats in [0, 1), with no state to save (see the top of this file). */
export function dataRandom(seed: Seed): () => number {
  return seedrandom(String(seed));
}

/** A shuffled copy of `items` (Fisher-Yates); the input is not modified. */
export function shuffle<T>(items: readonly T[], seed: Seed): T[] {
  const out = items.slice();
  const random = dataRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
