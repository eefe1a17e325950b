// The live page of an online run, served by the feedback server (behind its token):
//   GET /                        HTML: the status' figures per arm, the gate, the updates, and the charts of
//                                live-charts.ts drawn as inline SVG (nothing is loaded from elsewhere: no CDN, no
//                                script but the page's own refresh); it fetches itself again every `refresh` seconds
//   GET /api/training/history    JSON: the series behind the charts (history.ts)
// Query: `window` = requests per window (default: about 30 windows for the busiest arm), `refresh` = seconds between
// refreshes (default 10, 0 = none); the page also takes the token as `token` (libs/online-feedback feedback-server.ts checks it; it is
// never written into the page, logged or stored). Every text from the run (arm names, the model path, the last
// error) is HTML-escaped; the SVG comes from vega, which escapes its text. Charts are drawn in a worker thread
// (chart-worker.js) and drawn again only when the history or the window changed.
import * as path from 'path';
import { Worker } from 'worker_threads';
import { QueryError, utilityPerRequest, type OnlineStatus } from '@rlhf-code/online-core';
import type { RunHistory } from './history';
import { liveCharts } from './live-charts';

export interface PageQuery {
  window: number | undefined;
  refresh: number;
}

const DEFAULT_REFRESH_S = 10;
const RENDER_TIMEOUT_MS = 60_000;

function intParam(query: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(Number.isInteger(n) && n >= min && n <= max)) throw new QueryError(name, `${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** The page's and the history's query parameters (`token` is the feedback server's business). */
export function parsePageQuery(query: unknown): PageQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  return { window: intParam(q, 'window', 1, 1_000_000), refresh: intParam(q, 'refresh', 0, 3600) ?? DEFAULT_REFRESH_S };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text safe in HTML content and in quoted attribute values. */
export const escapeHtml = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** vega-lite specs -> SVG strings, in one long-lived worker thread (started at the first call). */
export class SvgRenderer {
  private worker: Worker | null = null;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (svgs: string[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  render(specs: Record<string, unknown>[]): Promise<string[]> {
    if (specs.length === 0) return Promise.resolve([]);
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`drawing the charts took more than ${RENDER_TIMEOUT_MS / 1000} s`)), RENDER_TIMEOUT_MS);
      this.waiting.set(id, { resolve, reject, timer });
      worker.postMessage({ id, specs });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.fail(new Error('the live page is closed'));
    if (w) await w.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(path.join(__dirname, 'chart-worker.js'));
    w.unref(); // never keeps the process alive
    w.on('message', (m: { id: number; svgs?: string[]; error?: string }) => {
      const job = this.waiting.get(m.id);
      if (!job) return;
      this.waiting.delete(m.id);
      clearTimeout(job.timer);
      if (m.svgs) job.resolve(m.svgs);
      else job.reject(new Error(`drawing the charts failed: ${m.error}`));
    });
    w.on('error', (e) => this.fail(e));
    w.on('exit', () => {
      if (this.worker === w) this.fail(new Error('the chart worker stopped'));
    });
    this.worker = w;
    return w;
  }

  /** Reject every waiting render and drop the worker (the next render starts a new one). */
  private fail(e: Error): void {
    const w = this.worker;
    this.worker = null;
    for (const job of this.waiting.values()) {
      clearTimeout(job.timer);
      job.reject(e);
    }
    this.waiting.clear();
    if (w) void w.terminate().catch(() => undefined);
  }
}

const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
const fixed = (x: number | null | undefined, digits: number) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));

/** A table cell that names what it shows (data-arm / data-field), for people and for checks. */
const cell = (arm: string, field: string, text: string) => `<td data-arm="${escapeHtml(arm)}" data-field="${field}">${escapeHtml(text)}</td>`;

function armsTable(status: OnlineStatus): string {
  const head = ['arm', 'requests', 'silent', 'shown', 'accepted', 'rejected', 'no outcome', 'accepted / shown (95% CI)', 'accepted / request', 'utility / request', 'suggestion rate'];
  const rows = Object.entries(status.acceptance_by_arm).map(([arm, c]) => {
    const ci = c.acceptance_ci95 ? ` [${pct(c.acceptance_ci95[0])}, ${pct(c.acceptance_ci95[1])}]` : '';
    const utility = utilityPerRequest(c);
    return (
      `<tr><th scope="row" data-arm="${escapeHtml(arm)}">${escapeHtml(arm)}</th>` +
      cell(arm, 'requests', String(c.requests)) +
      cell(arm, 'silent', String(c.silent)) +
      cell(arm, 'shown', String(c.shown)) +
      cell(arm, 'accepted', String(c.accepted)) +
      cell(arm, 'rejected', String(c.rejected)) +
      cell(arm, 'no_outcome', String(c.no_outcome)) +
      cell(arm, 'acceptance_rate', pct(c.acceptance_rate) + ci) +
      cell(arm, 'accepted_per_request', pct(c.accepted_per_request)) +
      cell(arm, 'utility_per_request', fixed(utility, 3)) +
      cell(arm, 'suggestion_rate', pct(c.suggestion_rate)) +
      '</tr>'
    );
  });
  return `<table id="arms"><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function summary(status: OnlineStatus): string {
  const g = status.gate;
  const fact = (field: string, label: string, value: unknown) => `<li><span class="k">${label}</span> <b data-field="${field}">${escapeHtml(value)}</b></li>`;
  const gateState = !g.enabled ? 'off' : g.active ? 'active (may hide)' : g.validated === false ? 'fitted, not validated (shows all)' : 'learning (shows all)';
  const last = status.last_losses[status.last_losses.length - 1];
  return (
    '<ul class="facts">' +
    fact('policy_version', 'policy version', `v${status.policy_version}`) +
    fact('updates', 'updates', `${status.updates}${status.discarded_updates > 0 ? ` (+${status.discarded_updates} discarded)` : ''}${status.training ? ', one running' : ''}`) +
    fact('events_received', 'feedback events', `${status.events_received} received, ${status.events_trained} trained, ${status.events_pending} pending, ${status.events_skipped} skipped`) +
    fact('unmatched_outcomes', 'unmatched outcomes', status.unmatched_outcomes) +
    fact('last_update', 'last update', last ? `#${last.update}: loss ${fixed(last.loss, 4)}, KL ${fixed(last.kl, 5)}, reward ${fixed(last.reward_mean, 3)}${last.discarded ? `, discarded (${last.discarded})` : ''}` : 'none yet') +
    fact('gate', 'show gate', `${gateState}; threshold ${fixed(g.threshold, 3)}; ${g.outcomes} outcomes; judged ${g.judged}, hidden ${g.hidden}, explored ${g.explored} since start`) +
    (status.last_error ? fact('last_error', 'last error', status.last_error) : '') +
    '</ul>'
  );
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.1em;margin:1.4em 0 .2em}.how,.meta{color:#555;margin:.2em 0 .5em;max-width:75ch}.facts{list-style:none;padding:0;columns:2}
.facts li{margin:.15em 0}.k{color:#666}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}
th[scope=row],thead th:first-child{text-align:left}.empty{color:#888;font-style:italic}svg{max-width:100%;height:auto}`;

/** The page's own refresh: fetch this URL again (same query, token included) and swap the content in. */
function refreshScript(seconds: number): string {
  if (seconds === 0) return '';
  return `<script>(()=>{const every=${seconds * 1000};const note=()=>document.getElementById('refresh-note');
const tick=async()=>{try{const r=await fetch(location.href,{cache:'no-store'});if(!r.ok){note().textContent='refresh failed: HTTP '+r.status;return;}
const next=new DOMParser().parseFromString(await r.text(),'text/html').getElementById('live');if(next)document.getElementById('live').replaceWith(next);}
catch(e){note().textContent='refresh failed: the server does not answer';}finally{setTimeout(tick,every);}};setTimeout(tick,every);})();</script>`;
}

export interface LivePageOptions {
  status: () => OnlineStatus;
  history: RunHistory;
}

export class LivePage {
  private readonly renderer = new SvgRenderer();
  /** The last charts drawn, by history revision and window. */
  private cache: { key: string; svgs: Promise<string[]> } | null = null;

  constructor(private readonly opts: LivePageOptions) {}

  /** GET /api/training/history. */
  history(query: unknown): object {
    return this.opts.history.series(parsePageQuery(query).window);
  }

  /** GET /. */
  async html(query: unknown): Promise<string> {
    const q = parsePageQuery(query);
    const status = this.opts.status();
    const series = this.opts.history.series(q.window);
    const charts = liveCharts(series);
    const drawn = charts.filter((c) => c.spec !== null);
    const key = `${this.opts.history.revision}:${series.window}`;
    if (this.cache?.key !== key) {
      const svgs = this.renderer.render(drawn.map((c) => c.spec!));
      this.cache = { key, svgs };
      svgs.catch(() => {
        if (this.cache?.svgs === svgs) this.cache = null; // draw again next time
      });
    }
    let svgs: string[] = [];
    let problem = '';
    try {
      svgs = await this.cache!.svgs;
    } catch (e) {
      problem = `<p class="empty" id="chart-error">The charts could not be drawn: ${escapeHtml((e as Error).message)}</p>`;
    }
    const sections = charts.map((c) => {
      const i = drawn.indexOf(c);
      const body = c.spec === null ? '<p class="empty">No data yet.</p>' : (svgs[i] ?? '');
      return `<section id="chart-${c.id}"><h2>${escapeHtml(c.heading)}</h2><p class="how">${escapeHtml(c.read)}</p>${body}</section>`;
    });
    const now = new Date().toISOString();
    const kept = series.requests_total - series.first_request + 1;
    return (
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">' +
      `<meta name="viewport" content="width=device-width"><title>online run: ${escapeHtml(path.basename(status.model))} v${status.policy_version}</title>` +
      `<style>${STYLE}</style></head><body><div id="live">` +
      `<h1>Online run: ${escapeHtml(status.model)}</h1>` +
      `<p class="meta">Updated <time data-field="updated">${now}</time>; ${series.requests_total} requests served` +
      (series.first_request > 1 ? ` (the charts hold the newest ${kept})` : '') +
      `, windows of ${series.window} requests. ${q.refresh > 0 ? `Refreshes every ${q.refresh} s.` : 'Does not refresh (refresh=0).'} ` +
      'The same figures as JSON: <code>GET /api/training/status</code> and <code>GET /api/training/history</code>. ' +
      '<span id="refresh-note"></span></p>' +
      summary(status) +
      '<h2>Arms</h2><p class="how">Since the run started (rebuilt from the logs on a restart), as <code>acceptance_by_arm</code> in the status.</p>' +
      armsTable(status) +
      problem +
      sections.join('') +
      '</div>' +
      refreshScript(q.refresh) +
      '</body></html>'
    );
  }

  close(): Promise<void> {
    return this.renderer.close();
  }
}
