// Token examples for language-model training (pretraining and SFT) and their batches.
//   LmExample: ids plus a per-token loss mask (1 = this token is predicted and counts in the loss).
//   Pretraining: source files cut into line chunks, a share rewritten into FIM form, packed into windows.
//   SFT: prompt + response + EOS with the loss on the response (and EOS) only; padded or packed.
import { dataRandom } from '@rlhf-code/data';
import { encodePair, fimIds, PromptTemplate, Tokenizer } from '@rlhf-code/tokenizer';

export interface LmExample {
  ids: number[];
  /** Same length as ids; lossMask[t] = 1 when ids[t] is a target (predicted from ids[..t-1]). */
  lossMask: number[];
}

/** A right-padded batch as host arrays: ids, attention (1 = real token) and loss masks, all [B, T]. */
export interface LmBatch {
  ids: number[][];
  attention: number[][];
  loss: number[][];
}

// ---------------------------------------------------------------------------------------------
// Pretraining on code with fill-in-the-middle

export interface PretrainOptions {
  /** Window length in tokens. */
  seqLen: number;
  /**
   * Share of chunks rewritten as FIM examples, in the tokenizer's order (tok.fimMode: PSM
   * <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m, or SPM <|fim_prefix|><|fim_suffix|>s<|fim_middle|>p m); Bavarian et
   * al. 2022 use 0.5-0.9.
   */
  fimRate: number;
  /** Seed of the chunking and FIM choices (vary it per epoch for fresh FIM splits). */
  seed: number | string;
}

/**
 * Cut a source file into chunks of whole lines of about `targetChars` characters (about one window of
 * tokens), so a FIM example sees a coherent piece of code.
 */
export function chunkLines(text: string, targetChars: number): string[] {
  const lines = text.split(/(?<=\n)/); // keeps the newlines
  const chunks: string[] = [];
  let cur = '';
  for (const line of lines) {
    if (cur.length > 0 && cur.length + line.length > targetChars) {
      chunks.push(cur);
      cur = '';
    }
    cur += line;
  }
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}

/**
 * Split `text` into prefix / middle / suffix for FIM. Half the time the middle is 1-3 whole lines (what an
 * editor completion usually fills: the rest of a line or the next lines), half the time a random character
 * span (as in the FIM paper), so the model also learns to finish a line from its middle.
 */
export function fimSplit(text: string, random: () => number): { prefix: string; middle: string; suffix: string } {
  const lineStarts = [0];
  for (let i = 0; i < text.length - 1; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const [a, b] = fimCut(text.length, lineStarts, random);
  return { prefix: text.slice(0, a), middle: text.slice(a, b), suffix: text.slice(b) };
}

/**
 * Where fimSplit's middle starts and ends, [a, b], in a span of `length` units (characters of text, or tokens of a
 * token-cache document) whose lines start at `lineStarts` (0 first, then after each newline, none at the very end).
 * Half the time 1-3 whole lines (a may fall inside the first one), half the time a random span.
 */
export function fimCut(length: number, lineStarts: readonly number[], random: () => number): [number, number] {
  if (random() < 0.5 && lineStarts.length > 1) {
    const first = Math.floor(random() * lineStarts.length);
    const n = 1 + Math.floor(random() * 3);
    // The middle may start inside the first line (a cursor in the middle of a line), then runs to a line end.
    const lineEnd = first + 1 < lineStarts.length ? lineStarts[first + 1] : length;
    const a = random() < 0.5 ? lineStarts[first] : lineStarts[first] + Math.floor(random() * (lineEnd - lineStarts[first]));
    const b = first + n < lineStarts.length ? lineStarts[first + n] : length;
    return [a, b];
  }
  let a = Math.floor(random() * (length + 1));
  let b = Math.floor(random() * (length + 1));
  if (a > b) [a, b] = [b, a];
  return [a, b];
}

/**
 * Token ids of one chunk: plain, or in FIM form (fimIds in the tokenizer's order, then the middle and <|endoftext|>:
 * `<|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m<|endoftext|>` in PSM order).
 * A plain chunk that ends its file is followed by <|endoftext|> (the document boundary). With `maxLen`, a FIM example
 * longer than that loses the end of its suffix, then the start of its prefix; if even its middle does not fit, the
 * chunk stays plain.
 */
export function pretrainTokens(tok: Tokenizer, chunk: string, asFim: boolean, endsFile: boolean, random: () => number, maxLen = Infinity): number[] {
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  const asPlain = () => (endsFile ? [...plain(chunk), tok.eosId] : plain(chunk));
  if (!asFim) return asPlain();
  const { prefix, middle, suffix } = fimSplit(chunk, random);
  let [p, s] = [plain(prefix), plain(suffix)];
  const m = plain(middle);
  const room = maxLen - m.length - 4; // the three markers and the end token
  if (room < 0) return asPlain();
  if (p.length + s.length > room) {
    s = s.slice(0, Math.max(0, room - p.length));
    p = p.slice(p.length - (room - s.length));
  }
  return [...fimIds(tok, p, s), ...m, tok.eosId];
}

/**
 * Files -> packed windows of exactly seqLen tokens (the last partial window is dropped). Documents follow each other
 * inside a window, separated by <|endoftext|>, as in GPT pretraining; every token is a target except padding.
 *
 * A FIM example never crosses a window: cut in two, the part after the cut would ask for a middle without the
 * prefix (or without its <|fim_middle|>) in view, teaching the model that the middle does not depend on the code
 * before it (measured on the shipped corpus before this rule: 63% of FIM examples crossed a window boundary, and
 * for 25% the first middle token could not see the end of the prefix). A FIM example that does not fit in what is
 * left of the current window waits for the next one, and the plain text that follows fills the gap; when a second
 * one would have to wait too (FIM-heavy mixes), the gap is padded instead (pad id, loss mask 0).
 */
export function pretrainWindows(tok: Tokenizer, files: readonly string[], opts: PretrainOptions): LmExample[] {
  const { seqLen, fimRate } = opts;
  if (!(fimRate >= 0 && fimRate <= 1)) throw new Error(`pretrainWindows: fimRate must be in [0, 1], got ${fimRate}`);
  if (!Number.isInteger(seqLen) || seqLen < 2) throw new Error(`pretrainWindows: seqLen must be an integer >= 2, got ${seqLen}`);
  const random = dataRandom(`pretrain:${opts.seed}`);
  const out: LmExample[] = [];
  let ids: number[] = [];
  let mask: number[] = [];
  let waiting: number[] | null = null; // a FIM example for the start of the next window
  const close = () => {
    out.push({ ids, lossMask: mask });
    ids = [];
    mask = [];
    if (waiting) {
      const w = waiting;
      waiting = null;
      append(w);
    }
  };
  const append = (tokens: readonly number[]) => {
    for (const id of tokens) {
      ids.push(id);
      mask.push(1);
      if (ids.length === seqLen) close();
    }
  };
  const placeFim = (tokens: number[]) => {
    if (ids.length + tokens.length <= seqLen) return append(tokens);
    if (waiting) {
      const pad = seqLen - ids.length;
      ids.push(...new Array<number>(pad).fill(tok.padId));
      mask.push(...new Array<number>(pad).fill(0));
      close(); // places the waiting example
      return placeFim(tokens);
    }
    waiting = tokens;
  };
  const charsPerChunk = seqLen * 3; // ~3-4 characters per token for code: a chunk is about one window
  for (const text of files) {
    const chunks = chunkLines(text, charsPerChunk);
    chunks.forEach((chunk, i) => {
      const asFim = random() < fimRate;
      const tokens = pretrainTokens(tok, chunk, asFim, i === chunks.length - 1, random, seqLen);
      if (tokens[0] === tok.fim.prefix) placeFim(tokens);
      else append(tokens);
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Supervised fine-tuning

/** {prompt, response} -> ids with the loss on the response tokens and the end token only. */
export function sftExample(tok: Tokenizer, prompt: string, response: string, opts: { template?: PromptTemplate; maxLen: number }): LmExample {
  const { ids, promptLen } = encodePair(tok, prompt, response, { template: opts.template, maxLen: opts.maxLen, addEos: true });
  return { ids, lossMask: ids.map((_, t) => (t >= promptLen ? 1 : 0)) };
}

/**
 * A fill-in-the-middle SFT example {prefix, suffix, middle} in the tokenizer's FIM order (fimIds; Qwen's PSM form is
 * `<|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|>middle<|endoftext|>`), the loss on the middle and the end
 * token only. Too long for maxLen: the middle (+ end token) keeps at least half the window, then the context left over is
 * shared between the prefix (cut from the left: the text next to the cursor stays) and the suffix (cut from the right).
 */
export function fimSftExample(tok: Tokenizer, prefix: string, suffix: string, middle: string, opts: { maxLen: number }): LmExample {
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  const room = opts.maxLen - 3; // the three FIM markers
  if (room < 2) throw new Error(`fimSftExample: maxLen must be at least 5, got ${opts.maxLen}`);
  let p = plain(prefix);
  let s = plain(suffix);
  let m = [...plain(middle), tok.eosId];
  if (p.length + s.length + m.length > room) {
    m = m.slice(0, Math.max(room - p.length - s.length, Math.ceil(room / 2)));
    const ctx = room - m.length;
    const suffixShare = Math.min(s.length, Math.floor(ctx / 2));
    const keepP = Math.min(p.length, ctx - suffixShare);
    const keepS = Math.min(s.length, ctx - keepP);
    p = p.slice(p.length - keepP);
    s = s.slice(0, keepS);
  }
  const promptIds = fimIds(tok, p, s);
  return { ids: [...promptIds, ...m], lossMask: [...promptIds.map(() => 0), ...m.map(() => 1)] };
}

/**
 * Pack examples back to back into windows of at most seqLen tokens (no example is split; an example
 * longer than seqLen gets its own window). Saves the compute padding wastes; examples in one window can
 * attend to each other, which is the usual price of packing.
 */
export function packExamples(examples: readonly LmExample[], seqLen: number): LmExample[] {
  const out: LmExample[] = [];
  let cur: LmExample = { ids: [], lossMask: [] };
  for (const ex of examples) {
    if (cur.ids.length > 0 && cur.ids.length + ex.ids.length > seqLen) {
      out.push(cur);
      cur = { ids: [], lossMask: [] };
    }
    cur.ids.push(...ex.ids);
    cur.lossMask.push(...ex.lossMask);
  }
  if (cur.ids.length > 0) out.push(cur);
  return out;
}

/** Right-pad a group of examples to its longest member. */
export function padLmBatch(examples: readonly LmExample[], padId: number): LmBatch {
  if (examples.length === 0) throw new Error('padLmBatch: no examples');
  const T = Math.max(...examples.map((e) => e.ids.length));
  const fill = (row: number[], v: number) => [...row, ...new Array<number>(T - row.length).fill(v)];
  return {
    ids: examples.map((e) => fill(e.ids, padId)),
    attention: examples.map((e) => fill(new Array<number>(e.ids.length).fill(1), 0)),
    loss: examples.map((e) => fill(e.lossMask, 0)),
  };
}

/** Number of target tokens in a batch (the weight of its micro-batch in the accumulated mean). */
export function targetCount(batch: LmBatch): number {
  let n = 0;
  for (const row of batch.loss) for (let t = 1; t < row.length; t++) n += row[t];
  return n;
}
