// The live page of a real run on the tiny model (testing/live-run.ts): its charts and table hold the status' and the
// history's figures, it is self-contained and escaped, and a restart rebuilds it from the logs.
import * as fs from 'fs';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { tempDir } from '@rlhf-code/model/testing';
import { jsonOf, makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { escapeHtml, type HistorySeries } from '@rlhf-code/online-page';
import type { OnlineService } from './service';
import { driveLiveRun, ODD_ARM, startLiveRun } from './testing/live-run';

describe('the live page of a run on the tiny model', () => {
  const TOKEN = 'page-token-7c41f09e';
  let modelDir: string;
  let stateDir: string;
  let service: OnlineService | null = null;
  const logLines: string[] = [];
  beforeAll(async () => {
    initBackend({ quiet: true });
    modelDir = await makeTinyModelDir(7);
    stateDir = tempDir();
  });
  afterAll(async () => {
    await service?.close();
    for (const dir of [stateDir, path.dirname(modelDir)]) fs.rmSync(dir, { recursive: true, force: true });
  });

  const page = async (s: OnlineService, query = '') => {
    const res = await fetch(`${s.feedbackUrl}/?token=${TOKEN}${query}`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const history = async (s: OnlineService, query = ''): Promise<HistorySeries> =>
    jsonOf(fetch(`${s.feedbackUrl}/api/training/history${query}`, { headers: { Authorization: `Bearer ${TOKEN}` } }));
  /** A chart section's SVG. */
  const svgOf = (html: string, id: string) => {
    const m = new RegExp(`<section id="chart-${id}">(.*?)</section>`, 's').exec(html);
    expect(m).not.toBeNull();
    const svg = /<svg[\s\S]*<\/svg>/.exec(m![1]);
    expect(svg).not.toBeNull();
    return svg![0];
  };
  /** The aria-labels of an SVG's data marks of one kind (point, line mark, rule mark, text mark), as vega writes them (`field: value; ...`). */
  const marks = (svg: string, kind = 'point') =>
    [...svg.matchAll(/aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="([^"]*)"/g)].filter((m) => m[2] === kind).map((m) => m[1]);
  /** A number as vega writes it (12 significant digits, U+2212 for minus). */
  const numberIn = (label: string, field: string) => Number(new RegExp(`${field}: ([^;]+)`).exec(label)![1].replace('\u2212', '-'));
  /** vega escapes &, <, > and " in its SVG text and attributes. */
  const vegaEscaped = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const cellOf = (html: string, arm: string, field: string) => {
    const m = new RegExp(`<td data-arm="${escapeHtml(arm).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" data-field="${field}">([^<]*)</td>`).exec(html);
    expect(m).not.toBeNull();
    return m![1];
  };

  test('its charts are drawn with every arm, window, update and version, and its figures are the status\'s', async () => {
    const s = (service = await startLiveRun(modelDir, stateDir, TOKEN, {}, (l) => logLines.push(l)));
    const { posted } = await driveLiveRun(s, TOKEN, 16);
    expect(posted).toBeGreaterThan(8);
    // Requests after the updates (decoding can outrun training: all 16 may have been served by v0).
    await driveLiveRun(s, TOKEN, 4, 16);
    const status = s.status();
    expect(status.updates).toBeGreaterThanOrEqual(1);
    const html = await page(s, '&window=4');
    const series = await history(s, '?window=4');

    // The series add up to the status' counts, arm by arm.
    expect(Object.keys(series.arms).sort()).toEqual(Object.keys(status.acceptance_by_arm).sort());
    for (const [arm, c] of Object.entries(status.acceptance_by_arm)) {
      const sum = (k: 'requests' | 'shown' | 'accepted' | 'silent') => series.arms[arm].reduce((t, w) => t + w[k], 0);
      expect({ requests: sum('requests'), shown: sum('shown'), accepted: sum('accepted'), silent: sum('silent') }).toEqual({ requests: c.requests, shown: c.shown, accepted: c.accepted, silent: c.silent });
      expect(series.arms[arm].every((w) => w.latency_n > 0 && w.latency_ms_p50! > 0)).toBe(true);
      // The page's table shows the status' numbers.
      for (const k of ['requests', 'silent', 'shown', 'accepted', 'rejected', 'no_outcome'] as const) expect(cellOf(html, arm, k)).toBe(String(c[k]));
    }
    expect(series.arms.policy.reduce((t, w) => t + w.accepted, 0)).toBeGreaterThan(series.arms[ODD_ARM].reduce((t, w) => t + w.accepted, 0));
    expect(html).toContain(`<b data-field="policy_version">v${status.policy_version}</b>`);
    expect(series.updates).toHaveLength(status.updates + status.discarded_updates);
    // Version switch points: v0 at the first request, then each newer version where it was first served.
    expect(series.versions[0]).toMatchObject({ version: 0, at: 1 });
    expect(series.versions.length).toBeGreaterThanOrEqual(2);
    series.versions.slice(1).forEach((v, i) => {
      expect(v.version).toBeGreaterThan(series.versions[i].version);
      expect(v.version).toBeLessThanOrEqual(status.policy_version);
      expect(v.at).toBeGreaterThan(series.versions[i].at);
    });

    // Acceptance and utility: one point per window of each arm (acceptance: those with outcomes), with its value.
    const armLabel = (arm: string) => `; arm: ${vegaEscaped(arm)}`;
    for (const [id, field, pick] of [
      ['acceptance', 'accepted / shown', (w: HistorySeries['arms'][string][number]) => w.acceptance_rate],
      ['utility', 'utility / request', (w: HistorySeries['arms'][string][number]) => w.utility_per_request],
    ] as const) {
      const svg = svgOf(html, id);
      for (const arm of Object.keys(series.arms)) {
        const want = series.arms[arm].filter((w) => pick(w) !== null);
        const points = marks(svg).filter((l) => l.startsWith('request number') && l.includes(`; ${field}: `) && l.endsWith(armLabel(arm)));
        expect(points).toHaveLength(want.length);
        want.forEach((w, i) => {
          const label = points[i];
          expect(label).toContain(`request number: ${w.to};`);
          expect(numberIn(label, field)).toBeCloseTo(pick(w)!, 6);
        });
      }
      // a line per arm, the intervals, and the version rules labelled v0, v1, ...
      for (const arm of Object.keys(series.arms)) expect(marks(svg, 'line mark').filter((l) => l.endsWith(armLabel(arm)))).toHaveLength(1);
      expect(marks(svg, 'rule mark').filter((l) => /; lo: .*; hi: .*; arm: /.test(l))).toHaveLength(
        Object.values(series.arms).flat().filter((w) => (id === 'acceptance' ? w.acceptance_ci95 : w.utility_ci95) !== null).length,
      );
      for (const v of series.versions) expect(marks(svg, 'text mark')).toContain(`request number: ${v.at}; label: v${v.version}`);
    }
    // Updates: loss, KL and reward mean per update.
    const updates = marks(svgOf(html, 'updates')).filter((l) => l.startsWith('update: '));
    expect(updates.length).toBe(series.updates.reduce((t, u) => t + [u.loss, u.kl, u.reward_mean].filter((x) => x !== null).length, 0));
    const first = updates.filter((l) => l.startsWith('update: 1;')).map((l) => numberIn(l, 'value'));
    for (const want of [series.updates[0].loss!, series.updates[0].kl!, series.updates[0].reward_mean!]) expect(first.some((v) => Math.abs(v - want) < 1e-9)).toBe(true);
    // The gate: judged, hidden, explored per window of the policy's requests.
    const gate = marks(svgOf(html, 'gate')).filter((l) => /; suggestions per window: \d+; gate: (judged|hidden|explored)$/.test(l));
    expect(gate).toHaveLength(3 * series.gate.length);
    expect(series.gate.reduce((t, w) => t + w.requests, 0)).toBe(status.acceptance_by_arm.policy.requests);
    // Latency: p50 and p95 per window of each arm.
    const latency = marks(svgOf(html, 'latency')).filter((l) => /; ms: \d+; arm: .*; stat: p(50|95)$/.test(l));
    expect(latency).toHaveLength(2 * Object.values(series.arms).reduce((t, ws) => t + ws.length, 0));

    // Self-contained and escaped: no script or style from elsewhere, the odd arm name never raw, no token in the page.
    expect(html.match(/\s(?:src|href|xlink:href|action)=|<link|<img|<iframe|@import|url\(/)).toBeNull();
    expect(html.includes(ODD_ARM)).toBe(false);
    expect(html).toContain(`<th scope="row" data-arm="${escapeHtml(ODD_ARM)}">${escapeHtml(ODD_ARM)}</th>`);
    expect(html.includes(TOKEN)).toBe(false);
    expect(html).toMatch(/<script>.*fetch\(location\.href/s);
    expect((await page(s, '&refresh=0')).includes('<script')).toBe(false);
  });

  test('a restart rebuilds the page from the logs; the token is in no file and no log line', async () => {
    const before = await history(service!, '?window=4');
    await service!.close();
    service = null;
    const s = (service = await startLiveRun(modelDir, stateDir, TOKEN, {}, (l) => logLines.push(l)));
    const after = await history(s, '?window=4');
    expect(after.arms).toEqual(before.arms);
    expect(after.versions).toEqual(before.versions);
    expect(after.updates).toEqual(before.updates);
    expect(after.gate.map(({ requests, hidden }) => ({ requests, hidden }))).toEqual(before.gate.map(({ requests, hidden }) => ({ requests, hidden })));
    const html = await page(s);
    expect(marks(svgOf(html, 'acceptance')).length).toBeGreaterThan(0);
    const files = fs.readdirSync(stateDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect(fs.readFileSync(path.join(f.parentPath, f.name)).includes(TOKEN)).toBe(false);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(TOKEN);
  });
});
