// A reward model of the user: P(accept) of a displayed suggestion, learnt from this user's own outcomes and refitted
// as they arrive (objective user-rm / both; the RL against it is user-rm-rl.ts). It lives in the training thread.
//
//   inputs     features = the show gate's features of the suggestion in its file (libs/online-gate python-features.ts), its log-probs
//              taken under the frozen start model (not the policy: RL must not raise its reward by growing confident);
//              hidden = the first `hiddenComponents` principal components of the start model's last hidden state,
//              mean-pooled over the suggestion (the last prompt position and the suggestion's tokens: every sibling of
//              a GRPO group shares the prompt, so a pool over it would barely tell them apart); both = the two
//   fit        L2 logistic regression on standardised inputs (@rlhf-code/stats), the penalty of the gate's grid with
//              the best 5-fold cross-validated log-likelihood; `model: auto` picks, at every refit, the input set with
//              the best out-of-fold log-likelihood (the principal axes are refitted on all outcomes: they see no labels)
//   validated  the chosen fit's out-of-fold log-likelihood beats the constant rate's by more than twice its standard
//              error over outcomes; RL runs only against a validated model (userRm.validate), so for a user it cannot
//              read (a coin flip) the policy is left alone instead of following the fit's noise
//   report     the chosen fit's out-of-fold log-likelihood per outcome against the constant rate's, its expected
//              calibration error and reliability table (10 equal-width bins of the out-of-fold probabilities), and
//              the prequential log-likelihood: each batch scored by the model fitted before it arrived (a true
//              held-out figure on outcomes the model had never seen)
import { chooseL2ByCv, fitLogistic, kFolds, logisticProbability, type LogisticFit } from '@rlhf-code/stats';
import type { UserRmConfig } from '@rlhf-code/online-core';
import { L2_GRID } from '@rlhf-code/online-gate';

export type RmInputKind = 'features' | 'hidden' | 'both';
export const RM_INPUT_KINDS: readonly RmInputKind[] = ['features', 'hidden', 'both'];

/** One outcome the reward model learns from: the suggestion's gate features, its pooled hidden state (or null), the outcome. */
export interface RmObservation {
  features: number[];
  hidden: number[] | null;
  accepted: boolean;
}

/** Principal axes: the mean and `k` unit components (rows), largest variance first. */
export interface Pca {
  mean: number[];
  components: number[][];
}

/** A bin of the reliability table: out-of-fold predictions in [lo, hi), their mean and the observed accept rate. */
export interface ReliabilityBin {
  lo: number;
  hi: number;
  n: number;
  mean_p: number;
  accept_rate: number;
}

export interface Calibration {
  /** Expected calibration error: sum over bins of n_bin / n * |mean_p - accept_rate|. */
  ece: number;
  bins: ReliabilityBin[];
}

/** A fitted reward model of the user. */
export interface FittedUserRm {
  kind: RmInputKind;
  fit: LogisticFit;
  l2: number;
  pca: Pca | null;
  /** Out-of-fold (5-fold) mean log-likelihood of each candidate input set tried (the chosen one is `kind`). */
  cv_ll: Partial<Record<RmInputKind, number>>;
  /** The same for the constant accept rate (the no-information model). */
  cv_ll_constant: number;
  /** Mean and standard error over outcomes of (chosen - constant) out-of-fold log-likelihood. */
  gain: number;
  gain_se: number;
  /** The gain is above twice its standard error: the model reads something of this user (else RL does not run). */
  validated: boolean;
  calibration: Calibration;
}

/** What the metrics line of an update carries about the reward model. */
export interface UserRmReport {
  fitted: boolean;
  outcomes: number;
  accepted: number;
  kind: RmInputKind | null;
  l2: number | null;
  cv_ll: Partial<Record<RmInputKind, number>> | null;
  cv_ll_constant: number | null;
  validated: boolean | null;
  ece: number | null;
  /** Prequential: mean log-likelihood of the outcomes of every batch under the model fitted before it, and how many. */
  prequential_ll: number | null;
  /** ... and of the running accept rate before each batch (Laplace), on the same outcomes. */
  prequential_ll_constant: number | null;
  prequential_n: number;
}

const clampP = (p: number) => Math.min(Math.max(p, 1e-6), 1 - 1e-6);
const logLik = (p: number, y: boolean) => Math.log(y ? clampP(p) : 1 - clampP(p));

/**
 * The top `k` principal components of `xs` by power iteration with deflation on the covariance (d x d; d = 256 for the
 * shipped model: a few ms). Deterministic: each iteration starts from a fixed vector.
 */
export function pcaComponents(xs: readonly (readonly number[])[], k: number, iterations = 100): Pca {
  const n = xs.length;
  const d = xs[0].length;
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((s, x) => s + x[j], 0) / n);
  const cov = Array.from({ length: d }, () => new Float64Array(d));
  for (const x of xs) {
    const c = x.map((v, j) => v - mean[j]);
    for (let a = 0; a < d; a++) {
      const ca = c[a];
      if (ca === 0) continue;
      const row = cov[a];
      for (let b = 0; b < d; b++) row[b] += ca * c[b];
    }
  }
  const components: number[][] = [];
  for (let m = 0; m < Math.min(k, d); m++) {
    let v = Array.from({ length: d }, (_, j) => 1 / Math.sqrt(d) + (j === m % d ? 0.5 : 0));
    let lambda = 0;
    for (let it = 0; it < iterations; it++) {
      const w = new Array<number>(d).fill(0);
      for (let a = 0; a < d; a++) {
        let s = 0;
        const row = cov[a];
        for (let b = 0; b < d; b++) s += row[b] * v[b];
        w[a] = s;
      }
      for (const u of components) {
        const dot = w.reduce((s, x, j) => s + x * u[j], 0);
        for (let j = 0; j < d; j++) w[j] -= dot * u[j]; // deflation: stay orthogonal to the components found
      }
      const norm = Math.sqrt(w.reduce((s, x) => s + x * x, 0));
      if (norm < 1e-12) break;
      lambda = norm;
      v = w.map((x) => x / norm);
    }
    if (lambda < 1e-12) break; // no variance left
    components.push(v);
  }
  return { mean, components };
}

/** The coordinates of `h` on the principal axes. */
export function project(pca: Pca, h: readonly number[]): number[] {
  return pca.components.map((u) => u.reduce((s, uj, j) => s + uj * (h[j] - pca.mean[j]), 0));
}

/** The regression's inputs of one observation for an input set. */
export function inputsOf(kind: RmInputKind, o: Pick<RmObservation, 'features' | 'hidden'>, pca: Pca | null): number[] {
  if (kind === 'features') return o.features;
  if (!o.hidden || !pca) throw new Error(`user reward model: input set "${kind}" needs the pooled hidden state`);
  const h = project(pca, o.hidden);
  return kind === 'hidden' ? h : [...o.features, ...h];
}

/** Expected calibration error and the reliability table of predictions `ps` against outcomes `ys`. */
export function calibration(ps: readonly number[], ys: readonly boolean[], bins = 10): Calibration {
  const table: ReliabilityBin[] = Array.from({ length: bins }, (_, b) => ({ lo: b / bins, hi: (b + 1) / bins, n: 0, mean_p: 0, accept_rate: 0 }));
  ps.forEach((p, i) => {
    const t = table[Math.min(bins - 1, Math.floor(p * bins))];
    t.n += 1;
    t.mean_p += p;
    t.accept_rate += ys[i] ? 1 : 0;
  });
  let ece = 0;
  for (const t of table) {
    if (t.n === 0) continue;
    t.mean_p /= t.n;
    t.accept_rate /= t.n;
    ece += (t.n / ps.length) * Math.abs(t.mean_p - t.accept_rate);
  }
  return { ece, bins: table.filter((t) => t.n > 0) };
}

/** Out-of-fold probabilities (5 folds, outcome i in fold i mod 5) of a logistic fit with penalty l2. */
export async function outOfFold(xs: number[][], ys: boolean[], l2: number, k = 5): Promise<number[]> {
  const ps = new Array<number>(xs.length).fill(0.5);
  for await (const { fold, rest } of kFolds(xs.length, k)) {
    const m = fitLogistic(rest.map((i) => xs[i]), rest.map((i) => ys[i]), l2);
    for (const i of fold) ps[i] = logisticProbability(m, xs[i]);
  }
  return ps;
}

const meanLl = (ps: readonly number[], ys: readonly boolean[]) => ps.reduce((s, p, i) => s + logLik(p, ys[i]), 0) / ps.length;

/**
 * Fit the reward model on `obs`: each input set `kind` allows ('auto': all three when hidden states are there), its
 * penalty by cross-validation, the set with the best out-of-fold log-likelihood kept, refitted on every outcome.
 */
export async function fitUserRm(obs: readonly RmObservation[], kind: UserRmConfig['model'], hiddenComponents: number): Promise<FittedUserRm> {
  if (obs.length < 5) throw new Error(`user reward model: ${obs.length} outcomes are too few to fit (5 folds)`);
  const ys = obs.map((o) => o.accepted);
  const haveHidden = obs.every((o) => o.hidden !== null);
  const kinds: RmInputKind[] = kind === 'auto' ? RM_INPUT_KINDS.filter((k) => k === 'features' || haveHidden) : [kind];
  const pca = kinds.some((k) => k !== 'features') ? pcaComponents(obs.map((o) => o.hidden!), hiddenComponents) : null;
  const cv: Partial<Record<RmInputKind, number>> = {};
  let best: { kind: RmInputKind; l2: number; ps: number[]; xs: number[][] } | null = null;
  for (const k of kinds) {
    const xs = obs.map((o) => inputsOf(k, o, pca));
    const l2 = await chooseL2ByCv(xs, ys, L2_GRID);
    const ps = await outOfFold(xs, ys, l2);
    cv[k] = meanLl(ps, ys);
    if (!best || cv[k]! > cv[best.kind]!) best = { kind: k, l2, ps, xs };
  }
  // The constant model's out-of-fold figure: each fold predicted by the accept rate of the other four.
  const constant: number[] = new Array(obs.length).fill(0.5);
  for await (const { fold, rest } of kFolds(obs.length, 5)) {
    const rate = (rest.filter((i) => ys[i]).length + 0.5) / (rest.length + 1);
    for (const i of fold) constant[i] = rate;
  }
  const b = best!;
  const d = b.ps.map((p, i) => logLik(p, ys[i]) - logLik(constant[i], ys[i]));
  const gain = d.reduce((s, x) => s + x, 0) / d.length;
  const gainSe = Math.sqrt(d.reduce((s, x) => s + (x - gain) ** 2, 0) / (d.length - 1) / d.length);
  return {
    kind: b.kind,
    fit: fitLogistic(b.xs, ys, b.l2),
    l2: b.l2,
    pca: b.kind === 'features' ? null : pca,
    cv_ll: cv,
    cv_ll_constant: meanLl(constant, ys),
    gain,
    gain_se: gainSe,
    validated: gain > 2 * gainSe,
    calibration: calibration(b.ps, ys),
  };
}

/** P(accept) of a suggestion under a fitted reward model. */
export function rmProbability(m: FittedUserRm, o: Pick<RmObservation, 'features' | 'hidden'>): number {
  return logisticProbability(m.fit, inputsOf(m.kind, o, m.pca));
}

/**
 * Cursor's expected utility of showing a suggestion that is accepted with probability p: (1 - c) p - c (1 - p) with c
 * the show threshold (training.reward.p, 0.25: 0.75 per accept, -0.25 per reject), and 0 for a blank one: Continue
 * shows nothing, the user neither gains nor loses.
 */
export function expectedUtility(p: number | null, threshold: number): number {
  if (p === null) return 0;
  if (!(p >= 0 && p <= 1)) throw new Error(`expectedUtility: p must be in [0, 1], got ${p}`);
  return (1 - threshold) * p - threshold * (1 - p);
}

/**
 * The reward model of one service: its outcomes (a window), refitted when `minOutcomes` with `minEach` of each kind
 * exist and new ones arrived, and the prequential score of every batch before it is added.
 */
export class UserRewardModel {
  private readonly obs: RmObservation[] = [];
  private fitted: FittedUserRm | null = null;
  private stale = false;
  private preq = { ll: 0, llConstant: 0, n: 0 };

  constructor(private readonly cfg: Pick<UserRmConfig, 'model' | 'hiddenComponents' | 'minOutcomes' | 'minEach' | 'window'>) {}

  get model(): FittedUserRm | null {
    return this.fitted;
  }

  /** The pooled hidden state is needed (an input set other than features may be used). */
  get needsHidden(): boolean {
    return this.cfg.model !== 'features';
  }

  /** Add a batch of outcomes (scored first by the model fitted before them), then refit when due. */
  async add(batch: readonly RmObservation[]): Promise<void> {
    if (batch.length === 0) return;
    const accepted = this.obs.filter((o) => o.accepted).length;
    const rate = (accepted + 0.5) / (this.obs.length + 1);
    if (this.fitted) {
      for (const o of batch) {
        this.preq.ll += logLik(rmProbability(this.fitted, o), o.accepted);
        this.preq.llConstant += logLik(rate, o.accepted);
        this.preq.n += 1;
      }
    }
    this.obs.push(...batch);
    if (this.obs.length > this.cfg.window) this.obs.splice(0, this.obs.length - this.cfg.window);
    this.stale = true;
    await this.refitIfDue();
  }

  private async refitIfDue(): Promise<void> {
    const yes = this.obs.filter((o) => o.accepted).length;
    const no = this.obs.length - yes;
    if (!this.stale || this.obs.length < this.cfg.minOutcomes || yes < this.cfg.minEach || no < this.cfg.minEach) return;
    this.fitted = await fitUserRm(this.obs, this.cfg.model, this.cfg.hiddenComponents);
    this.stale = false;
  }

  report(): UserRmReport {
    const m = this.fitted;
    return {
      fitted: m !== null,
      outcomes: this.obs.length,
      accepted: this.obs.filter((o) => o.accepted).length,
      kind: m?.kind ?? null,
      l2: m?.l2 ?? null,
      cv_ll: m?.cv_ll ?? null,
      cv_ll_constant: m?.cv_ll_constant ?? null,
      validated: m?.validated ?? null,
      ece: m?.calibration.ece ?? null,
      prequential_ll: this.preq.n > 0 ? this.preq.ll / this.preq.n : null,
      prequential_ll_constant: this.preq.n > 0 ? this.preq.llConstant / this.preq.n : null,
      prequential_n: this.preq.n,
    };
  }
}
