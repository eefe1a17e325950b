// Autoregressive generation with a KV cache: one batch of prompts (left padded), greedy or sampled tokens,
// stop token ids and stop strings, per-token log-probs of the chosen tokens, optional streaming.
// The low-level decoder: callers go through generateBatch (generate-batch.ts), which batches, seeds and names stop sets.
import * as tf from '@tensorflow/tfjs';
import { readFloats } from '@rlhf-code/backend';
import { KVCache } from './kv-cache';
import { sharedPrefixLength } from './shared-prefix';
import { Qwen2Model } from './model';
import type { PrefixCache } from './prefix-cache';
import { Rng, sampleToken, SamplingOptions } from './sampling';

export interface GenerateOptions extends SamplingOptions {
  maxNewTokens: number;
  /** Stop token ids cannot be chosen before this many tokens (Hugging Face's min_new_tokens, vLLM's min_tokens). Default 0. */
  minNewTokens?: number;
  /**
   * Ids from this one up to the logits' width are never chosen (masked out, the rest renormalised): a checkpoint's
   * vocab_size is often padded past its tokenizer's tokens (Qwen2.5: 151,936 rows for 151,665 tokens), and those rows
   * are no text. Default: every id of the logits.
   */
  vocabSize?: number;
  /** Token id used to left-pad shorter prompts (masked out, never attended to). */
  padId: number;
  /** Generation of a row ends after it emits one of these (the id is kept in `ids`, not in `text`). */
  stopTokenIds?: number[];
  /** Generation of a row ends when its text contains one of these; `text` is cut before it. */
  stopStrings?: string[];
  /** Turns ids into text; required for `text`, stop strings and streaming. */
  decode?: (ids: number[]) => string;
  /** One random stream per row (required unless greedy): row b's tokens are drawn from rngs[b] alone. */
  rngs?: readonly Rng[];
  /** A temperature per row instead of `temperature` (0: that row greedy). */
  temperatures?: readonly number[];
  /**
   * Called with each row's text after every step (after stop strings): an index into it ends the row there (the text
   * before it kept, finish reason 'stop'), null goes on. For rules a stop string cannot say, e.g. "end of the line".
   */
  stopWhen?: (row: number, text: string) => number | null;
  /** Called with each row's newly final text as it is generated (never a partial stop string). */
  onText?: (row: number, delta: string) => void;
  /** Called before every decoding step; an async hook lets a server swap weights between steps. */
  beforeStep?: () => void | Promise<void>;
  /**
   * Prefill the prompt this many positions at a time, with an event-loop turn (and beforeStep) between the pieces, so
   * a server stays responsive during a long prompt; 0 or absent = the whole prompt in one pass. Same numbers either way.
   */
  prefillChunk?: number;
  /**
   * One prompt only: decode from the KV cache `key`'s earlier prompt left in `cache` (the longest token prefix they
   * share is not prefilled again), and leave this one's there for the key's next (prefix-cache.ts). Same numbers as
   * without, up to float rounding.
   */
  prefixCache?: { cache: PrefixCache; key: string };
}

export type FinishReason = 'stop' | 'length';

export interface Generation {
  /** Generated token ids (without the prompt). */
  ids: number[];
  /** log p(token) of each generated id under softmax(logits / temperature). */
  logprobs: number[];
  /** With `modelLogprobs`: log p(token) of each generated id under softmax(logits), temperature 1. */
  modelLogprobs?: number[];
  /** Decoded text of the generated ids, stop token and stop string excluded ('' without `decode`). */
  text: string;
  finishReason: FinishReason;
  /** With `prefixCache`: the prompt's first positions whose keys and values came from the cache (not prefilled). */
  cachedTokens?: number;
}

// Turn-taking between generations running in one process (a server's concurrent requests): each decoding step (or
// prefill piece) waits for its turn, and one turn is given per event-loop iteration, in arrival order. Node runs every
// setImmediate callback queued before its check phase in one go, so with plain setImmediate yields N concurrent
// generations would each run a step before any I/O (a status request) is looked at; this way I/O is served between
// any two steps, and the generations share the CPU round-robin.
const waiting: (() => void)[] = [];
let released = false;

function release(): void {
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(release); // queued from inside a check-phase callback: runs next iteration
  else released = false;
  next?.();
}

/** Resolves at this caller's next turn (see above). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!released) {
      released = true;
      setImmediate(release);
    }
  });
}

/** Length of the longest suffix of `text` that is a proper start of some stop string (held back while streaming). */
function pendingStopPrefix(text: string, stops: readonly string[]): number {
  let keep = 0;
  for (const s of stops) {
    for (let n = Math.min(s.length - 1, text.length); n > keep; n--) {
      if (text.endsWith(s.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

class RowState {
  ids: number[] = [];
  logprobs: number[] = [];
  modelLogprobs: number[] = [];
  text = '';
  streamed = 0; // characters of `text` already passed to onText
  done = false;
  finishReason: FinishReason = 'length';
}

/** Generate a continuation for each prompt (token ids). Rows finish independently. */
export async function generate(model: Qwen2Model, prompts: readonly (readonly number[])[], opts: GenerateOptions): Promise<Generation[]> {
  if (prompts.length === 0) return [];
  if (prompts.some((p) => p.length === 0)) throw new Error('generate: every prompt needs at least one token');
  if (!(opts.maxNewTokens >= 0)) throw new Error(`generate: maxNewTokens must be >= 0, got ${opts.maxNewTokens}`);
  const minNew = opts.minNewTokens ?? 0;
  if (!(Number.isInteger(minNew) && minNew >= 0)) throw new Error(`generate: minNewTokens must be an integer >= 0, got ${opts.minNewTokens}`);
  if (opts.vocabSize !== undefined && !(Number.isInteger(opts.vocabSize) && opts.vocabSize >= 1)) throw new Error(`generate: vocabSize must be an integer >= 1, got ${opts.vocabSize}`);
  const stops = (opts.stopStrings ?? []).filter((s) => s.length > 0);
  if ((stops.length > 0 || opts.onText || opts.stopWhen) && !opts.decode) throw new Error('generate: stop strings, stopWhen and streaming need `decode`');
  const stopIds = new Set(opts.stopTokenIds ?? []);
  const B = prompts.length;
  if (opts.rngs && opts.rngs.length !== B) throw new Error(`generate: ${B} prompts need ${B} random streams, got ${opts.rngs.length}`);
  if (opts.temperatures && opts.temperatures.length !== B) throw new Error(`generate: ${B} prompts need ${B} temperatures, got ${opts.temperatures.length}`);
  const rowSampling = prompts.map((_, b) => (opts.temperatures ? { ...opts, temperature: opts.temperatures[b] } : opts));
  const rows = prompts.map(() => new RowState());
  if (opts.prefixCache && B !== 1) throw new Error(`generate: a prefix cache serves one prompt at a time, got ${B}`);

  // A prefix cache's entry for the key: its first `reused` positions are this prompt's, the rest is prefilled.
  const pc = opts.prefixCache;
  const taken = pc?.cache.take(pc.key, prompts[0], model, prompts[0].length + opts.maxNewTokens);
  const reused = taken?.reused ?? 0;

  // The prompts' common first tokens (a shared system prompt, a group of copies of one prompt) are prefilled once, in
  // one row that is then copied to every row of the cache; the batch prefills only the rest. Each row keeps at least
  // its last prompt token in the rest (it gives the first logits). Between the shared part and a shorter row's rest
  // sit pad columns: masked keys, and positions count real tokens only, so every row sees what it would see alone.
  const shared = B > 1 && opts.maxNewTokens > 0 ? sharedPrefixLength(prompts) : 0;
  const rests = prompts.map((p) => p.slice(shared + reused)); // reused: one prompt, nothing shared
  const T = Math.max(...rests.map((p) => p.length));

  // Left padding: every row's last prompt token sits at column T-1, so all rows decode in lockstep.
  const ids = new Int32Array(B * T).fill(opts.padId);
  const mask = new Float32Array(B * T);
  rests.forEach((p, b) => {
    ids.set(p, b * T + T - p.length);
    mask.fill(1, b * T + T - p.length, (b + 1) * T);
  });

  // Copies of one prompt (the samples of a problem, a GRPO group) are prefilled once: the distinct prompts go through
  // all but their last token, the cache rows are then copied to every row that shares them, and the batch decodes
  // from each row's last prompt token on (that token gives the first logits, so it stays per row).
  const distinct = new Map<string, number>();
  const firstRowOf: number[] = []; // distinct prompt -> the first row holding it
  const copyOf = prompts.map((p, b) => {
    const key = p.join(',');
    let u = distinct.get(key);
    if (u === undefined) distinct.set(key, (u = firstRowOf.push(b) - 1));
    return u;
  });
  const dedupe = firstRowOf.length < B && T > 1 && opts.maxNewTokens > 0;
  const prefillRows = dedupe ? firstRowOf : rows.map((_, b) => b);

  const cache = taken?.cache ?? new KVCache({ capacity: shared + T + opts.maxNewTokens });
  // Columns [from, to) of the left-padded prompt block, for the given rows (default: all).
  const columns = <A extends Int32Array | Float32Array>(a: A, from: number, to: number, of: readonly number[] = rows.map((_, b) => b)): A => {
    const out = new (a.constructor as new (n: number) => A)(of.length * (to - from));
    of.forEach((b, k) => out.set(a.subarray(b * T + from, b * T + to), k * (to - from)));
    return out;
  };
  const chunk = opts.prefillChunk ?? 0;
  try {
    if (shared > 0) {
      const prefix = prompts[0].slice(0, shared);
      const piece = chunk > 0 ? chunk : shared;
      for (let at = 0; at < shared; at += piece) {
        if (at > 0) {
          await nextTurn();
          if (opts.beforeStep) await opts.beforeStep();
        }
        const n = Math.min(piece, shared - at);
        tf.tidy(() => {
          model.forward(tf.tensor2d(prefix.slice(at, at + n), [1, n], 'int32'), { mask: tf.ones([1, n]), cache });
        });
      }
      cache.keepRows(new Array<number>(prefillRows.length).fill(0));
    }
    // Chunked prefill: all but the last piece of the prompt go into the cache first, one piece per event-loop turn.
    let start = 0;
    if (dedupe) {
      const piece = chunk > 0 ? chunk : T - 1;
      for (; start < T - 1; start += piece) {
        if (chunk > 0) {
          await nextTurn();
          if (opts.beforeStep) await opts.beforeStep();
        }
        const to = Math.min(start + piece, T - 1);
        const n = prefillRows.length;
        tf.tidy(() => {
          model.forward(tf.tensor2d(columns(ids, start, to, prefillRows), [n, to - start], 'int32'), { mask: tf.tensor2d(columns(mask, start, to, prefillRows), [n, to - start]), cache });
        });
      }
      start = T - 1;
      cache.keepRows(copyOf);
    } else if (chunk > 0 && opts.maxNewTokens > 0) {
      for (; T - start > chunk; start += chunk) {
        await nextTurn();
        if (opts.beforeStep) await opts.beforeStep();
        tf.tidy(() => {
          model.forward(tf.tensor2d(columns(ids, start, start + chunk), [B, chunk], 'int32'), { mask: tf.tensor2d(columns(mask, start, start + chunk), [B, chunk]), cache });
        });
      }
    }
    let input = tf.tensor2d(columns(ids, start, T), [B, T - start], 'int32');
    let inputMask = tf.tensor2d(columns(mask, start, T), [B, T - start]);
    // active[k]: the row at position k of the decoding batch. Once half of them have finished, the finished ones
    // leave the batch (and the cache): a few long continuations no longer pay for the whole batch every step.
    let active = rows.map((_, b) => b);
    let logitsHost: Float32Array | undefined;
    for (let step = 0; step < opts.maxNewTokens; step++) {
      // A turn of the event loop between steps: a server's other requests, status calls and disconnects get handled
      // while a generation runs (awaiting a settled promise alone would not let them in).
      await nextTurn();
      if (opts.beforeStep) await opts.beforeStep();
      const logits = tf.tidy(() => {
        const hidden = model.forward(input, { mask: inputMask, cache }); // [A, t, D]
        const [a, t, d] = hidden.shape;
        const last = tf.reshape(tf.slice(hidden, [0, t - 1, 0], [a, 1, d]), [a, d]) as tf.Tensor2D;
        return model.lmHead(last); // [A, V]
      });
      const V = logits.shape[1];
      const host = (logitsHost = readFloats(logits, logitsHost)); // one host buffer for every step: no 4 MB array per step
      logits.dispose();
      tf.dispose([input, inputMask]);

      active.forEach((b, k) => {
        const row = rows[b];
        if (row.done) return;
        const rowLogits = host.subarray(k * V, (k + 1) * V);
        // min_new_tokens: the stop ids are masked out, so the token and its log-prob come from the renormalised rest.
        if (row.ids.length < minNew) for (const id of stopIds) rowLogits[id] = -Infinity;
        if (opts.vocabSize !== undefined && opts.vocabSize < V) rowLogits.fill(-Infinity, opts.vocabSize); // ids no token maps to
        const { token, logprob, modelLogprob } = sampleToken(rowLogits, rowSampling[b], opts.rngs?.[b]);
        row.ids.push(token);
        row.logprobs.push(logprob);
        if (modelLogprob !== undefined) row.modelLogprobs.push(modelLogprob);
        if (stopIds.has(token)) {
          row.done = true;
          row.finishReason = 'stop';
        }
        if (opts.decode) updateText(row, b, stopIds, stops, opts);
        if (opts.onText) streamText(row, b, stops, opts.onText);
      });
      const live = active.filter((b) => !rows[b].done);
      if (live.length === 0) break;
      if (live.length <= active.length / 2) {
        cache.keepRows(live.map((b) => active.indexOf(b)));
        active = live;
      }
      // Finished rows still in the batch get a masked pad token.
      input = tf.tensor2d(Int32Array.from(active, (b) => (rows[b].done ? opts.padId : rows[b].ids[rows[b].ids.length - 1])), [active.length, 1], 'int32');
      inputMask = tf.tensor2d(Float32Array.from(active, (b) => (rows[b].done ? 0 : 1)), [active.length, 1]);
    }
    tf.dispose([input, inputMask]);
  } finally {
    // The cache holds the prompt, then each sampled token but the last (it was never fed back), in order: also after
    // an abort between steps, which the key's next prompt (the user typed on) most likely shares.
    if (pc && taken) pc.cache.put(pc.key, [...prompts[0], ...rows[0].ids].slice(0, cache.length), taken, model);
    else cache.dispose();
  }
  if (opts.onText) rows.forEach((row, b) => streamText(row, b, [], opts.onText!, true));
  const cached = taken ? { cachedTokens: reused } : {};
  return rows.map(({ ids, logprobs, modelLogprobs, text, finishReason }) => ({ ids, logprobs, ...(opts.modelLogprobs ? { modelLogprobs } : {}), text, finishReason, ...cached }));
}

/** Re-decode the row and end it at the first stop string, or where stopWhen says. */
function updateText(row: RowState, b: number, stopIds: Set<number>, stops: string[], opts: GenerateOptions): void {
  const last = row.ids[row.ids.length - 1];
  const visible = stopIds.has(last) ? row.ids.slice(0, -1) : row.ids;
  let text = opts.decode!(visible);
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0) {
      text = text.slice(0, at);
      row.done = true;
      row.finishReason = 'stop';
    }
  }
  const cut = opts.stopWhen?.(b, text) ?? null;
  if (cut !== null) {
    text = text.slice(0, cut);
    row.done = true;
    row.finishReason = 'stop';
  }
  row.text = text;
}

/**
 * How much of a continuation's text (so far) can no longer change, and may stream: all but a trailing partial
 * character and a possible stop string start (a finished continuation: all of it).
 */
export function finalTextEnd(text: string, stops: readonly string[], done: boolean): number {
  if (done) return text.length;
  const end = text.endsWith('\uFFFD') ? text.length - 1 : text.length; // a multi-byte character split across tokens
  return end - pendingStopPrefix(text.slice(0, end), stops);
}

/** Pass on the text that can no longer change. */
function streamText(row: RowState, b: number, stops: string[], onText: (row: number, delta: string) => void, flush = false): void {
  const end = finalTextEnd(row.text, stops, row.done || flush);
  if (end > row.streamed) {
    onText(b, row.text.slice(row.streamed, end));
    row.streamed = end;
  }
}
