// The openai:URL engine's protocol, against a fake server that answers with the fixtures taken from vLLM's and
// SGLang's source (fixtures/README.md) and records what the engine sends: request bodies, token-id parsing (both
// forms), finish_reason and the stop id, the padded-vocabulary ban, seeds, versions and unloading after K, full
// weights, and the errors (404 adapter, rank too large, timeout, server down, 401).
import * as fs from 'fs';
import * as path from 'path';
import Fastify from 'fastify';
import { resumableRng } from '@rlhf-code/model';
import { tempDir, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { OpenAiEngine } from './openai';
import { drawSeed, seedStream } from './openai-protocol';

const fx = (f: string) => JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', f), 'utf8'));
const fxText = (f: string) => fs.readFileSync(path.join(__dirname, 'fixtures', f), 'utf8');

type Answer = { status?: number; json?: unknown; text?: string; delayMs?: number };
type Handler = (body: any) => Answer | Promise<Answer>;

/** A server that answers `routes` ("POST /v1/completions") and records every call. */
async function fakeServer(routes: Record<string, Handler>) {
  const app = Fastify();
  const calls: { route: string; body: any; auth?: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  app.route({
    method: ['GET', 'POST'],
    url: '*',
    handler: async (req, reply) => {
      const route = `${req.method} ${req.url}`;
      calls.push({ route, body: req.body, auth: req.headers.authorization });
      const h = routes[route];
      if (!h) return reply.code(404).send({ detail: 'Not Found' });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const a = await h(req.body);
        if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
        reply.code(a.status ?? 200);
        return a.json !== undefined ? reply.send(a.json) : reply.type('text/plain').send(a.text ?? '');
      } finally {
        inFlight--;
      }
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, calls, routes, maxInFlight: () => maxInFlight, close: () => app.close() };
}

const vllmBase = (): Record<string, Handler> => ({ 'GET /v1/models': () => ({ json: fx('vllm/models.json') }), 'GET /health': () => ({ text: '' }) });
const sglangBase = (): Record<string, Handler> => ({ 'GET /v1/models': () => ({ json: fx('sglang/models.json') }), 'GET /health': () => ({ text: '' }) });
/** Qwen2.5's shape: tokenizer ids below 151665, embedding rows 151667 here (two banned ids, as in the fixture request). */
const QWEN = { modelVocabSize: 151667 };
const REQ = { maxNewTokens: 8, temperature: 0.8, stopIds: [151643], vocabSize: 151665 };
const PROMPT = [750, 912, 2877, 11, 293, 982, 198];

let servers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(routes: Record<string, Handler>) {
  const s = await fakeServer(routes);
  servers.push(s);
  return s;
}

/** An adapter folder as the trainer writes it (the engine only copies its two files). */
function adapterDir(r = 8, extra: Record<string, unknown> = {}): string {
  const dir = tempDir('adapter-');
  fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify({ peft_type: 'LORA', task_type: 'CAUSAL_LM', r, lora_alpha: 2 * r, target_modules: ['q_proj', 'v_proj'], ...extra }));
  fs.writeFileSync(path.join(dir, 'adapter_model.safetensors'), Buffer.from('not read by the engine'));
  return dir;
}

describe('seeds across the wire', () => {
  it("drawSeed is an integer below 2^32 whose seedStream is generateBatch's stream for that prompt", () => {
    const a = resumableRng(42);
    const b = resumableRng(42);
    for (let i = 0; i < 200; i++) {
      const local = resumableRng(String(a.next())); // generateBatch's per-prompt stream
      const seed = drawSeed(b);
      expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32).toBe(true);
      const remote = seedStream(seed);
      for (let k = 0; k < 3; k++) expect(remote.next()).toBe(local.next());
    }
  });
});

describe('OpenAiEngine on vLLM', () => {
  it('opens: dialect from owned_by, the base card, a clear error for a model the server does not serve', async () => {
    const s = await serve(vllmBase());
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    expect(engine.name).toBe('vllm');
    expect(engine.baseModel).toBe('models/base');
    await expect(OpenAiEngine.open(`openai:${s.url}/?model=other`, QWEN)).rejects.toThrow(`openai engine (${s.url}): model 'other' is not served (GET /v1/models lists: models/base, policy-v1)`);
    await expect(OpenAiEngine.open(`openai:${s.url}?dialect=tgi`, QWEN)).rejects.toThrow("dialect must be vllm or sglang, got 'tgi'");
  });

  it("checks the server's tokenizer on a probe string, and says so when the server cannot", async () => {
    const tok = loadTokenizer(TOKENIZER_DIR);
    const s = await serve({ ...vllmBase(), 'POST /tokenize': (b) => ({ json: { count: 0, max_model_len: 32768, tokens: tok.encode(b.prompt), token_strs: null } }) });
    await expect(OpenAiEngine.open(`openai:${s.url}`, { modelVocabSize: 16384 }, tok)).resolves.toBeInstanceOf(OpenAiEngine);
    expect(s.calls.find((c) => c.route === 'POST /tokenize')!.body).toMatchObject({ model: 'models/base', add_special_tokens: false });
    s.routes['POST /tokenize'] = () => ({ json: fx('vllm/tokenize.json') });
    await expect(OpenAiEngine.open(`openai:${s.url}`, { modelVocabSize: 16384 }, tok)).rejects.toThrow(/the server's tokenizer is not the trainer's: .* is \[750, 912, 2877, 11, 293, 982, 198\] on the server \(model models\/base\)/);
    delete s.routes['POST /tokenize'];
    const warn = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await expect(OpenAiEngine.open(`openai:${s.url}`, { modelVocabSize: 16384 }, tok)).resolves.toBeInstanceOf(OpenAiEngine);
      expect(warn).toHaveBeenCalledWith(`openai engine (vllm at ${s.url}): the server has no POST /tokenize: its tokenizer is not checked\n`);
    } finally {
      warn.mockRestore();
    }
  });

  it('sends every sampling field, one seed per prompt, the vocabulary ban; reads the stop id and the log-probs', async () => {
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': (b) => ({ json: fx(b.prompt.length === PROMPT.length ? 'vllm/completions-stop.json' : 'vllm/completions-length.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    const out = await engine.sample([PROMPT, [1, 2, 3]], { ...REQ, seed: 5 });
    const root = resumableRng(5);
    const seeds = [drawSeed(root), drawSeed(root)];
    const bodies = s.calls.filter((c) => c.route === 'POST /v1/completions').map((c) => c.body);
    expect(bodies).toHaveLength(2);
    expect(bodies.find((b) => b.prompt.length === PROMPT.length)).toEqual({ ...fx('vllm/completions-request.json'), model: 'models/base', seed: seeds[0] });
    expect(bodies.find((b) => b.prompt.length === 3).seed).toBe(seeds[1]);
    const stop = fx('vllm/completions-stop.json').choices[0];
    expect(out[0]).toEqual({ ids: stop.token_ids.slice(0, -1), stopId: 151643, finishReason: 'stop', logprobs: stop.logprobs.token_logprobs, text: stop.text, policyVersion: 0 });
    const length = fx('vllm/completions-length.json').choices[0];
    expect(out[1]).toEqual({ ids: length.token_ids, stopId: null, finishReason: 'length', logprobs: length.logprobs.token_logprobs, text: length.text, policyVersion: 0 });
  });

  it('greedy calls carry no seed; a caller-owned stream per prompt gives one draw each', async () => {
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ json: fx('vllm/completions-length.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { modelVocabSize: 151665 });
    await engine.sample([PROMPT], { ...REQ, temperature: 0 });
    const greedy = s.calls.at(-1)!.body;
    expect(greedy.temperature).toBe(0);
    expect('seed' in greedy || 'logit_bias' in greedy).toBe(false);
    const rng = resumableRng('episode-3');
    await engine.sample([PROMPT], { ...REQ, rngs: [rng] });
    expect(s.calls.at(-1)!.body.seed).toBe(drawSeed(resumableRng('episode-3')));
  });

  it('reads ids from "token_id:N" strings when the server has no return_token_ids', async () => {
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ json: fx('vllm/completions-token-id-strings.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    const [c] = await engine.sample([PROMPT], REQ);
    expect(c.ids).toEqual([262, 470, 264, 488, 293, 198]);
    expect(c.stopId).toBe(151643);
    expect(c.logprobs).toHaveLength(7);
  });

  it('a server that leaves the stop id out of token_ids but names it: read, if its log-prob is there', async () => {
    const answer = fx('vllm/completions-stop.json');
    answer.choices[0].token_ids = answer.choices[0].token_ids.slice(0, -1);
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ json: answer }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    const [c] = await engine.sample([PROMPT], REQ);
    expect([c.ids.length, c.stopId, c.logprobs.length]).toEqual([6, 151643, 7]);
    answer.choices[0].logprobs.token_logprobs.pop();
    await expect(engine.sample([PROMPT], REQ)).rejects.toThrow(`openai engine (vllm at ${s.url}): prompt 0: 6 log-probs for 7 sampled tokens (the stop id 151643 included)`);
  });

  it('rejects an id past the tokenizer (a server that ignored the ban) and a prompt id past the model', async () => {
    const answer = fx('vllm/completions-length.json');
    answer.choices[0].token_ids[2] = 151666;
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ json: answer }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    await expect(engine.sample([PROMPT], REQ)).rejects.toThrow("prompt 0: the server sampled id 151666, at or past the tokenizer's 151665 ids (it ignored the logit_bias ban)");
    await expect(engine.sample([[1, 151667]], REQ)).rejects.toThrow("prompt 0 has id 151667, outside the model's vocabulary (151667)");
  });

  it('applies stop strings to the returned ids as generateBatch does (with the tokenizer)', async () => {
    const tok = loadTokenizer(TOKENIZER_DIR);
    const ids = tok.encode('abc\ndef');
    const s = await serve({
      ...vllmBase(),
      'POST /tokenize': (b) => ({ json: { tokens: tok.encode(b.prompt) } }),
      'POST /v1/completions': () => ({ json: { choices: [{ index: 0, text: 'abc\ndef', finish_reason: 'length', stop_reason: null, token_ids: ids, logprobs: { tokens: [], token_logprobs: ids.map(() => -0.5) } }] } }),
    });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { modelVocabSize: 16384 }, tok);
    const streamed: string[] = [];
    const [c] = await engine.sample([[5, 6]], { maxNewTokens: 8, temperature: 1, stopIds: [16358], vocabSize: 16384, stopStrings: ['\n'], onText: (_i, t) => streamed.push(t) });
    const k = ids.findIndex((_, j) => tok.decode(ids.slice(0, j + 1)).includes('\n')) + 1;
    expect(c).toMatchObject({ ids: ids.slice(0, k), stopId: null, finishReason: 'stop', text: 'abc' });
    expect(c.logprobs).toHaveLength(k);
    expect(streamed).toEqual(['abc']);
    expect(s.calls.at(-1)!.body.stop).toEqual(['\n']);
  });

  it('keeps at most `concurrency` requests in flight, and times out', async () => {
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ json: fx('vllm/completions-length.json'), delayMs: 40 }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, concurrency: 2 });
    await engine.sample(Array.from({ length: 6 }, () => PROMPT), REQ);
    expect(s.maxInFlight()).toBe(2);
    s.routes['POST /v1/completions'] = () => ({ json: fx('vllm/completions-length.json'), delayMs: 1500 });
    const slow = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, timeoutMs: 300 });
    await expect(slow.sample([PROMPT], REQ)).rejects.toThrow(`openai engine (vllm at ${s.url}): POST /v1/completions: no answer within 300 ms`);
  });

  it('names the server when it is down', async () => {
    const s = await fakeServer(vllmBase());
    await s.close();
    await expect(OpenAiEngine.open(`openai:${s.url}`, QWEN)).rejects.toThrow(`openai engine (${s.url}): GET /v1/models: cannot connect (ECONNREFUSED): is the server running at ${s.url}?`);
  });

  it('sends the API key from its environment variable and never prints it', async () => {
    process.env.TEST_ENGINE_TOKEN = 'sekrit-key';
    try {
      const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ status: 401, json: fx('vllm/error-unauthorized.json') }) });
      const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, tokenEnv: 'TEST_ENGINE_TOKEN' });
      const err = await engine.sample([PROMPT], REQ).catch((e: Error) => e);
      expect(s.calls.every((c) => c.auth === 'Bearer sekrit-key')).toBe(true);
      expect((err as Error).message).toBe(`openai engine (vllm at ${s.url}): POST /v1/completions: 401: Unauthorized (TEST_ENGINE_TOKEN holds a key the server refuses: it must hold the server's API key)`);
      expect((err as Error).message).not.toContain('sekrit');
    } finally {
      delete process.env.TEST_ENGINE_TOKEN;
    }
  });

  it("passes the server's error on, naming the engine, route and status", async () => {
    const s = await serve({ ...vllmBase(), 'POST /v1/completions': () => ({ status: 404, json: fx('vllm/error-model-not-found.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    await expect(engine.sample([PROMPT], REQ)).rejects.toThrow(`openai engine (vllm at ${s.url}): POST /v1/completions: 404: The model \`policy-v9\` does not exist.`);
  });

  it('publishes adapter versions: staged folder, load under a new name, new calls use it, unload after K', async () => {
    const shared = tempDir('shared-');
    const s = await serve({
      ...vllmBase(),
      'POST /v1/load_lora_adapter': () => ({ text: fxText('vllm/load-lora-ok.txt') }),
      'POST /v1/unload_lora_adapter': () => ({ text: fxText('vllm/unload-lora-ok.txt') }),
      'POST /v1/completions': () => ({ json: fx('vllm/completions-length.json') }),
    });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, sharedDir: shared, pathPrefix: '/mnt/shared', keepVersions: 2 });
    const adapter = adapterDir();
    for (const v of [1, 2, 3]) await engine.publish({ kind: 'adapter', dir: adapter }, v);
    const routes = s.calls.filter((c) => c.route.includes('lora')).map((c) => [c.route, c.body]);
    expect(routes).toEqual([
      ['POST /v1/load_lora_adapter', { lora_name: 'policy-v1', lora_path: '/mnt/shared/policy-v1' }],
      ['POST /v1/load_lora_adapter', { lora_name: 'policy-v2', lora_path: '/mnt/shared/policy-v2' }],
      ['POST /v1/load_lora_adapter', { lora_name: 'policy-v3', lora_path: '/mnt/shared/policy-v3' }],
      ['POST /v1/unload_lora_adapter', { lora_name: 'policy-v1' }],
    ]);
    expect(fs.readdirSync(shared).sort()).toEqual(['policy-v2', 'policy-v3']);
    expect(fs.readdirSync(path.join(shared, 'policy-v3')).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const [c] = await engine.sample([PROMPT], REQ);
    expect(c.policyVersion).toBe(3);
    expect(s.calls.at(-1)!.body.model).toBe('policy-v3');
    await expect(engine.publish({ kind: 'adapter', dir: adapter }, 3)).rejects.toThrow('version 3 is not after 3');
    await engine.close();
    expect(s.calls.slice(-2).map((c) => c.body.lora_name)).toEqual(['policy-v2', 'policy-v3']);
    expect(fs.readdirSync(shared)).toEqual([]);
  });

  it('a failed load stops the publish with the server\'s message and leaves no folder (404, rank too large)', async () => {
    const shared = tempDir('shared-');
    const s = await serve({ ...vllmBase(), 'POST /v1/load_lora_adapter': () => ({ status: 404, json: fx('vllm/error-lora-not-found.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, sharedDir: shared });
    await expect(engine.publish({ kind: 'adapter', dir: adapterDir() }, 1)).rejects.toThrow(
      `openai engine (vllm at ${s.url}): POST /v1/load_lora_adapter: 404: Loading lora policy-v1 failed: No adapter found for /shared/run/engine/policy-v1`,
    );
    s.routes['POST /v1/load_lora_adapter'] = () => ({ status: 500, json: fx('vllm/error-lora-rank.json') });
    await expect(engine.publish({ kind: 'adapter', dir: adapterDir(16) }, 1)).rejects.toThrow('POST /v1/load_lora_adapter: 500: LoRA rank 16 is greater than max_lora_rank 8.');
    expect(fs.readdirSync(shared)).toEqual([]);
    expect(engine.policyVersion).toBe(0);
  });

  it('refuses what it cannot publish, saying why', async () => {
    const s = await serve(vllmBase());
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    await expect(engine.publish({ kind: 'full', dir: '/unused' }, 1)).rejects.toThrow(
      `openai engine (vllm at ${s.url}): cannot publish full weights: vLLM has no full-weight update over HTTP; train a LoRA adapter (--lora-rank) or use SGLang`,
    );
    await expect(engine.publish({ kind: 'adapter', dir: adapterDir() }, 1)).rejects.toThrow('publishing a policy needs a shared folder (sharedDir, --engine-shared-dir) that the server can read');
    const shared = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, sharedDir: tempDir('shared-') });
    await expect(shared.publish({ kind: 'adapter', dir: adapterDir(8, { modules_to_save: ['score'] }) }, 1)).rejects.toThrow("trains modules_to_save (score): a reward model's adapter");
  });
});

describe('OpenAiEngine on SGLang', () => {
  it('tells SGLang apart (owned_by, /model_info, ?dialect=) and generates through /generate with token ids', async () => {
    const s = await serve({ ...sglangBase(), 'POST /generate': (b) => ({ json: fx(b.input_ids.length === PROMPT.length ? 'sglang/generate-stop.json' : 'sglang/generate-length.json') }) });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, QWEN);
    expect(engine.name).toBe('sglang');
    const out = await engine.sample([PROMPT, [4, 5]], { ...REQ, seed: 9 });
    const { lora_path: _base, ...request } = fx('sglang/generate-request.json');
    const body = s.calls.find((c) => c.route === 'POST /generate' && c.body.input_ids.length === PROMPT.length)!.body;
    expect(body).toEqual({ ...request, sampling_params: { ...request.sampling_params, sampling_seed: drawSeed(resumableRng(9)) } });
    const stop = fx('sglang/generate-stop.json');
    expect(out[0]).toEqual({ ids: stop.output_ids.slice(0, -1), stopId: 151643, finishReason: 'stop', logprobs: stop.meta_info.output_token_logprobs.map((x: number[]) => x[0]), text: stop.text, policyVersion: 0 });
    expect(out[1]).toMatchObject({ ids: [262, 856, 284, 12564], stopId: null, finishReason: 'length' });

    const noIds = fx('sglang/generate-stop.json');
    delete noIds.output_ids;
    s.routes['POST /generate'] = () => ({ json: noIds });
    expect((await engine.sample([PROMPT], REQ))[0].ids).toEqual(stop.output_ids.slice(0, -1));

    const other = await serve({ ...vllmBase(), 'GET /v1/models': () => ({ json: { object: 'list', data: [{ id: 'm', owned_by: 'someone' }] } }) });
    expect((await OpenAiEngine.open(`openai:${other.url}`, QWEN)).name).toBe('vllm');
    expect((await OpenAiEngine.open(`openai:${other.url}?dialect=sglang`, QWEN)).name).toBe('sglang');
    other.routes['GET /model_info'] = () => ({ json: fx('sglang/model-info.json') });
    expect((await OpenAiEngine.open(`openai:${other.url}`, QWEN)).name).toBe('sglang');
  });

  it('publishes adapters through /load_lora_adapter and samples with lora_path; a failed load names the reason', async () => {
    const shared = tempDir('shared-');
    const s = await serve({
      ...sglangBase(),
      'POST /load_lora_adapter': () => ({ json: fx('sglang/load-lora-ok.json') }),
      'POST /unload_lora_adapter': () => ({ json: fx('sglang/unload-lora-ok.json') }),
      'POST /generate': () => ({ json: fx('sglang/generate-length.json') }),
    });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, sharedDir: shared, keepVersions: 1 });
    const adapter = adapterDir();
    await engine.publish({ kind: 'adapter', dir: adapter }, 1);
    await engine.publish({ kind: 'adapter', dir: adapter }, 2);
    const lora = s.calls.filter((c) => c.route.includes('lora')).map((c) => [c.route, c.body]);
    expect(lora).toEqual([
      ['POST /load_lora_adapter', { lora_name: 'policy-v1', lora_path: path.join(shared, 'policy-v1'), pinned: false }],
      ['POST /load_lora_adapter', { lora_name: 'policy-v2', lora_path: path.join(shared, 'policy-v2'), pinned: false }],
      ['POST /unload_lora_adapter', { lora_name: 'policy-v1' }],
    ]);
    await engine.sample([PROMPT], REQ);
    expect(s.calls.at(-1)!.body.lora_path).toBe('policy-v2');
    s.routes['POST /load_lora_adapter'] = () => ({ status: 400, json: fx('sglang/load-lora-fail.json') });
    await expect(engine.publish({ kind: 'adapter', dir: adapterDir(16) }, 3)).rejects.toThrow(`openai engine (sglang at ${s.url}): POST /load_lora_adapter: 400: LoRA adapter policy-v1 with rank 16 exceeds --max-lora-rank 8`);
    expect(engine.policyVersion).toBe(2);
  });

  it('publishes full weights: pause, /update_weights_from_disk, continue (also when the update fails)', async () => {
    const shared = tempDir('shared-');
    const ckpt = tempDir('ckpt-');
    fs.writeFileSync(path.join(ckpt, 'config.json'), '{}');
    fs.writeFileSync(path.join(ckpt, 'model.safetensors'), 'weights');
    const s = await serve({
      ...sglangBase(),
      'POST /pause_generation': () => ({ json: fx('sglang/pause-ok.json') }),
      'POST /update_weights_from_disk': () => ({ json: fx('sglang/update-weights-ok.json') }),
      'POST /continue_generation': () => ({ json: fx('sglang/continue-ok.json') }),
    });
    const engine = await OpenAiEngine.open(`openai:${s.url}`, { ...QWEN, sharedDir: shared, pathPrefix: '/shared/run/engine' });
    await engine.publish({ kind: 'full', dir: ckpt }, 1);
    const weights = s.calls.filter((c) => c.route !== 'GET /v1/models' && c.route !== 'GET /health');
    expect(weights.map((c) => c.route)).toEqual(['POST /pause_generation', 'POST /update_weights_from_disk', 'POST /continue_generation']);
    expect(weights[0].body).toEqual({ mode: 'retract' });
    expect(weights[1].body).toEqual(fx('sglang/update-weights-request.json'));
    expect(fs.readdirSync(path.join(shared, 'policy-v1')).sort()).toEqual(['config.json', 'model.safetensors']);
    expect(engine.policyVersion).toBe(1);
    s.routes['POST /update_weights_from_disk'] = () => ({ status: 400, json: fx('sglang/update-weights-fail.json') });
    await expect(engine.publish({ kind: 'full', dir: ckpt }, 2)).rejects.toThrow(`openai engine (sglang at ${s.url}): POST /update_weights_from_disk: Failed to get weights iterator`);
    expect(s.calls.at(-1)!.route).toBe('POST /continue_generation');
    expect(fs.existsSync(path.join(shared, 'policy-v2'))).toBe(false);
  });
});
