// How fast the online service answers Continue: Continue-shaped requests (its body, headers and prompt forms) against
// a running service, alone and from several concurrent clients, with the status endpoint polled during generation.
//   forms     v1.3.9: other files as `# `-commented lines at the top of the prefix, then `\n# {path}\n`
//             head:   upstream's <|repo_name|> / <|file_sep|> header before <|fim_prefix|>
//   numbers   per request: time to the first SSE chunk and to the end of the stream (Continue shows a suggestion only
//             once it is complete, and keeps at most 10 chunks after 375 ms); per status call: its answer time
// Each figure is a median (p50) and 95th percentile over the requests of one setting.
import { quantileSeq } from 'mathjs';
import { contextSnippet, continueHeaders, continuePrompt, continueRequestBody, type PromptForm } from '@rlhf-code/continue';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { CompletionServerSchema } from './config';
import { startMeasuringService } from './service';

export interface FimCase {
  prefix: string;
  suffix: string;
  path: string;
}

export interface LatencyOptions {
  model: string;
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
}

export interface LatencyRow {
  form: PromptForm;
  concurrency: number;
  requests: number;
  first_chunk_p50_ms: number;
  total_p50_ms: number;
  total_p95_ms: number;
  /** Share of requests whose whole answer arrived within Continue's 375 ms. */
  within_375ms: number;
  chunks_mean: number;
  status_calls: number;
  status_p50_ms: number | null;
  status_p95_ms: number | null;
}

const q = (xs: number[], p: number) => (xs.length === 0 ? null : Number(quantileSeq(xs, p)));

/** The prompt Continue would send for `c` in `form`, with the code of `other` (another file) as its context snippet. */
export function continueShapedPrompt(c: FimCase, other: FimCase, form: PromptForm, countTokens: (t: string) => number, maxPromptTokens: number): string {
  return continuePrompt(c.path, c.prefix, c.suffix, countTokens, maxPromptTokens, { form, snippets: [contextSnippet(other, 40)] }).prompt;
}

/** Send one streaming request; times to the first chunk and to the end. */
async function timedRequest(url: string, body: object): Promise<{ first: number; total: number; chunks: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: continueHeaders('bench'), body: JSON.stringify(body) });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  let first = -1;
  let chunks = 0;
  const decoder = new TextDecoder();
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (first < 0) first = performance.now() - t0;
    chunks += (decoder.decode(bytes, { stream: true }).match(/^data: \{/gm) ?? []).length;
  }
  return { first, total: performance.now() - t0, chunks };
}

export async function measureLatency(o: LatencyOptions, log: (line: string) => void = () => undefined): Promise<LatencyRow[]> {
  if (o.cases.length < 2) throw new Error('latency: need at least 2 FIM cases (one is the other file of the next)');
  const { service, stop } = await startMeasuringService(o.model);
  const modelName = CompletionServerSchema.parse({}).modelName;
  const tok = loadTokenizer(o.model);
  const count = (t: string) => tok.encode(t, { parseSpecialTokens: false }).length;
  const url = `${service.completionUrl}/v1/completions`;
  const statusUrl = `${service.feedbackUrl}/api/training/status`;
  const rows: LatencyRow[] = [];
  try {
    for (const form of o.forms) {
      const prompts = o.cases.map((c, i) => continueShapedPrompt(c, o.cases[(i + 1) % o.cases.length], form, count, o.maxPromptTokens));
      const body = (i: number) => continueRequestBody(prompts[i % prompts.length], modelName);
      for (let i = 0; i < o.warmup; i++) await timedRequest(url, body(i));
      for (const concurrency of o.concurrency) {
        const results: { first: number; total: number; chunks: number }[] = [];
        const status: number[] = [];
        let next = 0;
        let inFlight = 0;
        const client = async () => {
          for (let i = next++; i < o.requests; i = next++) {
            inFlight++;
            try {
              results.push(await timedRequest(url, body(i)));
            } finally {
              inFlight--;
            }
          }
        };
        let polling = true;
        const poller = (async () => {
          while (polling) {
            await new Promise((r) => setTimeout(r, o.statusEveryMs));
            if (inFlight === 0) continue;
            const t0 = performance.now();
            await (await fetch(statusUrl)).json();
            status.push(performance.now() - t0);
          }
        })();
        await Promise.all(Array.from({ length: concurrency }, client));
        polling = false;
        await poller;
        const totals = results.map((r) => r.total);
        const row: LatencyRow = {
          form,
          concurrency,
          requests: results.length,
          first_chunk_p50_ms: q(results.map((r) => r.first), 0.5)!,
          total_p50_ms: q(totals, 0.5)!,
          total_p95_ms: q(totals, 0.95)!,
          within_375ms: totals.filter((t) => t <= 375).length / totals.length,
          chunks_mean: results.reduce((s, r) => s + r.chunks, 0) / results.length,
          status_calls: status.length,
          status_p50_ms: q(status, 0.5),
          status_p95_ms: q(status, 0.95),
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
