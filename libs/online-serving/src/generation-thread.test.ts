// The generation thread decodes what the same models decode on this thread: the same completions, streamed text that
// adds up to them, published weights swapped in, an abort that stops a generation, and the served model's weights; a
// request of one row with a cache key decodes from its prefix cache (completion.prefixCacheMiB).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { Qwen2Model, type HostTensor } from '@rlhf-code/model';
import { promoteToken } from '@rlhf-code/model/testing';
import { formatFim, loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { lineRuleFor } from '@rlhf-code/continue';
import { parseOnlineConfig } from '@rlhf-code/online-core';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { Aborted, LocalGenerator, type GenerationRequest, type TextEvent } from './generation';
import { twoRowRequest } from './testing';
import { GenerationThread } from './generation-thread';
import { PolicyHolder } from './policy';

let dir: string;
let tok: Tokenizer;
let local: LocalGenerator;
let thread: GenerationThread;
let otherWeights: Map<string, HostTensor>;

const request = (over: Partial<GenerationRequest> = {}) => twoRowRequest(tok, over);

beforeAll(async () => {
  const { kind } = await initBackend({ quiet: true });
  dir = await makeTinyModelDir(1);
  tok = loadTokenizer(dir);
  const policy = await Qwen2Model.load(dir, { trainable: false, merge: true });
  const start = await Qwen2Model.load(dir, { trainable: false, merge: true });
  local = new LocalGenerator({ policy: new PolicyHolder(policy), start, tokenizer: tok });
  const other = Qwen2Model.init(policy.config, { seed: 99 });
  otherWeights = other.hostWeights();
  other.dispose();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-thread-'));
  thread = await GenerationThread.start({ config: parseOnlineConfig({ model: dir, stateDir }), policyDir: null, version: 0, backend: kind });
});

afterAll(async () => {
  await thread?.close(); // this thread's models are freed with the backend (jest-teardown.ts)
});

test('the thread decodes what this thread decodes, and its streamed pieces add up to each row', async () => {
  const events: TextEvent[] = [];
  const [there, here] = [await thread.generate(request(), (e) => events.push(e)), await local.generate(request())];
  expect(there.completions).toEqual(here.completions);
  expect(there.versions).toEqual(here.versions);
  expect(there.completions.some((c) => c.ids.length > 0)).toBe(true);
  there.completions.forEach((c, row) => expect(events.filter((e) => e.row === row).map((e) => e.delta).join('')).toBe(c.text));
  expect(thread.modelWindow).toBe(local.modelWindow);
});

test('published weights are decoded from with their version, as on this thread', async () => {
  // Copies: the thread is given (transferred) the buffers of what it is published.
  const copy = () => new Map([...otherWeights].map(([n, t]) => [n, { ...t, data: t.data.slice() }]));
  expect(thread.publish(copy())).toBe(1);
  expect(local.publish(copy())).toBe(1);
  expect(thread.latestVersion).toBe(1);
  const [there, here] = [await thread.generate(request({ seed: 'after' })), await local.generate(request({ seed: 'after' }))];
  expect(there.versions.every((v) => v === 1)).toBe(true);
  expect(there.completions).toEqual(here.completions);
  expect(thread.version).toBe(1);
  const served = await thread.servedModel();
  for (const [name, t] of otherWeights) expect(Array.from(served.host.get(name)!.data)).toEqual(Array.from(t.data));
  // The start model is never published to.
  const start = await thread.generate(request({ model: 'start', seed: 'start' }));
  expect(start.versions.every((v) => v === 0)).toBe(true);
});

test('an abort stops a generation between decoding steps; the thread goes on serving', async () => {
  const stop = new AbortController();
  let pieces = 0;
  const long = request({ maxNewTokens: 200, minNewTokens: 200, rows: [{ ids: tok.encode('x = '), line: null }] });
  const aborted = thread.generate(long, () => ++pieces === 3 && stop.abort(), stop.signal);
  await expect(aborted).rejects.toBeInstanceOf(Aborted);
  expect(pieces).toBeLessThan(200);
  const pre = new AbortController();
  pre.abort();
  await expect(thread.generate(request(), undefined, pre.signal)).rejects.toBeInstanceOf(Aborted);
  expect((await thread.generate(request())).completions).toHaveLength(2);
});

test("trainedMinNewTokens: a policy an update has trained may end first (silence); the start model and v0 may not", async () => {
  const model = await Qwen2Model.load(dir, { trainable: false, merge: true });
  const start = await Qwen2Model.load(dir, { trainable: false, merge: true });
  const holder = new PolicyHolder(model);
  const gen = new LocalGenerator({ policy: holder, start, tokenizer: tok });
  try {
    const prompt = { ids: tok.encode('x = '), line: null };
    const greedy = (over: Partial<GenerationRequest>) => gen.generate(request({ rows: [prompt], temperature: 0, maxNewTokens: 4, ...over }));
    // The end token made the greedy first choice: the weights an update publishes.
    const first = (await greedy({ model: 'start' })).completions[0].ids[0];
    const promoted = await Qwen2Model.load(dir, { trainable: false, merge: true });
    promoteToken(promoted, tok.eosId, first);
    const trained = promoted.hostWeights();
    promoted.dispose();
    // v0 (never trained): the server's rule holds whatever trainedMinNewTokens says.
    expect((await greedy({ trainedMinNewTokens: 0 })).completions[0].ids.length).toBeGreaterThan(0);
    expect(gen.publish(trained)).toBe(1);
    const silent = (await greedy({ trainedMinNewTokens: 0 })).completions[0];
    expect(silent.ids).toEqual([]);
    expect(silent.stopId).toBe(tok.eosId);
    // null, or the start model: minNewTokens (1) holds, so the end token cannot come first.
    expect((await greedy({ trainedMinNewTokens: null })).completions[0].ids.length).toBeGreaterThan(0);
    expect((await greedy({ model: 'start', trainedMinNewTokens: 0 })).completions[0].ids.length).toBeGreaterThan(0);
  } finally {
    model.dispose();
    start.dispose();
  }
});

test("a request of one row with a cache key reuses the key's last prompt in the thread (the config's prefix cache)", async () => {
  const [prefix, suffix] = ['def add(a, b):\n    return a', '\n\nprint(add(1, 2))\n'];
  const row = (p: string) => ({ ids: tok.encode(formatFim(p, suffix)), line: lineRuleFor({ prefix: p, suffix }, 'always', 1e9) });
  const typed = (p: string, cacheKey: string | null) => request({ model: 'start', rows: [row(p)], temperature: 0, cacheKey });
  await thread.generate(typed(prefix, 'user:add.py'));
  const next = (await thread.generate(typed(prefix + ' +', 'user:add.py'))).completions[0];
  expect(next.cachedTokens).toBeGreaterThan(0);
  const plain = (await local.generate(typed(prefix + ' +', null))).completions[0];
  expect(plain.cachedTokens).toBeUndefined();
  expect(next.ids).toEqual(plain.ids);
});
