// The held-out A/B measurement's numbers (libs/online-bench experiment.ts): every position served once by every arm, one record per
// request {position, file, arm, shown, accepted} (the simulator's records).
//
// Per arm: accepted per request, Cursor's utility per request (accepted +0.75, shown and rejected -0.25, silent 0: the
// training reward with p = 0.25, a suggestion worth showing when accepted more than a quarter of the time) and the
// acceptance of shown suggestions with its Wilson 95% interval.
// Per contrast (an arm against another, e.g. against `start`), over the positions both served: the difference of
// the two arms' figures, with
//   ci95  the cluster bootstrap's 95% percentile interval, resampling FILES (positions of one file are not
//         independent: the same code, the same style, often the same few names), seeded;
//   p     two-sided sign-flip permutation test of the per-position differences (exact for up to 16 non-zero ones),
//         testing that the two arms are exchangeable at every position. For the acceptance of shown suggestions, a
//         ratio with no per-position difference, there is no p: read its interval.
import { markdownTable } from '@rlhf-code/cli';
import { clusterBootstrap, signFlipTest } from '@rlhf-code/stats';
import { withRates, zeroCounts, type CountsWithRates, type SimulationRecord } from '@rlhf-code/continue';
import type { ArmSpec } from './arms';

/** Cursor's Tab reward per request: 1 - p for an accept, -p for a shown reject, 0 for silence (p = 0.25). */
export const UTILITY = { accepted: 0.75, rejected: -0.25 } as const;

const utilityOf = (r: Pick<SimulationRecord, 'shown' | 'accepted'>) => (r.accepted ? UTILITY.accepted : r.shown ? UTILITY.rejected : 0);

/** Cursor's utility per request of a group's counts (null without requests). */
export const utilityPerRequest = (c: Pick<CountsWithRates, 'requests' | 'accepted' | 'rejected'>) =>
  c.requests > 0 ? (UTILITY.accepted * c.accepted + UTILITY.rejected * c.rejected) / c.requests : null;

export interface ArmFigures extends CountsWithRates {
  /** Cursor's utility per request (see UTILITY). */
  utility_per_request: number | null;
}

/** One figure of two arms on the same positions: each arm's value, their difference and its uncertainty. */
export interface PairedFigure {
  arm: number | null;
  versus: number | null;
  diff: number | null;
  /** Cluster bootstrap over files, 95% percentile interval. */
  ci95: [number, number] | null;
  /** Sign-flip permutation test over positions, two-sided; null for a ratio (acceptance of shown). */
  p: number | null;
}

export interface Contrast {
  arm: string;
  versus: string;
  /** Positions both arms served, and the files they are in (the bootstrap's clusters). */
  positions: number;
  files: number;
  accepted_per_request: PairedFigure;
  utility_per_request: PairedFigure;
  acceptance_rate: PairedFigure;
}

export interface ArmAnalysis {
  arms: Record<string, ArmFigures>;
  contrasts: Contrast[];
  method: { bootstrap: string; resamples: number; test: string; seed: number };
}

export interface AnalysisOptions {
  /** Bootstrap resamples (default 2,000). */
  resamples?: number;
  /** Seeds the bootstrap and the permutation test. */
  seed?: number;
}

/** The per-arm figures and the contrasts `[arm, versus]` of an A/B measurement's records. */
export function analyseArms(records: readonly SimulationRecord[], contrasts: readonly (readonly [string, string])[], opts: AnalysisOptions = {}): ArmAnalysis {
  const resamples = opts.resamples ?? 2000;
  const seed = opts.seed ?? 0;
  // arm -> position -> record
  const byArm = new Map<string, Map<number, SimulationRecord>>();
  for (const r of records) {
    let m = byArm.get(r.arm);
    if (!m) byArm.set(r.arm, (m = new Map()));
    if (m.has(r.position)) throw new Error(`analyseArms: position ${r.position} was served twice by arm "${r.arm}"; a paired comparison needs one request per position and arm`);
    m.set(r.position, r);
  }
  const arms: Record<string, ArmFigures> = {};
  for (const [arm, m] of byArm) {
    const rs = [...m.values()];
    const c = zeroCounts();
    for (const r of rs) {
      c.requests += 1;
      if (!r.shown) {
        c.silent += 1;
        continue;
      }
      c.shown += 1;
      if (r.accepted) c.accepted += 1;
      else c.rejected += 1;
    }
    arms[arm] = { ...withRates(c), utility_per_request: utilityPerRequest(c) };
  }
  const out: Contrast[] = contrasts.map(([arm, versus], k) => {
    const a = byArm.get(arm);
    const b = byArm.get(versus);
    if (!a || !b) throw new Error(`analyseArms: contrast ${arm} - ${versus}: no records of arm "${!a ? arm : versus}" (arms: ${[...byArm.keys()].join(', ')})`);
    const pairs = [...a.values()].filter((r) => b.has(r.position)).map((r) => ({ a: r, b: b.get(r.position)! }));
    const files = pairs.map((x) => x.a.file);
    const s = { resamples, seed: `${seed}:${k}` };
    // A per-position value's mean for each arm and their paired difference.
    const meanFigure = (value: (r: SimulationRecord) => number): PairedFigure => {
      if (pairs.length === 0) return { arm: null, versus: null, diff: null, ci95: null, p: null };
      const va = pairs.map((x) => value(x.a));
      const vb = pairs.map((x) => value(x.b));
      const d = va.map((x, i) => x - vb[i]);
      const weighted = (w: readonly number[]) => {
        const n = w.reduce((t, x) => t + x, 0);
        return n === 0 ? null : w.reduce((t, x, i) => t + x * d[i], 0) / n;
      };
      const mean = (xs: number[]) => xs.reduce((t, x) => t + x, 0) / xs.length;
      return { arm: mean(va), versus: mean(vb), diff: mean(d), ci95: clusterBootstrap(files, weighted, s), p: signFlipTest(d, s).p };
    };
    // Acceptance of shown: a ratio of sums, differenced; resampled the same way, no per-position test.
    const rate = (w: readonly number[] | null, side: 'a' | 'b') => {
      let shown = 0;
      let accepted = 0;
      pairs.forEach((x, i) => {
        const wi = w ? w[i] : 1;
        if (x[side].shown) shown += wi;
        if (x[side].accepted) accepted += wi;
      });
      return shown === 0 ? null : accepted / shown;
    };
    const [ra, rb] = [rate(null, 'a'), rate(null, 'b')];
    const rateDiff = (w: readonly number[] | null) => {
      const [x, y] = [rate(w, 'a'), rate(w, 'b')];
      return x === null || y === null ? null : x - y;
    };
    return {
      arm,
      versus,
      positions: pairs.length,
      files: new Set(files).size,
      accepted_per_request: meanFigure((r) => (r.accepted ? 1 : 0)),
      utility_per_request: meanFigure(utilityOf),
      acceptance_rate: { arm: ra, versus: rb, diff: rateDiff(null), ci95: clusterBootstrap(files, rateDiff, s), p: null },
    };
  });
  return {
    arms,
    contrasts: out,
    method: {
      bootstrap: 'cluster bootstrap over files, 95% percentile interval',
      resamples,
      test: 'two-sided sign-flip permutation test over positions (exact up to 16 non-zero differences, else 10,000 draws)',
      seed,
    },
  };
}

const pct = (x: number | null, digits = 1) => (x === null ? 'n/a' : `${(100 * x).toFixed(digits)}%`);
const num = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
const signed = (x: number | null, f: (v: number) => string) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${f(x)}`);

/** What an arm is, for the table: its model and mechanisms. */
export function describeArm(a: ArmSpec): string {
  const m = [a.holdCut && 'hold-cut', a.rank && 'rank', a.hide && 'hide'].filter(Boolean);
  return `${a.model === 'policy' ? 'trained policy' : 'start model'}${m.length ? `, ${m.join(' + ')}` : ', streamed'}`;
}

/** The analysis as two markdown tables: the arms, then the contrasts (difference [95% CI over files], p over positions). */
export function formatArmAnalysis(a: ArmAnalysis, specs: readonly ArmSpec[] = []): string {
  // The arms in the order of `specs`, then any others.
  const names = [...specs.map((s) => s.name).filter((n) => n in a.arms), ...Object.keys(a.arms).filter((n) => !specs.some((s) => s.name === n))];
  const arms = markdownTable(
    ['arm', 'serves', 'requests', 'shown', 'accepted', 'accepted / shown (95% CI)', 'accepted / request', 'utility / request'],
    names.map((name) => {
      const c = a.arms[name];
      const spec = specs.find((s) => s.name === name);
      const ci = c.acceptance_ci95 ? ` [${pct(c.acceptance_ci95[0])}, ${pct(c.acceptance_ci95[1])}]` : '';
      return [name, spec ? describeArm(spec) : '', String(c.requests), String(c.shown), String(c.accepted), `${pct(c.acceptance_rate)}${ci}`, pct(c.accepted_per_request), num(c.utility_per_request)];
    }),
    { align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'] },
  );
  const pp = (x: number) => `${(100 * x).toFixed(1)} pp`;
  const u = (x: number) => x.toFixed(3);
  const cell = (f: PairedFigure, fmt: (v: number) => string) =>
    `${signed(f.diff, fmt)}${f.ci95 ? ` [${signed(f.ci95[0], fmt)}, ${signed(f.ci95[1], fmt)}]` : ''}${f.p === null ? '' : `, p ${f.p.toPrecision(2)}`}`;
  const contrasts = markdownTable(
    ['contrast', 'positions (files)', 'accepted / request', 'utility / request', 'accepted / shown'],
    a.contrasts.map((c) => [`${c.arm} - ${c.versus}`, `${c.positions} (${c.files})`, cell(c.accepted_per_request, pp), cell(c.utility_per_request, u), cell(c.acceptance_rate, pp)]),
  );
  return [arms, '', contrasts, '', `Differences with the ${a.method.bootstrap} (${a.method.resamples} resamples) and the ${a.method.test}.`].join('\n');
}
