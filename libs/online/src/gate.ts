// The show gate: a contextual filter, learnt online, that decides whether a policy suggestion is worth showing.
//
// Copilot's "contextual filter" idea: a small logistic regression on features of the suggestion in its file predicts
// P(accepted); suggestions below a threshold are answered with an empty completion (Continue then shows nothing).
// The gate is never told who the user is: it is fitted from the accept / reject outcomes alone, so for a user who
// rejects what does not compile it learns the compile features, for one who rejects comments the comment feature,
// for one who wants the exact next line the model's confidence, the length features and whether the names it uses
// exist in the file.
//
//   features   what a user can see in the suggestion and its file (GATE_FEATURES below), and the model's confidence in
//              it (its tokens' log-probs at temperature 1); the three compile checks run in one sandboxed python
//              process (checkSyntax: compile(), nothing is executed)
//   fit        L2-regularised logistic regression on standardised features, Newton's method (IRLS), refitted after
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
import { lusolve } from 'mathjs';
import { resumableRng, type Rng } from '@rlhf-code/model';
import { fisherExact } from '@rlhf-code/stats';
import { checkSyntax, COMMENT, QUOTE, scanPython } from '@rlhf-code/sandbox';
import { parseFim } from '@rlhf-code/tokenizer';
import type { GateSchema } from './config';
import { readJsonLines } from './json-lines';
import type { z } from 'zod';

export type GateConfig = z.output<typeof GateSchema>;

/** Feature names, in the order of a feature vector. */
export const GATE_FEATURES = [
  'log_tokens', // log(1 + completion tokens)
  'log_chars', // log(1 + characters of the suggestion)
  'lines', // non-blank lines of the suggestion, up to 5
  'compiles', // prompt prefix + suggestion + prompt suffix compiles
  'window_compiles', // prompt prefix + prompt suffix compiles (the window itself is checkable)
  'block_compiles', // the outermost statement around the cursor that the window shows whole compiles with the suggestion in it (enclosingBlock)
  'has_comment', // the suggestion contains a comment
  'ended_by_model', // the model ended it with its own end token (not the line rule or max_tokens)
  'starts_newline', // the suggestion starts with a line break
  'ends_colon', // its last non-blank line ends with ':' (opens a block it does not fill)
  'mid_line', // the cursor is mid-line (text follows it on its line)
  'repeats_line', // its first non-blank line is already a line of the file
  'known_names', // share of its names (identifiers that are not keywords or builtins) that the file already uses
  // Steps of length: a user's taste in length need not be linear in log length (one who wants at least a few words, or
  // at most a short phrase), so the model gets indicators of at least 8, 16, 32 and 64 characters (trimmed) as well.
  'chars_ge_8',
  'chars_ge_16',
  'chars_ge_32',
  'chars_ge_64',
  // What kind of statement its first non-blank line is: a style preference is often about what is suggested.
  'opens_block', // if / elif / else / for / while / try / except / finally / with / def / class / a decorator
  'exits', // return / yield / raise / pass / break / continue
  'imports', // import / from
  'assigns', // an assignment (=, +=, ...; not ==)
  'calls', // a call or a subscript-free parenthesis: `name(`
  'has_string', // a string literal
  // The model's own confidence in it: log-probs of its tokens at temperature 1 (whatever the sampling temperature).
  'mean_logprob',
  'min_logprob',
  'sum_logprob', // floored at -30
] as const;

/** What the gate judges: a served suggestion and the prompt it answers. */
export interface GateInput {
  prompt: string;
  text: string;
  tokens: number;
  endedByModel: boolean;
  /** The model's log-probs (temperature 1) of the suggestion's tokens; empty when unknown (its features are then 0). */
  logprobs: readonly number[];
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isCode = (line: string) => line.trim() !== '' && !line.trimStart().startsWith('#');

/**
 * The outermost statement around the cursor that the window shows whole: the window's least indented code lines set
 * its indentation (0 when the window holds a top-level line; more when it starts inside a class or a function); the
 * block runs from the last statement at that indentation before the cursor (with its decorators) to the next one after
 * it, and is dedented by it so that it compiles on its own. `code(text)` is that block with `text` at the cursor.
 */
export function enclosingBlock(prefix: string, suffix: string): (text: string) => string {
  const pre = prefix.split('\n');
  const codeLines = pre.filter(isCode);
  const base = codeLines.length === 0 ? 0 : Math.min(...codeLines.map(indentOf));
  const continues = (line: string) => /^(else|elif|except|finally)\b/.test(line.trimStart());
  const opens = (line: string) => isCode(line) && indentOf(line) === base && !/^[)\]}]/.test(line.trimStart()) && !continues(line);
  let from = 0;
  for (let i = pre.length - 2; i >= 0; i--) { // the cursor's own line (last) is part of the block
    if (opens(pre[i])) {
      from = i;
      break;
    }
  }
  while (from > 0 && opens(pre[from - 1]) && pre[from - 1].trimStart().startsWith('@')) from -= 1; // decorators belong to their def
  const post = suffix.split('\n');
  let to = post.length;
  for (let i = 1; i < post.length; i++) { // line 0 is the rest of the cursor's line
    if (isCode(post[i]) && (indentOf(post[i]) < base || opens(post[i]))) {
      to = i;
      break;
    }
  }
  const before = pre.slice(from).join('\n');
  const after = post.slice(0, to).join('\n');
  const dedent = (line: string) => line.slice(Math.min(base, indentOf(line)));
  return (text) => (before + text + after).split('\n').map(dedent).join('\n');
}

// Names a suggestion may use without the file defining them.
const PYTHON_WORDS = new Set(
  ('False None True and as assert async await break class continue def del elif else except finally for from global if import in ' +
    'is lambda nonlocal not or pass raise return try while with yield self cls print len range str int float list dict set tuple ' +
    'bool isinstance enumerate zip open super type object min max sum sorted reversed any all map filter iter next getattr ' +
    'setattr hasattr repr format abs round Exception ValueError TypeError KeyError IndexError RuntimeError').split(' '),
);
const names = (code: string) => (code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter((n) => !PYTHON_WORDS.has(n));

/** Share of the suggestion's names that occur in the file (1 when it uses none). */
function knownNames(text: string, file: string): number {
  const used = names(text);
  if (used.length === 0) return 1;
  const known = new Set(names(file));
  return used.filter((n) => known.has(n)).length / used.length;
}

const firstNonBlank = (s: string) => s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';

/** One feature vector per input (a plain-text prompt has no file: its compile features are 0). */
export async function gateFeatures(inputs: readonly GateInput[]): Promise<number[][]> {
  const parts = inputs.map((x) => {
    try {
      return parseFim(x.prompt);
    } catch {
      return null;
    }
  });
  const codes: string[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const p = parts[i];
    if (!p) continue;
    codes.push(p.prefix + inputs[i].text + p.suffix, p.prefix + p.suffix, enclosingBlock(p.prefix, p.suffix)(inputs[i].text));
  }
  const ok = await checkSyntax(codes, { timeoutMs: 5000 });
  let k = 0;
  return inputs.map((x, i) => {
    const p = parts[i];
    const [compiles, windowCompiles, blockCompiles] = p ? [ok[k++], ok[k++], ok[k++]] : [false, false, false];
    const lines = x.text.split('\n').filter((l) => l.trim() !== '');
    const first = firstNonBlank(x.text);
    const trimmed = x.text.trim();
    const kinds = scanPython(x.text).kind;
    const lp = x.logprobs;
    const lpSum = lp.reduce((s, v) => s + v, 0);
    const fileLines = p ? new Set((p.prefix + '\n' + p.suffix).split('\n').map((l) => l.trim())) : new Set<string>();
    const f: Record<(typeof GATE_FEATURES)[number], number> = {
      log_tokens: Math.log1p(x.tokens),
      log_chars: Math.log1p(x.text.length),
      lines: Math.min(lines.length, 5),
      compiles: +compiles,
      window_compiles: +windowCompiles,
      block_compiles: +blockCompiles,
      has_comment: +kinds.includes(COMMENT),
      ended_by_model: +x.endedByModel,
      starts_newline: +x.text.startsWith('\n'),
      ends_colon: +(lines.length > 0 && lines[lines.length - 1].trimEnd().endsWith(':')),
      mid_line: +(p !== null && p.suffix.split('\n')[0].trim() !== ''),
      repeats_line: +(first !== '' && fileLines.has(first)),
      known_names: knownNames(x.text, p ? p.prefix + '\n' + p.suffix : x.prompt),
      chars_ge_8: +(trimmed.length >= 8),
      chars_ge_16: +(trimmed.length >= 16),
      chars_ge_32: +(trimmed.length >= 32),
      chars_ge_64: +(trimmed.length >= 64),
      opens_block: +/^(if|elif|else|for|while|try|except|finally|with|def|class|async)\b|^@/.test(first),
      exits: +/^(return|yield|raise|pass|break|continue)\b/.test(first),
      imports: +/^(import|from)\b/.test(first),
      assigns: +/(^|[^=!<>+\-*\/%&|^:])(=|[+\-*\/%&|^]=)(?!=)/.test(first.replace(/(['"]).*?\1/g, '')),
      calls: +/[A-Za-z0-9_\])]\(/.test(first),
      has_string: +kinds.includes(QUOTE),
      mean_logprob: lp.length === 0 ? 0 : lpSum / lp.length,
      min_logprob: lp.length === 0 ? 0 : Math.min(...lp),
      sum_logprob: Math.max(lpSum, -30),
    };
    return GATE_FEATURES.map((name) => f[name]);
  });
}

/** A fitted gate: standardisation, weights (bias first) and the show threshold on P(accept). */
export interface GateModel {
  features: string[];
  mean: number[];
  std: number[];
  weights: number[];
  threshold: number;
  /** Outcomes it was fitted on, and how many of them were accepted. */
  n: number;
  accepted: number;
  /** The L2 penalty it was fitted with. */
  l2?: number;
  /** Its cross-validation (crossValidate), and whether that allows it to hide. */
  validation: Validation;
  validated: boolean;
}

/** Out-of-sample outcomes of the gate's decision, pooled over the folds, and Fisher's p of hidden vs shown. */
export interface Validation {
  shown: number;
  shown_accepted: number;
  hidden: number;
  hidden_accepted: number;
  p: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** P(accept) under a fitted gate. */
export function gateProbability(m: Pick<GateModel, 'mean' | 'std' | 'weights'>, x: readonly number[]): number {
  let z = m.weights[0];
  for (let j = 0; j < x.length; j++) z += m.weights[j + 1] * ((x[j] - m.mean[j]) / m.std[j]);
  return sigmoid(z);
}

/**
 * L2-regularised logistic regression (the bias unpenalised) on standardised features by Newton's method:
 * w <- w + (X' W X + l2 I)^-1 (X' (y - p) - l2 w), W = diag(p (1 - p)). Converges in a few steps at these sizes.
 */
export function fitLogistic(xs: readonly (readonly number[])[], ys: readonly boolean[], l2: number): Omit<GateModel, 'threshold' | 'validation' | 'validated'> {
  const n = xs.length;
  const d = xs[0].length;
  const D = d + 1; // with the bias
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((s, x) => s + x[j], 0) / n);
  const std = mean.map((m, j) => Math.sqrt(xs.reduce((s, x) => s + (x[j] - m) ** 2, 0) / n) || 1); // constant feature: its weight stays 0
  const z = new Float64Array(n * D); // row i: [1, standardised x_i]
  xs.forEach((x, i) => {
    z[i * D] = 1;
    for (let j = 0; j < d; j++) z[i * D + 1 + j] = (x[j] - mean[j]) / std[j];
  });
  const w = new Array(D).fill(0);
  const H = new Float64Array(D * D);
  for (let iter = 0; iter < 25; iter++) {
    H.fill(0);
    const g = w.map((wj, j) => (j > 0 ? -l2 * wj : 0));
    for (let i = 0; i < n; i++) {
      const o = i * D;
      let s = 0;
      for (let j = 0; j < D; j++) s += z[o + j] * w[j];
      const p = sigmoid(s);
      const r = (ys[i] ? 1 : 0) - p;
      const h = Math.max(p * (1 - p), 1e-9);
      for (let a = 0; a < D; a++) {
        const za = z[o + a];
        g[a] += za * r;
        const hz = h * za;
        for (let b = a; b < D; b++) H[a * D + b] += hz * z[o + b]; // the upper triangle; mirrored below
      }
    }
    const M = Array.from({ length: D }, (_, a) => Array.from({ length: D }, (_, b) => (a <= b ? H[a * D + b] : H[b * D + a]) + (a === b && a > 0 ? l2 : 0)));
    const step = (lusolve(M, g) as number[][]).map((row) => row[0]);
    let moved = 0;
    for (let j = 0; j < D; j++) {
      w[j] += step[j];
      moved = Math.max(moved, Math.abs(step[j]));
    }
    if (moved < 1e-8) break;
  }
  return { features: [...GATE_FEATURES].slice(0, d), mean, std, weights: w, n, accepted: ys.filter(Boolean).length };
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
  return { ...m, l2: c.l2, threshold: lostAcceptsThreshold(population.map((x) => gateProbability(m, x)), c.maxLostAccepts) };
}

/** The penalties `l2: 'cv'` chooses from. */
export const L2_GRID = [0.3, 1, 3, 10, 30];

/**
 * An event-loop turn between two fits: a fit is synchronous (up to ~45 ms on a full window of 2000 outcomes), and a
 * refit is ~30 of them, so a server answers its requests in between.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The k folds of a cross-validation over n outcomes (fold of outcome i: i mod k), an event-loop turn before each. */
async function* folds(n: number, k: number): AsyncGenerator<{ fold: number[]; rest: number[] }> {
  for (let f = 0; f < k; f++) {
    await turn();
    const fold: number[] = [];
    const rest: number[] = [];
    for (let i = 0; i < n; i++) (i % k === f ? fold : rest).push(i);
    yield { fold, rest };
  }
}

/** Mean out-of-fold log-likelihood of the fit with penalty l2 (k folds). */
export async function cvLogLikelihood(xs: number[][], ys: boolean[], l2: number, k = 5): Promise<number> {
  let sum = 0;
  for await (const { fold, rest } of folds(xs.length, k)) {
    const m = fitLogistic(rest.map((i) => xs[i]), rest.map((i) => ys[i]), l2);
    for (const i of fold) {
      const p = Math.min(Math.max(gateProbability(m, xs[i]), 1e-9), 1 - 1e-9);
      sum += Math.log(ys[i] ? p : 1 - p);
    }
  }
  return sum / xs.length;
}

/** The configured penalty, or ('cv') the one of L2_GRID with the best cross-validated log-likelihood. */
export async function chooseL2(xs: number[][], ys: boolean[], l2: GateConfig['l2']): Promise<number> {
  if (l2 !== 'cv') return l2;
  const scores: number[] = [];
  for (const v of L2_GRID) scores.push(await cvLogLikelihood(xs, ys, v));
  return L2_GRID[scores.indexOf(Math.max(...scores))];
}

/**
 * k-fold cross-validation of the gate's decision (fold of outcome i: i mod k): fit and set the threshold on the other
 * folds, then count, in the fold, the outcomes it would show and hide and how many of each were accepted.
 */
export async function crossValidate(xs: number[][], ys: boolean[], c: FitSettings, k = 5): Promise<Validation> {
  const v = { shown: 0, shown_accepted: 0, hidden: 0, hidden_accepted: 0 };
  for await (const { fold, rest } of folds(xs.length, k)) {
    if (rest.length === 0 || rest.every((i) => ys[i] === ys[rest[0]])) continue; // nothing to fit on
    const m = fitGate(rest.map((i) => xs[i]), rest.map((i) => ys[i]), c);
    for (const i of fold) {
      const show = gateProbability(m, xs[i]) > m.threshold;
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

export type GateDecision = { show: boolean; explored: boolean; p: number | null };

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

  /**
   * `stateDir`: observations are replayed from and appended to its gate.jsonl (null: in memory only). `initial`: a
   * fitted gate to start from (a checkpoint's gate.json), used until the observations give a fit of their own.
   */
  constructor(
    private readonly config: GateConfig,
    opts: { stateDir?: string | null; initial?: GateModel | null; seed?: number; warn?: (line: string) => void } = {},
  ) {
    this.rng = resumableRng(`${opts.seed ?? 0}:gate`);
    this.fitted = opts.initial ?? null;
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

  /** Resolves when no refit is running (one starts on a replay, and after every `refitEvery` outcomes). */
  async ready(): Promise<void> {
    while (this.refitting) await this.refitting;
  }

  /** The fitted P(accept) of a suggestion, or null while the gate is not fitted. */
  probability(x: readonly number[]): number | null {
    return this.fitted ? gateProbability(this.fitted, x) : null;
  }

  /** Show this suggestion? Always yes while the gate is not fitted. */
  decide(x: readonly number[]): GateDecision {
    if (!this.active) return { show: true, explored: false, p: null };
    this.counts.judged += 1;
    this.noteServed([...x]);
    const p = gateProbability(this.fitted!, x);
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
    const running: Promise<void> = this.refit().finally(() => {
      if (this.refitting === running) this.refitting = null;
    });
    this.refitting = running;
    return running;
  }

  /** Fit on a snapshot of the outcomes, an event-loop turn between any two fits. */
  private async refit(): Promise<void> {
    this.sinceFit = 0;
    const obs = this.observations.slice();
    const acc = obs.filter((o) => o.accepted).length;
    if (obs.length < this.config.minOutcomes || acc < this.config.minEach || obs.length - acc < this.config.minEach) return;
    const xs = obs.map((o) => o.x);
    const ys = obs.map((o) => o.accepted);
    const total = this.total;
    // The penalty is chosen again once the outcomes have grown by a quarter since it last was (25 fits: not every refit).
    if (this.l2 === null || total >= this.l2.at * 1.25) this.l2 = { value: await chooseL2(xs, ys, this.config.l2), at: total };
    const c = { l2: this.l2.value, maxLostAccepts: this.config.maxLostAccepts };
    // The threshold on what was served (after a restart, until enough is served again: on the outcomes).
    const m = fitGate(xs, ys, c, this.served.length >= this.config.minOutcomes ? this.served : xs);
    const validation = await crossValidate(xs, ys, c);
    this.fitted = { ...m, validation, validated: this.config.validateP >= 1 || hidingHelps(validation, this.config.validateP) };
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
