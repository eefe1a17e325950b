// The live page's parts: the run's history in windows, the charts' specs, the page's query and escaping, the SVG
// renderer, and its routes on the feedback server. A page of a real run: libs/online live-run.test.ts.
import { parseOnlineConfig } from '@rlhf-code/online-core';
import { jsonOf, servedRecord } from '@rlhf-code/online-core/testing';
import { buildFeedbackServer, type LoggedEvent } from '@rlhf-code/online-feedback';
import { MAX_WINDOWS, RunHistory, type HistorySeries } from './history';
import { liveCharts } from './live-charts';
import { escapeHtml, parsePageQuery, SvgRenderer } from './live-page';

const modelOf = (arm: string) => (arm.startsWith('start') ? 'start' : 'policy');
const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const outcome = (id: string, arm: string, accepted: boolean, source: 'continue' | 'server' = 'continue'): LoggedEvent => ({
  type: 'event',
  seq: 0,
  received: '',
  source,
  served: { id, version: 0, arm },
  skip: null,
  outcome: { prompt: 'p', completion: 'c', accepted },
});

describe('RunHistory', () => {
  test('windows of an arm: counts, acceptance with its Wilson interval, utility per request with its normal interval, answer times', () => {
    const h = new RunHistory(modelOf);
    // 5 policy requests: accepted, rejected, accepted, silent (blank), no outcome; answer times 100..500 ms, one aborted.
    const ms = [100, 200, 300, 400, 500];
    ms.forEach((d, i) => h.recordServed(servedRecord(`p${i}`, `q${i}`, { time: at(i), durationMs: d, blank: i === 3, finishReason: i === 4 ? 'abort' : 'stop' })));
    h.recordServed(servedRecord('s0', 'r0', { arm: 'start', time: at(9), durationMs: 50 }));
    h.recordOutcome(outcome('p0', 'policy', true));
    h.recordOutcome(outcome('p1', 'policy', false));
    h.recordOutcome(outcome('p2', 'policy', true));
    h.recordOutcome(outcome('p3', 'policy', false, 'server')); // the server's own silent sample: not an outcome
    h.recordOutcome(outcome('nobody', 'policy', true)); // about nothing in memory: ignored
    const s = h.series(3);
    expect(s.window).toBe(3);
    expect(s.requests_total).toBe(6);
    expect(s.first_request).toBe(1);
    expect(Object.keys(s.arms)).toEqual(['policy', 'start']);
    const [w1, w2] = s.arms.policy;
    expect(w1).toMatchObject({ from: 1, to: 3, requests: 3, silent: 0, shown: 3, accepted: 2, rejected: 1, time: at(2) });
    expect(w1.acceptance_rate).toBeCloseTo(2 / 3);
    // Wilson 95% for 2 of 3
    expect(w1.acceptance_ci95![0]).toBeCloseTo(0.2077, 3);
    expect(w1.acceptance_ci95![1]).toBeCloseTo(0.9385, 3);
    // utility: 0.75, -0.25, 0.75 -> mean 0.4167, SE = sd / sqrt(3) = 0.57735 / sqrt(3)
    expect(w1.utility_per_request).toBeCloseTo(1.25 / 3);
    const half = 1.96 * (Math.sqrt(1 / 3) / Math.sqrt(3));
    expect(w1.utility_ci95![0]).toBeCloseTo(1.25 / 3 - half);
    expect(w1.utility_ci95![1]).toBeCloseTo(1.25 / 3 + half);
    expect(w1).toMatchObject({ latency_n: 3, latency_ms_p50: 200, latency_ms_p95: 290 }); // stats' quantile: 200 + 0.9 * (300 - 200)
    // The partial last window: a silent request and one without outcome, the aborted answer has no time.
    expect(w2).toMatchObject({ from: 4, to: 5, requests: 2, silent: 1, shown: 0, acceptance_rate: null, acceptance_ci95: null, utility_per_request: 0, latency_n: 1, latency_ms_p50: 400 });
    expect(w2.utility_ci95).toEqual([0, 0]);
    expect(s.arms.start).toEqual([expect.objectContaining({ from: 6, to: 6, requests: 1, shown: 0, utility_ci95: null, latency_ms_p50: 50 })]);
  });

  test('the gate verdicts, where each policy version was first served, and the updates', () => {
    const h = new RunHistory(modelOf);
    const verdicts = [null, 'shown', 'explored', 'hidden', 'shown', null] as const;
    verdicts.forEach((v, i) => {
      const id = `g${i}`;
      if (v === 'hidden') h.noteGate(id, { show: false, explored: false });
      else if (v) h.noteGate(id, { show: true, explored: v === 'explored' });
      h.recordServed(servedRecord(id, id, { version: i < 4 ? 0 : 1, gated: v === 'hidden', time: at(i) }), { active: i > 0, threshold: i > 0 ? 0.1 * i : null });
    });
    h.recordServed(servedRecord('old-hidden', 'x', { gated: true, version: 2 })); // a replayed record: hidden, state unknown
    h.recordServed(servedRecord('start-0', 'y', { arm: 'start', version: 0 })); // not a policy arm: no gate, no version
    const before = h.revision;
    h.recordUpdate({ step: 1, policy_version: 1, time: at(3), loss: 0.5, kl: 0.01, reward_mean: 0.2, discarded: null });
    h.recordUpdate({ step: 2, policy_version: 1, loss: null, kl: 9, reward_mean: -0.1, discarded: 'kl' });
    h.recordUpdate({ no: 'step' });
    expect(h.revision).toBe(before + 2);
    const s = h.series(4);
    expect(s.gate).toEqual([
      { from: 1, to: 4, time: at(3), requests: 4, judged: 3, hidden: 1, explored: 1, active: true, threshold: 0.30000000000000004 },
      expect.objectContaining({ from: 5, to: 7, requests: 3, judged: 2, hidden: 1, explored: 0, active: null, threshold: null }),
    ]);
    expect(s.versions).toEqual([
      { version: 0, at: 1, time: at(0) },
      { version: 1, at: 5, time: at(4) },
      { version: 2, at: 7, time: expect.any(String) },
    ]);
    expect(s.updates).toEqual([
      expect.objectContaining({ step: 1, policy_version: 1, loss: 0.5, kl: 0.01, reward_mean: 0.2, discarded: null, time: at(3) }),
      expect.objectContaining({ step: 2, loss: null, kl: 9, discarded: 'kl', time: null }),
    ]);
  });

  test('bounded: the newest rows and updates only, at most MAX_WINDOWS windows, request numbers kept', () => {
    const h = new RunHistory(modelOf, 10, 3);
    for (let i = 0; i < 30; i++) h.recordServed(servedRecord(`r${i}`, `q${i}`));
    h.recordOutcome(outcome('r0', 'policy', true)); // dropped from memory
    h.recordOutcome(outcome('r29', 'policy', true));
    for (let step = 1; step <= 5; step++) h.recordUpdate({ step, policy_version: step });
    const s = h.series(100);
    expect(s.requests_total).toBe(30);
    expect(s.first_request).toBeGreaterThan(15);
    expect(s.first_request).toBeLessThanOrEqual(21);
    expect(s.arms.policy[0]).toMatchObject({ from: s.first_request, to: 30, accepted: 1, requests: 31 - s.first_request });
    expect(s.updates.map((u) => u.step)).toEqual([3, 4, 5]);
    const many = new RunHistory(modelOf);
    for (let i = 0; i < 3 * MAX_WINDOWS; i++) many.recordServed(servedRecord(`m${i}`, `m${i}`));
    const fine = many.series(1);
    expect(fine.window).toBe(3);
    expect(fine.arms.policy).toHaveLength(MAX_WINDOWS);
    expect(many.defaultWindow()).toBe(20); // 600 requests of one arm: 30 windows
    expect(new RunHistory(modelOf).defaultWindow()).toBe(10);
  });
});

describe('live page parts', () => {
  test('no chart without data; query parameters checked; HTML escaped', () => {
    const empty = new RunHistory(modelOf).series();
    expect(liveCharts(empty).map((c) => [c.id, c.spec])).toEqual([
      ['acceptance', null],
      ['utility', null],
      ['updates', null],
      ['gate', null],
      ['latency', null],
    ]);
    expect(parsePageQuery({})).toEqual({ window: undefined, refresh: 10 });
    expect(parsePageQuery({ window: '25', refresh: '0', token: 'x' })).toEqual({ window: 25, refresh: 0 });
    expect(() => parsePageQuery({ window: '2.5' })).toThrow('window must be an integer');
    expect(() => parsePageQuery({ refresh: ['1', '2'] })).toThrow('refresh must be an integer');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  test('the renderer draws vega-lite specs to SVG in its worker, and says why it cannot', async () => {
    const r = new SvgRenderer();
    try {
      const spec = { data: { values: [{ a: 1, b: 2 }] }, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' }, y: { field: 'b', type: 'quantitative' } } };
      const [svg] = await r.render([spec]);
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('aria-label="a: 1; b: 2"');
      await expect(r.render([{ mark: 'no-such-mark' }])).rejects.toThrow(/^drawing the charts failed: /);
      expect((await r.render([spec]))[0]).toBe(svg); // a failure does not stop later charts
    } finally {
      await r.close();
    }
  });

  test('GET / and /api/training/history are behind the token (the page also takes ?token=); the status stays open', async () => {
    const page = { html: async (q: unknown) => `page ${parsePageQuery(q).window}`, history: (q: unknown) => ({ window: parsePageQuery(q).window }) };
    const feedback = parseOnlineConfig({ feedback: { tokens: ['tok-123456'] } }).feedback;
    const server = async (tokens: string[]) => {
      const app = buildFeedbackServer({ config: { ...feedback, tokens }, page, status: () => ({ ok: 1 }), submit: async () => ({ duplicate: false, queuePosition: 0 }), ignored: () => undefined });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      return { app, get: (p: string, headers: Record<string, string> = {}) => fetch(url + p, { headers }) };
    };
    const { app, get } = await server(feedback.tokens);
    const bearer = { Authorization: 'Bearer tok-123456' };
    try {
      expect((await get('/')).status).toBe(401);
      expect((await jsonOf(get('/'))).error.message).toContain('/?token=');
      const wrong = await get('/?token=wrong-token');
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).not.toContain('wrong-token');
      const ok = await get('/?token=tok-123456&window=7');
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('page 7');
      expect(ok.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(ok.headers.get('cache-control')).toBe('no-store');
      expect(ok.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect((await get('/', bearer)).status).toBe(200);
      expect((await get('/api/training/history')).status).toBe(401);
      expect((await get('/api/training/history?token=tok-123456')).status).toBe(401); // the header only
      expect(await jsonOf(get('/api/training/history?window=5', bearer))).toEqual({ window: 5 });
      const bad = await get('/api/training/history?window=0', bearer);
      expect(bad.status).toBe(400);
      expect((await jsonOf(bad)).error.field).toBe('window');
      expect((await jsonOf(get('/?token=tok-123456&refresh=x'))).error.field).toBe('refresh');
      expect(await jsonOf(get('/api/training/status'))).toEqual({ ok: 1 });
    } finally {
      await app.close();
    }
    const open = await server([]);
    expect((await open.get('/')).status).toBe(200);
    await open.app.close();
  });
});
