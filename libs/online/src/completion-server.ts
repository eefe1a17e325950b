// The completion server (port 8081): OpenAI's legacy completions API as Continue's "openai" provider uses it.
//
//   POST /v1/completions  {model, prompt, max_tokens, min_tokens, temperature, top_p, n, stop, stream, seed, ...}
//     stream: true  -> text/event-stream, one `data: {...}` chunk per piece of text as tokens are decoded
//                      (object "text_completion", choices[0].text, finish_reason on each choice's last chunk),
//                      then `data: [DONE]`
//     stream: false -> {id, object, created, model, choices: [{text, index, logprobs, finish_reason}], usage}
//   POST /completions  the same (for an apiBase without /v1)
//   GET /v1/models   the served model, named by config modelName (a request naming any other model is served by it all
//                    the same); a prompt may start with upstream Continue's <|repo_name|> / <|file_sep|> header
//
// A FIM prompt's suggestion ends where Continue would end it (line-rule.ts: one line or several, the 150 ms rule) and
// streams as whole lines. Every answer carries the completion id (`id`, header x-completion-id) and the policy version that produced it
// (`policy_version`, header x-policy-version; every stream chunk carries the version of the step that produced it),
// and the A/B arm (`arm`, arms.ts). With completion.clock "simulated" the line rule is timed by the latency model
// (libs/continue latency.ts) instead of the wall clock, and every stream chunk carries `sim_ms`, the simulated
// milliseconds after the request at which it counts as arriving. Generation ends at max_tokens (capped by config), a stop string, or a control token that
// ends a completion (the stop set 'fim': <|endoftext|>, <|fim_*|>, <|file_sep|>, ...); the control tokens cannot be
// chosen before min_tokens (vLLM's extension; default config minTokens, 1). Unknown request fields are ignored.
// Sampling follows generateBatch's seeding rule: the request's seed (or `${seed}:${counter}`) seeds the root stream,
// which gives each choice a stream of its own.
import { randomUUID } from 'crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { generateBatch, sampledIds, type Completion, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { holds, type ArmRouter, type ArmSpec } from './arms';
import type { CompletionServerSchema } from './config';
import type { GateInput } from './python-features';
import { encodeServedPrompt, PromptError } from '@rlhf-code/tokenizer';
import { bearerToken, errorBody, installJsonHandling, sendError } from './http';
import type { PolicyHolder } from './policy';
import { LineRule, lineRuleFor, simulatedMs, wholeCut, type LineRuleOptions } from '@rlhf-code/continue';
import { hashPrompt, type ServedRecord } from './acceptance-counts';

const nullable = <T extends z.ZodType>(t: T) => t.nullish();

export const CompletionRequestSchema = z.looseObject({
  model: nullable(z.string()),
  prompt: z.union([z.string(), z.array(z.string()).min(1)]),
  max_tokens: nullable(z.number().int().min(0)),
  /** vLLM's extension: no end token before this many tokens (default: config minTokens). */
  min_tokens: nullable(z.number().int().min(0)),
  temperature: nullable(z.number().min(0).max(2)),
  top_p: nullable(z.number().gt(0).max(1)),
  n: nullable(z.number().int().min(1).max(8)),
  stop: nullable(z.union([z.string(), z.array(z.string())])),
  stream: nullable(z.boolean()),
  seed: nullable(z.number().int()),
});
export type CompletionRequest = z.output<typeof CompletionRequestSchema>;

export interface CompletionServerOptions {
  config: z.output<typeof CompletionServerSchema>;
  tokenizer: Tokenizer;
  /** The trained policy (arms with model "policy"). */
  policy: PolicyHolder;
  /** The frozen starting model (arms with model "start"). */
  start: Qwen2Model;
  router: ArmRouter;
  /** Seed of sampling for requests without one (each request seeds generateBatch's root stream with `${seed}:${counter}`). */
  seed?: number;
  /**
   * Called once per choice after the answer is sent, or when the client went away (finish_reason "abort", `text` what
   * it had received): Continue shows and reports what it kept of an aborted stream too.
   */
  onServed?: (record: ServedRecord, prompt: string, text: string, logprobs: readonly number[]) => void | Promise<void>;
  /**
   * The show gate (gate.ts), for the FIM suggestions of arms with gate mechanisms (arms.ts): while `active()`, their
   * suggestions are held until complete; an arm that ranks samples `candidates().n` suggestions per choice (the first
   * as the request asks, the others at least at `candidates().temperature`); `choose` picks, per choice, the candidate
   * to send whole (its index in the group: the one it rates best when `rank`), or null when `hide` and the gate hides
   * it: replaced by an empty completion (Continue shows nothing). An arm that only holds (holdCut) is not judged.
   */
  gate?: {
    active(): boolean;
    candidates(): { n: number; temperature: number };
    choose(groups: GateChoice[][], how: { rank: boolean; hide: boolean }): Promise<(number | null)[]>;
  };
}

/** A finished suggestion the gate judges; `id` is the completion id its outcome will carry. */
export type GateChoice = GateInput & { id: string };

/** The client went away mid-stream: stop generating. */
class Aborted extends Error {}

interface Job {
  id: string;
  /** The model name the request asked for (answers carry it back), or the configured name. */
  model: string;
  created: number;
  arm: ArmSpec;
  // One per choice (prompt x n); `line` and `rule`: FIM prompts only (Continue's line rule, and its state while decoding).
  prompts: { text: string; ids: number[]; line: LineRuleOptions | null; rule: LineRule | null }[];
  /** Held for the gate: sent whole once judged (so Continue sees every line arrive at that moment). */
  held: boolean;
  /** Rows of `prompts` per choice: the gate's candidates while held, else 1 (the gate's choice leaves one per choice). */
  per: number;
  /** The lowest temperature of a choice's candidates after its first. */
  alternativeTemperature: number;
  /** Date.now() when the request arrived: the line rule's wall clock. */
  t0: number;
  /** Per row of `prompts`: decoding steps done (tokens sampled), the simulated clock's count. */
  steps: number[];
  /** Per row: the simulated ms its latest text counts as arriving (the `sim_ms` of its chunks). */
  simMs: number[];
  maxTokens: number;
  /** No end token (nor FIM/control token) before this many tokens. */
  minTokens: number;
  /** Prompt tokens over the request's prompts (each counted once, whatever n is). */
  promptTokens: number;
  versions: number[]; // version of each decoding step, in order
}

export function buildCompletionServer(opts: CompletionServerOptions): FastifyInstance {
  const { config, tokenizer: tok } = opts;
  const app = Fastify({ bodyLimit: config.bodyLimitBytes });
  installJsonHandling(app);
  const window = config.contextWindow ?? opts.policy.model.config.max_position_embeddings;
  let counter = 0;

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
    data: [{ id: config.modelName, object: 'model', created: 0, owned_by: 'rlhf-code', policy_version: opts.policy.version }],
  }));

  // POST /completions too: Continue posts to `${apiBase}completions`, so an apiBase written without /v1 lands here.
  app.post('/v1/completions', (req, reply) => completions(req, reply));
  app.post('/completions', (req, reply) => completions(req, reply));

  async function completions(req: FastifyRequest, reply: FastifyReply) {
    const parsed = CompletionRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.map(String).join('.') || '(body)';
      return sendError(reply, 400, 'invalid_request_error', `${field}: ${issue.message}`, field);
    }
    const body = parsed.data;
    const t0 = Date.now();
    const maxTokens = Math.min(body.max_tokens ?? config.defaultMaxTokens, config.maxTokensCap);
    const texts = typeof body.prompt === 'string' ? [body.prompt] : body.prompt;
    const n = body.n ?? 1;
    let encoded;
    try {
      encoded = texts.map((t) => encodeServedPrompt(tok, t, Math.min(window - maxTokens, config.maxPromptTokens), config.repoContext));
    } catch (e) {
      if (e instanceof PromptError) return sendError(reply, 400, 'invalid_request_error', `${e.field}: ${e.message}`, e.field);
      throw e;
    }
    const routed = opts.router.route();
    const job: Job = {
      id: `cmpl-${randomUUID()}`,
      model: body.model ?? config.modelName,
      created: Math.floor(Date.now() / 1000),
      arm: routed.arm,
      held: false,
      per: 1,
      alternativeTemperature: 0,
      t0,
      steps: [],
      simMs: [],
      prompts: texts.flatMap((text, i) => {
        const e = encoded[i];
        const line = e.prefix === null ? null : lineRuleFor({ prefix: e.prefix, suffix: e.suffix! }, config.multiline, config.showWithinMs);
        return Array.from({ length: n }, () => ({ text, ids: e.ids, line, rule: line && new LineRule(line) }));
      }),
      maxTokens,
      minTokens: body.min_tokens ?? config.minTokens,
      promptTokens: encoded.reduce((sum, e) => sum + e.ids.length, 0),
      versions: [],
    };
    const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
    const sampling = {
      temperature: Math.max(body.temperature ?? 1, config.temperatureFloor),
      topP: body.top_p ?? 1,
      // Blocked routing: the arms of a block sample from one seed (common random numbers: they differ by their arm only).
      seed: body.seed ?? (routed.block === null ? `${opts.seed ?? 0}:${counter++}` : `${opts.seed ?? 0}:block:${routed.block}`),
    };
    return body.stream ? stream(reply, job, stops, sampling) : complete(reply, job, stops, sampling);
  }

  type Sampling = { temperature: number; topP: number; seed: number | string };

  const simulated = config.clock === 'simulated';
  /** The simulated ms at which `steps` decoding steps of the job are done (its longest prompt: the batch is padded to it). */
  const simAt = (job: Job, steps: number) => simulatedMs(config.simulatedLatency, Math.max(...job.prompts.map((p) => p.ids.length)), steps);
  /** Ms since the request when a row has decoded `steps` steps: the latency model's, or the wall clock's now. */
  const elapsed = (job: Job, steps: number) => (simulated ? simAt(job, steps) : Date.now() - job.t0);
  /** Decoding steps the job's batch ran: its longest row's sampled tokens. */
  const stepsOf = (gens: Completion[]) => Math.max(0, ...gens.map((g) => sampledIds(g).length));

  /** Generate all choices of a job; `onText` streams pieces; `aborted` is polled between decoding steps. */
  async function run(job: Job, stops: string[], s: Sampling, onText?: (row: number, delta: string) => void, aborted?: () => boolean): Promise<Completion[]> {
    const onPolicy = job.arm.model === 'policy';
    const model = onPolicy ? opts.policy.model : opts.start;
    job.steps = job.prompts.map(() => 0);
    job.simMs = job.prompts.map(() => simAt(job, 0));
    // stopWhen runs once per row per decoding step (after the row's token is sampled, before its text streams).
    const stopWhen = (row: number, text: string) => {
      const steps = ++job.steps[row];
      if (simulated) job.simMs[row] = simAt(job, steps);
      // A held suggestion reaches Continue only after the gate: its lines count as arriving that much later.
      return job.prompts[row].rule?.cut(text, elapsed(job, steps) + (job.held ? judgeMs() : 0)) ?? null;
    };
    const go = () =>
      generateBatch(
        model,
        job.prompts.map((p) => p.ids),
        {
          maxNewTokens: job.maxTokens,
          minNewTokens: job.minTokens,
          temperature: s.temperature, // 0: greedy
          // A held choice's candidates: the first as asked, the others hotter (at Continue's 0.01 they would be copies).
          temperatures: job.per > 1 ? job.prompts.map((_, r) => (r % job.per === 0 ? s.temperature : Math.max(s.temperature, job.alternativeTemperature))) : undefined,
          topP: s.topP,
          seed: s.seed,
          tokenizer: tok,
          stop: 'fim',
          stopStrings: stops,
          prefillChunk: config.prefillChunk,
          modelLogprobs: true, // the model's confidence in what it suggests: a feature of the show gate
          stopWhen,
          onText,
          beforeStep: async () => {
            if (aborted?.()) throw new Aborted();
            if (onPolicy) await opts.policy.beforeStep();
            job.versions.push(onPolicy ? opts.policy.version : 0);
          },
        },
      );
    return onPolicy ? opts.policy.run(go) : go();
  }

  /** Version that produced the first token (the version at the start when nothing was generated). */
  const startVersion = (job: Job) => job.versions[0] ?? (job.arm.model === 'policy' ? opts.policy.version : 0);
  const distinct = (v: number[]) => [...new Set(v)];

  type Served = Pick<Completion, 'text' | 'finishReason' | 'stopId' | 'modelLogprobs'> & { tokens: number; aborted?: boolean; gated?: boolean };
  const servedOf = (g: Completion): Served => ({ ...g, tokens: sampledIds(g).length });

  const choiceId = (job: Job, i: number) => (job.prompts.length / job.per > 1 ? `${job.id}-${i}` : job.id);

  /**
   * Held jobs: FIM requests of an arm with gate mechanisms while the gate is active. Their suggestions are held until
   * complete (and judged, unless the arm only holds), and when the arm ranks, each choice becomes the gate's
   * `candidates()` rows of the decoding batch (each with its own line rule).
   */
  function hold(job: Job): void {
    job.held = holds(job.arm) && opts.gate?.active() === true && job.prompts.every((p) => p.rule !== null);
    const c = job.held && job.arm.rank ? opts.gate!.candidates() : { n: 1, temperature: 0 };
    job.per = Math.max(1, c.n);
    job.alternativeTemperature = c.temperature;
    if (job.per > 1) job.prompts = job.prompts.flatMap((p) => Array.from({ length: job.per }, () => ({ ...p, rule: p.line && new LineRule(p.line) })));
  }

  /** Keep row rows[c] for choice c (one row per choice from here on). */
  function keepRows(job: Job, rows: number[]): void {
    job.prompts = rows.map((r) => job.prompts[r]);
    job.per = 1;
  }

  // How long the gate takes to judge: the latency model's judgeMs on the simulated clock; else the 90th percentile of its
  // last 32 verdicts (50 ms before the first).
  const judgeTimes: number[] = [];
  const judgeMs = () =>
    simulated ? config.simulatedLatency.judgeMs : judgeTimes.length === 0 ? 50 : [...judgeTimes].sort((a, b) => a - b)[Math.floor(0.9 * (judgeTimes.length - 1))];

  /** A held choice as Continue will show it when it arrives whole `elapsedMs` after the request (line-rule.ts wholeCut). */
  function heldCut(job: Job, i: number, g: Completion, elapsedMs: number): Completion {
    const cut = wholeCut(g.text, job.prompts[i].line!, elapsedMs);
    if (cut === g.text.length) return g;
    const text = g.text.slice(0, cut);
    // Cut by the line rule, not ended by the model; the model's log-probs of the generated tokens that make up the text.
    let kept = 0;
    while (kept < g.ids.length && tok.decode(g.ids.slice(0, kept + 1)).length <= text.length) kept++;
    return { ...g, text, ids: tok.encode(text), stopId: null, finishReason: 'stop', modelLogprobs: g.modelLogprobs?.slice(0, kept) };
  }

  /**
   * The gate's choice among each choice's finished candidates, judged as Continue will display them (cut to the first
   * line when they will arrive past the line rule's deadline); a hidden choice becomes an empty completion that says so.
   * An arm that only holds is not judged: each choice is cut as it arrives. On the simulated clock every choice arrives
   * at the end of decoding + judgeMs (also its chunks' `sim_ms`).
   */
  async function judge(job: Job, gens: Completion[]): Promise<(Completion & { gated?: boolean })[]> {
    const started = Date.now();
    const k = job.per;
    const arrival = simulated ? simAt(job, stepsOf(gens)) + judgeMs() : null;
    job.simMs = job.prompts.map(() => arrival ?? 0);
    if (!job.arm.rank && !job.arm.hide) return gens.map((g, i) => heldCut(job, i, g, arrival ?? Date.now() - job.t0));
    const cut = gens.map((g, i) => heldCut(job, i, g, arrival ?? started - job.t0 + judgeMs()));
    const groups = Array.from({ length: cut.length / k }, (_, c) =>
      cut.slice(c * k, (c + 1) * k).map((g, j) => ({
        id: choiceId(job, c), prompt: job.prompts[c * k + j].text, text: g.text, tokens: sampledIds(g).length, endedByModel: g.stopId !== null, logprobs: g.modelLogprobs ?? [],
      })),
    );
    const picked = await opts.gate!.choose(groups, { rank: job.arm.rank, hide: job.arm.hide });
    judgeTimes.push(Date.now() - started);
    if (judgeTimes.length > 32) judgeTimes.shift();
    const rows = picked.map((j, c) => c * k + (j ?? 0));
    keepRows(job, rows);
    // A verdict slower than expected: cut again at the real time (what Continue shows is what is recorded).
    return rows.map((r, c) => (picked[c] !== null || cut[r].text.trim() === '' ? heldCut(job, c, cut[r], arrival ?? Date.now() - job.t0) : { ...cut[r], text: '', gated: true }));
  }

  function record(job: Job, gens: Served[]): void {
    if (!opts.onServed) return;
    gens.forEach((g, i) => {
      const rec: ServedRecord = {
        id: choiceId(job, i),
        version: startVersion(job),
        versions: distinct(job.versions.length > 0 ? job.versions : [startVersion(job)]),
        arm: job.arm.name,
        promptHash: hashPrompt(job.prompts[i].text),
        blank: g.text.trim() === '',
        ...(g.gated ? { gated: true } : {}),
        finishReason: g.aborted ? 'abort' : g.finishReason,
        endedByModel: !g.aborted && g.stopId !== null, // a stop string, the line rule or an abort end it before any stop token
        promptTokens: job.prompts[i].ids.length,
        completionTokens: g.tokens,
        time: new Date().toISOString(),
        durationMs: Date.now() - job.t0,
      };
      Promise.resolve(opts.onServed!(rec, job.prompts[i].text, g.text, g.modelLogprobs ?? [])).catch((e) =>
        process.stderr.write(`[online] recording completion ${rec.id} failed: ${(e as Error).message}\n`),
      );
    });
  }

  const usage = (job: Job, gens: Completion[]) => {
    const prompt = job.promptTokens;
    const completion = gens.reduce((s, g) => s + sampledIds(g).length, 0); // every sampled token, the stop token included
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };

  function stamp(reply: FastifyReply, job: Job): void {
    reply.header('x-completion-id', job.id).header('x-policy-version', String(startVersion(job))).header('x-ab-arm', job.arm.name);
  }

  async function complete(reply: FastifyReply, job: Job, stops: string[], s: Sampling) {
    hold(job);
    let gens: (Completion & { gated?: boolean })[] = await run(job, stops, s);
    if (job.held) gens = await judge(job, gens);
    stamp(reply, job);
    const answer = {
      id: job.id,
      object: 'text_completion',
      created: job.created,
      model: job.model,
      choices: gens.map((g, i) => ({ text: g.text, index: i, logprobs: null, finish_reason: g.finishReason })),
      usage: usage(job, gens),
      policy_version: startVersion(job),
      policy_versions: distinct(job.versions),
      arm: job.arm.name,
    };
    record(job, gens.map(servedOf));
    return answer;
  }

  async function stream(reply: FastifyReply, job: Job, stops: string[], s: Sampling) {
    reply.hijack();
    const raw = reply.raw;
    let closed = false;
    raw.on('close', () => (closed = true));
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-completion-id': job.id,
      'x-policy-version': String(job.arm.model === 'policy' ? opts.policy.latestVersion : 0),
      'x-ab-arm': job.arm.name,
    });
    const send = (data: unknown) => {
      if (!closed) raw.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    };
    const chunk = (index: number, text: string, finish: string | null) => ({
      id: job.id,
      object: 'text_completion',
      created: job.created,
      model: job.model,
      choices: [{ text, index, logprobs: null, finish_reason: finish }],
      policy_version: job.versions[job.versions.length - 1] ?? startVersion(job),
      arm: job.arm.name,
      ...(simulated ? { sim_ms: job.simMs[index] } : {}),
    });
    hold(job); // the gate judges whole suggestions: nothing leaves before it has
    // Line chunks: a choice's text is sent one finished line at a time, the newline in front of the next line, so a
    // chunk never ends mid-line and the stream never holds a newline the final text drops (see line-rule.ts).
    const received = job.prompts.map(() => '');
    const sent = job.prompts.map(() => 0);
    const emit = (row: number, delta: string) => {
      received[row] += delta;
      if (!config.lineChunks || !job.prompts[row].rule) return send(chunk(row, delta, null));
      for (let end = received[row].indexOf('\n', sent[row] + 1); end >= 0; end = received[row].indexOf('\n', sent[row] + 1)) {
        send(chunk(row, received[row].slice(sent[row], end), null));
        sent[row] = end;
      }
    };
    try {
      let gens: (Completion & { gated?: boolean })[] = await run(job, stops, s, job.held ? undefined : emit, () => closed);
      if (job.held) {
        gens = await judge(job, gens);
        gens.forEach((g, i) => emit(i, g.text));
      } else if (simulated) {
        const end = simAt(job, stepsOf(gens)); // the rest arrives once the batch is done
        job.simMs = job.prompts.map(() => end);
      }
      gens.forEach((g, i) => {
        if (config.lineChunks && job.prompts[i].rule && g.text.length > sent[i]) send(chunk(i, g.text.slice(sent[i]), null));
        send({ ...chunk(i, '', g.finishReason), policy_versions: distinct(job.versions) });
      });
      send('[DONE]');
      raw.end();
      record(job, gens.map(servedOf));
    } catch (e) {
      if (e instanceof Aborted) {
        // What the client had received is what Continue may still show (it keeps the chunks it got); a held job's
        // candidates sent nothing.
        if (job.per > 1) keepRows(job, Array.from({ length: job.prompts.length / job.per }, (_, c) => c * job.per));
        const got = job.prompts.map((_, i) => (config.lineChunks && job.prompts[i].rule ? received[i].slice(0, sent[i]) : received[i]));
        record(job, got.map((text) => ({ text, finishReason: 'length', stopId: null, tokens: 0, aborted: true })));
      } else {
        process.stderr.write(`[online] generation ${job.id} failed: ${(e as Error).message}\n`);
        send(errorBody('server_error', `generation failed: ${(e as Error).message}`));
      }
      if (!closed) raw.end();
    }
  }

  return app;
}
