// A local server that speaks vLLM's OpenAI-compatible subset over the project's engines, so the `openai:URL` engine
// (openai.ts) runs end to end here, without a GPU or vLLM: `npx nx run generate:serve-openai -- --model DIR`.
//
//   GET  /health, GET /v1/models            the base model and every loaded adapter (vLLM's ModelCard: root, parent)
//   POST /tokenize                          {prompt, add_special_tokens} -> {count, max_model_len, tokens}
//   POST /v1/completions                    token-id (or text) prompts, n, max_tokens, min_tokens, temperature,
//                                           top_p, top_k, seed, stop, stop_token_ids, ignore_eos, logprobs: 0,
//                                           return_token_ids, return_tokens_as_token_ids, a -100 logit_bias or
//                                           allowed_token_ids that cut the vocabulary; the answer as vLLM's (token_ids
//                                           end with the stop id, one log-prob per id, finish_reason, stop_reason)
//   POST /v1/load_lora_adapter              {lora_name, lora_path}: the adapter as a model of its own (the local
//                                           host opens base + adapter into a new Qwen2Model); rank over
//                                           maxLoraRank, missing folders and duplicate names answered as vLLM does
//   POST /v1/unload_lora_adapter            {lora_name}: released once the requests running on it finish
// Sampling controls the decoder lacks are refused unless neutral (CompletionRequestSchema). Seeds: `seed` (+ j for
// choice j, as vLLM) is turned back into generateBatch's per-prompt stream (seedStream), so the client's drawSeed
// reproduces the local engine's samples. With an API key every /v1 route wants `Authorization: Bearer <key>`.
// Errors are vLLM's `{"error": {message, type, param, code}}`.
import * as fs from 'fs';
import * as path from 'path';
import { randomUUID } from 'crypto';
import Fastify, { type FastifyReply } from 'fastify';
import { z } from 'zod';
import { checkpointOr, isAdapterFolder, openCheckpoint, resumableRng, sampledIds, type Checkpoint, type Qwen2Config } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { EngineCompletion, RolloutEngine } from './engine';
import { LocalEngine } from './local';
import { CompletionRequestSchema, seedStream, type CompletionRequest } from './openai-protocol';

/** `generate serve-openai`'s settings. */
export const ServeOpenAiSettings = z.strictObject({
  model: z.string().min(1).describe('checkpoint folder to serve: the base model; adapters load on it through POST /v1/load_lora_adapter'),
  engine: z.enum(['local']).default('local').describe("the engine under the server: local (the project's own decoder)"),
  servedModelName: z.string().min(1).optional().describe('the base model\'s id in /v1/models and `model` (default: --model as given)'),
  host: z.string().min(1).default('127.0.0.1').describe('address to listen on'),
  port: z.number().int().min(0).max(65535).default(8000).describe('port (0: any free one)'),
  maxLoraRank: z.number().int().positive().default(16).describe("adapters of a higher rank are refused, as vLLM's --max-lora-rank (its default 16)"),
});
export type ServeOpenAiSettings = z.output<typeof ServeOpenAiSettings>;

/** An engine the server samples from, and how to release it. */
export interface ServedEngine {
  engine: RolloutEngine;
  close(): Promise<void>;
}

/** What the server serves: a base model under its engine, and adapters opened on it. */
export interface EngineHost {
  /** The base model's folder. */
  root: string;
  config: Qwen2Config;
  tokenizer: Tokenizer;
  base: ServedEngine;
  /** The base plus the adapter in `dir` as an engine of its own. */
  openAdapter(dir: string): Promise<ServedEngine>;
}

/** The local engine over a checkpoint: the base model, and each adapter opened with openCheckpoint into a new model. */
export async function localEngineHost(checkpoint: Checkpoint<'causal-lm'>): Promise<EngineHost> {
  const { model, tokenizer } = await openCheckpoint(checkpoint, { trainable: false });
  const served = (m: typeof model): ServedEngine => ({ engine: new LocalEngine(m, tokenizer), close: async () => m.dispose() });
  const config = checkpoint.config;
  return {
    root: path.resolve(checkpoint.dir),
    config,
    tokenizer,
    base: served(model),
    async openAdapter(dir) {
      const at = checkpointOr(dir, '', 'causal-lm');
      if ('problem' in at) throw new Error(`${dir}: ${at.problem}`);
      const shape = (c: Qwen2Config) => [c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.vocab_size].join('x');
      if (shape(at.config) !== shape(config)) throw new Error(`${dir}: an adapter for a model of shape ${shape(at.config)}, not the served ${shape(config)}`);
      return served((await openCheckpoint(at, { trainable: false, tokenizer: false })).model);
    },
  };
}

export interface ServeOpenAiOptions {
  host?: string;
  port?: number;
  /** The base model's id (default: its folder). */
  servedModelName?: string;
  maxLoraRank?: number;
  /** Required as `Authorization: Bearer` on /v1 routes when set. */
  apiKey?: string;
  /** One line per adapter loaded or removed and per completion request (vLLM's log words: what a run's log is searched for). */
  log?: (line: string) => void;
}

/** A loaded adapter: its engine, its path, and the requests running on it. */
interface Adapter {
  served: ServedEngine;
  path: string;
  active: number;
  unloaded: boolean;
}

function vllmError(reply: FastifyReply, status: number, type: string, message: string, param: string | null = null): FastifyReply {
  return reply.code(status).send({ error: { message, type, param, code: status } });
}

const LoadSchema = z.object({ lora_name: z.string().default(''), lora_path: z.string().default('') });
const UnloadSchema = z.object({ lora_name: z.string().default('') });
const TokenizeSchema = z.object({ prompt: z.string(), add_special_tokens: z.boolean().default(true) });

/** Start the server over `host` (it owns it from here: close() releases the adapters and the base). */
export async function serveOpenAi(host: EngineHost, opts: ServeOpenAiOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  const name = opts.servedModelName ?? host.root;
  const maxLoraRank = opts.maxLoraRank ?? 16;
  const { config, tokenizer: tok } = host;
  const eosIds = config.eos_token_id === null || config.eos_token_id === undefined ? [] : Array.isArray(config.eos_token_id) ? config.eos_token_id : [config.eos_token_id];
  const adapters = new Map<string, Adapter>();
  const loading = new Set<string>();
  const app = Fastify({ bodyLimit: 64 << 20 });
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const status = err.statusCode ?? 500;
    return vllmError(reply, status, status < 500 ? 'BadRequestError' : 'InternalServerError', err.message);
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ detail: `Not Found: ${req.method} ${req.url}` }));
  if (opts.apiKey) {
    app.addHook('onRequest', async (req, reply) => {
      if (!req.url.startsWith('/v1')) return;
      if (req.headers.authorization !== `Bearer ${opts.apiKey}`) return reply.code(401).send({ error: 'Unauthorized' });
    });
  }

  app.get('/health', async (_req, reply) => reply.code(200).send(''));

  app.get('/v1/models', async () => {
    const created = Math.floor(Date.now() / 1000);
    const card = (id: string, root: string, parent: string | null, maxModelLen: number | null) => ({ id, object: 'model', created, owned_by: 'rlhf-code', root, parent, max_model_len: maxModelLen, permission: [] });
    return { object: 'list', data: [card(name, host.root, null, config.max_position_embeddings), ...[...adapters].map(([id, a]) => card(id, a.path, name, null))] };
  });

  app.post('/tokenize', async (req, reply) => {
    const r = TokenizeSchema.safeParse(req.body);
    if (!r.success) return vllmError(reply, 400, 'BadRequestError', r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const tokens = tok.encode(r.data.prompt, { addSpecialTokens: r.data.add_special_tokens });
    return { count: tokens.length, max_model_len: config.max_position_embeddings, tokens, token_strs: null };
  });

  app.post('/v1/load_lora_adapter', async (req, reply) => {
    const r = LoadSchema.safeParse(req.body ?? {});
    const { lora_name: loraName, lora_path: loraPath } = r.success ? r.data : { lora_name: '', lora_path: '' };
    if (!loraName || !loraPath) return vllmError(reply, 400, 'InvalidUserInput', "Both 'lora_name' and 'lora_path' must be provided.");
    if (adapters.has(loraName) || loading.has(loraName)) {
      return vllmError(reply, 400, 'InvalidUserInput', `The lora adapter '${loraName}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`);
    }
    if (!isAdapterFolder(loraPath)) return vllmError(reply, 404, 'NotFoundError', `Loading lora ${loraName} failed: No adapter found for ${loraPath}`);
    const rank = (JSON.parse(fs.readFileSync(path.join(loraPath, 'adapter_config.json'), 'utf8')) as { r?: unknown }).r;
    if (typeof rank === 'number' && rank > maxLoraRank) return vllmError(reply, 500, 'InternalServerError', `LoRA rank ${rank} is greater than max_lora_rank ${maxLoraRank}.`);
    loading.add(loraName);
    try {
      adapters.set(loraName, { served: await host.openAdapter(loraPath), path: loraPath, active: 0, unloaded: false });
    } catch (e) {
      return vllmError(reply, 500, 'InternalServerError', (e as Error).message);
    } finally {
      loading.delete(loraName);
    }
    opts.log?.(`Loaded new LoRA adapter: name '${loraName}', path '${loraPath}'`);
    return reply.code(200).send(`Success: LoRA adapter '${loraName}' added successfully.`);
  });

  app.post('/v1/unload_lora_adapter', async (req, reply) => {
    const r = UnloadSchema.safeParse(req.body ?? {});
    const loraName = r.success ? r.data.lora_name : '';
    if (!loraName) return vllmError(reply, 400, 'InvalidUserInput', "'lora_name' needs to be provided to unload a LoRA adapter.");
    const a = adapters.get(loraName);
    if (!a) return vllmError(reply, 404, 'NotFoundError', `The lora adapter '${loraName}' cannot be found.`);
    adapters.delete(loraName);
    a.unloaded = true;
    if (a.active === 0) await a.served.close();
    opts.log?.(`Removed LoRA adapter: name '${loraName}'`);
    return reply.code(200).send(`Success: LoRA adapter '${loraName}' removed successfully.`);
  });

  app.post('/v1/completions', async (req, reply) => {
    const parsed = CompletionRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.join('.');
      return vllmError(reply, 400, 'BadRequestError', `${field || '(body)'}: ${issue.message}`, field || null);
    }
    const body = parsed.data;
    opts.log?.(`POST /v1/completions model '${body.model}'`);
    const modelName = body.model ?? name;
    const adapter = modelName === name ? null : adapters.get(modelName);
    if (adapter === undefined) return vllmError(reply, 404, 'NotFoundError', `The model \`${modelName}\` does not exist.`, 'model');
    const sampling = samplingOf(body, config.vocab_size);
    if (typeof sampling === 'string') return vllmError(reply, 400, 'BadRequestError', sampling);
    const prompts = typeof body.prompt === 'string' ? [tok.encode(body.prompt)] : typeof body.prompt[0] === 'number' ? [body.prompt as number[]] : (body.prompt as number[][]);
    const maxTokens = body.max_tokens ?? 16;
    for (const p of prompts) {
      const bad = p.find((id) => id >= config.vocab_size);
      if (bad !== undefined) return vllmError(reply, 400, 'BadRequestError', `Token id ${bad} is out of vocabulary (size ${config.vocab_size})`, 'prompt');
      if (p.length + maxTokens > config.max_position_embeddings) {
        return vllmError(reply, 400, 'BadRequestError', `This model's maximum context length is ${config.max_position_embeddings} tokens. However, you requested ${p.length + maxTokens} tokens (${p.length} in the prompt, ${maxTokens} in the completion).`, 'max_tokens');
      }
    }
    if (sampling.temperature === 0 && body.n > 1) return vllmError(reply, 400, 'BadRequestError', `n must be 1 when using greedy sampling, got ${body.n}.`, 'n');
    // One row per prompt and choice; choice j of a seeded request samples with seed + j, as vLLM's parallel sampling.
    const rows = prompts.flatMap((prompt) => Array.from({ length: body.n }, (_, j) => ({ prompt, seed: body.seed === null || body.seed === undefined ? null : body.seed + j })));
    const stopIds = [...new Set([...(body.stop_token_ids ?? []), ...(body.ignore_eos ? [] : eosIds)])];
    const stopStrings = body.stop === null || body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
    const served = adapter?.served ?? host.base;
    if (adapter) adapter.active++;
    let completions: EngineCompletion[];
    try {
      completions = await served.engine.sample(
        rows.map((r) => r.prompt),
        {
          maxNewTokens: maxTokens,
          minNewTokens: body.min_tokens,
          temperature: sampling.temperature,
          topK: sampling.topK,
          topP: sampling.topP,
          stopIds,
          stopStrings,
          vocabSize: sampling.vocabSize,
          rngs: rows.map((r) => (r.seed === null ? resumableRng(randomUUID()) : seedStream(r.seed))),
        },
      );
    } finally {
      if (adapter && --adapter.active === 0 && adapter.unloaded) await adapter.served.close();
    }
    const tokenString = (id: number) => (body.return_tokens_as_token_ids ? `token_id:${id}` : tok.decode([id]));
    const choices = completions.map((c, index) => {
      const ids = sampledIds(c);
      const stopReason = c.stopId !== null ? (body.stop_token_ids?.includes(c.stopId) ? c.stopId : null) : c.finishReason === 'stop' ? (stopStrings.find((s) => tok.decode(c.ids).includes(s)) ?? null) : null;
      return {
        index,
        text: c.text,
        logprobs: body.logprobs === null || body.logprobs === undefined ? null : completionLogprobs(ids.map(tokenString), c.logprobs),
        finish_reason: c.finishReason,
        stop_reason: stopReason,
        token_ids: body.return_token_ids ? ids : null,
        prompt_logprobs: null,
        prompt_token_ids: body.return_token_ids ? rows[index].prompt : null,
      };
    });
    const promptTokens = prompts.reduce((n, p) => n + p.length, 0);
    const completionTokens = completions.reduce((n, c) => n + sampledIds(c).length, 0);
    return {
      id: `cmpl-${randomUUID().replace(/-/g, '')}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: modelName,
      choices,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + completionTokens, completion_tokens: completionTokens },
    };
  });

  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 8000 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    async close() {
      await app.close();
      for (const a of adapters.values()) await a.served.close();
      adapters.clear();
      await host.base.close();
    },
  };
}

/** vLLM's CompletionLogProbs for the sampled tokens (`logprobs: 0`: the sampled token alone in top_logprobs, -9999 at the lowest). */
function completionLogprobs(tokens: string[], logprobs: readonly number[]) {
  const lps = logprobs.map((lp) => Math.max(lp, -9999));
  let offset = 0;
  const textOffset = tokens.map((t) => (offset += t.length) - t.length);
  return { text_offset: textOffset, token_logprobs: lps, tokens, top_logprobs: tokens.map((t, k) => ({ [t]: lps[k] })) };
}

/**
 * The request's sampling as the decoder takes it, or why it cannot: temperature (below vLLM's 1e-5: greedy), top-k
 * (0 and -1: off), top-p, and the vocabulary a -100 logit_bias or allowed_token_ids leaves (only a cut of the final
 * ids, the padded-vocabulary ban, is expressible).
 */
function samplingOf(body: CompletionRequest, modelVocab: number): { temperature: number; topK: number; topP: number; vocabSize: number } | string {
  const t = body.temperature ?? 1;
  let vocabSize = modelVocab;
  const bias = Object.entries(body.logit_bias ?? {}).map(([k, v]) => ({ id: Number(k), v }));
  if (bias.length > 0) {
    const from = Math.min(...bias.map((x) => x.id));
    const ban = bias.every((x) => Number.isInteger(x.id) && x.id < modelVocab && x.v <= -100) && bias.length === modelVocab - from;
    if (!ban) return `logit_bias: this server implements only -100 on every id from some id to the end of the vocabulary (${modelVocab})`;
    vocabSize = from;
  }
  if (body.allowed_token_ids) {
    const ids = [...new Set(body.allowed_token_ids)].sort((a, b) => a - b);
    if (ids.some((id, k) => id !== k)) return 'allowed_token_ids: this server implements only the ids 0..k-1 (a cut of the vocabulary)';
    vocabSize = Math.min(vocabSize, ids.length);
  }
  return { temperature: t < 1e-5 ? 0 : t, topK: body.top_k && body.top_k > 0 ? body.top_k : 0, topP: body.top_p ?? 1, vocabSize };
}
