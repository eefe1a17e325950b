// The live page in a real browser (tools/check_live_page.sh runs this): a run on the tiny test model, its page opened
// in headless Chromium through the DevTools protocol, and checks that the browser drew every chart (SVG marks with a
// size on screen, for every arm), that the page's figures are the status', that nothing was loaded from elsewhere,
// that a wrong token gets 401, and that the page refreshes itself with new data. Writes a full-page screenshot.
//
//   node --experimental-websocket --import tsx libs/online/src/testing/live-page-browser.ts --browser /usr/bin/chromium [--out DIR] [--serve]
//
// --serve keeps the service running afterwards and prints the page's URL (a random token of this run) for a look.
// Exit status 0: every check passed; 1: a check failed (each failure is printed); 2: usage or setup error.
import { spawn, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { tempDir } from '@rlhf-code/model/testing';
import type { OnlineStatus } from '@rlhf-code/online-core';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import type { HistorySeries } from '@rlhf-code/online-page';
import { driveLiveRun, startLiveRun } from './live-run';

function args(): { browser: string; out: string; serve: boolean } {
  const a = process.argv.slice(2);
  const value = (name: string) => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : undefined;
  };
  const browser = value('--browser');
  if (!browser) {
    process.stderr.write('usage: live-page-browser.ts --browser PATH [--out DIR] [--serve]\n');
    process.exit(2);
  }
  return { browser, out: value('--out') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'live-page-')), serve: a.includes('--serve') };
}

/** Node's WebSocket: global from Node 22, behind --experimental-websocket on Node 20 (@types/node 20 declares none). */
interface Ws {
  send(data: string): void;
  close(): void;
  addEventListener(type: 'open' | 'error' | 'message', listener: (ev: { data?: unknown }) => void): void;
}
const WebSocketClass = (globalThis as unknown as { WebSocket?: new (url: string) => Ws }).WebSocket;

/** A minimal DevTools protocol client over one page target's WebSocket. */
class Cdp {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private listeners: { method: string; resolve: () => void }[] = [];
  private constructor(private readonly ws: Ws) {
    ws.addEventListener('message', (ev) => {
      const m = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string };
      if (m.id !== undefined) {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.error) w?.reject(new Error(m.error.message));
        else w?.resolve(m.result);
      } else if (m.method) {
        const due = this.listeners.filter((l) => l.method === m.method);
        this.listeners = this.listeners.filter((l) => l.method !== m.method);
        for (const l of due) l.resolve();
      }
    });
  }

  static async connect(url: string): Promise<Cdp> {
    if (!WebSocketClass) throw new Error('no WebSocket in this Node: run it with node --experimental-websocket (Node 20)');
    const ws = new WebSocketClass(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)));
    });
    return new Cdp(ws);
  }

  send<T = Record<string, unknown>>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  once(method: string): Promise<void> {
    return new Promise((resolve) => this.listeners.push({ method, resolve }));
  }

  /** Evaluate an expression in the page; its value (JSON-serialisable). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.send<{ result: { value: T }; exceptionDetails?: { text: string } }>('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`);
    return r.result.value;
  }

  async navigate(url: string): Promise<void> {
    const loaded = this.once('Page.loadEventFired');
    await this.send('Page.navigate', { url });
    await loaded;
  }

  close(): void {
    this.ws.close();
  }
}

/** Start headless Chromium with a DevTools port; the WebSocket URL of its page. */
async function startBrowser(binary: string, profile: string): Promise<{ child: ChildProcess; pageWs: string }> {
  const child = spawn(binary, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1200,900', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const browserWs = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${binary} did not start in 30 s: ${err.slice(-500)}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`${binary} exited (${code}): ${err.slice(-500)}`)));
  });
  const port = new URL(browserWs).port;
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
  const page = targets.find((t) => t.type === 'page');
  if (!page) throw new Error('the browser has no page');
  return { child, pageWs: page.webSocketDebuggerUrl };
}

/** Stop the browser and wait until it has exited (it writes its profile until then). */
async function stopBrowser(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill();
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
}

/** What the browser shows: per chart its drawn size and data marks per arm; the table; the header line; external loads. */
const INSPECT = `(() => {
  const charts = {};
  for (const s of document.querySelectorAll('section[id^="chart-"]')) {
    const svg = s.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : null;
    const points = svg ? [...svg.querySelectorAll('[aria-roledescription="point"]')] : [];
    const drawn = points.filter((p) => { const b = p.getBoundingClientRect(); return b.width > 0 && b.height > 0; });
    const perArm = {};
    for (const p of drawn) { const m = /arm: (.*?)(;|$)/.exec(p.getAttribute('aria-label')); if (m) perArm[m[1]] = (perArm[m[1]] || 0) + 1; }
    charts[s.id] = { svg: !!svg, width: box ? box.width : 0, height: box ? box.height : 0, points: points.length, drawn: drawn.length, perArm,
      lines: svg ? svg.querySelectorAll('[aria-roledescription="line mark"]').length : 0, empty: !!s.querySelector('.empty') };
  }
  const table = {};
  for (const td of document.querySelectorAll('#arms td[data-arm]')) (table[td.dataset.arm] ||= {})[td.dataset.field] = td.textContent;
  return { charts, table, meta: document.querySelector('.meta')?.textContent ?? '', refreshNote: document.getElementById('refresh-note')?.textContent ?? null,
    external: document.querySelectorAll('script[src], link, img, iframe').length, resources: performance.getEntriesByType('resource').map((r) => r.name) };
})()`;

interface Inspected {
  charts: Record<string, { svg: boolean; width: number; height: number; points: number; drawn: number; perArm: Record<string, number>; lines: number; empty: boolean }>;
  table: Record<string, Record<string, string>>;
  meta: string;
  refreshNote: string | null;
  external: number;
  resources: string[];
}

async function main(): Promise<number> {
  const o = args();
  fs.mkdirSync(o.out, { recursive: true });
  initBackend({ quiet: true });
  const token = randomBytes(12).toString('hex');
  const stateDir = tempDir('live-page-state-');
  const modelDir = await makeTinyModelDir(7);
  const service = await startLiveRun(modelDir, stateDir, token);
  const failures: string[] = [];
  const check = (ok: boolean, what: string) => {
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}\n`);
    if (!ok) failures.push(what);
  };
  let browser: ChildProcess | null = null;
  try {
    await driveLiveRun(service, token, 16);
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'live-page-profile-'));
    const started = await startBrowser(o.browser, profile);
    browser = started.child;
    const cdp = await Cdp.connect(started.pageWs);
    await cdp.send('Page.enable');
    const base = `${service.feedbackUrl}/`;

    await cdp.navigate(`${base}?token=wrong-${token.slice(0, 4)}`);
    const denied = await cdp.evaluate<string>('document.body.innerText');
    check(/unauthorized/.test(denied) && !denied.includes(token), 'a wrong ?token= gets 401 unauthorized');

    await cdp.navigate(`${base}?token=${token}&window=4&refresh=2`);
    const status = (await (await fetch(`${service.feedbackUrl}/api/training/status`)).json()) as OnlineStatus;
    const series = (await (await fetch(`${service.feedbackUrl}/api/training/history?window=4`, { headers: { Authorization: `Bearer ${token}` } })).json()) as HistorySeries;
    const seen = await cdp.evaluate<Inspected>(INSPECT);
    const arms = Object.keys(status.acceptance_by_arm);
    for (const id of ['acceptance', 'utility', 'updates', 'gate', 'latency']) {
      const c = seen.charts[`chart-${id}`];
      check(!!c && c.svg && c.width > 300 && c.height > 100 && c.drawn > 0 && c.drawn === c.points, `${id}: drawn ${c?.width.toFixed(0)}x${c?.height.toFixed(0)} px, ${c?.drawn} of ${c?.points} points on screen`);
    }
    for (const arm of arms) {
      const windows = series.arms[arm];
      check(seen.charts['chart-acceptance'].perArm[arm] === windows.filter((w) => w.acceptance_rate !== null).length, `acceptance: a point per window with outcomes of arm ${JSON.stringify(arm)} (${seen.charts['chart-acceptance'].perArm[arm]})`);
      check(seen.charts['chart-utility'].perArm[arm] === windows.length, `utility: a point per window of arm ${JSON.stringify(arm)} (${windows.length})`);
      check(seen.charts['chart-latency'].perArm[arm] === 2 * windows.length, `latency: p50 and p95 per window of arm ${JSON.stringify(arm)}`);
      const c = status.acceptance_by_arm[arm];
      const row = seen.table[arm] ?? {};
      check(['requests', 'shown', 'accepted', 'rejected', 'silent'].every((k) => row[k] === String(c[k as keyof typeof c])), `the table's counts of ${JSON.stringify(arm)} are the status' (${c.accepted} of ${c.shown} shown accepted, ${c.requests} requests)`);
    }
    check(seen.charts['chart-updates'].drawn === 3 * series.updates.length, `updates: loss, KL and reward of ${series.updates.length} updates`);
    check(seen.external === 0 && seen.resources.every((r) => r.startsWith(service.feedbackUrl)), `nothing loaded from elsewhere (${seen.resources.length} resources)`);
    check(seen.meta.includes(`${status.acceptance_by_arm[arms[0]].requests + status.acceptance_by_arm[arms[1]].requests} requests served`), 'the header counts the requests served');

    // The page refreshes itself (every 2 s here) with what the service served meanwhile.
    await driveLiveRun(service, token, 6, 100);
    await new Promise((r) => setTimeout(r, 5000));
    const after = await cdp.evaluate<Inspected>(INSPECT);
    const total = Object.values(service.status().acceptance_by_arm).reduce((t, c) => t + c.requests, 0);
    check(after.meta.includes(`${total} requests served`) && after.refreshNote === '', `refreshed: ${total} requests served (was ${series.requests_total})`);

    // A screenshot of the whole page.
    const { cssContentSize } = await cdp.send<{ cssContentSize: { width: number; height: number } }>('Page.getLayoutMetrics');
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1200, height: Math.ceil(cssContentSize.height), deviceScaleFactor: 1, mobile: false });
    const shot = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
    const png = path.join(o.out, 'live-page.png');
    fs.writeFileSync(png, Buffer.from(shot.data, 'base64'));
    process.stdout.write(`screenshot: ${png}\n`);
    cdp.close();
    await stopBrowser(browser);
    browser = null;
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 3 });

    if (o.serve) {
      process.stdout.write(`serving: ${service.feedbackUrl}/?token=${token} (this run's random token; Ctrl-C stops)\n`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    if (browser) await stopBrowser(browser);
    await service.close();
    for (const dir of [stateDir, path.dirname(modelDir)]) fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(failures.length === 0 ? 'live page: every check passed\n' : `live page: ${failures.length} check(s) failed\n`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`live-page-browser: ${(e as Error).stack ?? e}\n`);
    process.exit(2);
  },
);
