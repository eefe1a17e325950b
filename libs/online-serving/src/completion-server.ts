// The completion server (port 8081): OpenAI's legacy completions API as Continue's "openai" provider uses it.
//
//   POST /v1/completions  {model, prompt, max_tokens, min_tokens, temperature, top_p, n, stop, stream, seed, ...}
//     stream: true  -> text/event-stream, one `data: {...}` chunk per piece of text as tokens are decoded
//                      (object "text_completion", choices[0].text, finish_reason on each choice's last chunk, the
//                      last one with `usage`), then `data: [DONE]`
//     stream: false -> {id, object, created, model, choices: [{text, index, logprobs, finish_reason}], usage}
//     usage: {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: {cached_tokens}}: cached_tokens
//       are the prompt tokens whose keys and values came from the prefix cache (the same client's previous prompt in
//       the same file: generation.ts), not prefilled again
//   POST /completions  the same (for an apiBase without /v1)
//   GET /v1/models   the served model, named by config modelName (a request naming any other model is served by it all
//                    the same); a prompt may start with upstream Continue's <|repo_name|> / <|file_sep|> header
//
// A FIM prompt's suggestion ends where Continue would end it (line-rule.ts: one line or several, the 150 ms rule) and
// streams as whole lines. Every answer carries the completion id (`id`, header x-completion-id) and the policy version that produced it
// (`policy_version`, header x-policy-version; every stream chunk carries the version of the step that produced it),
// and the A/B arm (`arm`, libs/online-core arms.ts). With completion.clock "simulated" the line rule is timed by the latency model
// (libs/continue latency.ts) instead of the wall clock, and every stream chunk carries `sim_ms`, the simulated
// milliseconds after the request at which it counts as arriving. Generation ends at max_tokens (capped by config), a stop string, or a control token that
// ends a completion (the stop set 'fim': <|endoftext|>, <|fim_*|>, <|file_sep|>, ...); the control tokens cannot be
// chosen before min_tokens (vLLM's extension; default config minTokens, 1). Unknown request fields are ignored.
// Past completion.maxConcurrent generations in progress, a request is answered at once with an empty completion
// (header x-shed; counted in the status as completions_shed): it would otherwise wait beyond Continue's budget.
// The parts: completion-request.ts reads a request (fixed once read and routed), completion-gating.ts plans how the show
// gate holds it and judges what was generated, completion-scheduling.ts admits it and generates its rows; each returns
// what it finds out. This file keeps what one answer needs while it is sent (the versions of its decoding steps, what
// has streamed), answers (JSON or SSE) and records what was served.
// Sampling follows generateBatch's seeding rule: the request's seed (or `${seed}:${counter}`) seeds the root stream,
// which gives each choice a stream of its own.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { sampledIds, type Completion } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { randomUUID } from 'crypto';
import { bearerToken, errorBody, hashPrompt, installJsonHandling, sendError, type ArmRouter, type ServedRecord } from '@rlhf-code/online-core';
import {
  choicesOf,
  parseCompletionBody,
  prefixCacheKey,
  readCompletionRequest,
  servingClock,
  stepsOf,
  type CompletionRequest,
  type CompletionServerConfig,
  type Sampling,
  type ServingRequest,
} from './completion-request';
import { choiceId, CompletionGating, type ServingGate } from './completion-gating';
import { Aborted, CompletionScheduler } from './completion-scheduling';
import type { Generator, TextEvent } from './generation';

export { CompletionRequestSchema, type CompletionRequest } from './completion-request';
export type { GateChoice } from './completion-gating';

export interface CompletionServerOptions {
  config: CompletionServerConfig;
  tokenizer: Tokenizer;
  /** Decodes on the trained policy (arms with model "policy") or the frozen starting model (arms with model "start"). */
  generator: Generator;
  router: ArmRouter;
  /** Seed of sampling for requests without one (each request seeds generateBatch's root stream with `${seed}:${counter}`). */
  seed?: number;
  /**
   * Called once per choice after the answer is sent, or when the client went away (finish_reason "abort", `text` what
   * it had received): Continue shows and reports what it kept of an aborted stream too.
   */
  onServed?: (record: ServedRecord, prompt: string, text: string, logprobs: readonly number[]) => void | Promise<void>;
  /**
   * The show gate (libs/online-gate gate.ts), for the FIM suggestions of arms with gate mechanisms (arms.ts): while `active()`, their
   * suggestions are held until complete; an arm that ranks samples `candidates().n` suggestions per choice (the first
   * as the request asks, the others at least at `candidates().temperature`); `choose` picks, per choice, the candidate
   * to send whole (its index in the group: the one it rates best when `rank`), or null when `hide` and the gate hides
   * it: replaced by an empty completion (Continue shows nothing). An arm that only holds (holdCut) is not judged.
   */
  gate?: ServingGate;
  /**
   * Tokens before the end token may be chosen on the policy once an update has trained it, for a request without
   * min_tokens (the RL objective's training.userRm.minTokens); null or absent: completion.minTokens on every model.
   */
  trainedMinTokens?: number | null;
  /** Called for each request answered at once with an empty completion (shed: every generation slot was taken). */
  onShed?: () => void;
}


export function buildCompletionServer(opts: CompletionServerOptions): FastifyInstance {
  const { config, tokenizer: tok } = opts;
  const app = Fastify({ bodyLimit: config.bodyLimitBytes });
  installJsonHandling(app);
  const { generator } = opts;
  const window = config.contextWindow ?? generator.modelWindow;
  let counter = 0;
  const clock = servingClock(config);
  const gating = new CompletionGating({ config, tokenizer: tok, clock, gate: opts.gate });
  const scheduler = new CompletionScheduler({ config, generator, clock });

  if (config.apiKeys.length > 0) {
    app.addHook('onRequest', async (req, reply) => {
      const token = bearerToken(req) ?? (typeof req.headers['api-key'] === 'string' ? req.headers['api-key'] : null);
      if (token === null || !config.apiKeys.includes(token)) {
        return sendError(reply, 401, 'invalid_api_key', token === null ? 'missing API key (Authorization: Bearer <key>)' : 'invalid API key');
      }
    });
  }

  app.get('/v1/models', async () => ({
    object: 'list',
    data: [{ id: config.modelName, object: 'model', created: 0, owned_by: 'rlhf-code', policy_version: generator.version }],
  }));

  // POST /completions too: Continue posts to `${apiBase}completions`, so an apiBase written without /v1 lands here.
  app.post('/v1/completions', (req, reply) => completions(req, reply));
  app.post('/completions', (req, reply) => completions(req, reply));

  async function completions(req: FastifyRequest, reply: FastifyReply) {
    const parsed = parseCompletionBody(req.body);
    if (!parsed.ok) return sendError(reply, 400, 'invalid_request_error', parsed.problem.message, parsed.problem.field);
    const { body } = parsed;
    // Admission before the prompts are encoded: a request that cannot be served in time costs next to nothing.
    if (!scheduler.admit()) {
      opts.onShed?.();
      return shed(reply, body);
    }
    try {
      const read = readCompletionRequest(body, config, tok, window);
      if (!('request' in read)) return sendError(reply, 400, 'invalid_request_error', read.message, read.field);
      const routed = opts.router.route();
      const apiKey = bearerToken(req) ?? (typeof req.headers['api-key'] === 'string' ? req.headers['api-key'] : null);
      const request: ServingRequest = {
        ...read.request,
        arm: routed.arm,
        trainedMinTokens: body.min_tokens === undefined ? (opts.trainedMinTokens ?? null) : null,
        cacheKey: prefixCacheKey(body, { apiKey, address: req.ip }),
      };
      const sampling: Sampling = {
        temperature: Math.max(body.temperature ?? 1, config.temperatureFloor),
        topP: body.top_p ?? 1,
        // Blocked routing: the arms of a block sample from one seed (common random numbers: they differ by their arm only).
        seed: body.seed ?? (routed.block === null ? `${opts.seed ?? 0}:${counter++}` : `${opts.seed ?? 0}:block:${routed.block}`),
      };
      return await (body.stream ? stream(reply, request, read.stops, sampling) : complete(reply, request, read.stops, sampling));
    } finally {
      scheduler.release();
    }
  }

  /**
   * A request beyond what can be served in Continue's budget: an empty completion at once (Continue shows nothing and
   * reports no outcome), marked by the header x-shed; never recorded as served (it is no sample of the policy).
   */
  function shed(reply: FastifyReply, body: CompletionRequest) {
    const id = `cmpl-${randomUUID()}`;
    const choices = Array.from({ length: choicesOf(body) }, (_, index) => ({ text: '', index, logprobs: null, finish_reason: 'stop' }));
    const head = { id, object: 'text_completion', created: Math.floor(Date.now() / 1000), model: body.model ?? config.modelName };
    if (!body.stream) {
      reply.header('x-completion-id', id).header('x-shed', '1');
      return { ...head, choices, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, shed: true };
    }
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-completion-id': id, 'x-shed': '1' });
    for (const c of choices) reply.raw.write(`data: ${JSON.stringify({ ...head, choices: [c], shed: true })}\n\n`);
    reply.raw.end('data: [DONE]\n\n');
  }

  /** Version that produced the first token (`versions`: of each decoding step; the version at the start when there were none). */
  const startVersion = (r: ServingRequest, versions: readonly number[]) => versions[0] ?? (r.arm.model === 'policy' ? generator.version : 0);
  const distinct = (v: readonly number[]) => [...new Set(v)];

  type Served = Pick<Completion, 'text' | 'finishReason' | 'stopId' | 'modelLogprobs'> & { tokens: number; aborted?: boolean; gated?: boolean };
  const servedOf = (g: Completion): Served => ({ ...g, tokens: sampledIds(g).length });

  /** Record each choice as served: `gens` one per choice, `versions` those of the decoding steps that made them. */
  function record(r: ServingRequest, versions: readonly number[], gens: Served[]): void {
    if (!opts.onServed) return;
    gens.forEach((g, i) => {
      const rec: ServedRecord = {
        id: choiceId(r, i),
        version: startVersion(r, versions),
        versions: distinct(versions.length > 0 ? versions : [startVersion(r, versions)]),
        arm: r.arm.name,
        promptHash: hashPrompt(r.prompts[i].text),
        blank: g.text.trim() === '',
        ...(g.gated ? { gated: true } : {}),
        finishReason: g.aborted ? 'abort' : g.finishReason,
        endedByModel: !g.aborted && g.stopId !== null, // a stop string, the line rule or an abort end it before any stop token
        promptTokens: r.prompts[i].ids.length,
        completionTokens: g.tokens,
        time: new Date().toISOString(),
        durationMs: Date.now() - r.t0,
      };
      Promise.resolve(opts.onServed!(rec, r.prompts[i].text, g.text, g.modelLogprobs ?? [])).catch((e) =>
        process.stderr.write(`[online] recording completion ${rec.id} failed: ${(e as Error).message}\n`),
      );
    });
  }

  /** OpenAI's usage; prompt_tokens_details.cached_tokens: prompt tokens the prefix cache held (not prefilled), from `generated`. */
  const usage = (r: ServingRequest, gens: Completion[], generated: Completion[]) => {
    const prompt = r.promptTokens;
    const completion = gens.reduce((s, g) => s + sampledIds(g).length, 0); // every sampled token, the stop token included
    const cached = generated.reduce((s, g) => s + (g.cachedTokens ?? 0), 0);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
  };

  function stamp(reply: FastifyReply, r: ServingRequest, versions: readonly number[]): void {
    reply.header('x-completion-id', r.id).header('x-policy-version', String(startVersion(r, versions))).header('x-ab-arm', r.arm.name);
  }

  async function complete(reply: FastifyReply, r: ServingRequest, stops: string[], s: Sampling) {
    const plan = gating.plan(r);
    const generated = await scheduler.run(r, plan, stops, s);
    const { versions } = generated;
    const gens: (Completion & { gated?: boolean })[] = plan.held ? (await gating.judge(r, plan, generated.completions)).completions : generated.completions;
    stamp(reply, r, versions);
    const answer = {
      id: r.id,
      object: 'text_completion',
      created: r.created,
      model: r.model,
      choices: gens.map((g, i) => ({ text: g.text, index: i, logprobs: null, finish_reason: g.finishReason })),
      usage: usage(r, gens, generated.completions),
      policy_version: startVersion(r, versions),
      policy_versions: distinct(versions),
      arm: r.arm.name,
    };
    record(r, versions, gens.map(servedOf));
    return answer;
  }

  async function stream(reply: FastifyReply, r: ServingRequest, stops: string[], s: Sampling) {
    reply.hijack();
    const raw = reply.raw;
    let closed = false;
    const gone = new AbortController(); // the client went away: generation stops between decoding steps
    raw.on('close', () => {
      closed = true;
      gone.abort();
    });
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-completion-id': r.id,
      'x-policy-version': String(r.arm.model === 'policy' ? generator.latestVersion : 0),
      'x-ab-arm': r.arm.name,
    });
    const send = (data: unknown) => {
      if (!closed) raw.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    };
    // This answer's own state while it is sent: the version of each decoding step so far (consecutive repeats once),
    // then every step's once generated; per choice, when its latest text counts as arriving (the simulated clock).
    let versions: number[] = [];
    let simMs: number[] = [];
    const chunk = (index: number, text: string, finish: string | null) => ({
      id: r.id,
      object: 'text_completion',
      created: r.created,
      model: r.model,
      choices: [{ text, index, logprobs: null, finish_reason: finish }],
      policy_version: versions[versions.length - 1] ?? startVersion(r, versions),
      arm: r.arm.name,
      ...(clock.simulated ? { sim_ms: simMs[index] } : {}),
    });
    const plan = gating.plan(r); // the gate judges whole suggestions: nothing leaves before it has
    // Line chunks: a choice's text is sent one finished line at a time, the newline in front of the next line, so a
    // chunk never ends mid-line and the stream never holds a newline the final text drops (see line-rule.ts). What
    // streams is one row per choice: a held request's rows stream only once the gate has chosen.
    const received = r.prompts.map(() => '');
    const sent = r.prompts.map(() => 0);
    const emit = (choice: number, delta: string) => {
      received[choice] += delta;
      if (!config.lineChunks || r.prompts[choice].line === null) return send(chunk(choice, delta, null));
      for (let end = received[choice].indexOf('\n', sent[choice] + 1); end >= 0; end = received[choice].indexOf('\n', sent[choice] + 1)) {
        send(chunk(choice, received[choice].slice(sent[choice], end), null));
        sent[choice] = end;
      }
    };
    const decoded = (e: TextEvent) => {
      if (versions[versions.length - 1] !== e.version) versions.push(e.version);
      if (e.simMs !== null) simMs[e.row] = e.simMs;
      if (!plan.held) emit(e.row, e.delta);
    };
    try {
      const generated = await scheduler.run(r, plan, stops, s, decoded, gone.signal);
      versions = generated.versions;
      let gens: (Completion & { gated?: boolean })[] = generated.completions;
      if (plan.held) {
        const judged = await gating.judge(r, plan, gens);
        gens = judged.completions;
        simMs = r.prompts.map(() => judged.arrivalMs);
        gens.forEach((g, i) => emit(i, g.text));
      } else if (clock.simulated) {
        const end = clock.simAt(r, stepsOf(gens)); // the rest arrives once the batch is done
        simMs = r.prompts.map(() => end);
      }
      // The last chunk carries the usage (on a choice's chunk: Continue reads choices[0] of every chunk).
      gens.forEach((g, i) => {
        if (config.lineChunks && r.prompts[i].line !== null && g.text.length > sent[i]) send(chunk(i, g.text.slice(sent[i]), null));
        send({ ...chunk(i, '', g.finishReason), policy_versions: distinct(versions), ...(i === gens.length - 1 ? { usage: usage(r, gens, generated.completions) } : {}) });
      });
      send('[DONE]');
      raw.end();
      record(r, versions, gens.map(servedOf));
    } catch (e) {
      if (e instanceof Aborted) {
        // What the client had received is what Continue may still show (it keeps the chunks it got); a held request's
        // candidates sent nothing.
        const got = r.prompts.map((p, i) => (config.lineChunks && p.line !== null ? received[i].slice(0, sent[i]) : received[i]));
        record(r, versions, got.map((text) => ({ text, finishReason: 'length', stopId: null, tokens: 0, aborted: true })));
      } else {
        process.stderr.write(`[online] generation ${r.id} failed: ${(e as Error).message}\n`);
        send(errorBody('server_error', `generation failed: ${(e as Error).message}`));
      }
      if (!closed) raw.end();
    }
  }

  return app;
}
