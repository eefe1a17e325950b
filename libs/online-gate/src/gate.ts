// The show gate: a contextual filter, learnt online, that decides whether a policy suggestion is worth showing.
//
// Copilot's "contextual filter" idea: a small logistic regression on features of the suggestion in its file predicts
// P(accepted); suggestions below a threshold are answered with an empty completion (Continue then shows nothing).
// The gate is never told who the user is: it is fitted from the accept / reject outcomes alone, so for a user who
// rejects what does not compile it learns the compile features, for one who rejects comments the comment feature,
// for one who wants the exact next line the model's confidence, the length features and whether the names it uses
// exist in the file.
//
//   features   what a user can see in the suggestion and its file, and the model's confidence in it
//              (python-features.ts)
//   fit        L2-regularised logistic regression on standardised features (@rlhf-code/stats logistic.ts), refitted after
//              every `refitEvery` new outcomes, once `minOutcomes` with at least `minEach` accepted and rejected exist;
//              the penalty chosen by cross-validated log-likelihood (an overfitted gate is overconfident, and hides
//              more accepts than its budget says)
//   threshold  hide the least likely suggestions that together hold at most `maxLostAccepts` of the expected accepts
//              (by the fitted probabilities, over the recent policy suggestions served, hidden ones included):
//              acceptance of what is shown rises while accepted per request falls by at most that share
//   rank       while it is active, the server samples `candidates` suggestions per request in one batch and the gate
//              judges only the one it rates most likely to be accepted (best of k): the others are never shown
//   explore    a hidden suggestion is still shown with probability `explore`, so the gate keeps seeing outcomes of
//              what it would hide (a held-out measurement serves with explore 0)
//   validated  it hides only while hiding holds up out of sample: 5-fold cross-validation on its outcomes (fit and
//              threshold on four folds, judge the fifth) must find what it would hide accepted less often than what it
//              would show (Fisher's exact test, p < `validateP`); for a user whose choices the features do not predict
//              (a coin flip) it stays off instead of hiding noise
//
// Observations (features and the outcome, numbers only: no code) go to <stateDir>/gate.jsonl and are replayed on a
// restart; a checkpoint folder gets the fitted gate as gate.json, which a service started on that folder begins with.
import * as fs from 'fs';
import * as path from 'path';
import { resumableRng, type Rng } from '@rlhf-code/model';
import { chooseL2ByCv, fisherExact, fitLogistic, kFolds, logisticProbability, type LogisticFit } from '@rlhf-code/stats';
import { readJsonLines, type GateConfig, type GateStatus, type Validation } from '@rlhf-code/online-core';
import { GATE_FEATURES } from './python-features';

/** A fitted gate: standardisation, weights (bias first) and the show threshold on P(accept). */
export interface GateModel extends LogisticFit {
  features: string[];
  threshold: number;
  /** The L2 penalty it was fitted with. */
  l2?: number;
  /** Its cross-validation (crossValidate), and whether that allows it to hide. */
  validation: Validation;
  validated: boolean;
}

/**
 * The largest probability t such that the outcomes with P(accept) <= t hold at most `share` of the expected accepts
 * (the sum of the probabilities): hiding them costs at most that share of the accepts.
 */
export function lostAcceptsThreshold(probs: readonly number[], share: number): number {
  const sorted = [...probs].sort((a, b) => a - b);
  const total = sorted.reduce((s, p) => s + p, 0);
  let cum = 0;
  let t = 0;
  for (let i = 0; i < sorted.length; ) {
    // Equal probabilities are hidden together or not at all (the gate cannot tell them apart).
    let j = i;
    let mass = 0;
    while (j < sorted.length && sorted[j] === sorted[i]) mass += sorted[j++];
    if (cum + mass > share * total) break;
    cum += mass;
    t = sorted[i];
    i = j;
  }
  return t;
}

type FitSettings = { l2: number; maxLostAccepts: number };

/** Fit, and the threshold on the suggestions `population` (the fitted outcomes when not given). */
function fitGate(xs: number[][], ys: boolean[], c: FitSettings, population: number[][] = xs) {
  const m = fitLogistic(xs, ys, c.l2);
  return { ...m, features: [...GATE_FEATURES].slice(0, xs[0].length), l2: c.l2, threshold: lostAcceptsThreshold(population.map((x) => logisticProbability(m, x)), c.maxLostAccepts) };
}

/** The penalties `l2: 'cv'` chooses from. */
export const L2_GRID = [0.3, 1, 3, 10, 30];

/** The configured penalty, or ('cv') the one of L2_GRID with the best cross-validated log-likelihood. */
export async function chooseL2(xs: number[][], ys: boolean[], l2: GateConfig['l2']): Promise<number> {
  return l2 === 'cv' ? chooseL2ByCv(xs, ys, L2_GRID) : l2;
}

/**
 * k-fold cross-validation of the gate's decision (fold of outcome i: i mod k): fit and set the threshold on the other
 * folds, then count, in the fold, the outcomes it would show and hide and how many of each were accepted.
 */
export async function crossValidate(xs: number[][], ys: boolean[], c: FitSettings, k = 5): Promise<Validation> {
  const v = { shown: 0, shown_accepted: 0, hidden: 0, hidden_accepted: 0 };
  for await (const { fold, rest } of kFolds(xs.length, k)) {
    if (rest.length === 0 || rest.every((i) => ys[i] === ys[rest[0]])) continue; // nothing to fit on
    const m = fitGate(rest.map((i) => xs[i]), rest.map((i) => ys[i]), c);
    for (const i of fold) {
      const show = logisticProbability(m, xs[i]) > m.threshold;
      v[show ? 'shown' : 'hidden'] += 1;
      if (ys[i]) v[show ? 'shown_accepted' : 'hidden_accepted'] += 1;
    }
  }
  const p = fisherExact(v.shown_accepted, v.shown - v.shown_accepted, v.hidden_accepted, v.hidden - v.hidden_accepted);
  return { ...v, p };
}

/** Cross-validation allows hiding: hidden outcomes were accepted less often than shown ones, significantly. */
const hidingHelps = (v: Validation, maxP: number) => v.hidden > 0 && v.hidden_accepted / v.hidden < v.shown_accepted / Math.max(v.shown, 1) && v.p < maxP;

interface Observation {
  x: number[];
  accepted: boolean;
}

/** What one refit works on: a snapshot of the outcomes and of the served population, and its settings. */
export interface RefitInput {
  xs: number[][];
  ys: boolean[];
  /** The population the threshold is set on (the served suggestions, else the outcomes). */
  population: number[][];
  l2: GateConfig['l2'];
  /** The penalty in use: kept unless null (chosen again: the outcomes grew by a quarter since). */
  keepL2: number | null;
  maxLostAccepts: number;
  validateP: number;
}

/** One refit (pure: the same input gives the same gate): the penalty, the fit and its threshold, its cross-validation. */
export async function refitGate(i: RefitInput): Promise<{ l2: number; model: GateModel }> {
  const l2 = i.keepL2 ?? (await chooseL2(i.xs, i.ys, i.l2));
  const c = { l2, maxLostAccepts: i.maxLostAccepts };
  const m = fitGate(i.xs, i.ys, c, i.population);
  const validation = await crossValidate(i.xs, i.ys, c);
  return { l2, model: { ...m, validation, validated: i.validateP >= 1 || hidingHelps(validation, i.validateP) } };
}

export type GateDecision = { show: boolean; explored: boolean; p: number | null };

/** Runs refits elsewhere (gate-fit-thread.ts). */
export interface GateFitter {
  refit(input: RefitInput): Promise<{ l2: number; model: GateModel }>;
}

/** The online gate: remembers served suggestions' features, observes their outcomes, refits, decides. */
export class ShowGate {
  /** The last `window` outcomes (older ones are neither fitted on nor kept). */
  private readonly observations: Observation[] = [];
  private total = 0;
  private readonly rng: Rng;
  private sinceFit = 0;
  /** The refit running, if any. */
  private refitting: Promise<void> | null = null;
  /** The penalty in use, and the number of outcomes when it was chosen. */
  private l2: { value: number; at: number } | null = null;
  private fitted: GateModel | null;
  private readonly log: fs.WriteStream | null = null;
  /** Features of served suggestions awaiting their outcome, by completion id (bounded, oldest forgotten first). */
  private readonly pending = new Map<string, Promise<number[]>>();
  /**
   * Features of every policy suggestion served, shown or hidden (the last `window`): the population the threshold is
   * set on. Setting it on the outcomes instead would ratchet: they are the suggestions the gate let through, so each
   * refit would see fewer unlikely ones and raise the threshold again.
   */
  private readonly served: number[][] = [];
  /** Suggestions judged, hidden, and shown although below the threshold (exploration). */
  readonly counts = { judged: 0, hidden: 0, explored: 0 };
  private readonly fitThread: GateFitter | null;
  private readonly warn: (line: string) => void;

  /**
   * `stateDir`: observations are replayed from and appended to its gate.jsonl (null: in memory only). `initial`: a
   * fitted gate to start from (a checkpoint's gate.json), used until the observations give a fit of their own.
   * `fitThread`: where refits run (the service gives a GateFitThread; default here, on the calling thread).
   */
  constructor(
    private readonly config: GateConfig,
    opts: { stateDir?: string | null; initial?: GateModel | null; seed?: number; warn?: (line: string) => void; fitThread?: GateFitter } = {},
  ) {
    this.rng = resumableRng(`${opts.seed ?? 0}:gate`);
    this.fitted = opts.initial ?? null;
    this.fitThread = opts.fitThread ?? null;
    this.warn = opts.warn ?? (() => undefined);
    if (!opts.stateDir) return;
    const file = path.join(opts.stateDir, 'gate.jsonl');
    let other = 0;
    for (const o of readJsonLines(file) as Observation[]) {
      if (Array.isArray(o.x) && o.x.length === GATE_FEATURES.length) this.add(o);
      else other += 1; // another feature set (an earlier version): not data for this one
    }
    if (other > 0) opts.warn?.(`${file}: ${other} observations over another feature set (an earlier version) not replayed`);
    void this.startRefit();
    this.log = fs.createWriteStream(file, { flags: 'a' });
  }

  /** Fitted, validated, and allowed to hide suggestions. */
  get active(): boolean {
    return this.config.enabled && this.fitted !== null && this.fitted.validated;
  }

  get model(): GateModel | null {
    return this.fitted;
  }

  /** Outcomes observed (replayed ones included). */
  get outcomes(): number {
    return this.total;
  }

  /** Its block of the service's status: fitted, validated, its threshold and weights, what it did. */
  status(): GateStatus {
    const m = this.fitted;
    return {
      enabled: this.config.enabled,
      active: this.active,
      outcomes: this.outcomes,
      validated: m?.validated ?? null,
      validation: m?.validation ?? null,
      threshold: m?.threshold ?? null,
      l2: m?.l2 ?? null,
      ...this.counts,
      weights: m ? Object.fromEntries(['bias', ...m.features].map((f, i) => [f, m.weights[i]])) : null,
    };
  }

  private add(o: Observation): void {
    this.observations.push(o);
    this.total += 1;
    if (this.observations.length > this.config.window) this.observations.shift();
  }

  /** Remember a served suggestion's features (possibly still being computed) until its outcome arrives. */
  remember(id: string, x: Promise<number[]> | number[]): void {
    this.pending.set(id, Promise.resolve(x));
    if (this.pending.size > 5000) this.pending.delete(this.pending.keys().next().value!);
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** A policy suggestion was served (shown or hidden): its features join the threshold's population. */
  noteServed(x: number[]): void {
    this.served.push(x);
    if (this.served.length > this.config.window) this.served.shift();
  }

  /** An outcome for a remembered suggestion: stored, and the gate refitted when due. */
  async observe(id: string, accepted: boolean): Promise<void> {
    const features = this.pending.get(id);
    if (!features || !this.config.enabled) return;
    this.pending.delete(id);
    const o = { x: await features, accepted };
    this.add(o);
    this.log?.write(JSON.stringify(o) + '\n');
    if (++this.sinceFit >= this.config.refitEvery && this.refitting === null) await this.startRefit();
  }

  /** Resolves when no refit is running or due (one starts on a replay, and after every `refitEvery` outcomes). */
  async ready(): Promise<void> {
    while (this.refitting) await this.refitting;
  }

  /** The fitted P(accept) of a suggestion, or null while the gate is not fitted. */
  probability(x: readonly number[]): number | null {
    return this.fitted ? logisticProbability(this.fitted, x) : null;
  }

  /** Show this suggestion? Always yes while the gate is not fitted. */
  decide(x: readonly number[]): GateDecision {
    if (!this.active) return { show: true, explored: false, p: null };
    this.counts.judged += 1;
    this.noteServed([...x]);
    const p = logisticProbability(this.fitted!, x);
    if (p > this.fitted!.threshold) return { show: true, explored: false, p };
    if (this.rng.next() < this.config.explore) {
      this.counts.explored += 1;
      return { show: true, explored: true, p };
    }
    this.counts.hidden += 1;
    return { show: false, explored: false, p };
  }

  /** One refit at a time: `refitting` is the running one. */
  private startRefit(): Promise<void> {
    // A refit that fails (its thread died) leaves the gate as it was fitted.
    const running: Promise<void> = this.refit()
      .catch((e) => this.warn(`[online] gate: refit failed, keeping the last fit: ${(e as Error).message}`))
      .then(() => {
        if (this.refitting === running) this.refitting = null;
        // Outcomes that arrived during this refit and make one due: the next refit follows at once (ready() waits for it).
        if (this.refitting === null && this.sinceFit >= this.config.refitEvery) return this.startRefit();
      });
    this.refitting = running;
    return running;
  }

  /**
   * Fit on a snapshot of the outcomes: in the gate-fit thread (gate-fit-thread.ts) unless `inline` (a refit is
   * dozens of synchronous fits of up to ~45 ms each, which on the HTTP thread would hold up every answer meanwhile).
   */
  private async refit(): Promise<void> {
    this.sinceFit = 0;
    const obs = this.observations.slice();
    const acc = obs.filter((o) => o.accepted).length;
    if (obs.length < this.config.minOutcomes || acc < this.config.minEach || obs.length - acc < this.config.minEach) return;
    const xs = obs.map((o) => o.x);
    const total = this.total;
    const input: RefitInput = {
      xs,
      ys: obs.map((o) => o.accepted),
      // The threshold on what was served (after a restart, until enough is served again: on the outcomes).
      population: this.served.length >= this.config.minOutcomes ? this.served.slice() : xs,
      l2: this.config.l2,
      // The penalty is chosen again once the outcomes have grown by a quarter since it last was (25 fits: not every refit).
      keepL2: this.l2 === null || total >= this.l2.at * 1.25 ? null : this.l2.value,
      maxLostAccepts: this.config.maxLostAccepts,
      validateP: this.config.validateP,
    };
    const r = this.fitThread ? await this.fitThread.refit(input) : await refitGate(input);
    if (input.keepL2 === null) this.l2 = { value: r.l2, at: total };
    this.fitted = r.model;
  }

  /** The fitted gate as a checkpoint's gate.json (nothing when not fitted). */
  save(dir: string): void {
    if (this.fitted) fs.writeFileSync(path.join(dir, 'gate.json'), JSON.stringify(this.fitted, null, 2) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.log ? this.log.end(resolve) : resolve()));
  }
}

/**
 * A checkpoint folder's gate.json, or null; a broken file is an error naming it. A gate fitted over another feature
 * set (an earlier version of this file) is not used: `warn` says so, and the gate refits from new outcomes.
 */
export function loadGateModel(dir: string, warn: (line: string) => void = () => undefined): GateModel | null {
  const file = path.join(dir, 'gate.json');
  if (!fs.existsSync(file)) return null;
  let m: GateModel;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as GateModel;
  } catch (e) {
    throw new Error(`${file}: not JSON: ${(e as Error).message}`);
  }
  if (Array.isArray(m.features) && m.features.join(',') !== GATE_FEATURES.join(',')) {
    warn(`${file}: a gate over other features (${m.features.length}: an earlier version); not used, the gate refits from new outcomes`);
    return null;
  }
  const d = GATE_FEATURES.length;
  if (
    !Array.isArray(m.weights) ||
    m.weights.length !== d + 1 ||
    m.mean?.length !== d ||
    m.std?.length !== d ||
    typeof m.threshold !== 'number' ||
    typeof m.validated !== 'boolean'
  ) {
    throw new Error(`${file}: expected a gate over ${d} features (${GATE_FEATURES.join(', ')}) with mean, std, weights (${d + 1}), threshold and validated`);
  }
  return m;
}
