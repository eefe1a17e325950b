// Run with tsx (not jest): the LlamaCppEngine behaviours llamacpp.test.ts checks, on the tiny checkpoint and adapter
// given as arguments, printed as one JSON object on stdout. jest cannot import node-llama-cpp's ES modules, so the
// test starts this script in a child process (as chart.test.ts does with vega).
//   tsx libs/engine/src/testing/llamacpp-scenarios.ts MODEL_DIR ADAPTER_DIR
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { resumableRng } from '@rlhf-code/model';
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import type { SampleRequest } from '../engine';
import { LlamaCppEngine } from '../llamacpp';

const [modelDir, adapterDir] = process.argv.slice(2);

/** log softmax(row / t)[id] over the ids below `vocab` (float64). */
function logProb(row: Float32Array, id: number, t: number, vocab = row.length, without: number[] = []): number {
  const z = Array.from(row.subarray(0, vocab), (v, i) => (without.includes(i) ? -Infinity : v / t));
  const max = z.reduce((m, v) => Math.max(m, v), -Infinity);
  return z[id] - max - Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0));
}

const argmax = (row: Float32Array) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);
const maxDiff = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const errorOf = (p: Promise<unknown>) => p.then(() => 'no error', (e: Error) => e.message);

async function main(): Promise<void> {
  await initBackend({ quiet: true }); // publishing the adapter folded into full weights runs tensor ops
  const tok = loadTokenizer(modelDir);
  const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'llamacpp-scenarios-'));
  try {
    process.stdout.write(JSON.stringify(await scenarios(tok, cacheDir)) + '\n');
  } finally {
    await fs.rm(cacheDir, { recursive: true, force: true });
  }
}

async function scenarios(tok: Tokenizer, cacheDir: string): Promise<Record<string, unknown>> {
  const engine = await LlamaCppEngine.open(modelDir, { threads: 1, sequences: 2, contextSize: 64, cacheDir, recycleEvery: 1, tokenizer: tok });
  const prompts = ['def add(a, b):\n    return', 'import os\nprint(', 'class Point:\n    def __init__(self'].map((t) => tok.encode(t));
  const base: SampleRequest = { maxNewTokens: 8, temperature: 1, stopIds: [], vocabSize: tok.vocabSize, seed: 3 };
  const out: Record<string, unknown> = { vocabRows: engine.vocabRows, tokenizerSize: tok.vocabSize };

  // Seeding: the same request twice, the first prompt alone, another seed, and a caller's root stream.
  const a = await engine.sample(prompts, base);
  const again = await engine.sample(prompts, base);
  const alone = await engine.sample(prompts.slice(0, 1), base);
  const other = await engine.sample(prompts, { ...base, seed: 4 });
  const rng = resumableRng('root');
  await engine.sample(prompts, { ...base, seed: undefined, rng });
  const reference = resumableRng('root');
  prompts.forEach(() => reference.next());
  const [c1, c2] = await Promise.all([engine.sample(prompts, base), engine.sample(prompts.slice(0, 2), base)]);
  out.seeding = {
    repeatable: JSON.stringify(a.map((c) => [c.ids, c.stopId, c.text])) === JSON.stringify(again.map((c) => [c.ids, c.stopId, c.text])),
    repeatLogprobDiff: maxDiff(a.flatMap((c) => c.logprobs), again.flatMap((c) => c.logprobs)),
    firstAloneSame: JSON.stringify(alone[0].ids) === JSON.stringify(a[0].ids),
    otherSeedDiffers: JSON.stringify(other.map((c) => c.ids)) !== JSON.stringify(a.map((c) => c.ids)),
    rootAdvancedByPrompts: rng.next() === reference.next(),
    concurrentSame: JSON.stringify(c1.map((c) => c.ids)) === JSON.stringify(a.map((c) => c.ids)) && JSON.stringify(c2.map((c) => c.ids)) === JSON.stringify(a.slice(0, 2).map((c) => c.ids)),
    lengths: a.map((c) => c.ids.length),
    versions: a.map((c) => c.policyVersion),
  };

  // Log-probs against llama.cpp's own logits: sampled at T = 1 with ids >= 100 banned; greedy; greedy under min-new (the
  // rows past the tokenizer's V banned).
  const p = prompts[0];
  const V = tok.vocabSize;
  const banned = (await engine.sample([p], { ...base, vocabSize: 100 }))[0];
  const bannedLogits = await engine.logits([...p, ...banned.ids]);
  const greedy = (await engine.sample([p], { ...base, temperature: 0 }))[0];
  const greedyLogits = await engine.logits([...p, ...greedy.ids]);
  const held = (await engine.sample([p], { ...base, temperature: 0, maxNewTokens: 2, stopIds: [greedy.ids[0]], minNewTokens: 1 }))[0];
  out.logprobs = {
    bannedIdsBelow100: banned.ids.every((id) => id < 100),
    bannedLogprobDiff: maxDiff(banned.logprobs, banned.ids.map((id, t) => logProb(bannedLogits[p.length - 1 + t], id, 1, 100))),
    greedyIsArgmax: greedy.ids.every((id, t) => id === argmax(greedyLogits[p.length - 1 + t].subarray(0, V))),
    greedyLogprobDiff: maxDiff(greedy.logprobs, greedy.ids.map((id, t) => logProb(greedyLogits[p.length - 1 + t], id, 1, V))),
    minNewHeldStop: held.ids[0] !== greedy.ids[0],
    minNewLogprobDiff: Math.abs(held.logprobs[0] - logProb(greedyLogits[p.length - 1], held.ids[0], 1, V, [greedy.ids[0]])),
  };

  // Stops: a stop id, a stop string, stopWhen, maxNewTokens 0, a per-prompt greedy temperature.
  const stopAt = greedy.ids.findIndex((id, t) => t >= 2 && !greedy.ids.slice(0, t).includes(id));
  const stopped = (await engine.sample([p], { ...base, temperature: 0, stopIds: [greedy.ids[stopAt]] }))[0];
  const stopString = greedy.text.slice(3, 5);
  let streamed = '';
  const cut = (await engine.sample([p], { ...base, temperature: 0, stopStrings: [stopString], onText: (_i, d) => (streamed += d) }))[0];
  const when = (await engine.sample([p], { ...base, temperature: 0, stopWhen: (_i, text) => (text.length >= 2 ? 1 : null) }))[0];
  const none = (await engine.sample([p], { ...base, maxNewTokens: 0 }))[0];
  const deltas: string[] = [];
  const streaming = (await engine.sample([p], { ...base, temperature: 0, onText: (_i, d) => deltas.push(d) }))[0];
  const mixed = await engine.sample([p, p], { ...base, temperatures: [0, 1] });
  out.stops = {
    stopId: JSON.stringify(stopped.ids) === JSON.stringify(greedy.ids.slice(0, stopAt)) && stopped.stopId === greedy.ids[stopAt] && stopped.finishReason === 'stop' && stopped.logprobs.length === stopAt + 1,
    stopString: cut.text === greedy.text.slice(0, greedy.text.indexOf(stopString)) && cut.finishReason === 'stop' && cut.stopId === null && streamed === cut.text,
    stopWhen: when.text === greedy.text.slice(0, 1) && when.finishReason === 'stop',
    maxNewZero: none.ids.length === 0 && none.finishReason === 'length' && none.logprobs.length === 0,
    perPromptGreedy: JSON.stringify(mixed[0].ids) === JSON.stringify(greedy.ids),
    streams: deltas.length > 1 && deltas.join('') === streaming.text && streaming.text === greedy.text,
  };

  // Versions: an adapter as version 1, the same adapter as versions 2 and 3 on recycled models (recycleEvery 1), the
  // adapter folded into full weights as version 4.
  const baseLogits = await engine.logits(p);
  await engine.publish({ kind: 'adapter', dir: adapterDir }, 1);
  const v1 = await engine.logits(p);
  const v1Sample = await engine.sample(prompts, base);
  const repeated = await errorOf(engine.publish({ kind: 'adapter', dir: adapterDir }, 1));
  await engine.publish({ kind: 'adapter', dir: adapterDir }, 2);
  await engine.publish({ kind: 'adapter', dir: adapterDir }, 3);
  const v3 = await engine.logits(p);
  const engineDir = (await fs.readdir(cacheDir)).find((f) => f.startsWith('engine-'))!;
  const filesAtV3 = (await fs.readdir(path.join(cacheDir, engineDir))).sort();
  await engine.publish({ kind: 'full', dir: adapterDir }, 4);
  const v4 = await engine.logits(p);
  const flat = (rows: Float32Array[]) => rows.flatMap((r) => Array.from(r));
  out.versions = {
    adapterMovesLogits: maxDiff(flat(v1), flat(baseLogits)),
    recycledSame: maxDiff(flat(v3), flat(v1)),
    foldedSame: maxDiff(flat(v4), flat(v1)),
    sampledVersion: v1Sample.map((c) => c.policyVersion),
    policyVersion: engine.policyVersion,
    repeated,
    filesAtV3,
  };

  // Cache reuse: after a prompt of 30 tokens, the same prompt without its tokens 10-14 (a span lost near the front, as
  // Continue's prompts lose one) keeps the 15 held tokens after the span with cacheReuse 4, and only the 10 before it
  // without; each sequence holds one user's prompt.
  const long = Array.from({ length: 30 }, (_, i) => 100 + i);
  const lostSpan = [...long.slice(0, 10), ...long.slice(15), 7, 8];
  const greedyFour: SampleRequest = { ...base, maxNewTokens: 4, temperature: 0 };
  const reuse: Record<string, unknown> = {};
  for (const cacheReuse of [0, 4]) {
    const e = await LlamaCppEngine.open(modelDir, { threads: 1, sequences: 1, contextSize: 64, cacheDir, tokenizer: tok, cacheReuse });
    await e.sample([long], greedyFour);
    const [c] = await e.sample([lostSpan], greedyFour);
    const [again] = await e.sample([lostSpan], greedyFour);
    reuse[`cacheReuse${cacheReuse}`] = { cachedTokens: c.cachedTokens, newTokens: c.ids.length, againCached: again.cachedTokens };
    await e.close();
  }
  out.reuse = {
    ...reuse,
    badSetting: await errorOf(LlamaCppEngine.open(modelDir, { threads: 1, sequences: 1, contextSize: 64, cacheDir, tokenizer: tok, cacheReuse: -1 })),
  };

  // The same checkpoint exported with Q8_0 matrices: close to the F32 logits (8-bit blocks), the same greedy choices.
  const q8 = await LlamaCppEngine.open(modelDir, { threads: 1, sequences: 1, contextSize: 64, cacheDir, tokenizer: tok, weights: 'Q8_0' });
  const q8Logits = await q8.logits(p);
  await q8.close();
  const scale = flat(baseLogits).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  out.q8 = { relativeDiff: maxDiff(flat(q8Logits), flat(baseLogits)) / scale, argmaxAgree: q8Logits.filter((r, t) => argmax(r) === argmax(baseLogits[t])).length / baseLogits.length };

  out.errors = {
    tooLong: await errorOf(engine.sample([p], { ...base, maxNewTokens: 64 })),
    outsideVocab: await errorOf(engine.sample([[tok.vocabSize + 1000]], base)),
    empty: await errorOf(engine.sample([[]], base)),
  };
  await engine.close();
  out.errors = { ...(out.errors as object), closed: await errorOf(engine.sample([p], base)) };
  out.cacheAfterClose = (await fs.readdir(cacheDir)).filter((f) => f.startsWith('engine-'));
  return out;
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
