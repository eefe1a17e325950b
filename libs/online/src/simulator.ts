// The simulated user: replays FIM examples through the servers exactly as Continue would, and judges each shown
// suggestion against the true middle (continue-client.ts has the request, the display filters and the rule).
//
// Per example: build Continue's prompt -> stream the completion -> if Continue would show something, accept or
// reject it by the rule and post the outcome (immediately; Continue waits for Tab or 10 s) -> count it under the
// policy version and A/B arm that produced it. Empty answers are not reported (Continue shows nothing); the server
// records those itself. Examples are taken in a seeded random order, cycling when `events` exceeds them.
import type { FimRecord } from '@rlhf-code/data';
import { shuffle } from '@rlhf-code/data';
import { acceptsCompletion, continueHeaders, continueOutcome, continuePrompt, continueRequestBody, showCompletion, streamCompletion } from './continue-client';
import { withRates, type Counts, type CountsWithRates } from './stats';

export interface SimulationOptions {
  examples: FimRecord[];
  /** Completion requests to make. */
  events: number;
  /** e.g. http://127.0.0.1:8081/v1/completions */
  completionUrl: string;
  /** e.g. http://127.0.0.1:8082/api/training/submit; null = do not post outcomes (evaluation only). */
  feedbackUrl: string | null;
  token: string;
  project: string;
  apiKey?: string;
  /** The model name Continue sends (RLinf's config: Qwen2.5-Coder-1.5B). */
  model?: string;
  maxPromptTokens?: number;
  countTokens: (text: string) => number;
  seed?: number | string;
  /** Print a progress line every this many requests (0 = never). */
  reportEvery?: number;
  log?: (line: string) => void;
}

export interface SimulationSummary {
  requests: number;
  totals: CountsWithRates;
  by_version: Record<string, CountsWithRates>;
  by_arm: Record<string, CountsWithRates>;
  /** Cumulative figures after every `reportEvery` requests. */
  timeline: { requests: number; shown: number; accepted: number; window_acceptance: number | null; policy_version: string }[];
  feedback_errors: number;
  mean_latency_ms: number;
}

const zero = (): Counts => ({ requests: 0, silent: 0, shown: 0, accepted: 0, rejected: 0 });

export async function runSimulation(o: SimulationOptions): Promise<SimulationSummary> {
  if (o.examples.length === 0) throw new Error('simulate: no examples');
  const say = o.log ?? ((l: string) => process.stdout.write(l + '\n'));
  const model = o.model ?? 'Qwen2.5-Coder-1.5B';
  const uniqueId = `sim-${o.seed ?? 0}`;
  const order = shuffle(o.examples, `sim:${o.seed ?? 0}`);
  const totals = zero();
  const byVersion = new Map<string, Counts>();
  const byArm = new Map<string, Counts>();
  const timeline: SimulationSummary['timeline'] = [];
  let window = { shown: 0, accepted: 0 };
  let feedbackErrors = 0;
  let latency = 0;
  const every = o.reportEvery ?? 10;

  for (let i = 0; i < o.events; i++) {
    const ex = order[i % order.length];
    const filepath = typeof ex.path === 'string' ? ex.path : 'untitled.py';
    const prompt = continuePrompt(filepath, ex.prefix, ex.suffix, o.countTokens, o.maxPromptTokens ?? 1024);
    const streamed = await streamCompletion(o.completionUrl, continueRequestBody(prompt.prompt, model), continueHeaders(o.apiKey ?? 'xxx'));
    latency += streamed.ms;
    const version = streamed.arm === 'start' ? 'start' : String(streamed.versions[0] ?? 'unknown');
    const shown = showCompletion(streamed.text, prompt.prefix, prompt.suffix);
    const accepted = shown !== null && acceptsCompletion(shown, ex.middle);
    const groups = [totals, get(byArm, streamed.arm ?? 'policy'), ...(streamed.arm === 'start' ? [] : [get(byVersion, version)])];
    for (const c of groups) {
      c.requests += 1;
      if (shown === null) c.silent += 1;
      else c.shown += 1;
      if (accepted) c.accepted += 1;
      else if (shown !== null) c.rejected += 1;
    }
    if (shown !== null) {
      window.shown += 1;
      if (accepted) window.accepted += 1;
      if (o.feedbackUrl) {
        const outcome = continueOutcome({ prompt, filepath, completion: shown, accepted, modelName: model, timeMs: streamed.ms, uniqueId });
        const res = await fetch(o.feedbackUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${o.token}`, 'X-Project-ID': o.project },
          body: JSON.stringify(outcome),
        });
        if (!res.ok) {
          feedbackErrors += 1;
          say(`[sim] feedback rejected: HTTP ${res.status} ${await res.text()}`);
        }
      }
    }
    if (every > 0 && ((i + 1) % every === 0 || i + 1 === o.events)) {
      const point = {
        requests: i + 1,
        shown: totals.shown,
        accepted: totals.accepted,
        window_acceptance: window.shown > 0 ? window.accepted / window.shown : null,
        policy_version: version,
      };
      timeline.push(point);
      const pct = (x: number | null) => (x === null ? '  n/a' : `${(100 * x).toFixed(1).padStart(5)}%`);
      say(
        `[sim] ${String(i + 1).padStart(5)} requests | shown ${pct(totals.shown / totals.requests)} | accepted of shown ${pct(totals.shown ? totals.accepted / totals.shown : null)} ` +
          `| last ${every}: accepted of shown ${pct(point.window_acceptance)} | last served by ${version === 'start' ? 'the start model' : `v${version}`}`,
      );
      window = { shown: 0, accepted: 0 };
    }
  }
  const rates = (m: Map<string, Counts>) => Object.fromEntries([...m].map(([k, c]) => [k, withRates(c)]));
  return {
    requests: o.events,
    totals: withRates(totals),
    by_version: rates(byVersion),
    by_arm: rates(byArm),
    timeline,
    feedback_errors: feedbackErrors,
    mean_latency_ms: o.events > 0 ? latency / o.events : 0,
  };
}

function get(m: Map<string, Counts>, k: string): Counts {
  let c = m.get(k);
  if (!c) m.set(k, (c = zero()));
  return c;
}

/** The summary as a fixed-width table: one row per policy version and per arm. */
export function formatSummary(s: SimulationSummary): string {
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
  const row = (name: string, c: CountsWithRates) =>
    `${name.padEnd(14)} ${String(c.requests).padStart(8)} ${String(c.shown).padStart(6)} ${String(c.accepted).padStart(8)} ` +
    `${pct(c.suggestion_rate).padStart(10)} ${pct(c.acceptance_rate).padStart(12)} ${pct(c.accepted_per_request).padStart(13)}`;
  const head = `${'group'.padEnd(14)} ${'requests'.padStart(8)} ${'shown'.padStart(6)} ${'accepted'.padStart(8)} ${'suggest'.padStart(10)} ${'accept/shown'.padStart(12)} ${'accept/req'.padStart(13)}`;
  const lines = [head, row('all', s.totals)];
  for (const [v, c] of Object.entries(s.by_version)) lines.push(row(`policy v${v}`, c));
  for (const [a, c] of Object.entries(s.by_arm)) lines.push(row(`arm ${a}`, c));
  return lines.join('\n');
}
