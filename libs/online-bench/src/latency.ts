// How fast the online service answers Continue: Continue-shaped requests (its body, headers and prompt forms) against
// a running service, alone and from several concurrent clients, with the status endpoint polled during generation.
//   forms     v1.3.9: other files as `# `-commented lines at the top of the prefix, then `\n# {path}\n`
//             head:   upstream's <|repo_name|> / <|file_sep|> header before <|fim_prefix|>
//   numbers   per request: time to the first SSE chunk and to the end of the stream (Continue shows a suggestion only
//             once it is complete, and keeps at most 10 chunks after 375 ms); per status call: its answer time
// Each figure is a median (p50) and 95th percentile over the requests of one setting. The clients run in a worker
// thread (latency-clients.js), as Continue runs in a process of its own.
// With --typing (measureTyping): one user's typing session in one file (typing.ts), a request per pause, one after
// another, each timed to when Continue would show its suggestion (continueDisplayTimed: the piece where it stops
// reading, or the end of the stream), with the prompt tokens the server's prefix cache held (usage's cached_tokens).
import * as path from 'path';
import { Worker } from 'worker_threads';
import { continueDisplayTimed, continueHeaders, continueRequestBody, type PromptForm } from '@rlhf-code/continue';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { startMeasuringService } from '@rlhf-code/online';
import { quantile } from '@rlhf-code/stats';
import { CompletionServerSchema, type OnlineConfigInput } from '@rlhf-code/online-core';
import { continueShapedPrompt, type FimCase } from './prompts';
import { typingSession, type TypedCase } from './typing';

export interface LatencyOptions {
  model: string;
  /** What the server decodes with (online serve's --engine), and the llamacpp engine's weights (--engine-weights). */
  engine: string;
  engineWeights?: 'F32' | 'Q8_0';
  cases: FimCase[];
  requests: number;
  concurrency: number[];
  forms: readonly PromptForm[];
  /** Continue's maxPromptTokens (prefix <= 30%, suffix <= 20%, the rest for other files). */
  maxPromptTokens: number;
  /** How often the status endpoint is called while requests are in flight. */
  statusEveryMs: number;
  /** Requests sent and discarded before measuring (the first ones compile kernels). */
  warmup: number;
  /** The served completion and gate settings (the service config's sections; defaults when absent). */
  completion?: OnlineConfigInput['completion'];
  gate?: OnlineConfigInput['gate'];
  /** How the served models are held (the training section: loraRank, baseDtype, ...); nothing trains. */
  training?: OnlineConfigInput['training'];
}

export interface LatencyRow {
  form: PromptForm;
  concurrency: number;
  requests: number;
  /** Requests whose stream carried an error (a failed generation): left out of the times, never within 375 ms. */
  failed: number;
  /** Times of the answered requests (null when every one failed). */
  first_chunk_p50_ms: number | null;
  total_p50_ms: number | null;
  total_p95_ms: number | null;
  /** Share of requests whose whole answer arrived within Continue's 375 ms, failed ones counted as not. */
  within_375ms: number;
  chunks_mean: number;
  status_calls: number;
  status_p50_ms: number | null;
  status_p95_ms: number | null;
}


/** OpenAI's usage as the completion server reports it (cached_tokens: prompt tokens its prefix cache held). */
interface Usage {
  prompt_tokens: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
}

interface ClientRun {
  /** Per request: times, chunks, each text piece with its arrival ms, the usage of its last chunk (null: none). */
  results: { first: number; total: number; chunks: number; failed: boolean; pieces: { text: string; ms: number }[]; usage: Usage | null }[];
  /** Answer times of the status calls made while requests were in flight. */
  status: number[];
}

/** Send `requests` requests from `concurrency` clients (polling status every `statusEveryMs`, 0: never) from a worker thread. */
export function runClients(o: { url: string; statusUrl: string; headers: Record<string, string>; bodies: object[]; requests: number; concurrency: number; statusEveryMs: number }): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'latency-clients.js'), { workerData: o });
    // Terminated once it has answered: after a failed request its status poller would otherwise go on polling.
    worker.once('message', (m: ClientRun | { error: string }) => {
      void worker.terminate();
      if ('error' in m) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
  });
}

export async function measureLatency(o: LatencyOptions, log: (line: string) => void = () => undefined): Promise<LatencyRow[]> {
  if (o.cases.length < 2) throw new Error('latency: need at least 2 FIM cases (one is the other file of the next)');
  const { service, stop } = await startMeasuringService(o.model, o.completion, o.gate, { training: o.training, engine: { engine: o.engine, engineWeights: o.engineWeights } });
  const modelName = CompletionServerSchema.parse({}).modelName;
  const tok = loadTokenizer(o.model);
  const count = (t: string) => tok.encode(t, { parseSpecialTokens: false }).length;
  const url = `${service.completionUrl}/v1/completions`;
  const statusUrl = `${service.feedbackUrl}/api/training/status`;
  const rows: LatencyRow[] = [];
  try {
    for (const form of o.forms) {
      const prompts = o.cases.map((c, i) => continueShapedPrompt(c, o.cases[(i + 1) % o.cases.length], form, count, o.maxPromptTokens));
      const bodies = prompts.map((p) => continueRequestBody(p, modelName));
      const headers = continueHeaders('bench');
      await runClients({ url, statusUrl, headers, bodies, requests: o.warmup, concurrency: 1, statusEveryMs: 0 });
      for (const concurrency of o.concurrency) {
        const { results, status } = await runClients({ url, statusUrl, headers, bodies, requests: o.requests, concurrency, statusEveryMs: o.statusEveryMs });
        const answered = results.filter((r) => !r.failed);
        const totals = answered.map((r) => r.total);
        const row: LatencyRow = {
          form,
          concurrency,
          requests: results.length,
          failed: results.length - answered.length,
          first_chunk_p50_ms: quantile(answered.map((r) => r.first), 0.5),
          total_p50_ms: quantile(totals, 0.5),
          total_p95_ms: quantile(totals, 0.95),
          within_375ms: totals.filter((t) => t <= 375).length / results.length,
          chunks_mean: results.reduce((s, r) => s + r.chunks, 0) / results.length,
          status_calls: status.length,
          status_p50_ms: quantile(status, 0.5),
          status_p95_ms: quantile(status, 0.95),
        };
        rows.push(row);
        log(JSON.stringify(row));
      }
    }
  } finally {
    await stop();
  }
  return rows;
}

export interface TypingOptions {
  model: string;
  /** What the server decodes with (online serve's --engine), and the llamacpp engine's weights (--engine-weights). */
  engine: string;
  engineWeights?: 'F32' | 'Q8_0';
  /** Held-out FIM cases with their middles (the session's file and its context file come from them). */
  cases: TypedCase[];
  form: PromptForm;
  maxPromptTokens: number;
  /** At most this many requests in the session. */
  requests: number;
  /** Requests of other files (from another client) sent first and not measured (the first ones compile kernels). */
  warmup: number;
  completion?: OnlineConfigInput['completion'];
  gate?: OnlineConfigInput['gate'];
  training?: OnlineConfigInput['training'];
}

export interface TypingRow {
  typing: true;
  engine: string;
  /** The llamacpp engine's GGUF weights (F32 or Q8_0); null for the other engines. */
  engine_weights: string | null;
  form: PromptForm;
  /** The file typed in. */
  file: string;
  requests: number;
  /** Requests whose stream carried an error: left out of the figures below. */
  failed: number;
  /** From sending a request to when Continue would show its suggestion (or know there is none). */
  first_line_ms: { p50: number | null; p95: number | null };
  /** Share of the answered requests shown within Continue's 375 ms. */
  within_375ms: number;
  /** Share of the answered requests with a suggestion to show. */
  shown: number;
  /** Share of the answered requests whose prompt reused keys and values of the user's previous one (cached_tokens > 0). */
  cache_hit_rate: number;
  prompt_tokens_mean: number;
  /** Prompt tokens computed per request: prompt_tokens - cached_tokens (the median: a keystroke's usual cost). */
  prefilled_tokens_mean: number;
  prefilled_tokens_p50: number | null;
  /** Tokens decoded per request (usage's completion_tokens). */
  completion_tokens_mean: number;
}

/** Replay a typing session against a served model, one request after another; its one row. */
export async function measureTyping(o: TypingOptions): Promise<TypingRow> {
  const tok = loadTokenizer(o.model);
  const count = (t: string) => tok.encode(t, { parseSpecialTokens: false }).length;
  const session = typingSession(o.cases, o.form, count, o.maxPromptTokens, o.requests);
  // Warm-up prompts of the other files, from another client: the session's first request finds no entry of its own.
  const others = o.cases.filter((c) => c.path !== session.path);
  const warm = others.slice(0, o.warmup).map((c, i) => continueShapedPrompt(c, others[(i + 1) % others.length], o.form, count, o.maxPromptTokens));
  const { service, stop } = await startMeasuringService(o.model, o.completion, o.gate, { training: o.training, engine: { engine: o.engine, engineWeights: o.engineWeights } });
  const modelName = CompletionServerSchema.parse({}).modelName;
  const send = (prompts: string[], apiKey: string) =>
    runClients({
      url: `${service.completionUrl}/v1/completions`,
      statusUrl: `${service.feedbackUrl}/api/training/status`,
      headers: continueHeaders(apiKey),
      bodies: prompts.map((p) => continueRequestBody(p, modelName)),
      requests: prompts.length,
      concurrency: 1,
      statusEveryMs: 0,
    });
  let run: ClientRun;
  try {
    if (warm.length > 0) await send(warm, 'warmup');
    run = await send(session.requests.map((r) => r.prompt), 'typist');
  } finally {
    await stop();
  }
  const answered = run.results.flatMap((r, i) => (r.failed ? [] : [{ ...r, request: session.requests[i] }]));
  const shown = answered.map((r) => continueDisplayTimed(r.pieces, r.total, r.request.code, r.request.suffix));
  const times = shown.map((s) => s.ms);
  const n = Math.max(answered.length, 1);
  const cached = answered.map((r) => r.usage?.prompt_tokens_details?.cached_tokens ?? 0);
  const prompts = answered.map((r) => r.usage?.prompt_tokens ?? 0);
  return {
    typing: true,
    engine: o.engine,
    engine_weights: o.engine === 'llamacpp' ? (o.engineWeights ?? 'F32') : null,
    form: o.form,
    file: session.path,
    requests: run.results.length,
    failed: run.results.length - answered.length,
    first_line_ms: { p50: quantile(times, 0.5), p95: quantile(times, 0.95) },
    within_375ms: times.filter((t) => t <= 375).length / n,
    shown: shown.filter((s) => s.shown !== null).length / n,
    cache_hit_rate: cached.filter((c) => c > 0).length / n,
    prompt_tokens_mean: prompts.reduce((a, b) => a + b, 0) / n,
    prefilled_tokens_mean: prompts.reduce((a, b, i) => a + b - cached[i], 0) / n,
    prefilled_tokens_p50: quantile(prompts.map((p, i) => p - cached[i]), 0.5),
    completion_tokens_mean: answered.reduce((a, r) => a + (r.usage?.completion_tokens ?? 0), 0) / n,
  };
}
