// The simulated user: replays FIM examples through the servers as Continue would, and lets a simulated user
// (sim-users.ts) judge each displayed suggestion.
//
// Per example: build Continue's prompt (1.3.9 or upstream form, with a snippet of another file as context) -> stream
// the completion, noting when each piece arrives -> what Continue would display (continueDisplay: stop strings, the
// 10-chunk / 375 ms cut, the line rules with the 150 ms clock) -> nothing displayed: no outcome; otherwise the user
// accepts or rejects it. An accept is posted at once (Tab); a reject is posted `rejectDelay` requests later (Continue
// rejects after 10 s without Tab, while the user types on), and the rest at the end. Counted under the policy version
// and A/B arm that produced it, and one record per request ({position, file, arm, shown, accepted}) for paired
// comparisons of arms. Examples are taken in a seeded random order, cycling when `events` exceeds them, each
// `perExample` times in a row (the same prompt). Continue's clock is the wall clock, or with `clock: "simulated"` the
// `sim_ms` of the server's chunks (libs/continue latency.ts).
import { markdownTable } from '@rlhf-code/cli';
import type { FimRecord } from '@rlhf-code/data';
import type { RepoFile } from '@rlhf-code/tokenizer';
import { shuffle } from '@rlhf-code/data';
import { continueDisplay, continueHeaders, continueOutcome, continuePrompt, continueRequestBody, streamCompletion, type PromptForm, type StreamedCompletion } from './continue-client';
import { simUser, type Judged, type SimUser } from './sim-users';
import { withRates, zeroCounts, type Counts, type CountsWithRates } from './counts';
import { RLINF_EXAMPLE } from './settings';

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
  /** Who judges the suggestions (default: the exact-first-line user). */
  user?: SimUser;
  /** Continue's prompt form (default v139, the version that posts outcomes). */
  form?: PromptForm;
  /** The whole file of an example (users judge the suggestion in its file); null = only the example's own text. */
  fileOf?: (example: FimRecord) => string | null;
  /** Requests after which a rejection is posted (Continue waits 10 s); default 5. */
  rejectDelay?: number;
  /**
   * Requests per example, consecutive, with the same prompt each time (an A/B measurement sends each position once per
   * arm); default 1.
   */
  perExample?: number;
  /**
   * The clock of Continue's time rules: "wall" (default) times each piece by when it arrived; "simulated" by the
   * `sim_ms` the server put on its chunk (a server with completion.clock "simulated"): what is displayed then does not
   * depend on the machine's speed.
   */
  clock?: 'wall' | 'simulated';
  seed?: number | string;
  /**
   * Awaited before each request: a user who types at a pace the server's training keeps up with (the experiment's
   * `pace: trainer` waits until no update is running or due), so each request is served by the newest policy.
   */
  beforeRequest?: () => Promise<void>;
  /** Print a progress line every this many requests (0 = never). */
  reportEvery?: number;
  log?: (line: string) => void;
}

export interface SimulationSummary {
  user: string;
  form: PromptForm;
  requests: number;
  totals: CountsWithRates;
  by_version: Record<string, CountsWithRates>;
  by_arm: Record<string, CountsWithRates>;
  /** Cumulative figures after every `reportEvery` requests. */
  timeline: { requests: number; shown: number; accepted: number; window_acceptance: number | null; policy_version: string }[];
  feedback_errors: number;
  mean_latency_ms: number;
  /** One per request: the example's index in `examples` (its position), its file, the arm, what Continue did. */
  records: SimulationRecord[];
}

export interface SimulationRecord {
  position: number;
  file: string;
  arm: string;
  shown: boolean;
  accepted: boolean;
}

/** Another file as Continue's context snippet: its path and the last `lines` lines of its code before its cursor. */
export function contextSnippet(other: { path?: unknown; prefix: string }, lines = 30): RepoFile {
  return { path: typeof other.path === 'string' ? other.path : 'other.py', content: other.prefix.split('\n').slice(-lines).join('\n') };
}

/** The text before the cursor and after the true middle in the whole file, when the example is found in it. */
function around(ex: FimRecord, file: string | null): { before: string; after: string } {
  const at = file === null ? -1 : file.indexOf(ex.prefix + ex.middle + ex.suffix);
  if (at < 0) return { before: ex.prefix, after: ex.suffix };
  return { before: file!.slice(0, at + ex.prefix.length), after: file!.slice(at + ex.prefix.length + ex.middle.length) };
}

export async function runSimulation(o: SimulationOptions): Promise<SimulationSummary> {
  if (o.examples.length === 0) throw new Error('simulate: no examples');
  const say = o.log ?? ((l: string) => process.stdout.write(l + '\n'));
  const model = o.model ?? RLINF_EXAMPLE.model;
  const user = o.user ?? simUser('exact');
  const form = o.form ?? 'v139';
  const rejectDelay = o.rejectDelay ?? 5;
  const uniqueId = `sim-${o.seed ?? 0}`;
  const per = o.perExample ?? 1;
  if (!(Number.isInteger(per) && per >= 1)) throw new Error(`simulate: perExample must be an integer >= 1, got ${o.perExample}`);
  // Positions: indices into o.examples, in a seeded random order (the same order as the examples' own shuffle).
  const order = shuffle(
    o.examples.map((_, i) => i),
    `sim:${o.seed ?? 0}`,
  );
  const records: SimulationRecord[] = [];
  const totals = zeroCounts();
  const byVersion = new Map<string, Counts>();
  const byArm = new Map<string, Counts>();
  const timeline: SimulationSummary['timeline'] = [];
  const pendingRejects: { due: number; body: object }[] = [];
  let window = { shown: 0, accepted: 0 };
  let feedbackErrors = 0;
  let latency = 0;
  const every = o.reportEvery ?? 10;

  const post = async (body: object) => {
    if (!o.feedbackUrl) return;
    const res = await fetch(o.feedbackUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${o.token}`, 'X-Project-ID': o.project },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      feedbackErrors += 1;
      say(`[sim] feedback rejected: HTTP ${res.status} ${await res.text()}`);
    }
  };

  for (let i = 0; i < o.events; i++) {
    while (pendingRejects.length > 0 && pendingRejects[0].due <= i) await post(pendingRejects.shift()!.body);
    await o.beforeRequest?.();
    const at = Math.floor(i / per); // the example's turn: `per` consecutive requests each
    const position = order[at % order.length];
    const ex = o.examples[position];
    const filepath = typeof ex.path === 'string' ? ex.path : 'untitled.py';
    // Context: the code before the cursor of the next example from another file (a file the user had open).
    const other = order
      .slice(at + 1)
      .concat(order)
      .map((k) => o.examples[k])
      .find((e) => e.path !== ex.path);
    const snippets = other ? [contextSnippet(other)] : [];
    const prompt = continuePrompt(filepath, ex.prefix, ex.suffix, o.countTokens, o.maxPromptTokens ?? 1024, { form, snippets });
    const streamed = await streamCompletion(o.completionUrl, continueRequestBody(prompt.prompt, model), continueHeaders(o.apiKey ?? RLINF_EXAMPLE.apiKey));
    latency += streamed.ms;
    const version = streamed.arm === 'start' ? 'start' : String(streamed.versions[0] ?? 'unknown');
    const shown = continueDisplay(o.clock === 'simulated' ? simulatedPieces(streamed, o.completionUrl) : streamed.pieces, prompt.code, prompt.suffix);
    let accepted = false;
    if (shown !== null) {
      const { before, after } = around(ex, o.fileOf?.(ex) ?? null);
      const judged: Judged = { prefix: before, suffix: after, middle: ex.middle, shown };
      [accepted] = await user.accepts([judged]);
    }
    records.push({ position, file: filepath, arm: streamed.arm ?? 'policy', shown: shown !== null, accepted });
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
      const outcome = continueOutcome({ prompt, filepath, completion: shown, accepted, modelName: model, timeMs: streamed.ms, uniqueId });
      if (accepted) await post(outcome);
      else pendingRejects.push({ due: i + 1 + rejectDelay, body: outcome });
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
  for (const r of pendingRejects) await post(r.body);
  const rates = (m: Map<string, Counts>) => Object.fromEntries([...m].map(([k, c]) => [k, withRates(c)]));
  return {
    user: user.name,
    form,
    requests: o.events,
    totals: withRates(totals),
    by_version: rates(byVersion),
    by_arm: rates(byArm),
    timeline,
    feedback_errors: feedbackErrors,
    mean_latency_ms: o.events > 0 ? latency / o.events : 0,
    records,
  };
}

/** The pieces timed by the server's simulated clock (each chunk's `sim_ms`); an error when a chunk has none. */
function simulatedPieces(s: StreamedCompletion, url: string): { text: string; ms: number }[] {
  return s.pieces.map((p) => {
    if (p.simMs === null) throw new Error(`simulate: clock "simulated" needs sim_ms on every chunk; ${url} sent a chunk without it (serve with completion.clock "simulated")`);
    return { text: p.text, ms: p.simMs };
  });
}

function get(m: Map<string, Counts>, k: string): Counts {
  let c = m.get(k);
  if (!c) m.set(k, (c = zeroCounts()));
  return c;
}

/** The summary as a markdown table: one row per policy version and per arm, acceptance with its Wilson 95% interval. */
export function formatSummary(s: SimulationSummary): string {
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
  const ci = (c: CountsWithRates) => (c.acceptance_ci95 ? `[${pct(c.acceptance_ci95[0])}, ${pct(c.acceptance_ci95[1])}]` : '');
  const row = (name: string, c: CountsWithRates) => [
    name,
    String(c.requests),
    String(c.shown),
    String(c.accepted),
    pct(c.suggestion_rate),
    pct(c.acceptance_rate),
    ci(c),
    pct(c.accepted_per_request),
  ];
  const rows = [row('all', s.totals), ...Object.entries(s.by_version).map(([v, c]) => row(`policy v${v}`, c)), ...Object.entries(s.by_arm).map(([a, c]) => row(`arm ${a}`, c))];
  const table = markdownTable(['group', 'requests', 'shown', 'accepted', 'suggest', 'accept/shown', '95% interval', 'accept/req'], rows);
  return `user ${s.user}, Continue ${s.form === 'v139' ? '1.3.9' : 'upstream'} prompts\n${table}`;
}
