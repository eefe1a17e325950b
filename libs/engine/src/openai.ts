// The `openai:URL` engine: rollouts on a vLLM or SGLang server (or anything that speaks vLLM's subset, such as
// serve-openai.ts), driven over HTTP only, so a TypeScript trainer can put sampling on GPUs elsewhere.
//
//   start       OpenAiEngine.open probes GET /v1/models (the served base: `?model=NAME` or the card without a parent)
//               and GET /health, tells vLLM from SGLang (the cards' owned_by, else whether GET /model_info answers;
//               `?dialect=vllm|sglang` forces it), and with a tokenizer checks the server's on a probe string through
//               POST /tokenize: a wrong checkpoint or tokenizer stops the run before any rollout.
//   sampling    one request per prompt (each with its own seed), at most `concurrency` in flight, every sampling field
//               explicit (the server's generation_config never applies), token ids in and out. vLLM: POST
//               /v1/completions with `ignore_eos` and the caller's `stop_token_ids` (so exactly those ids end a
//               continuation, as in generateBatch), `logprobs: 0`, `return_token_ids` (older servers: the
//               "token_id:N" strings of `return_tokens_as_token_ids`). SGLang: POST /generate (its /v1/completions
//               returns no token ids). Ids past the tokenizer's (a checkpoint's padded rows) get a -100 logit bias and
//               are rejected if they come back. The stop id ends `token_ids` on both servers; a server that left it
//               out but named it (stop_reason / matched) is read too, as long as it gave the id's log-prob.
//   seeds       prompt i's seed is drawSeed of generateBatch's stream for it (openai-protocol.ts): the local server
//               replays the local engine's samples exactly; vLLM and SGLang sample from their own RNG with it (runs are
//               reproducible per engine). Caller-owned streams (`rngs`) give one draw each.
//   text        with a tokenizer, generateBatch's rules on the returned ids (stop strings and stopWhen end a
//               continuation at the first token whose text triggers them; `text` is the decoded ids); without one, the
//               server's text.
//   publish     an adapter: its two PEFT files copied to <sharedDir>/policy-v<v>.tmp, renamed to policy-v<v>, loaded
//               under that name (vLLM /v1/load_lora_adapter, SGLang /load_lora_adapter; the path as the server sees
//               it: pathPrefix/policy-v<v>), then new calls use it; versions older than the newest keepVersions are
//               unloaded and deleted. Full weights: SGLang only (pause, /update_weights_from_disk, continue); vLLM has
//               no such route and the error says what to do instead.
//   errors      every failure names the engine, the server, the route and the status, with the server's message; the
//               bearer token (read from the environment variable `tokenEnv`) is never in a message.
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { resumableRng, type Rng } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { parseEngineSpec, type EngineCompletion, type PolicySnapshot, type RolloutEngine, type SampleRequest } from './engine';
import {
  CompletionResponseSchema,
  drawSeed,
  errorMessageOf,
  GenerateResponseSchema,
  ModelListSchema,
  SglangResultSchema,
  TokenizeResponseSchema,
  versionName,
} from './openai-protocol';

export type Dialect = 'vllm' | 'sglang';

export const OpenAiEngineSettings = z.strictObject({
  /** The policy's embedding rows (config vocab_size): ids from a request's vocabSize up to it are banned. */
  modelVocabSize: z.number().int().positive(),
  /** A folder the trainer writes each version into and the server reads (needed to publish). */
  sharedDir: z.string().min(1).optional(),
  /** The shared folder as the server sees it (default: sharedDir's absolute path). */
  pathPrefix: z.string().min(1).optional(),
  /** Requests in flight at once. */
  concurrency: z.number().int().min(1).default(8),
  /** Per request. */
  timeoutMs: z.number().int().positive().default(600_000),
  /** Adapter versions kept loaded (the newest; at least the current one). */
  keepVersions: z.number().int().min(1).default(2),
  /** The environment variable holding the server's API key (sent as `Authorization: Bearer`). */
  tokenEnv: z.string().min(1).default('RLHF_ENGINE_TOKEN'),
});
export type OpenAiEngineSettings = z.input<typeof OpenAiEngineSettings>;

/** A string the tokenizer check encodes on both sides: code, unicode, and FIM control tokens. */
const TOKENIZER_PROBE = 'def add(a, b):\n    return a + b  # ünïcödé ✓\n<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>';
const ADAPTER_FILES = ['adapter_config.json', 'adapter_model.safetensors'];

/** A request's outcome on the wire: status and body text, or why there is none. */
type Answer = { status: number; body: string };

/** One server: its base URL, how errors name it, and the token. */
class Http {
  label: string;

  private readonly token: string | undefined;

  constructor(
    readonly base: string,
    /** The environment variable of the API key (named in a 401's error, never its value). */
    private readonly tokenEnv: string,
    private readonly timeoutMs: number,
  ) {
    this.label = `openai engine (${base})`;
    this.token = process.env[tokenEnv] || undefined;
  }

  /** The answer, whatever its status; throws only when there is none (connection, timeout). */
  async call(method: 'GET' | 'POST', route: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(this.base + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs) });
      return { status: res.status, body: await res.text() };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      if (err.name === 'TimeoutError') throw new Error(`${this.label}: ${method} ${route}: no answer within ${this.timeoutMs} ms`);
      const code = err.cause?.code;
      throw new Error(`${this.label}: ${method} ${route}: cannot connect${code ? ` (${code})` : ''}: is the server running at ${this.base}?`);
    }
  }

  fail(method: string, route: string, a: Answer): Error {
    const hint = a.status === 401 ? ` (${this.tokenEnv} ${this.token ? 'holds a key the server refuses' : 'is not set'}: it must hold the server's API key)` : '';
    return new Error(`${this.label}: ${method} ${route}: ${a.status}: ${errorMessageOf(a.body)}${hint}`);
  }

  /** A 2xx answer's body parsed by `schema` (an error naming the route otherwise). */
  async json<S extends z.ZodType>(method: 'GET' | 'POST', route: string, schema: S, body?: unknown): Promise<z.output<S>> {
    const a = await this.call(method, route, body);
    if (a.status < 200 || a.status >= 300) throw this.fail(method, route, a);
    return this.parse(method, route, schema, a.body);
  }

  parse<S extends z.ZodType>(method: string, route: string, schema: S, body: string): z.output<S> {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new Error(`${this.label}: ${method} ${route}: the answer is not JSON: ${errorMessageOf(body)}`);
    }
    const r = schema.safeParse(json);
    if (!r.success) throw new Error(`${this.label}: ${method} ${route}: unexpected answer (${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')})`);
    return r.data;
  }

  /** POST expecting a 2xx (any body). */
  async post(route: string, body: unknown): Promise<string> {
    const a = await this.call('POST', route, body);
    if (a.status < 200 || a.status >= 300) throw this.fail('POST', route, a);
    return a.body;
  }
}

/** Runs at most `n` of the given tasks at once (a freed slot passes straight to the next waiting task). */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** What a server returned for one prompt, before the stop rules. */
interface RawCompletion {
  ids: number[];
  logprobs: (number | null)[];
  finish: string | null | undefined;
  /** The stop id or string the server names (vLLM stop_reason, SGLang matched). */
  matched: number | string | number[] | null | undefined;
  text: string;
}

/**
 * The sampling fields vLLM's /v1/completions and SGLang's /generate name alike: pure sampling at `temperature` with
 * the request's top-k / top-p, no penalties, the stop ids and strings (the end token is a stop id, not EOS handling),
 * special tokens kept in the text, and the ids past the tokenizer's vocabulary banned (`bias`).
 */
function samplingFields(req: SampleRequest, temperature: number, bias: Record<string, number> | undefined) {
  return {
    temperature,
    top_p: req.topP ?? 1,
    top_k: req.topK && req.topK > 0 ? req.topK : -1,
    min_p: 0,
    repetition_penalty: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    stop_token_ids: [...req.stopIds],
    ignore_eos: true,
    ...(req.stopStrings?.length ? { stop: [...req.stopStrings] } : {}),
    skip_special_tokens: false,
    spaces_between_special_tokens: false,
    ...(bias ? { logit_bias: bias } : {}),
  };
}

export class OpenAiEngine implements RolloutEngine {
  private version = 0;
  /** vLLM `model` / SGLang `lora_path` of new calls (null: the base). */
  private adapter: string | null = null;
  /** Adapter versions loaded on the server, oldest first. */
  private readonly loaded: number[] = [];
  /** Full-weight versions whose folders are kept, oldest first. */
  private readonly fullKept: number[] = [];
  private readonly limit: <T>(task: () => Promise<T>) => Promise<T>;

  private constructor(
    readonly name: Dialect,
    private readonly http: Http,
    /** The served base model's id. */
    readonly baseModel: string,
    private readonly settings: z.output<typeof OpenAiEngineSettings>,
    private readonly tokenizer: Tokenizer | undefined,
  ) {
    this.limit = limiter(settings.concurrency);
  }

  /**
   * Connect to the server an `--engine openai:URL[?dialect=vllm|sglang&model=NAME]` value names and check it (see the
   * top of this file); `tokenizer`: the trainer's, checked against the server's, and used for text and stop strings.
   */
  static async open(spec: string, settings: OpenAiEngineSettings, tokenizer?: Tokenizer): Promise<OpenAiEngine> {
    const s = OpenAiEngineSettings.parse(settings);
    const parsed = parseEngineSpec(spec.startsWith('openai:') ? spec : `openai:${spec}`);
    if (parsed.kind !== 'openai') throw new Error(`openai engine: '${spec}' is not an openai:URL engine`);
    const url = new URL(parsed.url);
    const forced = url.searchParams.get('dialect');
    if (forced !== null && forced !== 'vllm' && forced !== 'sglang') throw new Error(`openai engine (${parsed.url}): dialect must be vllm or sglang, got '${forced}'`);
    const wanted = url.searchParams.get('model');
    const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    const http = new Http(base, s.tokenEnv, s.timeoutMs);

    const models = await http.json('GET', '/v1/models', ModelListSchema);
    const card = wanted === null ? models.data.find((m) => !m.parent) : models.data.find((m) => m.id === wanted);
    if (!card) {
      const served = models.data.map((m) => m.id).join(', ') || 'none';
      throw new Error(`${http.label}: ${wanted === null ? 'no base model' : `model '${wanted}' is not`} served (GET /v1/models lists: ${served})`);
    }
    const health = await http.call('GET', '/health');
    if (health.status !== 200) throw http.fail('GET', '/health', health);
    const owner = card.owned_by;
    const dialect: Dialect = forced ?? (owner === 'vllm' || owner === 'sglang' ? owner : (await http.call('GET', '/model_info')).status === 200 ? 'sglang' : 'vllm');
    http.label = `openai engine (${dialect} at ${base})`;
    const engine = new OpenAiEngine(dialect, http, card.id, s, tokenizer);
    if (tokenizer) await engine.checkTokenizer(tokenizer);
    return engine;
  }

  get policyVersion(): number {
    return this.version;
  }

  private get label(): string {
    return this.http.label;
  }

  /** The server must tokenize the probe as the trainer does (a server without /tokenize is let through, with a warning). */
  private async checkTokenizer(tok: Tokenizer): Promise<void> {
    const route = '/tokenize';
    const a = await this.http.call('POST', route, { model: this.baseModel, prompt: TOKENIZER_PROBE, add_special_tokens: false });
    if (a.status === 404) {
      process.stderr.write(`${this.label}: the server has no POST ${route}: its tokenizer is not checked\n`);
      return;
    }
    if (a.status !== 200) throw this.http.fail('POST', route, a);
    const theirs = this.http.parse('POST', route, TokenizeResponseSchema, a.body).tokens;
    const ours = tok.encode(TOKENIZER_PROBE);
    if (theirs.length !== ours.length || theirs.some((id, i) => id !== ours[i])) {
      throw new Error(
        `${this.label}: the server's tokenizer is not the trainer's: ${JSON.stringify(TOKENIZER_PROBE)} is [${theirs.join(', ')}] on the server (model ${this.baseModel}), [${ours.join(', ')}] here; serve the checkpoint the run starts from`,
      );
    }
  }

  async sample(prompts: readonly (readonly number[])[], req: SampleRequest): Promise<EngineCompletion[]> {
    if (prompts.length === 0) return [];
    if (!this.tokenizer && (req.stopStrings?.length || req.stopWhen || req.onText)) throw new Error(`${this.label}: stop strings, stopWhen and streaming need the engine's tokenizer`);
    if (req.temperatures && req.temperatures.length !== prompts.length) throw new Error(`${this.label}: ${prompts.length} prompts need ${prompts.length} temperatures, got ${req.temperatures.length}`);
    if (req.rngs && (req.rng || req.seed !== undefined)) throw new Error(`${this.label}: give rngs, or rng / seed, not both`);
    if (req.rngs && req.rngs.length !== prompts.length) throw new Error(`${this.label}: ${prompts.length} prompts need ${prompts.length} rngs, got ${req.rngs.length}`);
    prompts.forEach((p, i) => {
      const bad = p.find((id) => !(Number.isInteger(id) && id >= 0 && id < this.settings.modelVocabSize));
      if (bad !== undefined) throw new Error(`${this.label}: prompt ${i} has id ${bad}, outside the model's vocabulary (${this.settings.modelVocabSize})`);
    });
    // generateBatch's seeding rule: a stream per prompt, in input order, none when every prompt is greedy.
    const greedy = req.temperatures ? req.temperatures.every((t) => t === 0) : req.temperature === 0;
    const root: Rng | undefined = greedy || req.rngs ? undefined : (req.rng ?? resumableRng(req.seed ?? 0));
    const seeds = prompts.map((_, i) => (greedy ? null : drawSeed(req.rngs ? req.rngs[i] : root!)));
    const version = this.version;
    const adapter = this.adapter;
    if (req.maxNewTokens === 0) return prompts.map((): EngineCompletion => ({ ids: [], stopId: null, finishReason: 'length', logprobs: [], text: '', policyVersion: version }));
    return Promise.all(
      prompts.map((p, i) =>
        this.limit(async () => {
          const t = req.temperatures ? req.temperatures[i] : req.temperature;
          const raw = this.name === 'vllm' ? await this.completeVllm(p, req, t, seeds[i], adapter) : await this.generateSglang(p, req, t, seeds[i], adapter);
          const done: EngineCompletion = { ...this.completion(raw, req, i), policyVersion: version };
          req.onBatch?.([i], [done]);
          return done;
        }),
      ),
    );
  }

  /** -100 on every id a request's vocabSize excludes but the model has a row for. */
  private logitBias(vocabSize: number): Record<string, number> | undefined {
    if (vocabSize >= this.settings.modelVocabSize) return undefined;
    const bias: Record<string, number> = {};
    for (let id = vocabSize; id < this.settings.modelVocabSize; id++) bias[String(id)] = -100;
    return bias;
  }

  private async completeVllm(prompt: readonly number[], req: SampleRequest, temperature: number, seed: number | null, adapter: string | null): Promise<RawCompletion> {
    const route = '/v1/completions';
    const body = {
      model: adapter ?? this.baseModel,
      prompt: [...prompt],
      n: 1,
      max_tokens: req.maxNewTokens,
      min_tokens: req.minNewTokens ?? 0,
      ...samplingFields(req, temperature, this.logitBias(req.vocabSize)),
      ...(seed === null ? {} : { seed }),
      include_stop_str_in_output: false,
      logprobs: 0,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
      echo: false,
      stream: false,
    };
    const [choice] = (await this.http.json('POST', route, CompletionResponseSchema, body)).choices;
    const logprobs = choice.logprobs;
    let ids = choice.token_ids ?? undefined;
    if (!ids && logprobs) {
      ids = logprobs.tokens.map((t) => {
        const m = /^token_id:(\d+)$/.exec(t);
        if (!m) throw new Error(`${this.label}: POST ${route}: no token_ids and token '${t}' is not "token_id:N": the server ignored return_token_ids and return_tokens_as_token_ids`);
        return Number(m[1]);
      });
    }
    if (!ids || !logprobs) throw new Error(`${this.label}: POST ${route}: the answer has no ${ids ? 'logprobs' : 'token ids'}`);
    return { ids, logprobs: logprobs.token_logprobs, finish: choice.finish_reason, matched: choice.stop_reason, text: choice.text };
  }

  private async generateSglang(prompt: readonly number[], req: SampleRequest, temperature: number, seed: number | null, adapter: string | null): Promise<RawCompletion> {
    const route = '/generate';
    const body = {
      input_ids: [...prompt],
      sampling_params: {
        max_new_tokens: req.maxNewTokens,
        min_new_tokens: req.minNewTokens ?? 0,
        ...samplingFields(req, temperature, this.logitBias(req.vocabSize)),
        ...(seed === null ? {} : { sampling_seed: seed }),
        no_stop_trim: false,
      },
      return_logprob: true,
      logprob_start_len: -1,
      top_logprobs_num: 0,
      return_text_in_logprobs: false,
      ...(adapter ? { lora_path: adapter } : {}),
      stream: false,
    };
    const out = await this.http.json('POST', route, GenerateResponseSchema, body);
    const lps = out.meta_info.output_token_logprobs;
    if (!lps) throw new Error(`${this.label}: POST ${route}: the answer has no meta_info.output_token_logprobs`);
    const ids = out.output_ids ?? lps.map((x) => x[1]);
    const fr = out.meta_info.finish_reason;
    return { ids, logprobs: lps.map((x) => x[0]), finish: fr?.type, matched: fr?.matched, text: out.text ?? '' };
  }

  /** A server's answer as a Completion: the stop id split off, checked, then generateBatch's text rules. */
  private completion(raw: RawCompletion, req: SampleRequest, index: number): Omit<EngineCompletion, 'policyVersion'> {
    const where = `${this.label}: prompt ${index}`;
    if (raw.finish !== 'stop' && raw.finish !== 'length') throw new Error(`${where}: finish reason '${raw.finish}' (expected stop or length)`);
    const stops = new Set(req.stopIds);
    let ids = raw.ids;
    let stopId: number | null = null;
    if (raw.finish === 'stop' && ids.length > 0 && stops.has(ids[ids.length - 1])) {
      stopId = ids[ids.length - 1];
      ids = ids.slice(0, -1);
    } else if (raw.finish === 'stop' && typeof raw.matched === 'number' && stops.has(raw.matched)) {
      stopId = raw.matched; // a server that leaves the stop id out of the ids (its log-prob must still be there)
    }
    const sampled = stopId === null ? ids.length : ids.length + 1;
    if (raw.logprobs.length !== sampled) {
      throw new Error(`${where}: ${raw.logprobs.length} log-probs for ${sampled} sampled tokens${stopId === null ? '' : ` (the stop id ${stopId} included)`}`);
    }
    const logprobs = raw.logprobs.map((lp, k) => {
      if (lp === null || !Number.isFinite(lp)) throw new Error(`${where}: no log-prob for sampled token ${k}`);
      return lp;
    });
    const bad = ids.find((id) => id >= req.vocabSize);
    if (bad !== undefined) throw new Error(`${where}: the server sampled id ${bad}, at or past the tokenizer's ${req.vocabSize} ids (it ignored the logit_bias ban)`);
    const finishReason = raw.finish;
    const tok = this.tokenizer;
    if (!tok) return { ids, stopId, finishReason, logprobs, text: raw.text };
    // generateBatch's text rules, replayed on the ids: the first token whose text contains a stop string or makes
    // stopWhen cut it ends the continuation there.
    if (req.stopStrings?.length || req.stopWhen) {
      for (let k = 1; k <= ids.length; k++) {
        let text = tok.decode(ids.slice(0, k));
        let cut = false;
        for (const s of req.stopStrings ?? []) {
          const at = text.indexOf(s);
          if (at >= 0) {
            text = text.slice(0, at);
            cut = true;
          }
        }
        const at = req.stopWhen?.(index, text) ?? null;
        if (at !== null) {
          text = text.slice(0, at);
          cut = true;
        }
        if (cut) {
          if (text) req.onText?.(index, text);
          return { ids: ids.slice(0, k), stopId: null, finishReason: 'stop', logprobs: logprobs.slice(0, k), text };
        }
      }
    }
    const text = tok.decode(ids);
    if (text) req.onText?.(index, text);
    return { ids, stopId, finishReason, logprobs, text };
  }

  async publish(snapshot: PolicySnapshot, version: number): Promise<void> {
    if (!(Number.isInteger(version) && version > this.version)) throw new Error(`${this.label}: version ${version} is not after ${this.version}`);
    if (snapshot.kind === 'full') return this.publishFull(snapshot.dir, version);
    const cfgFile = path.join(snapshot.dir, ADAPTER_FILES[0]);
    if (!fs.existsSync(cfgFile)) throw new Error(`${this.label}: ${snapshot.dir} is not a LoRA adapter folder (no ${ADAPTER_FILES[0]})`);
    const cfg = JSON.parse(fs.readFileSync(cfgFile, 'utf8')) as { modules_to_save?: unknown };
    if (Array.isArray(cfg.modules_to_save) && cfg.modules_to_save.length > 0) {
      throw new Error(`${this.label}: ${snapshot.dir} trains modules_to_save (${cfg.modules_to_save.join(', ')}): a reward model's adapter, which vLLM and SGLang do not serve as a policy`);
    }
    const name = versionName(version);
    const dir = this.stage(snapshot.dir, version, ADAPTER_FILES);
    const route = this.name === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter';
    try {
      const body = await this.http.post(route, this.name === 'vllm' ? { lora_name: name, lora_path: this.serverPath(name) } : { lora_name: name, lora_path: this.serverPath(name), pinned: false });
      if (this.name === 'sglang') this.checkSglang('POST', route, body);
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    this.loaded.push(version);
    this.adapter = name;
    this.version = version;
    while (this.loaded.length > this.settings.keepVersions) await this.unload(this.loaded.shift()!);
  }

  /** SGLang answers its LoRA and weight routes with {success, ...}, failures included. */
  private checkSglang(method: string, route: string, body: string): void {
    const r = this.http.parse(method, route, SglangResultSchema, body);
    if (!r.success) throw new Error(`${this.label}: ${method} ${route}: ${r.error_message ?? r.message ?? 'success: false'}`);
  }

  private async unload(version: number): Promise<void> {
    const name = versionName(version);
    const route = this.name === 'vllm' ? '/v1/unload_lora_adapter' : '/unload_lora_adapter';
    const body = await this.http.post(route, { lora_name: name });
    if (this.name === 'sglang') this.checkSglang('POST', route, body);
    fs.rmSync(path.join(this.sharedDir(), name), { recursive: true, force: true });
  }

  private async publishFull(dir: string, version: number): Promise<void> {
    if (this.name === 'vllm') {
      throw new Error(`${this.label}: cannot publish full weights: vLLM has no full-weight update over HTTP; train a LoRA adapter (--lora-rank) or use SGLang`);
    }
    const name = versionName(version);
    const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile());
    if (!files.includes('config.json')) throw new Error(`${this.label}: ${dir} is not a checkpoint folder (no config.json)`);
    const staged = this.stage(dir, version, files);
    // Pause (running requests retracted, resumed after), load, continue; an older server without the pause routes
    // updates between its scheduler steps.
    const paused = (await this.http.call('POST', '/pause_generation', { mode: 'retract' })).status === 200;
    try {
      const route = '/update_weights_from_disk';
      const a = await this.http.call('POST', route, { model_path: this.serverPath(name), weight_version: `v${version}`, flush_cache: true, abort_all_requests: false });
      if (a.status !== 200 && a.status !== 400) throw this.http.fail('POST', route, a);
      this.checkSglang('POST', route, a.body);
    } catch (e) {
      fs.rmSync(staged, { recursive: true, force: true });
      throw e;
    } finally {
      if (paused) await this.http.post('/continue_generation', {});
    }
    // Adapters were made for the old weights: new calls use the base, older adapter versions go.
    while (this.loaded.length > 0) await this.unload(this.loaded.shift()!);
    this.adapter = null;
    this.version = version;
    this.fullKept.push(version);
    while (this.fullKept.length > this.settings.keepVersions) fs.rmSync(path.join(this.sharedDir(), versionName(this.fullKept.shift()!)), { recursive: true, force: true });
  }

  private sharedDir(): string {
    if (!this.settings.sharedDir) throw new Error(`${this.label}: publishing a policy needs a shared folder (sharedDir, --engine-shared-dir) that the server can read`);
    return this.settings.sharedDir;
  }

  /** The version's folder as the server sees it. */
  private serverPath(name: string): string {
    return this.settings.pathPrefix ? path.posix.join(this.settings.pathPrefix, name) : path.resolve(this.sharedDir(), name);
  }

  /** Copy `files` of `src` into <sharedDir>/policy-v<v> through a .tmp folder and a rename (a loaded folder is never rewritten). */
  private stage(src: string, version: number, files: readonly string[]): string {
    const final = path.join(this.sharedDir(), versionName(version));
    const tmp = `${final}.tmp`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    for (const f of files) {
      const from = path.join(src, f);
      if (!fs.existsSync(from)) throw new Error(`${this.label}: ${src}: ${f} not found`);
      fs.copyFileSync(from, path.join(tmp, f));
      const fd = fs.openSync(path.join(tmp, f), 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    fs.rmSync(final, { recursive: true, force: true }); // an earlier run's folder (versions only grow within a run)
    fs.renameSync(tmp, final);
    return final;
  }

  /** Unload this engine's adapter versions (best effort: the server may be gone) and delete their folders. */
  async close(): Promise<void> {
    while (this.loaded.length > 0) {
      const v = this.loaded.shift()!;
      try {
        await this.unload(v);
      } catch {
        fs.rmSync(path.join(this.sharedDir(), versionName(v)), { recursive: true, force: true });
      }
    }
  }
}
