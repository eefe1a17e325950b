// `online load`: the online service under Continue's mixed load, measured from outside. It starts `online serve` as a
// child process (the shipped CLI, with a state dir of its own and free ports), runs for `durationMs`
//   8 completion clients   Continue-shaped streaming requests, one after another (1.3.9 and upstream prompt forms;
//                          after a shed answer, the next one a debounce later)
//   16 feedback clients    a new outcome every 50 ms each, about completions the server answered (fork and upstream
//                          bodies in turn, every one with a new completionId)
//   1 status poller        GET /api/training/status
// (load-clients.js, in a worker thread) and prints one JSON line (LoadResult). With `kill`, the server gets a kill -9
// half way and is started again on the same state dir (the clients carry on; what finds no server counts as failed);
// at the end the server is stopped (SIGTERM) and every acknowledged outcome is looked up in its feedback log: an
// acknowledged outcome not there is lost.
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { continueHeaders, continueRequestBody, PROMPT_FORMS, RLINF_EXAMPLE } from '@rlhf-code/continue';
import { quantile } from '@rlhf-code/stats';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { continueShapedPrompt, type FimCase } from './prompts';

export interface LoadOptions {
  model: string;
  cases: FimCase[];
  durationMs: number;
  completionClients: number;
  feedbackClients: number;
  feedbackEveryMs: number;
  statusEveryMs: number;
  /** After a shed answer a completion client asks again this much later (Continue's debounceDelay: the user's next pause). */
  debounceMs: number;
  maxPromptTokens: number;
  /** kill -9 the server half way and start it again on the same state dir. */
  kill: boolean;
  /** Extra `online serve` arguments (e.g. --config FILE). */
  serveArgs: string[];
  /** The state dir (default: a temporary folder, removed at the end). */
  stateDir?: string;
  /** The server's output goes here (default: discarded). */
  serverLog?: string;
}

export interface LoadResult {
  duration_s: number;
  completion_clients: number;
  feedback_clients: number;
  killed: boolean;
  completions_answered: number;
  completions_failed: number;
  completion_p50_ms: number | null;
  completion_p95_ms: number | null;
  /** Answers with a text (neither empty nor shed): Continue's 375 ms is about these. */
  completion_served_p50_ms: number | null;
  completions_shed: number;
  share_answered_empty: number | null;
  feedback_acked: number;
  feedback_counted: number;
  feedback_lost: number;
  feedback_failed: number;
  feedback_p50_ms: number | null;
  feedback_p99_ms: number | null;
  status_calls: number;
  status_p95_ms: number | null;
  http_5xx: number;
  updates: number | null;
  events_pending_at_end: number | null;
}

/** A percentile in ms to 0.1 ms (stats' quantile), null with no values. */
const q = (xs: number[], p: number) => {
  const v = quantile(xs, p);
  return v === null ? null : Math.round(v * 10) / 10;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port no one listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** `online serve` as a child process: node with tsx's loader (no wrapper process: a kill -9 hits the server itself). */
function startServer(args: string[], logFile: string | undefined): ChildProcess {
  const main = path.join(__dirname, '../../../apps/online/src/main.ts');
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  return spawn(process.execPath, ['--import', 'tsx', main, 'serve', ...args], { stdio: ['ignore', out, out] });
}

/** Resolves once the status endpoint answers; rejects when the server exits first or `timeoutMs` passes. */
async function ready(child: ChildProcess, statusUrl: string, timeoutMs = 300_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`online serve exited (${child.exitCode ?? child.signalCode}) before it answered`);
    try {
      if ((await fetch(statusUrl)).ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`online serve did not answer ${statusUrl} within ${timeoutMs / 1000} s`);
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** The completionIds of the events in a feedback log. */
function loggedIds(file: string): Set<string> {
  const ids = new Set<string>();
  if (!fs.existsSync(file)) return ids;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{"type":"event"')) continue;
    try {
      const id = JSON.parse(line).outcome?.completionId;
      if (typeof id === 'string') ids.add(id);
    } catch {
      /* a torn last line: never acknowledged */
    }
  }
  return ids;
}

interface ClientsResult {
  completions: { ms: number; status: number; empty: boolean; shed: boolean }[];
  feedback: { ms: number; id: string; status: number }[];
  status: number[];
  failed: { completions: number; feedback: number; status: number };
}

export async function runLoad(o: LoadOptions, log: (line: string) => void = () => undefined): Promise<LoadResult> {
  if (o.cases.length < 2) throw new Error('load: need at least 2 FIM cases (one is the other file of the next)');
  const stateDir = o.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'online-load-'));
  const [completionPort, feedbackPort] = [await freePort(), await freePort()];
  const args = ['--model', o.model, '--state-dir', stateDir, '--completion-port', String(completionPort), '--feedback-port', String(feedbackPort), ...o.serveArgs];
  const base = (port: number) => `http://127.0.0.1:${port}`;
  const statusUrl = `${base(feedbackPort)}/api/training/status`;
  let server = startServer(args, o.serverLog);
  try {
    await ready(server, statusUrl);
    log(`[load] online serve ready (state ${stateDir}); ${o.completionClients} completion + ${o.feedbackClients} feedback clients for ${o.durationMs / 1000} s`);
    const tok = loadTokenizer(o.model);
    const count = (t: string) => tok.encode(t, { parseSpecialTokens: false }).length;
    const modelName = RLINF_EXAMPLE.model;
    const bodies = PROMPT_FORMS.map((form) =>
      o.cases.map((c, i) => continueRequestBody(continueShapedPrompt(c, o.cases[(i + 1) % o.cases.length], form, count, o.maxPromptTokens), modelName)),
    );
    // Until the server has answered, the feedback clients report on suggestions it never made (stored, never trained).
    const seeds = bodies[0].slice(0, 16).map((b) => ({ prompt: b.prompt, completion: 'pass' }));
    const worker = new Worker(path.join(__dirname, 'load-clients.js'), {
      workerData: {
        completionUrl: `${base(completionPort)}/v1/completions`,
        feedbackUrl: `${base(feedbackPort)}/api/training/submit`,
        statusUrl,
        headers: continueHeaders(RLINF_EXAMPLE.apiKey),
        feedbackHeaders: { 'Content-Type': 'application/json', Authorization: `Bearer ${RLINF_EXAMPLE.token}`, 'X-Project-ID': RLINF_EXAMPLE.project },
        bodies,
        seeds,
        completionClients: o.completionClients,
        feedbackClients: o.feedbackClients,
        feedbackEveryMs: o.feedbackEveryMs,
        statusEveryMs: o.statusEveryMs,
        durationMs: o.durationMs,
        debounceMs: o.debounceMs,
        modelName,
      },
    });
    const done = new Promise<ClientsResult>((resolve, reject) => {
      worker.once('message', (m: ClientsResult | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
      worker.once('error', reject);
    });
    if (o.kill) {
      await sleep(o.durationMs / 2);
      log(`[load] kill -9 ${server.pid}, then a restart on ${stateDir}`);
      server.kill('SIGKILL');
      await exited(server);
      server = startServer(args, o.serverLog);
      await ready(server, statusUrl);
      log('[load] restarted');
    }
    const r = await done;
    void worker.terminate();
    let final: { updates?: number; events_pending?: number } = {};
    try {
      final = (await (await fetch(statusUrl)).json()) as typeof final;
    } catch {
      /* reported as null */
    }
    server.kill('SIGTERM');
    await exited(server);
    const logged = loggedIds(path.join(stateDir, 'feedback.jsonl'));
    const acked = r.feedback.filter((f) => f.status === 200);
    const counted = acked.filter((f) => logged.has(f.id)).length;
    const answered = r.completions.filter((c) => c.status === 200);
    const served = answered.filter((c) => !c.empty && !c.shed);
    return {
      duration_s: o.durationMs / 1000,
      completion_clients: o.completionClients,
      feedback_clients: o.feedbackClients,
      killed: o.kill,
      completions_answered: answered.length,
      completions_failed: r.completions.length - answered.length + r.failed.completions,
      completion_p50_ms: q(answered.map((c) => c.ms), 0.5),
      completion_p95_ms: q(answered.map((c) => c.ms), 0.95),
      completion_served_p50_ms: q(served.map((c) => c.ms), 0.5),
      completions_shed: answered.filter((c) => c.shed).length,
      share_answered_empty: answered.length === 0 ? null : Math.round((1000 * answered.filter((c) => c.empty).length) / answered.length) / 1000,
      feedback_acked: acked.length,
      feedback_counted: counted,
      feedback_lost: acked.length - counted,
      feedback_failed: r.feedback.length - acked.length + r.failed.feedback,
      feedback_p50_ms: q(acked.map((f) => f.ms), 0.5),
      feedback_p99_ms: q(acked.map((f) => f.ms), 0.99),
      status_calls: r.status.length,
      status_p95_ms: q(r.status, 0.95),
      http_5xx: [...r.completions, ...r.feedback].filter((x) => x.status >= 500).length,
      updates: final.updates ?? null,
      events_pending_at_end: final.events_pending ?? null,
    };
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await exited(server);
    }
    if (!o.stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  }
}
