// Near-duplicate detection for the pretraining corpus (prep:corpus): a file is the set of its distinct normalised code
// lines, hashed to 32 bits; MinHash signatures estimate the Jaccard similarity of two such sets, and LSH banding
// (Broder 1997; Leskovec, Rajaraman & Ullman, "Mining of Massive Datasets", ch. 3) finds the pairs worth comparing
// without comparing every pair. Candidates are then measured exactly on the line sets, so the LSH only decides which
// pairs are looked at, never whether a pair is a duplicate.

/** 32-bit FNV-1a of a string's UTF-16 code units, finished with fmix32 so that every bit depends on every input bit. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

/** MurmurHash3's finaliser: a bijection of 32-bit integers with good avalanche. */
function fmix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A line with surrounding whitespace dropped and inner runs of whitespace made one space, so re-indented or re-spaced copies match. */
export const normaliseLine = (line: string): string => line.trim().replace(/\s+/g, ' ');

/**
 * The sorted distinct hashes of a text's normalised code lines: the set that MinHash and the exact measures see. Blank
 * and comment-only lines are left out: licence headers and commented-out code would otherwise make unrelated small
 * files of one project look alike.
 */
export function lineSet(text: string): Uint32Array {
  const seen = new Set<number>();
  for (const line of text.split('\n')) {
    const n = normaliseLine(line);
    if (n !== '' && !n.startsWith('#')) seen.add(hashString(n));
  }
  return Uint32Array.from(seen).sort();
}

/** Elements common to two sorted sets (lineSet's). */
export function sharedCount(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return n;
}

/** |a ∩ b| / |a ∪ b|; 0 for two empty sets. */
export function jaccard(a: Uint32Array, b: Uint32Array): number {
  const shared = sharedCount(a, b);
  const union = a.length + b.length - shared;
  return union === 0 ? 0 : shared / union;
}

export const MINHASH_SIZE = 128;

/** The seeds of the MinHash functions h_k(x) = fmix32(x ^ seed_k): fixed, so signatures are the same on every run. */
const SEEDS = Uint32Array.from({ length: MINHASH_SIZE }, (_, k) => fmix32(Math.imul(k + 1, 0x9e3779b9)));

/**
 * The MinHash signature of a non-empty set: for each of MINHASH_SIZE hash functions the least hash of any element. Two
 * sets' signatures agree at a position with probability equal to their Jaccard similarity.
 */
export function minHash(set: Uint32Array): Uint32Array {
  if (set.length === 0) throw new Error('minHash: the empty set has no signature');
  const sig = new Uint32Array(MINHASH_SIZE).fill(0xffffffff);
  for (let i = 0; i < set.length; i++) {
    const x = set[i];
    for (let k = 0; k < MINHASH_SIZE; k++) {
      const h = fmix32(x ^ SEEDS[k]);
      if (h < sig[k]) sig[k] = h;
    }
  }
  return sig;
}

/** The share of positions where two signatures agree: an unbiased estimate of the sets' Jaccard similarity. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let k = 0; k < MINHASH_SIZE; k++) if (a[k] === b[k]) same++;
  return same / MINHASH_SIZE;
}

/**
 * LSH banding: a signature's first bands x rows positions cut into `bands` bands of `rows`; two signatures are candidates
 * when all rows of some band agree, which happens with probability 1 - (1 - J^rows)^bands for sets of Jaccard J
 * (an S-curve: see `candidateProbability`). Ids are returned in the order they were added.
 */
export class LshIndex {
  private readonly buckets: Map<number, number[]>[];

  constructor(
    readonly bands: number,
    readonly rows: number,
  ) {
    if (!Number.isInteger(bands) || !Number.isInteger(rows) || bands < 1 || rows < 1 || bands * rows > MINHASH_SIZE) {
      throw new Error(`LshIndex: bands x rows must be positive integers with a product of at most ${MINHASH_SIZE}, got ${bands} x ${rows}`);
    }
    this.buckets = Array.from({ length: bands }, () => new Map());
  }

  private key(sig: Uint32Array, band: number): number {
    let h = band;
    for (let r = band * this.rows; r < (band + 1) * this.rows; r++) h = fmix32(Math.imul(h, 0x01000193) ^ sig[r]);
    return h;
  }

  add(id: number, sig: Uint32Array): void {
    for (let b = 0; b < this.bands; b++) {
      const k = this.key(sig, b);
      const bucket = this.buckets[b].get(k);
      if (bucket) bucket.push(id);
      else this.buckets[b].set(k, [id]);
    }
  }

  /** Ids added before that share a band with `sig` (sorted, each once). */
  candidates(sig: Uint32Array): number[] {
    const out = new Set<number>();
    for (let b = 0; b < this.bands; b++) for (const id of this.buckets[b].get(this.key(sig, b)) ?? []) out.add(id);
    return [...out].sort((x, y) => x - y);
  }

  /** The chance that two sets of Jaccard similarity `j` become candidates. */
  candidateProbability(j: number): number {
    return 1 - (1 - j ** this.rows) ** this.bands;
  }
}
