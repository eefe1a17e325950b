import type { AddressInfo } from 'net';
import type { FastifyInstance } from 'fastify';
import { generateBatch, Qwen2Model, sampledIds } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { promoteToken } from '@rlhf-code/model/testing';
import { loadTokenizer, formatFim, parseFim, type Tokenizer } from '@rlhf-code/tokenizer';
import { CONTINUE_STOP_STRINGS } from '@rlhf-code/continue';
import { LineRule, lineRuleFor } from '@rlhf-code/continue';
import { ArmRouter, CompletionServerSchema, type ServedRecord } from '@rlhf-code/online-core';
import { jsonOf, makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { buildCompletionServer, type GateChoice } from './completion-server';
import { PolicyHolder } from './policy';
import { LocalGenerator } from './generation';

// The backend is shut down after the file by jest-teardown.ts (setupFilesAfterEnv), which frees the models too.
beforeAll(() => initBackend({ quiet: true }));

let tok: Tokenizer;
let policyModel: Qwen2Model;
let startModel: Qwen2Model;
let otherWeights: Map<string, import('@rlhf-code/model').HostTensor>;
let holder: PolicyHolder;
let generator: LocalGenerator;
let app: FastifyInstance;
let base: string;
const served: { rec: ServedRecord; text: string }[] = [];

/** Non-blank lines of a text (Continue shows an answer's first one when it arrives late). */
const nonBlank = (t: string) => t.split('\n').filter((l) => l.trim() !== '').length;
const PROMPT = formatFim('def add(a, b):\n    return ', '\n\nprint(add(1, 2))\n');
/** Control tokens that end a served completion (the stop set 'fim'), named here independently of the server. */
const END_TOKENS = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>', '<|im_start|>', '<|im_end|>'];
const endIds = () => END_TOKENS.map((t) => tok.tokenToId(t)!);

let dir: string;

beforeAll(async () => {
  dir = await makeTinyModelDir(1);
  tok = loadTokenizer(dir);
  policyModel = await Qwen2Model.load(dir, { trainable: false });
  startModel = await Qwen2Model.load(dir, { trainable: false });
  const other = Qwen2Model.init(policyModel.config, { seed: 99 });
  otherWeights = other.hostWeights();
  other.dispose();
  holder = new PolicyHolder(policyModel);
  generator = new LocalGenerator({ policy: holder, start: startModel, tokenizer: tok });
  app = buildCompletionServer({
    // Token-sized chunks and no clock here (the line chunks and the 150 ms rule have tests of their own below).
    config: CompletionServerSchema.parse({ port: 0, maxTokensCap: 24, modelName: 'tiny', multiline: 'always', showWithinMs: 1e9, lineChunks: false }),
    tokenizer: tok,
    generator,
    router: new ArmRouter(0),
    onServed: (rec, _prompt, text) => {
      served.push({ rec, text });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
});

/**
 * The greedy continuation the tiny model itself produces for PROMPT, ended where Continue would end it with
 * multilineCompletions "always" and no clock (reference for the server's answers).
 */
async function reference(model: Qwen2Model, maxNewTokens: number, stop: string[] = []) {
  const rule = new LineRule(lineRuleFor(parseFim(PROMPT)!, 'always', 1e9));
  const stopWhen = (_: number, text: string) => rule.cut(text, 0);
  const [g] = await generateBatch(model, [tok.encode(PROMPT)], { maxNewTokens, greedy: true, tokenizer: tok, stopIds: endIds(), stopStrings: stop, stopWhen });
  return g;
}

async function post(body: object, headers: Record<string, string> = {}) {
  return fetch(`${base}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Read an SSE answer: every `data:` payload in order. */
async function readSse(res: Response): Promise<string[]> {
  const text = await res.text();
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((e) => e.trim() !== '')
    .map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return e.slice('data: '.length);
    });
}

test('non-stream answer has the OpenAI shape, usage, id and policy version; text = the model greedy output', async () => {
  const res = await post({ model: 'Qwen2.5-Coder-1.5B', prompt: PROMPT, max_tokens: 12, temperature: 0 });
  expect(res.status).toBe(200);
  const body = await jsonOf(res);
  const ref = await reference(policyModel, 12);
  expect(body).toMatchObject({ object: 'text_completion', model: 'Qwen2.5-Coder-1.5B', policy_version: 0, arm: 'policy' }); // the name asked for
  expect(body.id).toMatch(/^cmpl-/);
  expect(res.headers.get('x-completion-id')).toBe(body.id);
  expect(res.headers.get('x-policy-version')).toBe('0');
  expect(body.choices).toEqual([{ text: ref.text, index: 0, logprobs: null, finish_reason: ref.finishReason }]);
  const promptTokens = tok.encode(PROMPT).length;
  const sampled = sampledIds(ref).length;
  expect(body.usage).toEqual({ prompt_tokens: promptTokens, completion_tokens: sampled, total_tokens: promptTokens + sampled, prompt_tokens_details: { cached_tokens: 0 } });
  const rec = served.find((s) => s.rec.id === body.id)!;
  expect(rec.rec).toMatchObject({ version: 0, arm: 'policy', blank: ref.text.trim() === '', endedByModel: ref.stopId !== null, completionTokens: sampled });
});

test('stream: token-by-token SSE chunks, finish_reason on the last, then [DONE]; same text as non-stream', async () => {
  const res = await post({ model: 'anything', prompt: PROMPT, max_tokens: 12, temperature: 0, stream: true });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = await readSse(res);
  expect(events[events.length - 1]).toBe('[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
  const ref = await reference(policyModel, 12);
  expect(chunks.length).toBeGreaterThan(2); // not one lump: pieces as tokens decode
  for (const c of chunks) {
    expect(c).toMatchObject({ object: 'text_completion', model: 'anything', policy_version: 0 });
    expect(c.id).toBe(chunks[0].id);
  }
  expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
  expect(chunks[chunks.length - 1].choices[0]).toMatchObject({ text: '', finish_reason: ref.finishReason });
  expect(chunks.map((c) => c.choices[0].text).join('')).toBe(ref.text);
});

test('stop strings end the completion before the stop string (Continue sends 12)', async () => {
  const ref = await reference(policyModel, 20);
  // A stop string that occurs in the middle of the model's own output: its 3rd..5th characters.
  const stop = ref.text.slice(3, 5);
  expect(stop.length).toBe(2);
  const res = await post({ prompt: PROMPT, max_tokens: 20, temperature: 0, stop: [...CONTINUE_STOP_STRINGS, stop] });
  const body = await jsonOf(res);
  expect(body.choices[0].text).toBe(ref.text.slice(0, ref.text.indexOf(stop)));
  expect(body.choices[0].finish_reason).toBe('stop');
  const single = await jsonOf(post({ prompt: PROMPT, max_tokens: 20, temperature: 0, stop }));
  expect(single.choices[0].text).toBe(body.choices[0].text);
});

test('max_tokens is capped by config; GET /v1/models lists the served model', async () => {
  const body = await jsonOf(post({ prompt: PROMPT, max_tokens: 4096, temperature: 0 }));
  expect(body.usage.completion_tokens).toBeLessThanOrEqual(24);
  const models = await jsonOf(fetch(`${base}/v1/models`));
  expect(models.object).toBe('list');
  expect(models.data.map((m: { id: string }) => m.id)).toEqual(['tiny']);
  // By default the advertised name makes Continue pick the Qwen FIM template (it needs "qwen" and "coder").
  expect(CompletionServerSchema.parse({}).modelName).toBe('Qwen2.5-Coder-1.5B');
});

test('POST /completions (an apiBase without /v1) is the same endpoint; upstream HEAD prompts are served, not refused', async () => {
  const a = await jsonOf(post({ prompt: PROMPT, max_tokens: 6, temperature: 0 }));
  const res = await fetch(`${base}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: PROMPT, max_tokens: 6, temperature: 0 }) });
  expect(res.status).toBe(200);
  expect((await jsonOf(res)).choices[0].text).toBe(a.choices[0].text);
  const head = '<|repo_name|>r\n<|file_sep|>r/util.py\ndef g():\n    return 1\n<|file_sep|>r/main.py\n' + PROMPT;
  const h = await post({ prompt: head, max_tokens: 6, temperature: 0, stream: true });
  expect(h.status).toBe(200);
  expect((await readSse(h)).at(-1)).toBe('[DONE]');
});

test('bad requests: 400 naming the field, malformed JSON, malformed FIM prompt, unknown fields ignored', async () => {
  const bad = await post({ prompt: PROMPT, max_tokens: 'ten' });
  expect(bad.status).toBe(400);
  expect((await jsonOf(bad)).error.field).toBe('max_tokens');
  const missing = await post({ max_tokens: 3 });
  expect(missing.status).toBe(400);
  expect((await jsonOf(missing)).error.field).toBe('prompt');
  const json = await fetch(`${base}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt": ' });
  expect(json.status).toBe(400);
  expect((await jsonOf(json)).error.message).toMatch(/malformed JSON/);
  const fim = await post({ prompt: '<|fim_prefix|>x<|fim_middle|>' });
  expect(fim.status).toBe(400);
  expect(await jsonOf(fim)).toMatchObject({ error: { field: 'prompt' } });
  const extra = await post({ prompt: 'x = 1', max_tokens: 2, temperature: 0, frobnicate: { a: 1 }, logit_bias: {} });
  expect(extra.status).toBe(200);
});

test('a weight swap between decoding steps: the stream stays whole, later steps carry the new version', async () => {
  const ref = await reference(policyModel, 16); // old weights
  const orig = holder.beforeStep;
  let steps = 0;
  (holder as { beforeStep: () => Promise<void> }).beforeStep = async () => {
    steps += 1;
    if (steps === 6) expect(holder.publish(otherWeights)).toBe(1); // pending: a generation is running
    if (steps === 6) expect(holder.version).toBe(0);
    await orig();
  };
  try {
    const res = await post({ prompt: PROMPT, max_tokens: 16, temperature: 0, stream: true });
    const chunks = (await readSse(res)).slice(0, -1).map((e) => JSON.parse(e));
    const last = chunks[chunks.length - 1];
    expect(last.policy_versions).toEqual([0, 1]);
    expect(chunks[0].policy_version).toBe(0);
    expect(chunks.slice(0, -1).some((c) => c.policy_version === 1)).toBe(true);
    // Before the swap the text is the old model's; after it the stream goes on (well-formed) with the new weights.
    const text = chunks.map((c) => c.choices[0].text).join('');
    const oldPart = tok.decode(ref.ids.slice(0, 4));
    expect(text.startsWith(oldPart)).toBe(true);
  } finally {
    (holder as { beforeStep: () => Promise<void> }).beforeStep = orig;
  }
  expect(holder.version).toBe(1);
  const next = await jsonOf(post({ prompt: PROMPT, max_tokens: 8, temperature: 0 }));
  expect(next.policy_version).toBe(1);
  const swapped = policyModel.params['model.embed_tokens.weight'].dataSync();
  expect(Array.from(swapped.slice(0, 8))).toEqual(Array.from(otherWeights.get('model.embed_tokens.weight')!.data.slice(0, 8)));
});

test('a client that goes away mid-stream (Continue aborts when the user types on) stops the generation', async () => {
  const orig = holder.beforeStep;
  let steps = 0;
  (holder as { beforeStep: () => Promise<void> }).beforeStep = async () => {
    steps += 1;
    await new Promise((r) => setTimeout(r, 25)); // slow decoding so the abort lands mid-stream
    await orig();
  };
  const before = served.length;
  try {
    const abort = new AbortController();
    const res = await fetch(`${base}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: PROMPT, max_tokens: 24, temperature: 0, stream: true }),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    await reader.read(); // first chunk
    abort.abort();
    await new Promise((r) => setTimeout(r, 300));
    expect(steps).toBeLessThan(24);
    // Recorded all the same: Continue keeps and may show the chunks it received before it went away.
    expect(served.length).toBe(before + 1);
    expect(served[before].rec).toMatchObject({ finishReason: 'abort', endedByModel: false });
    expect(served[before].text.length).toBeGreaterThan(0);
  } finally {
    (holder as { beforeStep: () => Promise<void> }).beforeStep = orig;
  }
  const after = await post({ prompt: PROMPT, max_tokens: 2, temperature: 0 });
  expect(after.status).toBe(200); // and the server goes on serving
});

test('completion.temperatureFloor: a near-greedy request is sampled at the floor (exploration for online learning)', async () => {
  const floored = buildCompletionServer({
    config: CompletionServerSchema.parse({ maxTokensCap: 12, multiline: 'always', showWithinMs: 1e9, temperatureFloor: 1 }),
    tokenizer: tok,
    generator,
    router: new ArmRouter(0),
  });
  await floored.listen({ port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${(floored.server.address() as AddressInfo).port}/v1/completions`;
    const ask = async (to: string, temperature: number) =>
      (await jsonOf(fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: PROMPT, max_tokens: 12, temperature, seed: 11 }) })))
        .choices[0].text as string;
    // At the floor, Continue's 0.01 is sampled like 1.0 with the same seed; above it, a request is served as asked.
    expect(await ask(url, 0.01)).toBe(await ask(`${base}/v1/completions`, 1));
    expect(await ask(url, 0.01)).not.toBe(await ask(`${base}/v1/completions`, 0.01));
    expect(await ask(url, 1.5)).toBe(await ask(`${base}/v1/completions`, 1.5));
  } finally {
    await floored.close();
  }
});

test('API keys, when configured, are checked (401)', async () => {
  const locked = buildCompletionServer({
    config: CompletionServerSchema.parse({ apiKeys: ['k1'] }),
    tokenizer: tok,
    generator,
    router: new ArmRouter(1),
  });
  await locked.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(locked.server.address() as AddressInfo).port}/v1/completions`;
  const call = (headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ prompt: 'x', max_tokens: 2 }) });
  try {
    expect((await call({})).status).toBe(401);
    expect((await call({ authorization: 'Bearer nope' })).status).toBe(401);
    const ok = await call({ authorization: 'Bearer k1' });
    expect(ok.status).toBe(200);
    expect(await jsonOf(ok)).toMatchObject({ arm: 'start', policy_version: 0 }); // router fraction 1: the frozen start model
    expect((await call({ 'api-key': 'k1' })).status).toBe(200); // Continue also sends the key as api-key
  } finally {
    await locked.close();
  }
});

test('min_tokens: the end token cannot come first by default (config minTokens 1); min_tokens 0 serves the raw choice', async () => {
  // Make <|endoftext|> the greedy first token (in place of the current first token).
  const eot = tok.tokenToId('<|endoftext|>')!;
  const first = sampledIds(await reference(policyModel, 1))[0];
  const original = promoteToken(policyModel, eot, first);
  try {
    const raw = await reference(policyModel, 8);
    expect(sampledIds(raw)).toEqual([eot]); // the model's own choice: an empty middle
    const silent = await jsonOf(post({ prompt: PROMPT, max_tokens: 8, temperature: 0, min_tokens: 0 }));
    expect(silent.choices[0]).toMatchObject({ text: '', finish_reason: 'stop' });
    expect(silent.usage.completion_tokens).toBe(1);

    const [held] = await generateBatch(policyModel, [tok.encode(PROMPT)], { maxNewTokens: 8, minNewTokens: 1, greedy: true, tokenizer: tok, stopIds: endIds() });
    expect(held.ids[0]).toBe(first);
    const answer = await jsonOf(post({ prompt: PROMPT, max_tokens: 8, temperature: 0 }));
    expect(answer.choices[0].text).toBe(held.text);
    expect(answer.choices[0].text).not.toBe('');
    const bad = await post({ prompt: PROMPT, min_tokens: -1 });
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error.field).toBe('min_tokens');
  } finally {
    policyModel.assignWeights(original);
  }
});

test('trainedMinTokens: a trained policy (version >= 1) may end first, unless the request gives min_tokens', async () => {
  const eot = tok.tokenToId('<|endoftext|>')!;
  const model = await Qwen2Model.load(dir, { trainable: false });
  const promoted = await Qwen2Model.load(dir, { trainable: false });
  promoteToken(promoted, eot, sampledIds(await reference(promoted, 1))[0]);
  const trained = promoted.hostWeights();
  promoted.dispose();
  const own = new PolicyHolder(model);
  const server = buildCompletionServer({
    config: CompletionServerSchema.parse({ port: 0, maxTokensCap: 24, modelName: 'tiny', multiline: 'always', showWithinMs: 1e9, lineChunks: false }),
    tokenizer: tok,
    generator: new LocalGenerator({ policy: own, start: startModel, tokenizer: tok }),
    router: new ArmRouter(0),
    trainedMinTokens: 0,
  });
  await server.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/v1/completions`;
  const ask = async (extra: object = {}) =>
    (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: PROMPT, max_tokens: 8, temperature: 0, ...extra }) })).json()) as {
      choices: { text: string }[];
      usage: { completion_tokens: number };
    };
  try {
    own.publish(trained); // version 1: weights whose greedy first token is the end token
    const silent = await ask();
    expect(silent.choices[0].text).toBe('');
    expect(silent.usage.completion_tokens).toBe(1);
    // the request's own min_tokens wins over the trained policy's rule
    const asked = await ask({ min_tokens: 1 });
    expect(asked.usage.completion_tokens).toBeGreaterThan(1);
    expect(asked.choices[0].text).not.toBe('');
  } finally {
    await server.close();
    model.dispose();
  }
});

test("the stop set 'fim' ends the served completion at any FIM control token, not only <|endoftext|>", async () => {
  const first = sampledIds(await reference(policyModel, 1))[0];
  for (const name of ['<|file_sep|>', '<|fim_middle|>', '<|im_end|>']) {
    // Make the control token the greedy first choice: the server must stop there and show nothing.
    const id = tok.tokenToId(name)!;
    const original = promoteToken(policyModel, id, first);
    try {
      const body = await jsonOf(post({ prompt: PROMPT, max_tokens: 8, temperature: 0, min_tokens: 0 }));
      expect(body.choices[0]).toMatchObject({ text: '', finish_reason: 'stop' });
      expect(body.usage.completion_tokens).toBe(1);
    } finally {
      policyModel.assignWeights(original);
    }
  }
});

describe('serving as Continue reads it (default config: line chunks, the line rule with its clock)', () => {
  const servers: FastifyInstance[] = [];
  let url: string; // showWithinMs out of reach: the answer does not depend on the machine's speed
  let timedUrl: string; // the default config, 150 ms rule included
  beforeAll(async () => {
    for (const config of [{ maxTokensCap: 32, showWithinMs: 1e9 }, { maxTokensCap: 32 }]) {
      const app = buildCompletionServer({ config: CompletionServerSchema.parse(config), tokenizer: tok, generator, router: new ArmRouter(0) });
      await app.listen({ port: 0, host: '127.0.0.1' });
      servers.push(app);
    }
    [url, timedUrl] = servers.map((app) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/completions`);
  });
  afterAll(() => Promise.all(servers.map((app) => app.close())));
  const call = (body: object, to = url) => fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  /** Up to 3 seeds whose answer, with no clock, has two or more non-blank lines. */
  const multiLineSeeds = async (): Promise<{ seed: number; text: string }[]> => {
    const seeds: { seed: number; text: string }[] = [];
    for (let seed = 0; seed < 60 && seeds.length < 3; seed++) {
      const text: string = (await jsonOf(call({ prompt: PROMPT, max_tokens: 32, temperature: 1, seed }))).choices[0].text;
      if (nonBlank(text) >= 2) seeds.push({ seed, text });
    }
    return seeds;
  };

  test('each SSE chunk is one finished line (its newline in front of the next): the chunks join to the final text', async () => {
    // Sampled at temperature 1 with a fixed seed the tiny model writes newlines; find a seed whose answer has two lines.
    let seed = 0;
    let text = '';
    for (; seed < 40; seed++) {
      const body = { prompt: PROMPT, max_tokens: 32, temperature: 1, seed };
      text = (await jsonOf(call(body))).choices[0].text;
      if (text.indexOf('\n', 1) > 0) break;
    }
    expect(text.indexOf('\n', 1)).toBeGreaterThan(0);
    const chunks = (await readSse(await call({ prompt: PROMPT, max_tokens: 32, temperature: 1, seed, stream: true }))).slice(0, -1).map((e) => JSON.parse(e));
    const pieces = chunks.map((c) => c.choices[0].text as string).filter((t) => t !== '');
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(p.indexOf('\n', 1)).toBe(-1); // at most a leading newline: never a line split in two
    expect(pieces.length).toBe(text.replace(/^\n/, '').split('\n').length);
    expect(text.endsWith('\n')).toBe(false); // a suggestion never ends with its last line's newline
  });

  test('a slow answer ends after its first non-blank line, as Continue shows it (showWithinMs)', async () => {
    const seeds = await multiLineSeeds();
    expect(seeds.length).toBeGreaterThan(0);
    const orig = holder.beforeStep;
    (holder as { beforeStep: () => Promise<void> }).beforeStep = async () => {
      await new Promise((r) => setTimeout(r, 100)); // 100 ms a token: a line (>= 2 tokens with its newline) ends past 150 ms
      await orig();
    };
    try {
      for (const { seed, text } of seeds) {
        const timed: string = (await jsonOf(call({ prompt: PROMPT, max_tokens: 32, temperature: 1, seed }, timedUrl))).choices[0].text;
        expect(nonBlank(timed)).toBe(1);
        expect(text.startsWith(timed)).toBe(true); // the same answer, ended at a line
        expect(text.slice(timed.length).startsWith('\n')).toBe(true);
      }
    } finally {
      (holder as { beforeStep: () => Promise<void> }).beforeStep = orig;
    }
  });

  test('a held (gated) answer is judged and sent as Continue shows a whole answer arriving past 150 ms: its first non-blank line', async () => {
    const seeds = await multiLineSeeds();
    expect(seeds.length).toBeGreaterThan(0);
    const judged: string[] = [];
    const judgedLogprobs: (readonly number[])[] = [];
    const gate = {
      active: () => true,
      candidates: () => ({ n: 1, temperature: 0 }),
      choose: async (groups: GateChoice[][]) => {
        judged.push(...groups.flat().map((c) => c.text));
        judgedLogprobs.push(...groups.flat().map((c) => c.logprobs));
        await new Promise((r) => setTimeout(r, 200)); // a verdict that lands past the deadline
        return groups.map(() => 0);
      },
    };
    const apps = [{ maxTokensCap: 32 }, { maxTokensCap: 32, showWithinMs: 1e9 }].map((config) =>
      buildCompletionServer({ config: CompletionServerSchema.parse(config), tokenizer: tok, generator, router: new ArmRouter(0), gate }),
    );
    try {
      const [timed, untimed] = await Promise.all(apps.map(async (app) => `http://127.0.0.1:${(await app.listen({ port: 0, host: '127.0.0.1' })).split(':').pop()}/v1/completions`));
      // The server learns how long verdicts take from the ones it gets: one first, then it cuts before judging.
      await readSse(await call({ prompt: PROMPT, max_tokens: 4, temperature: 1, stream: true }, timed));
      for (const { seed, text } of seeds) {
        judged.length = 0;
        judgedLogprobs.length = 0;
        const body = { prompt: PROMPT, max_tokens: 32, temperature: 1, seed, stream: true };
        const pieces = (await readSse(await call(body, timed))).slice(0, -1).map((e) => JSON.parse(e).choices[0].text as string);
        const shown = pieces.join('');
        expect(nonBlank(shown)).toBe(1);
        expect(text.startsWith(shown) && text.slice(shown.length).startsWith('\n')).toBe(true);
        expect(judged).toEqual([shown]); // the gate judged what Continue will display
        const cutLogprobs = judgedLogprobs.splice(0);
        judged.length = 0;
        const whole = (await jsonOf(call({ ...body, stream: false }, untimed))).choices[0].text;
        expect(whole).toBe(text); // no deadline: every line
        expect(judged).toEqual([text]);
        // With the model's log-probs of the tokens it judges: the cut one's are the first of the whole one's.
        const [cutLp, wholeLp] = [cutLogprobs[0], judgedLogprobs.splice(0)[0]];
        expect(wholeLp.length).toBeLessThanOrEqual(32); // one per sampled token (max_tokens 32)
        expect(cutLp.length).toBeGreaterThan(0);
        expect(cutLp.length).toBeLessThan(wholeLp.length);
        cutLp.forEach((lp, t) => expect(lp).toBeCloseTo(wholeLp[t], 4));
        expect(wholeLp.every((lp) => lp <= 0)).toBe(true);
      }
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  test('while gated, each choice samples the gate\'s candidates in one batch; the chosen one is served and recorded, a null choice is hidden', async () => {
    const groupsSeen: GateChoice[][][] = [];
    let pick: (group: GateChoice[]) => number | null = () => 0;
    const gate = {
      active: () => true,
      candidates: () => ({ n: 3, temperature: 1 }),
      choose: async (groups: GateChoice[][]) => {
        groupsSeen.push(groups);
        return groups.map(pick);
      },
    };
    const served: { id: string; text: string; gated?: boolean }[] = [];
    const app = buildCompletionServer({
      config: CompletionServerSchema.parse({ maxTokensCap: 16, showWithinMs: 1e9 }), tokenizer: tok, generator, router: new ArmRouter(0), gate,
      onServed: (rec, _prompt, text) => void served.push({ id: rec.id, text, ...(rec.gated ? { gated: true } : {}) }),
    });
    try {
      const url = `http://127.0.0.1:${(await app.listen({ port: 0, host: '127.0.0.1' })).split(':').pop()}/v1/completions`;
      // The longest candidate of each choice, for a request of n = 2 choices.
      pick = (group) => group.reduce((best, c, j) => (c.text.length > group[best].text.length ? j : best), 0);
      const answer = await jsonOf(call({ prompt: PROMPT, max_tokens: 16, temperature: 0, seed: 3, n: 2 }, url));
      const [groups] = groupsSeen.splice(0);
      // The first candidate is sampled as asked (greedy here: what an ungated server answers), the others hotter.
      const plain = buildCompletionServer({ config: CompletionServerSchema.parse({ maxTokensCap: 16, showWithinMs: 1e9 }), tokenizer: tok, generator, router: new ArmRouter(0) });
      const plainUrl = `http://127.0.0.1:${(await plain.listen({ port: 0, host: '127.0.0.1' })).split(':').pop()}/v1/completions`;
      const greedy = (await jsonOf(call({ prompt: PROMPT, max_tokens: 16, temperature: 0, seed: 3 }, plainUrl))).choices[0].text;
      await plain.close();
      expect(groups.map((g) => g[0].text)).toEqual([greedy, greedy]);
      expect(groups.map((g) => g.length)).toEqual([3, 3]);
      expect(groups.map((g) => g.map((c) => c.id))).toEqual([[`${answer.id}-0`, `${answer.id}-0`, `${answer.id}-0`], [`${answer.id}-1`, `${answer.id}-1`, `${answer.id}-1`]]);
      expect(new Set(groups.flat().map((c) => c.text)).size).toBeGreaterThan(1); // distinct samples, not copies
      const longest = groups.map((g) => g[pick(g)!].text);
      expect(answer.choices.map((c: { text: string }) => c.text)).toEqual(longest);
      expect(served.splice(0)).toEqual([{ id: `${answer.id}-0`, text: longest[0] }, { id: `${answer.id}-1`, text: longest[1] }]);
      // Streamed, one choice: the chosen candidate arrives whole; a null choice is an empty completion, recorded as gated.
      pick = (group) => group.length - 1;
      const streamed = (await readSse(await call({ prompt: PROMPT, max_tokens: 16, temperature: 1, seed: 4, stream: true }, url))).slice(0, -1).map((e) => JSON.parse(e).choices[0].text as string).join('');
      expect(streamed).toBe(groupsSeen.splice(0)[0][0][2].text);
      expect(served.splice(0).map((r) => r.text)).toEqual([streamed]);
      pick = () => null;
      const hidden = await jsonOf(call({ prompt: PROMPT, max_tokens: 16, temperature: 1, seed: 5 }, url));
      expect(hidden.choices.map((c: { text: string }) => c.text)).toEqual(['']);
      expect(served.splice(0)).toEqual([{ id: hidden.id, text: '', gated: true }]);
    } finally {
      await app.close();
    }
  });

  test('a comment line gets one line; the stream starts before the generation ends', async () => {
    const comment = formatFim('def f(x):\n    # double the value and ', '\n    return y\n');
    for (let seed = 0; seed < 10; seed++) {
      const text: string = (await jsonOf(call({ prompt: comment, max_tokens: 32, temperature: 1, seed }))).choices[0].text;
      expect(text).not.toContain('\n');
    }
    // Plain text (no FIM): token pieces; count decoding steps at the moment the first piece reaches the client.
    const orig = holder.beforeStep;
    let steps = 0;
    (holder as { beforeStep: () => Promise<void> }).beforeStep = async () => {
      steps += 1;
      await orig();
    };
    try {
      const res = await call({ prompt: 'def add(a, b):\n    return', max_tokens: 32, min_tokens: 32, temperature: 1, seed: 3, stream: true });
      const reader = res.body!.getReader();
      await reader.read();
      const atFirst = steps;
      while (!(await reader.read()).done);
      expect(steps).toBe(32);
      expect(atFirst).toBeLessThan(32);
    } finally {
      (holder as { beforeStep: () => Promise<void> }).beforeStep = orig;
    }
  });
});

describe('the simulated clock (completion.clock "simulated"): Continue\'s time rules by the latency model, not the machine', () => {
  const servers: FastifyInstance[] = [];
  afterAll(() => Promise.all(servers.map((app) => app.close())));
  async function serve(config: object, router = new ArmRouter(0), gate?: Parameters<typeof buildCompletionServer>[0]['gate']): Promise<string> {
    const app = buildCompletionServer({ config: CompletionServerSchema.parse({ maxTokensCap: 32, ...config }), tokenizer: tok, generator, router, gate });
    servers.push(app);
    return `http://127.0.0.1:${(await app.listen({ port: 0, host: '127.0.0.1' })).split(':').pop()}/v1/completions`;
  }
  const call = (to: string, body: object) => fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  /** The stream's chunks: text, sim_ms, arm. */
  const chunksOf = async (to: string, body: object) =>
    (await readSse(await call(to, { ...body, stream: true }))).slice(0, -1).map((e) => {
      const c = JSON.parse(e);
      return { text: c.choices[0].text as string, sim_ms: c.sim_ms as number, arm: c.arm as string };
    });
  /** Seeds whose answer, with no clock, has two or more non-blank lines. */
  async function multiLineSeeds(n: number): Promise<{ seed: number; text: string }[]> {
    const untimed = await serve({ showWithinMs: 1e9 });
    const seeds: { seed: number; text: string }[] = [];
    for (let seed = 0; seed < 60 && seeds.length < n; seed++) {
      const text: string = (await jsonOf(call(untimed, { prompt: PROMPT, max_tokens: 32, temperature: 1, seed }))).choices[0].text;
      if (nonBlank(text) >= 2) seeds.push({ seed, text });
    }
    expect(seeds.length).toBeGreaterThan(0);
    return seeds;
  }
  // 100 ms, then 10 ms a step: the line rule's 150 ms pass after the 5th step.
  const latency = { fixedMs: 100, prefillMsPerToken: 0, stepMs: 10, judgeMs: 40 };

  test('a request served on a slow machine streams the same chunks at the same simulated times: Continue displays the same', async () => {
    const url = await serve({ clock: 'simulated', simulatedLatency: latency });
    const seeds = await multiLineSeeds(3);
    const fast = await Promise.all(seeds.map(({ seed }) => chunksOf(url, { prompt: PROMPT, max_tokens: 32, temperature: 1, seed })));
    let cut = 0;
    const orig = holder.beforeStep;
    (holder as { beforeStep: () => Promise<void> }).beforeStep = async () => {
      await new Promise((r) => setTimeout(r, 30)); // 30 ms a step: on the wall clock, past 150 ms after 5 steps
      await orig();
    };
    try {
      for (const [i, { seed, text }] of seeds.entries()) {
        const slow = await chunksOf(url, { prompt: PROMPT, max_tokens: 32, temperature: 1, seed });
        expect(slow).toEqual(fast[i]);
        // Every chunk says when it counts as arriving: 100 ms + 10 ms a step, in order.
        const times = slow.map((c) => c.sim_ms);
        for (const t of times) expect(Number.isInteger((t - 100) / 10) && t >= 110 && t <= 420).toBe(true);
        expect([...times].sort((a, b) => a - b)).toEqual(times);
        // The answer ends after the first line that arrives past 150 ms: the untimed answer, cut at a line end.
        const shown = slow.map((c) => c.text).join('');
        expect(text.startsWith(shown)).toBe(true);
        // Only the last line may arrive past 150 ms once a non-blank line is out (a chunk is a line, timed by its end).
        const lines = slow.filter((c) => c.text !== '');
        expect(lines.slice(0, -1).filter((c) => c.text.trim() !== '' && c.sim_ms > 150)).toEqual([]);
        if (shown !== text) cut += 1;
      }
      expect(cut).toBeGreaterThan(0); // the clock mattered for some of them
    } finally {
      (holder as { beforeStep: () => Promise<void> }).beforeStep = orig;
    }
    // Wall mode (the default) sends no sim_ms.
    const wall = await chunksOf(await serve({}), { prompt: PROMPT, max_tokens: 8, temperature: 0 });
    expect(wall.every((c) => c.sim_ms === undefined)).toBe(true);
  });

  test("a held arm's chunks all carry one sim_ms: the end of decoding + judgeMs; hold-cut is not judged", async () => {
    const judged: number[] = [];
    const gate = { active: () => true, candidates: () => ({ n: 2, temperature: 1 }), choose: async (g: GateChoice[][]) => (judged.push(g.length), g.map(() => 0)) };
    const holdCut = new ArmRouter([{ name: 'hold-cut', model: 'start', holdCut: true, rank: false, hide: false, share: 1 }]);
    const url = await serve({ clock: 'simulated', simulatedLatency: latency }, holdCut, gate);
    for (const { seed } of await multiLineSeeds(2)) {
      const forward = jest.spyOn(startModel, 'forward'); // one call per decoding step (the prompt is shorter than a prefill piece)
      const chunks = await chunksOf(url, { prompt: PROMPT, max_tokens: 32, temperature: 1, seed });
      const steps = forward.mock.calls.length;
      forward.mockRestore();
      expect(chunks.every((c) => c.arm === 'hold-cut')).toBe(true);
      expect(chunks.map((c) => c.sim_ms)).toEqual(chunks.map(() => 100 + 10 * steps + 40));
      // Arriving past 150 ms, a whole suggestion is shown up to its first non-blank line: the server sends that.
      expect(nonBlank(chunks.map((c) => c.text).join(''))).toBe(1);
    }
    expect(judged).toEqual([]);
  });

  test('hold-cut on the start model serves what the start arm serves, cut as a held suggestion arriving then; a block shares its seed', async () => {
    // Streamed, no line arrives past 150 ms (1 ms a step); held, the suggestion arrives at 200 ms + (its steps).
    const quick = { fixedMs: 0, prefillMsPerToken: 0, stepMs: 1, judgeMs: 200 };
    const arms = [
      { name: 'start', model: 'start' as const, holdCut: false, rank: false, hide: false, share: 1 },
      { name: 'hold-cut', model: 'start' as const, holdCut: true, rank: false, hide: false, share: 1 },
    ];
    const gate = { active: () => true, candidates: () => ({ n: 2, temperature: 1 }), choose: async (g: GateChoice[][]) => g.map(() => 0) };
    const url = await serve({ clock: 'simulated', simulatedLatency: quick }, new ArmRouter(arms, 5, 'blocked'), gate);
    const firstLine = (t: string) => {
      const lines = t.split('\n');
      const k = lines.findIndex((l) => l.trim() !== '');
      return lines.slice(0, k + 1).join('\n');
    };
    let multi = 0;
    // No seed in the requests: each block's two requests sample from the block's seed.
    for (let block = 0; block < 12; block++) {
      const pair = [await chunksOf(url, { prompt: PROMPT, max_tokens: 32, temperature: 1 }), await chunksOf(url, { prompt: PROMPT, max_tokens: 32, temperature: 1 })];
      const by = Object.fromEntries(pair.map((c) => [c[0].arm, c.map((x) => x.text).join('')]));
      expect(Object.keys(by).sort()).toEqual(['hold-cut', 'start']); // one of each per block
      if (nonBlank(by.start) === 0) continue;
      expect(by['hold-cut']).toBe(firstLine(by.start)); // the same sample, cut at its first non-blank line
      if (nonBlank(by.start) >= 2) multi += 1;
    }
    expect(multi).toBeGreaterThan(0); // some blocks where the cut mattered
  });
});

test('past maxConcurrent generations in progress, a request is answered at once with an empty completion, counted and never recorded', async () => {
  // The one slot is held by a request whose suggestion waits for the gate's verdict until the test gives it.
  let verdict: (() => void) | null = null;
  const gate = {
    active: () => true,
    candidates: () => ({ n: 1, temperature: 1 }),
    choose: (groups: GateChoice[][]) => new Promise<(number | null)[]>((resolve) => (verdict = () => resolve(groups.map(() => 0)))),
  };
  const judging = async () => {
    while (verdict === null) await new Promise((r) => setTimeout(r, 5));
  };
  const release = () => {
    verdict!();
    verdict = null;
  };
  let shed = 0;
  const recorded: string[] = [];
  const busy = buildCompletionServer({
    config: CompletionServerSchema.parse({ maxTokensCap: 8, maxConcurrent: 1 }),
    tokenizer: tok,
    generator,
    router: new ArmRouter(0),
    gate,
    onShed: () => void (shed += 1),
    onServed: (rec) => void recorded.push(rec.id),
  });
  try {
    const url = `http://127.0.0.1:${(await busy.listen({ port: 0, host: '127.0.0.1' })).split(':').pop()}/v1/completions`;
    const call = (body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const first = call({ prompt: PROMPT, max_tokens: 8, seed: 1 });
    await judging();
    // Both forms: JSON and a stream, each choice empty, marked x-shed.
    const plain = await call({ prompt: PROMPT, max_tokens: 8, n: 2 });
    expect(plain.headers.get('x-shed')).toBe('1');
    expect((await jsonOf(plain)).choices.map((c: { text: string; finish_reason: string }) => [c.text, c.finish_reason])).toEqual([['', 'stop'], ['', 'stop']]);
    const streamed = await call({ prompt: PROMPT, max_tokens: 8, stream: true });
    expect(streamed.headers.get('x-shed')).toBe('1');
    const text = await streamed.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(JSON.parse(text.split('\n')[0].slice(6)).choices[0]).toMatchObject({ text: '', finish_reason: 'stop' });
    expect(shed).toBe(2);
    release();
    expect((await first).status).toBe(200);
    expect(recorded).toHaveLength(1); // only the generated one: a shed answer is no sample of the policy
    // The slot is free again: the next request is generated.
    const next = call({ prompt: PROMPT, max_tokens: 8, seed: 2 });
    await judging();
    release();
    expect((await next).headers.get('x-shed')).toBeNull();
    expect(shed).toBe(2);
  } finally {
    await busy.close();
  }
});

test("the prefix cache: a client's next prompt in a file reuses what it shares with its last one; the answers are the same", async () => {
  const config = CompletionServerSchema.parse({ port: 0, maxTokensCap: 12, modelName: 'tiny', multiline: 'always', showWithinMs: 1e9, lineChunks: false });
  const cached = new LocalGenerator({ policy: new PolicyHolder(policyModel), start: startModel, tokenizer: tok, prefixCacheBytes: 1 << 24 });
  const server = buildCompletionServer({ config, tokenizer: tok, generator: cached, router: new ArmRouter(0) });
  await server.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/v1/completions`;
  const ask = (target: string, prompt: string, apiKey: string, stream = false) =>
    fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ prompt, max_tokens: 8, temperature: 0, stream }) });
  // The user typed on: the prefix grew at the cursor.
  const [before, after] = ['def add(a, b):\n    ret', 'def add(a, b):\n    return a'].map((p) => formatFim(p, '\n\nprint(add(1, 2))\n'));
  try {
    const first = await jsonOf(ask(url, before, 'alice'));
    expect(first.usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    const second = await jsonOf(ask(url, after, 'alice'));
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(second.choices).toEqual((await jsonOf(post({ prompt: after, max_tokens: 8, temperature: 0 }))).choices); // the server without a cache
    // Another client has no entry; a stream carries the usage on its last chunk.
    expect((await jsonOf(ask(url, after, 'bob'))).usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    const chunks = (await readSse(await ask(url, after, 'alice', true))).slice(0, -1).map((e) => JSON.parse(e));
    const { usage } = chunks[chunks.length - 1];
    expect(usage.prompt_tokens_details.cached_tokens).toBe(usage.prompt_tokens - 1); // the same prompt again
    expect(chunks.slice(0, -1).every((c) => c.usage === undefined)).toBe(true);
  } finally {
    await server.close();
    await cached.close();
  }
});
