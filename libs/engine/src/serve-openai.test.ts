// End to end: the openai:URL engine against the local server (serve-openai.ts) over the local engine, on a tiny model.
// Through the wire the samples are the local engine's (same ids and log-probs for the same per-prompt seeds), a
// published adapter switches them to the adapter model's, old versions are unloaded, and every tensor is released.
// Also the server's own answers to what it refuses, in vLLM's shapes.
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { checkpointAt, openCheckpoint } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel, tempDir } from '@rlhf-code/model/testing';
import type { EngineCompletion, SampleRequest } from './engine';
import { LocalEngine } from './local';
import { OpenAiEngine } from './openai';
import { localEngineHost, serveOpenAi } from './serve-openai';

let dir: string;
let base: string;
let adapter: string;

beforeAll(async () => {
  await initBackend({ quiet: true });
  dir = tempDir('serve-openai-');
  base = path.join(dir, 'base');
  adapter = path.join(dir, 'adapter');
  await saveTinyModel(base, { seed: 5 });
  await saveTinyAdapter(adapter, base, { seed: 3 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const PROMPTS = [[5, 6, 7], [8, 9], [10, 11, 12, 13]];
const REQ: SampleRequest = { maxNewTokens: 6, temperature: 1, stopIds: [16358], vocabSize: 16384, seed: 11 };
const strip = (cs: EngineCompletion[]) => cs.map(({ ids, stopId, finishReason, logprobs, text }) => ({ ids, stopId, finishReason, logprobs, text }));

/** What the local engine samples on the checkpoint in `at`, one prompt at a time (as the server decodes them). */
async function localSamples(at: string, req: SampleRequest): Promise<EngineCompletion[]> {
  const { model, tokenizer } = await openCheckpoint(at, { trainable: false });
  try {
    return await new LocalEngine(model, tokenizer).sample(PROMPTS, { ...req, batchSize: 1 });
  } finally {
    model.dispose();
  }
}

it('samples through the wire what the local engine samples, and switches to a published adapter', async () => {
  const before = tf.memory().numTensors;
  const host = await localEngineHost(checkpointAt(base, '--model'));
  const server = await serveOpenAi(host, { port: 0, servedModelName: 'tiny' });
  const shared = path.join(dir, 'shared');
  fs.mkdirSync(shared);
  const engine = await OpenAiEngine.open(`openai:${server.url}`, { modelVocabSize: 16384, sharedDir: shared, concurrency: 2 }, host.tokenizer);
  try {
    expect([engine.name, engine.baseModel]).toEqual(['vllm', 'tiny']);
    const viaServer = await engine.sample(PROMPTS, REQ);
    expect(strip(viaServer)).toEqual(strip(await localSamples(base, REQ)));
    expect(viaServer.some((c) => c.ids.length > 0)).toBe(true);
    const greedy = { ...REQ, temperature: 0, seed: undefined };
    expect(strip(await engine.sample(PROMPTS, greedy))).toEqual(strip(await localSamples(base, greedy)));

    await engine.publish({ kind: 'adapter', dir: adapter }, 1);
    const adapted = await engine.sample(PROMPTS, REQ);
    expect(strip(adapted)).toEqual(strip(await localSamples(adapter, REQ)));
    expect(adapted.map((c) => c.logprobs)).not.toEqual(viaServer.map((c) => c.logprobs));
    expect(adapted.every((c) => c.policyVersion === 1)).toBe(true);

    await engine.publish({ kind: 'adapter', dir: adapter }, 2);
    await engine.publish({ kind: 'adapter', dir: adapter }, 3);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string; parent: string | null }[] };
    expect(models.data.map((m) => [m.id, m.parent])).toEqual([['tiny', null], ['policy-v2', 'tiny'], ['policy-v3', 'tiny']]);
    expect(fs.readdirSync(shared).sort()).toEqual(['policy-v2', 'policy-v3']);
    expect(strip(await engine.sample(PROMPTS, REQ))).toEqual(strip(adapted));
  } finally {
    await engine.close();
    await server.close();
  }
  expect(tf.memory().numTensors).toBe(before);
});

it("answers what it refuses as vLLM does; choice j of a seeded request samples with seed + j; a key guards /v1", async () => {
  const before = tf.memory().numTensors;
  const server = await serveOpenAi(await localEngineHost(checkpointAt(base, '--model')), { port: 0, servedModelName: 'tiny', maxLoraRank: 1, apiKey: 'k' });
  const post = async (route: string, body: unknown, key: string | null = 'k') => {
    const res = await fetch(server.url + route, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  try {
    expect(await post('/v1/completions', { prompt: [5, 6] }, null)).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(await post('/v1/completions', { model: 'policy-v9', prompt: [5, 6] })).toEqual({ status: 404, body: { error: { message: 'The model `policy-v9` does not exist.', type: 'NotFoundError', param: 'model', code: 404 } } });
    expect((await post('/v1/completions', { prompt: [5, 6], presence_penalty: 0.5 })).body.error).toMatchObject({ message: 'presence_penalty: this server implements only 0', code: 400 });
    expect((await post('/v1/completions', { prompt: [5, 6], logit_bias: { '7': -100 } })).body.error.message).toMatch(/^logit_bias: this server implements only -100/);
    expect(await post('/v1/load_lora_adapter', { lora_name: 'a', lora_path: path.join(dir, 'nope') })).toEqual({
      status: 404,
      body: { error: { message: `Loading lora a failed: No adapter found for ${path.join(dir, 'nope')}`, type: 'NotFoundError', param: null, code: 404 } },
    });
    expect((await post('/v1/load_lora_adapter', { lora_name: 'a', lora_path: adapter })).body.error).toMatchObject({ message: 'LoRA rank 2 is greater than max_lora_rank 1.', code: 500 });
    expect((await post('/v1/unload_lora_adapter', { lora_name: 'a' })).status).toBe(404);

    const two = await post('/v1/completions', { prompt: [5, 6, 7], n: 2, seed: 100, max_tokens: 5, stop_token_ids: [16358], ignore_eos: true, logprobs: 0, return_token_ids: true });
    const one = await post('/v1/completions', { prompt: [5, 6, 7], n: 1, seed: 101, max_tokens: 5, stop_token_ids: [16358], ignore_eos: true, logprobs: 0, return_token_ids: true });
    expect(two.status).toBe(200);
    expect(two.body.choices).toHaveLength(2);
    expect(two.body.choices[1].token_ids).toEqual(one.body.choices[0].token_ids);
    // The same stream, decoded in a batch of two rather than alone: equal up to the batch's float rounding.
    const lps = one.body.choices[0].logprobs.token_logprobs as number[];
    (two.body.choices[1].logprobs.token_logprobs as number[]).forEach((lp, k) => expect(lp).toBeCloseTo(lps[k], 4));
    expect(two.body.usage).toMatchObject({ prompt_tokens: 3 });
  } finally {
    await server.close();
  }
  expect(tf.memory().numTensors).toBe(before);
});
