// The live page's charts as vega-lite specs (the project's plotting library, as libs/eval's chart.ts), drawn to SVG by
// chart-worker.js. Every chart's x axis is the request number (requests.jsonl's line): a point is a window of
// consecutive requests, plotted at its last one; dashed rules mark where each policy version was first served.
//   acceptance   accepted / shown per arm, Wilson 95% interval
//   utility      Cursor's utility per request per arm (+0.75 accept, -0.25 shown reject, 0 silent), mean +- 1.96 SE
//   updates      loss, KL(old || new) and reward mean per update (x: the update), discarded ones in red
//   gate         the show gate's verdicts per window of the policy arms' requests (judged, hidden, explored), the
//                windows where it was active shaded, its threshold on P(accept) on the right axis
//   latency      answer time p50 and p95 per arm (ms)
// A chart with nothing to show is null (the page says so instead).
import type { HistorySeries } from './history';

type Spec = Record<string, unknown>;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const WIDTH = 560;
const X_TITLE = 'request number';
const x = (field = 'x') => ({ field, type: 'quantitative', title: X_TITLE, scale: { zero: false } });

/** The arms in a fixed order, so that an arm has the same colour in every chart. */
const armColor = (arms: readonly string[]) => ({ field: 'arm', type: 'nominal', title: 'arm', scale: { domain: arms } });

/** Dashed rules, labelled, where each policy version was first served. */
function versionLayers(s: HistorySeries): Spec[] {
  if (s.versions.length === 0) return [];
  const values = s.versions.map((v) => ({ x: v.at, label: `v${v.version}` }));
  return [
    { data: { values }, mark: { type: 'rule', strokeDash: [4, 3], color: '#888' }, encoding: { x: x() } },
    { data: { values }, mark: { type: 'text', align: 'left', baseline: 'top', dx: 2, dy: 2, fontSize: 9, color: '#555' }, encoding: { x: x(), y: { value: 0 }, text: { field: 'label' } } },
  ];
}

/** A chart's title; a long subtitle goes on several lines (one line wider than the chart would widen the SVG). */
const title = (text: string, subtitle: string | string[]) => ({ text, subtitle, anchor: 'start' });

/** A rate or mean per window per arm: points joined by lines, the 95% interval as a vertical rule. */
function perArm(s: HistorySeries, pick: (w: HistorySeries['arms'][string][number]) => { value: number | null; ci: [number, number] | null }, y: Spec, head: Spec, extra: Spec[] = []): Spec | null {
  const arms = Object.keys(s.arms);
  const points: Spec[] = [];
  const intervals: Spec[] = [];
  for (const arm of arms) {
    for (const w of s.arms[arm]) {
      const { value, ci } = pick(w);
      if (value === null) continue;
      points.push({ arm, x: w.to, value, n: w.requests });
      if (ci) intervals.push({ arm, x: w.to, lo: ci[0], hi: ci[1] });
    }
  }
  if (points.length === 0) return null;
  return {
    $schema: SCHEMA,
    title: head,
    width: WIDTH,
    height: 180,
    layer: [
      ...extra,
      ...versionLayers(s),
      { data: { values: intervals }, mark: { type: 'rule', opacity: 0.6 }, encoding: { x: x(), y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color: armColor(arms) } },
      { data: { values: points }, mark: { type: 'line', point: true }, encoding: { x: x(), y: { field: 'value', type: 'quantitative', ...y }, color: armColor(arms) } },
    ],
    config: { background: 'white' },
  };
}

export function acceptanceSpec(s: HistorySeries): Spec | null {
  return perArm(
    s,
    (w) => ({ value: w.acceptance_rate, ci: w.acceptance_ci95 }),
    { title: 'accepted / shown', scale: { domain: [0, 1] } },
    title('Acceptance of shown suggestions', `per arm, windows of ${s.window} requests of the arm, Wilson 95% intervals`),
  );
}

export function utilitySpec(s: HistorySeries): Spec | null {
  const zero = { data: { values: [{ y: 0 }] }, mark: { type: 'rule', color: '#bbb' }, encoding: { y: { field: 'y', type: 'quantitative' } } };
  return perArm(
    s,
    (w) => ({ value: w.utility_per_request, ci: w.utility_ci95 }),
    { title: 'utility / request' },
    title("Cursor's utility per request (+0.75 accept, -0.25 shown reject, 0 silent)", `per arm, windows of ${s.window} requests of the arm, mean ± 1.96 SE`),
    [zero],
  );
}

export function latencySpec(s: HistorySeries): Spec | null {
  const arms = Object.keys(s.arms);
  const values = arms.flatMap((arm) =>
    s.arms[arm].flatMap((w) => [
      ...(w.latency_ms_p50 === null ? [] : [{ arm, x: w.to, stat: 'p50', ms: w.latency_ms_p50 }]),
      ...(w.latency_ms_p95 === null ? [] : [{ arm, x: w.to, stat: 'p95', ms: w.latency_ms_p95 }]),
    ]),
  );
  if (values.length === 0) return null;
  return {
    $schema: SCHEMA,
    title: title('Answer time', [`per arm, p50 (solid) and p95 (dashed) over windows of ${s.window} requests of the arm`, 'wall time from the request to the end of the answer']),
    width: WIDTH,
    height: 160,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: x(),
      y: { field: 'ms', type: 'quantitative', title: 'ms' },
      color: armColor(arms),
      strokeDash: { field: 'stat', type: 'nominal', title: null, scale: { domain: ['p50', 'p95'] } },
    },
    config: { background: 'white' },
  };
}

export function gateSpec(s: HistorySeries): Spec | null {
  if (s.gate.length === 0) return null;
  const verdicts = ['judged', 'hidden', 'explored'] as const;
  const counts = s.gate.flatMap((w) => verdicts.map((verdict) => ({ x: w.to, verdict, count: w[verdict] })));
  const active = s.gate.filter((w) => w.active).map((w) => ({ from: w.from - 1, to: w.to })); // from the previous window's end: no gaps
  const thresholds = s.gate.filter((w) => w.threshold !== null).map((w) => ({ x: w.to, threshold: w.threshold }));
  return {
    $schema: SCHEMA,
    title: title('Show gate', [`verdicts per window of ${s.window} requests of the policy arms`, 'shaded: active (may hide); dashed black: its threshold on P(accept), right axis']),
    width: WIDTH,
    height: 160,
    layer: [
      ...(active.length > 0 ? [{ data: { values: active }, mark: { type: 'rect', color: '#2ca02c', opacity: 0.12 }, encoding: { x: x('from'), x2: { field: 'to' } } }] : []),
      ...versionLayers(s),
      {
        data: { values: counts },
        mark: { type: 'line', point: true },
        encoding: {
          x: x(),
          y: { field: 'count', type: 'quantitative', title: 'suggestions per window', scale: { domain: [0, Math.max(1, ...counts.map((c) => c.count))] } },
          color: { field: 'verdict', type: 'nominal', title: 'gate', scale: { domain: [...verdicts], range: ['#4c78a8', '#e45756', '#f58518'] } },
        },
      },
      ...(thresholds.length > 0
        ? [{ data: { values: thresholds }, mark: { type: 'line', color: 'black', strokeDash: [2, 2] }, encoding: { x: x(), y: { field: 'threshold', type: 'quantitative', title: 'threshold', scale: { domain: [0, 1] }, axis: { orient: 'right' } } } }]
        : []),
    ],
    resolve: { scale: { y: 'independent' } },
    config: { background: 'white' },
  };
}

export function updatesSpec(s: HistorySeries): Spec | null {
  const metrics = [
    ['loss', 'loss'],
    ['kl', 'KL(old ‖ new)'],
    ['reward_mean', 'reward mean'],
  ] as const;
  const values = s.updates.flatMap((u) =>
    metrics.flatMap(([key, label]) => (u[key] === null ? [] : [{ step: u.step, metric: label, value: u[key], version: u.policy_version, update: u.discarded === null ? 'kept' : `discarded` }])),
  );
  if (values.length === 0) return null;
  const step = { field: 'step', type: 'quantitative', title: 'update' };
  return {
    $schema: SCHEMA,
    title: title('Updates', ['per update: its loss, KL(old ‖ new) on its batch and its mean reward', 'each kept update publishes the next policy version; a discarded one (red) keeps the last']),
    data: { values },
    facet: { row: { field: 'metric', type: 'nominal', title: null, sort: metrics.map(([, label]) => label) } },
    spec: {
      width: WIDTH,
      height: 90,
      layer: [
        { mark: { type: 'line', color: '#999' }, encoding: { x: step, y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } } } },
        {
          mark: { type: 'point', filled: true, size: 40 },
          encoding: {
            x: step,
            y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
            color: { field: 'update', type: 'nominal', title: null, scale: { domain: ['kept', 'discarded'], range: ['#4c78a8', '#e45756'] } },
          },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
    config: { background: 'white' },
  };
}

/** The page's charts in order: id, heading, how to read it, and its spec (null: nothing to draw yet). */
export function liveCharts(s: HistorySeries): { id: string; heading: string; read: string; spec: Spec | null }[] {
  return [
    {
      id: 'acceptance',
      heading: 'Acceptance per arm',
      read:
        'Share of the suggestions Continue showed that were accepted, per window of an arm\'s requests; the vertical bars are Wilson 95% intervals. ' +
        'Arms differ when their bars do not overlap. The newest window may still be waiting for rejections (Continue posts them 10 s after showing).',
      spec: acceptanceSpec(s),
    },
    {
      id: 'utility',
      heading: 'Utility per request per arm',
      read:
        'Cursor\'s reward per request, silent ones included: above 0 when suggestions are accepted more than a quarter of the time. ' +
        'Staying silent scores 0, so a gate or a policy that hides bad suggestions raises it.',
      spec: utilitySpec(s),
    },
    {
      id: 'updates',
      heading: 'Updates and policy versions',
      read: 'One point per update. KL(old ‖ new) above training.maxUpdateKl discards the update. The dashed rules in the other charts mark where each version was first served.',
      spec: updatesSpec(s),
    },
    {
      id: 'gate',
      heading: 'Show gate',
      read:
        'Policy suggestions the gate judged, hid, and showed although below its threshold (explored), per window. It judges only while active (shaded). ' +
        'Hidden suggestions count as silent in the acceptance figures.',
      spec: gateSpec(s),
    },
    {
      id: 'latency',
      heading: 'Answer time',
      read: 'Continue shows a suggestion only when it arrives within about 375 ms; multi-line ones are cut at the first line arriving after 150 ms.',
      spec: latencySpec(s),
    },
  ];
}
