// Pretraining windows streamed from a token cache (libs/data token-cache.ts, written by prep:corpus): no re-tokenizing
// and no array of windows. A window is cut when its batch is drawn, from a position {epoch, cursor, offset} that every
// checkpoint saves, so a resumed run reads exactly the windows the uninterrupted run would have read.
//   epoch order  every non-empty document of the split, repeated or subsampled by its package's weight (2.5: twice,
//                and a third time with probability 0.5, drawn per epoch), shuffled with (seed, epoch); `cursor` is an
//                index into it, `offset` a token of that document (offset = its length: its <|endoftext|> is next)
//   window       seqLen tokens, documents back to back, each followed by <|endoftext|>; every token a target
//   chunk        a window fills chunk by chunk from the position: plain tokens up to the end of the document or of
//                the window; or (at fimRate) a FIM example of the next min(rest of the document, room left - 4)
//                tokens, cut at token boundaries into prefix / middle / suffix (fimCut: half the time whole lines that
//                end after a newline token), laid out by fimIds in the tokenizer's order, then the middle and
//                <|endoftext|>. A FIM example thus never crosses a window (pretrainWindows says why) and no window
//                needs padding.
//   randomness   each chunk's choices come from a generator seeded by (seed, epoch, cursor, offset): a function of the
//                position alone.
import { dataRandom, shuffle, type Seed, type TokenSplit } from '@rlhf-code/data';
import { fimIds, type Tokenizer } from '@rlhf-code/tokenizer';
import { fimCut, type LmExample } from './lm-data';

/** Where a stream is: pass `epoch` over the data, document `cursor` of that epoch's order, token `offset` in it. */
export interface StreamPosition {
  epoch: number;
  cursor: number;
  offset: number;
}

/** The FIM markers and the end token a FIM example adds to its span. */
const FIM_EXTRA = 4;
/** Shortest span made into a FIM example (a shorter one, at the end of a window or a document, stays plain). */
const MIN_FIM_SPAN = 8;

export interface CacheWindowsOptions {
  seqLen: number;
  /** Share of chunks in FIM form. */
  fimRate: number;
  /** Seed of the epoch orders and the FIM choices. */
  seed: Seed;
  /** Weight by package name (unnamed packages weigh 1); needs `packages`. */
  packageWeights?: ReadonlyMap<string, number>;
  /** Each document's package, in the split's order (the cache's docs.jsonl). */
  packages?: readonly string[];
  /**
   * What the data is (e.g. the cache's split sizes and tokenizer hash): saved with the position with the seed and
   * the weights, since a position means the same place only in the same data and order.
   */
  identity?: Record<string, unknown>;
}

/** What a checkpoint keeps of a stream (trainer_state.json's "stream"). */
export interface SavedStream extends StreamPosition {
  tokens: number;
  data: Record<string, unknown>;
}

/** A stream of pretraining windows over one split of a token cache (see the top of this file). */
export class CacheWindows {
  /** Where the next window starts. */
  position: StreamPosition = { epoch: 0, cursor: 0, offset: 0 };
  /** Tokens of the windows drawn so far (with those of the run it resumed). */
  tokens = 0;
  private order: readonly number[] = [];
  private orderEpoch = -1;
  private readonly lineEnds: Uint8Array;
  /** The package weights, none when every package weighs 1. */
  private readonly weights?: ReadonlyMap<string, number>;

  constructor(
    private readonly tok: Tokenizer,
    private readonly split: TokenSplit,
    private readonly opts: CacheWindowsOptions,
    lineEnds: Uint8Array = lineEndTable(tok),
  ) {
    const { seqLen, fimRate } = opts;
    if (!Number.isInteger(seqLen) || seqLen < 2) throw new Error(`CacheWindows: seqLen must be an integer >= 2, got ${seqLen}`);
    if (!(fimRate >= 0 && fimRate <= 1)) throw new Error(`CacheWindows: fimRate must be in [0, 1], got ${fimRate}`);
    this.weights = opts.packageWeights?.size ? opts.packageWeights : undefined;
    if (this.weights && opts.packages?.length !== split.offsets.length - 1) throw new Error('CacheWindows: package weights need every document\'s package');
    this.lineEnds = lineEnds;
    if (this.orderOf(0).length === 0) throw new Error('CacheWindows: no document to train on (every one is empty or weighs 0)');
  }

  /** The documents of `epoch` in training order (indices into the split), each repeated by its package's weight. */
  orderOf(epoch: number): readonly number[] {
    if (epoch === this.orderEpoch) return this.order;
    const { offsets } = this.split;
    const { weights } = this;
    const { packages, seed } = this.opts;
    const random = dataRandom(`${seed}:${epoch}:weights`);
    const docs: number[] = [];
    for (let i = 0; i + 1 < offsets.length; i++) {
      if (offsets[i + 1] === offsets[i]) continue;
      const w = weights?.get(packages![i]) ?? 1;
      let k = Math.floor(w);
      if (w !== k && random() < w - k) k++;
      for (let r = 0; r < k; r++) docs.push(i);
    }
    this.order = shuffle(docs, `${seed}:${epoch}`);
    this.orderEpoch = epoch;
    return this.order;
  }

  /** Tokens in an epoch, expected under the weights: the documents' own plus one end token each (without FIM markers). */
  epochTokens(): number {
    const { offsets } = this.split;
    const { weights } = this;
    const { packages } = this.opts;
    let n = 0;
    for (let i = 0; i + 1 < offsets.length; i++) {
      const len = offsets[i + 1] - offsets[i];
      if (len > 0) n += (weights?.get(packages![i]) ?? 1) * (len + 1);
    }
    return n;
  }

  /** Passes over the data so far, with the fraction of the current one. */
  get epochs(): number {
    return this.position.epoch + this.position.cursor / this.orderOf(this.position.epoch).length;
  }

  /** The data and order a position refers to: the caller's identity, the seed and the package weights. */
  get data(): Record<string, unknown> {
    const weights = [...(this.weights ?? new Map<string, number>())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`);
    return { ...this.opts.identity, seed: this.opts.seed, packageWeights: weights };
  }

  /** The position and tokens to save, with the data they refer to. */
  save(): SavedStream {
    return { ...this.position, tokens: this.tokens, data: this.data };
  }

  /**
   * Continue from a saved stream. `resumed` (--resume): it must be of the same data and order, or this is an error
   * naming what differs. Otherwise (an --init checkpoint's position) the stream then starts from the beginning of its
   * data, and the line returned says why. Returns a line to print, if any.
   */
  restore(saved: unknown, resumed: boolean): string | undefined {
    const s = saved as Partial<SavedStream> | undefined;
    if (!s || typeof s !== 'object' || typeof s.data !== 'object' || typeof s.tokens !== 'number') {
      if (resumed) throw new Error('cannot resume: the checkpoint has no stream position (it was not trained from a token cache)');
      return 'the --init checkpoint has no stream position: the data starts from its beginning';
    }
    const data = this.data;
    const differs = [...new Set([...Object.keys(data), ...Object.keys(s.data!)])].filter((k) => JSON.stringify(data[k]) !== JSON.stringify(s.data![k]));
    if (differs.length > 0) {
      const what = differs.map((k) => `${k} ${JSON.stringify(s.data![k])} there, ${JSON.stringify(data[k])} here`).join('; ');
      if (resumed) throw new Error(`cannot resume: the checkpoint's position is in other data or another order (${what}); resume with the same --cache, --seed and --package-weights`);
      this.tokens = s.tokens!;
      return `the --init checkpoint's position is in other data or another order (${what}): the data starts from its beginning`;
    }
    this.seek({ epoch: s.epoch!, cursor: s.cursor!, offset: s.offset! });
    this.tokens = s.tokens!;
    return undefined;
  }

  /** Continue from `p` (a saved position); an error when it does not fit this split and order. */
  seek(p: StreamPosition): void {
    const order = Number.isInteger(p.epoch) && p.epoch >= 0 ? this.orderOf(p.epoch) : [];
    const ok = Number.isInteger(p.cursor) && p.cursor >= 0 && p.cursor < order.length && Number.isInteger(p.offset) && p.offset >= 0 && p.offset <= this.docLength(order[p.cursor]);
    if (!ok) throw new Error(`stream position ${JSON.stringify(p)} is outside the data (epoch order of ${order.length} documents)`);
    this.position = { ...p };
  }

  /** The next window: seqLen ids, every one a target. */
  next(): LmExample {
    const { seqLen, fimRate, seed } = this.opts;
    const { tokens } = this.split;
    const eos = this.tok.eosId;
    const ids: number[] = [];
    while (ids.length < seqLen) {
      const { epoch, cursor, offset } = this.position;
      const doc = this.orderOf(epoch)[cursor];
      const start = this.split.offsets[doc];
      const len = this.docLength(doc);
      if (offset === len) {
        ids.push(eos); // the end of a document cut at the end of the previous window
        this.nextDocument();
        continue;
      }
      const room = seqLen - ids.length;
      const random = dataRandom(`${seed}:${epoch}:${cursor}:${offset}`);
      const span = Math.min(len - offset, room - FIM_EXTRA);
      if (random() < fimRate && span >= MIN_FIM_SPAN) {
        const part = tokens.subarray(start + offset, start + offset + span);
        const [a, b] = fimCut(span, this.lineStarts(part), random);
        ids.push(...fimIds(this.tok, Array.from(part.subarray(0, a)), Array.from(part.subarray(b))), ...part.subarray(a, b), eos);
        // The FIM example's end token also ends the document when the span reaches its end.
        if (offset + span === len) this.nextDocument();
        else this.position.offset = offset + span;
      } else {
        const n = Math.min(len - offset, room);
        ids.push(...tokens.subarray(start + offset, start + offset + n));
        this.position.offset = offset + n; // = len: the end token comes next, in this window or the next one
      }
    }
    this.tokens += seqLen;
    return { ids, lossMask: new Array<number>(seqLen).fill(1) };
  }

  private docLength(doc: number): number {
    return this.split.offsets[doc + 1] - this.split.offsets[doc];
  }

  private nextDocument(): void {
    const p = this.position;
    this.position = p.cursor + 1 < this.orderOf(p.epoch).length ? { epoch: p.epoch, cursor: p.cursor + 1, offset: 0 } : { epoch: p.epoch + 1, cursor: 0, offset: 0 };
  }

  /** fimCut's line starts in a span of ids: 0, then after each token with a newline (none at the very end). */
  private lineStarts(ids: Uint16Array | Uint32Array): number[] {
    const starts = [0];
    for (let t = 0; t < ids.length - 1; t++) if (this.lineEnds[ids[t]] === 1) starts.push(t + 1);
    return starts;
  }
}

/** 1 for every id whose text holds a newline (where a line of code ends: "\n", ":\n", "\n    ", ...), else 0. */
export function lineEndTable(tok: Tokenizer): Uint8Array {
  const table = new Uint8Array(tok.vocabSize);
  for (let id = 0; id < tok.vocabSize; id++) if (!tok.isSpecial(id) && tok.decode([id]).includes('\n')) table[id] = 1;
  return table;
}

/**
 * The held-out windows: the first `count` of the split's stream with a fixed seed ("heldout", whatever the run's
 * seed), so every run and chunk measures the same windows; fewer when the split is shorter (never a second pass).
 */
export function heldOutWindows(tok: Tokenizer, split: TokenSplit, o: { seqLen: number; fimRate: number; count: number; lineEnds?: Uint8Array }): LmExample[] {
  const stream = new CacheWindows(tok, split, { seqLen: o.seqLen, fimRate: o.fimRate, seed: 'heldout' }, o.lineEnds);
  const out: LmExample[] = [];
  while (out.length < o.count) {
    const w = stream.next();
    const p = stream.position;
    if (p.epoch > 0 && (p.epoch > 1 || p.cursor > 0 || p.offset > 0)) break; // it reached into a second pass
    out.push(w);
    if (p.epoch > 0) break;
  }
  return out;
}

/** One entry of --package-weights: package=weight, the weight a non-negative decimal. */
export const PACKAGE_WEIGHT = /^([^=\s]+)=(\d+(?:\.\d*)?|\.\d+)$/;

/** 'cpython-stdlib=4' entries (the --package-weights setting) as a map; an error names a bad or repeated entry. */
export function parsePackageWeights(entries: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of entries) {
    const m = PACKAGE_WEIGHT.exec(e.trim());
    if (!m) throw new Error(`package weight "${e}": expected package=weight, e.g. cpython-stdlib=4`);
    if (out.has(m[1])) throw new Error(`package weight "${e}": ${m[1]} is named twice`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}
