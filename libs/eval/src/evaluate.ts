// The whole evaluation: every model answers every problem several times at a temperature (and once greedily), the
// answers are checked and scored, trivial programs (stubs) are scored beside them, and the per-problem outcomes
// become eval.json's means, standard errors, pass@k and paired differences against the SFT model (eval-json.ts).
//
// One model is in memory at a time (a real 1.5B checkpoint is 6 GB in float32):
//   1. per model:
//      a. with dev problems: answer them at every candidate temperature (greedy for 0), wait for their tests, and
//         choose the model's temperature (the best dev pass@1, ties to the lower) and its sampling temperature (the
//         best above 0, for pass@k); without, every model is at --temperature (greedy with --greedy).
//      b. per decoding pass on the test problems (sampled at the sampling temperature, greedy): generate
//         (the --engine's sample, `batchSize` prompts at a time, stopping at the template's end token) -> its code goes to the
//         sandbox at once, batch by batch, so python runs while the next batch generates; if KL is wanted for a
//         reported pass, the model's own log-probs of its responses (at the pass's temperature; libs/rl's
//         responseLogProbs, the teacher-forced log-probs PPO trains with).
//   2. the stubs (stubPrograms: one fixed answer per problem each, tokens counted by the first model's tokenizer) go
//      to the sandbox; no language model is loaded for them.
//   3. the KL reference (SFT) model: its log-probs of every other model's responses, at the same temperature.
//   4. the reward model: a score for every (prompt, response), stubs included.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { WeightDtype } from '@rlhf-code/backend';
import { openEngine, type EngineSettings, type RolloutEngine } from '@rlhf-code/engine';
import { checkpointAt, Completion, openCheckpoint, Qwen2Model, sampledIds, type Checkpoint } from '@rlhf-code/model';
import { responseLogProbs } from '@rlhf-code/rl';
import { calledFunctions, STUB_NAMES, stubPrograms } from '@rlhf-code/sandbox';
import { bestSamplingTemperature, bestTemperature, meanSe, temperatureKey, type DevPoint } from '@rlhf-code/stats';
import { encodePair, encodePrompt, loadTokenizer, PromptTemplate, stopTokenIds, Tokenizer } from '@rlhf-code/tokenizer';
import type { EvalProblem } from './data';
import { assembleReport, perProblemReport, type Decoding, type DevReport, type EvalReport, type PerProblemReport, type Row } from './eval-json';
import type { CodeExecutor, TestOutcome } from './executor';
import { byProblem, definesCalledFunctions, ModelSummary, problemPassAtK, ProblemOutcome, sequenceLogRatio, summarize } from './metrics';
import type { KlReference, NamedModel } from './models-flag';

export type { Comparison, Decoding, DevReport, EvalReport, GreedyMetrics, GroupModelReport, GroupReport, ModelReport, PassAt1VsSft, PassAtKReport, PerProblemReport } from './eval-json';

/** Responses sampled per problem by default: enough that per-problem means are not all 0 or 1. */
export const DEFAULT_EVAL_SAMPLES = 4;
/** RL's default sampling temperature (apps/rl --temperature), so the evaluation sees what RL optimised. */
export const DEFAULT_EVAL_TEMPERATURE = 0.7;
/** Candidate temperatures on dev data (0 = greedy). */
export const DEFAULT_DEV_TEMPERATURES = [0, 0.2, 0.4, 0.6, 0.8, 1];
/** Answers per dev problem at each temperature above 0 (greedy answers once). */
export const DEFAULT_DEV_SAMPLES = 4;

/** Choosing each model's temperature on dev problems (eval:run --dev-data). */
export interface DevOptions {
  problems: EvalProblem[];
  /** Candidate temperatures; 0 = greedy. */
  temperatures: number[];
  /** Answers per dev problem at each temperature above 0. */
  samples: number;
}

export interface EvalOptions {
  maxNewTokens: number;
  /** Prompts generated together (and rows scored together for KL and the reward model). */
  batchSize: number;
  /** Sampling temperature (top-k 0, top-p 1) without dev data. */
  temperature: number;
  /** Seeds generateBatch's root stream afresh for every model and pass: answer k of every model is drawn from the same stream. */
  seed: number;
  template: PromptTemplate;
  /** Answers per problem sampled (0: greedy only). */
  samples: number;
  /** Also one greedy answer per problem, reported beside the sampled ones (with dev data it also runs for models whose choice is greedy). */
  greedy: boolean;
  /** Score the trivial programs of STUB_NAMES as rows of their own. */
  stubs: boolean;
  /** Choose each model's temperature on these problems first; absent: every model at `temperature`. */
  dev?: DevOptions;
  models: NamedModel[];
  problems: EvalProblem[];
  /** The reward model's folder, or its Checkpoint as the command checked it; null: no rm_score. */
  rewardModelDir: string | Checkpoint<'reward-model'> | null;
  klReference: KlReference | null;
  /** How every loaded model holds its matrices (default fp32). */
  baseDtype?: WeightDtype;
  executor: CodeExecutor;
  /** What decodes the answers (--engine; default local): opened on each model in turn. */
  engine?: EngineSettings;
  onProgress?: (p: Progress) => void;
  /** Human-readable lines (loading, timings). */
  log?: (line: string) => void;
}

export interface Progress {
  stage: 'dev' | 'generate' | 'kl' | 'rm';
  model: string;
  /** Responses (of all decoding passes of the stage) done and in all. */
  done: number;
  total: number;
}

/** One line of samples.jsonl. */
export interface Sample {
  /** The model's name, or the stub's (`stub:pass`, ...). */
  model: string;
  task_id: number | string;
  decoding: Decoding;
  /** Index of the answer among the problem's samples (0 for greedy and stubs). */
  sample: number;
  response: string;
  passed: boolean;
  /** Share of the problem's tests that passed. */
  tests_passed: number;
  syntax_ok: boolean;
  exec_score: number;
  rm_score: number | null;
}

export interface ModelTiming {
  model: string;
  /** Wall time of generation (dev included, and the model's own log-probs when KL is measured). */
  generateSeconds: number;
  /** From the first batch handed to the sandbox until the last test result, overlapping generation. */
  testSeconds: number;
}

export interface EvalResult {
  report: EvalReport;
  /** per_problem.json */
  perProblem: PerProblemReport;
  samples: Sample[];
  timings: ModelTiming[];
}

/** A response: its text and token ids (generateBatch's, or a stub's encoded) and the prompt ids as fed to the model. */
type Response = Pick<Completion, 'ids' | 'stopId' | 'text'> & { promptIds: number[] };

/** A decoding pass: how many answers per problem, at which temperature (greedy passes take log-probs at 1). */
interface PassSpec {
  decoding: Decoding;
  perProblem: number;
  temperature: number;
}

/** One decoding pass of one row: problem-major responses (problem i's answers at i * perProblem ...). */
interface PassRun extends PassSpec {
  responses: Response[];
  /** Settled sandbox outcomes (errors kept, not thrown, so nothing rejects unobserved while other models run). */
  tests: Promise<TestOutcome | Error>[];
  syntaxOk: Promise<boolean[] | Error>;
  /** Own log-probs of each response's generated ids, or null when KL is not measured for this pass. */
  ownLogProbs: number[][] | null;
}

/** Which pass a row's headline figures come from, at which temperatures, and why (dev figures). */
interface Choice {
  headline: Decoding;
  temperature: number | null;
  samplingTemperature: number | null;
  dev?: Record<string, DevReport>;
}

/** A model's or a stub's passes on the test problems. */
interface RowRun extends Choice {
  name: string;
  passes: PassRun[];
  /** sha256 of tokenizer.json (null for stubs: no KL). */
  tokenizerHash: string | null;
  generateSeconds: number;
  clock: TestClock;
}

/** When a row's first test started and its last ended (ms). */
interface TestClock {
  start: number;
  end: number;
}

const settle = <T>(p: Promise<T>): Promise<T | Error> => p.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));

function unwrap<T>(v: T | Error): T {
  if (v instanceof Error) throw v;
  return v;
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

/** A blank answer is not code, even though Python compiles an empty module. */
const isBlank = (code: string) => code.trim() === '';

const GREEDY: PassSpec = { decoding: 'greedy', perProblem: 1, temperature: 1 };
const sampledSpec = (perProblem: number, temperature: number): PassSpec => ({ decoding: 'sampled', perProblem, temperature });
/** A candidate temperature as a pass: greedy at 0, else `perProblem` samples. */
const atTemperature = (t: number, perProblem: number): PassSpec => (t === 0 ? GREEDY : sampledSpec(perProblem, t));

const passTotal = (specs: readonly PassSpec[], problems: number) => specs.reduce((n, p) => n + p.perProblem * problems, 0);

function tokenizerHash(dir: string): string {
  const file = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(file)) throw new Error(`${dir}: no tokenizer.json (the evaluation decodes responses with the checkpoint's own tokenizer)`);
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function checkOptions(opts: EvalOptions): void {
  if (opts.models.length === 0) throw new Error('evaluate: no models');
  if (opts.problems.length === 0) throw new Error('evaluate: no problems');
  if (!(Number.isInteger(opts.samples) && opts.samples >= 0)) throw new Error(`evaluate: samples must be an integer >= 0, got ${opts.samples}`);
  if (opts.samples === 0 && !opts.greedy) throw new Error('evaluate: nothing to do (no samples and no greedy pass)');
  const dev = opts.dev;
  if (!dev) return;
  if (dev.problems.length === 0) throw new Error('evaluate: no dev problems');
  if (dev.temperatures.length === 0 || dev.temperatures.some((t) => !(Number.isFinite(t) && t >= 0))) {
    throw new Error(`evaluate: dev temperatures must be numbers >= 0, got [${dev.temperatures.join(', ')}]`);
  }
  if (!(Number.isInteger(dev.samples) && dev.samples > 0)) throw new Error(`evaluate: dev samples must be a positive integer, got ${dev.samples}`);
  if (opts.samples === 0 && dev.temperatures.some((t) => t > 0)) throw new Error('evaluate: dev temperatures above 0 need samples > 0 (the chosen temperature is sampled)');
}

/** A model in memory, ready to answer problems. */
interface Answerer {
  name: string;
  model: Qwen2Model;
  /** What decodes its answers (opened on `model`). */
  engine: RolloutEngine;
  tok: Tokenizer;
  /** Each problem's prompt ids, cut from the left when the prompt + maxNewTokens exceed the context window. */
  prompts(problems: readonly EvalProblem[]): number[][];
}

/**
 * Generate one pass's answers to `problems`, handing each batch's code to the sandbox as soon as it is decoded (the
 * tests run while the next batch generates). `onBatch` counts answers for the progress bar.
 */
async function generatePass(
  opts: EvalOptions,
  a: Answerer,
  problems: readonly EvalProblem[],
  spec: PassSpec,
  clock: TestClock,
  onBatch: (answers: number) => void,
): Promise<PassRun> {
  const p: PassRun = { ...spec, responses: [], tests: [], syntaxOk: Promise.resolve([]), ownLogProbs: null };
  const rows = a.prompts(problems).flatMap((ids) => new Array<number[]>(spec.perProblem).fill(ids));
  const completions = await a.engine.sample(rows, {
    maxNewTokens: opts.maxNewTokens,
    batchSize: opts.batchSize,
    stopIds: stopTokenIds(a.tok, opts.template),
    vocabSize: a.tok.vocabSize,
    temperature: spec.decoding === 'greedy' ? 0 : spec.temperature,
    topK: 0,
    topP: 1,
    seed: opts.seed,
    onBatch: (indices, batch) => {
      batch.forEach((r, i) => (p.tests[indices[i]] = runTests(opts.executor, r.text, problems[Math.floor(indices[i] / spec.perProblem)], clock)));
      onBatch(batch.length);
    },
  });
  p.responses = completions.map((c, k) => ({ ids: c.ids, stopId: c.stopId, text: c.text, promptIds: rows[k] }));
  return p;
}

function runTests(executor: CodeExecutor, code: string, problem: EvalProblem, clock: TestClock, background = false): Promise<TestOutcome | Error> {
  if (clock.start === 0) clock.start = performance.now();
  return settle(executor.runTests(code, problem.tests, problem.setup, { background }).finally(() => (clock.end = performance.now())));
}

/** Start the syntax check of a pass's responses (a blank one is not valid code). */
function checkPassSyntax(executor: CodeExecutor, p: PassRun): void {
  const texts = p.responses.map((r) => r.text);
  p.syntaxOk = settle(executor.checkSyntax(texts).then((ok) => ok.map((v, i) => v && !isBlank(texts[i]))));
}

/** Dev pass@1 at every candidate temperature (tests only), and the choice it makes. */
async function chooseOnDev(opts: EvalOptions, dev: DevOptions, a: Answerer, clock: TestClock): Promise<Choice> {
  const specs = dev.temperatures.map((t) => atTemperature(t, dev.samples));
  const total = passTotal(specs, dev.problems.length);
  let done = 0;
  opts.onProgress?.({ stage: 'dev', model: a.name, done, total });
  const runs: PassRun[] = [];
  for (const spec of specs) {
    runs.push(await generatePass(opts, a, dev.problems, spec, clock, (n) => opts.onProgress?.({ stage: 'dev', model: a.name, done: (done += n), total })));
  }
  const points: (DevPoint & { se: number | null })[] = [];
  for (const [i, run] of runs.entries()) {
    const passed = (await Promise.all(run.tests)).map((t) => unwrap(t).passed);
    const { mean, se } = meanSe(byProblem(passed, run.perProblem).map((flags) => problemPassAtK(flags, 1)));
    points.push({ temperature: dev.temperatures[i], passAt1: mean, se });
  }
  const temperature = bestTemperature(points);
  // no candidate above 0: the samples behind pass@k are drawn at --temperature
  const samplingTemperature = opts.samples > 0 ? (bestSamplingTemperature(points) ?? opts.temperature) : null;
  const table: Record<string, DevReport> = Object.fromEntries(points.map((p) => [temperatureKey(p.temperature), { pass_at_1: p.passAt1, se: p.se }]));
  opts.log?.(`${a.name}: dev pass@1 ${points.map((p) => `${p.temperature}: ${p.passAt1.toFixed(3)}`).join(', ')}; chose ${temperature}`);
  return { headline: temperature === 0 ? 'greedy' : 'sampled', temperature, samplingTemperature, dev: table };
}

/** Without dev data: every model at --temperature, or greedy when nothing is sampled. */
const fixedChoice = (opts: EvalOptions): Choice =>
  opts.samples > 0
    ? { headline: 'sampled', temperature: opts.temperature, samplingTemperature: opts.temperature }
    : { headline: 'greedy', temperature: 0, samplingTemperature: null };

/** The test problems' passes of a model: the sampled one at its sampling temperature, and greedy when wanted or chosen. */
const testPasses = (opts: EvalOptions, c: Choice): PassSpec[] => [
  ...(c.samplingTemperature !== null ? [sampledSpec(opts.samples, c.samplingTemperature)] : []),
  ...(opts.greedy || c.headline === 'greedy' ? [GREEDY] : []),
];

/** 1. Load one model, choose its temperature (on dev data), answer the test problems, take its own log-probs for KL. */
async function runModel(opts: EvalOptions, { name, dir, checkpoint }: NamedModel): Promise<RowRun> {
  const t0 = performance.now();
  const { model, tokenizer: tok } = await openCheckpoint(checkpoint ?? dir, { flag: `--models ${name}`, trainable: false, baseDtype: opts.baseDtype });
  const engine = await openEngine(opts.engine ?? { engine: 'local' }, { model, tokenizer: tok, checkpointDir: dir }).catch((e) => {
    model.dispose();
    throw e;
  });
  try {
    const maxPrompt = Math.max(1, model.config.max_position_embeddings - opts.maxNewTokens);
    const a: Answerer = { name, model, engine, tok, prompts: (ps) => ps.map((q) => encodePrompt(tok, q.prompt, opts.template).slice(-maxPrompt)) };
    const clock: TestClock = { start: 0, end: 0 };
    const choice = opts.dev ? await chooseOnDev(opts, opts.dev, a, clock) : fixedChoice(opts);
    const run: RowRun = { name, ...choice, passes: [], tokenizerHash: tokenizerHash(dir), generateSeconds: 0, clock };
    const specs = testPasses(opts, choice);
    const total = passTotal(specs, opts.problems.length);
    let done = 0;
    opts.onProgress?.({ stage: 'generate', model: name, done, total });
    const ref = opts.klReference;
    for (const spec of specs) {
      const p = await generatePass(opts, a, opts.problems, spec, clock, (n) => opts.onProgress?.({ stage: 'generate', model: name, done: (done += n), total }));
      checkPassSyntax(opts.executor, p);
      // KL of the reported passes only: the headline and the greedy figures (a sampled pass behind a greedy headline gives pass@k alone)
      if (ref !== null && ref.name !== name && isReported(run, p)) p.ownLogProbs = logProbs(opts, model, tok.padId, p);
      run.passes.push(p);
    }
    run.generateSeconds = seconds(t0);
    opts.log?.(`${name}: ${total} responses in ${run.generateSeconds.toFixed(1)} s`);
    return run;
  } finally {
    await engine.close();
    model.dispose();
  }
}

/** A model's log-probs of every token a pass sampled (the end token included) at the pass's temperature: KL's terms. */
/**
 * `compute` run on the distinct rows only (by `keys`: sampled answers repeat, often 8 of 8 at a low temperature), its
 * results handed to every row with that key.
 */
function onDistinct<T>(keys: readonly string[], compute: (rows: number[]) => T[]): T[] {
  const slot = new Map<string, number>();
  const firsts: number[] = [];
  const at = keys.map((k, i) => {
    let u = slot.get(k);
    if (u === undefined) slot.set(k, (u = firsts.push(i) - 1));
    return u;
  });
  const out = compute(firsts);
  return at.map((u) => out[u]);
}

const logProbs = (opts: EvalOptions, model: Qwen2Model, padId: number, p: PassRun) => {
  const ids = p.responses.map(sampledIds);
  return onDistinct(
    p.responses.map((r, i) => `${r.promptIds.join(',')}|${ids[i].join(',')}`),
    (rows) => responseLogProbs(model, rows.map((i) => p.responses[i].promptIds), rows.map((i) => ids[i]), { temperature: p.temperature, padId, chunkSize: opts.batchSize }),
  );
};

/** 2. The stubs' rows: each stub's program for every problem, tested and syntax-checked like a model's answers. */
function stubRuns(opts: EvalOptions): RowRun[] {
  const tok = loadTokenizer(opts.models[0].dir);
  const programs = opts.problems.map((q) => stubPrograms({ prompt: q.prompt, tests: q.tests, setup: q.setup, code: q.code }));
  return STUB_NAMES.map((name, s) => {
    const clock: TestClock = { start: 0, end: 0 };
    const p: PassRun = { decoding: 'stub', perProblem: 1, temperature: 1, responses: [], tests: [], syntaxOk: Promise.resolve([]), ownLogProbs: null };
    p.responses = programs.map((stubs) => ({ text: stubs[s].response, ids: tok.encode(stubs[s].response, { parseSpecialTokens: false }), stopId: null, promptIds: [] }));
    p.tests = p.responses.map((r, i) => runTests(opts.executor, r.text, opts.problems[i], clock, true));
    checkPassSyntax(opts.executor, p);
    return { name, headline: 'stub', temperature: null, samplingTemperature: null, passes: [p], tokenizerHash: null, generateSeconds: 0, clock };
  });
}

/** 3. The reference model's log-probs of the other models' responses, at each pass's temperature. */
async function referenceLogRatios(opts: EvalOptions, runs: readonly RowRun[]): Promise<Map<PassRun, number[]>> {
  const ref = opts.klReference;
  const logRatios = new Map<PassRun, number[]>();
  const needKl = runs.filter((r) => r.passes.some((p) => p.ownLogProbs !== null));
  if (!ref || needKl.length === 0) return logRatios;
  const refHash = tokenizerHash(ref.dir);
  const { model: refModel, tokenizer: refTok } = await openCheckpoint(ref.checkpoint ?? ref.dir, { flag: ref.name === null ? '--sft-ref' : `--models ${ref.name}`, trainable: false, baseDtype: opts.baseDtype });
  try {
    for (const run of needKl) {
      if (run.tokenizerHash !== refHash) {
        throw new Error(`KL: ${run.name} and the reference ${ref.dir} have different tokenizers, so their token log-probs cannot be compared`);
      }
      const passes = run.passes.filter((p) => p.ownLogProbs !== null);
      const total = passes.reduce((n, p) => n + p.responses.length, 0);
      let done = 0;
      opts.onProgress?.({ stage: 'kl', model: run.name, done, total });
      for (const p of passes) {
        const refLp = logProbs(opts, refModel, refTok.padId, p);
        logRatios.set(p, refLp.map((lp, i) => sequenceLogRatio(p.ownLogProbs![i], lp)));
        opts.onProgress?.({ stage: 'kl', model: run.name, done: (done += p.responses.length), total });
      }
    }
  } finally {
    refModel.dispose();
  }
  return logRatios;
}

/** A pass whose figures are reported (the headline, greedy, a stub's): the one a sampled pass behind a greedy headline is not. */
const isReported = (run: RowRun, p: PassRun) => p.decoding === run.headline || p.decoding === 'greedy' || p.decoding === 'stub';

/**
 * 4. Reward-model scores of the reported passes, read at the end token appended by encodePair (as the RM was trained).
 * The RM's forward pass over prompt + response costs about as much as generating the response, so the pass@k samples
 * behind a greedy headline (8 per problem) are not scored: their rm_score is null.
 */
async function rewardScores(opts: EvalOptions, runs: readonly RowRun[]): Promise<Map<PassRun, number[]>> {
  const rmScores = new Map<PassRun, number[]>();
  const at = opts.rewardModelDir;
  if (!at) return rmScores;
  const { model: rm, tokenizer: rmTok } = await openCheckpoint(typeof at === 'string' ? checkpointAt(at, '--reward-model', 'reward-model') : at, { trainable: false, baseDtype: opts.baseDtype });
  try {
    const maxLen = rm.config.max_position_embeddings;
    for (const run of runs) {
      const total = run.passes.filter((p) => isReported(run, p)).reduce((n, p) => n + p.responses.length, 0);
      let done = 0;
      opts.onProgress?.({ stage: 'rm', model: run.name, done, total });
      for (const p of run.passes) {
        if (!isReported(run, p)) continue; // a sampled pass behind a greedy headline gives pass@k alone
        const rows = p.responses.map((r, k) => encodePair(rmTok, opts.problems[Math.floor(k / p.perProblem)].prompt, r.text, { template: opts.template, maxLen }).ids);
        rmScores.set(p, onDistinct(rows.map((r) => r.join(',')), (distinct) => rm.score(distinct.map((i) => rows[i]), rmTok.padId, opts.batchSize)));
        opts.onProgress?.({ stage: 'rm', model: run.name, done: (done += rows.length), total });
      }
    }
  } finally {
    rm.dispose();
  }
  return rmScores;
}

/** Wait for a pass's sandbox results and summarise them by problem; its samples.jsonl lines go to `samples`. */
async function summarizePass(
  opts: EvalOptions,
  name: string,
  p: PassRun,
  scores: { rm?: number[]; kl?: number[] },
  called: readonly string[][],
  samples: Sample[],
): Promise<ModelSummary> {
  const tests = (await Promise.all(p.tests)).map(unwrap);
  const syntaxOk = unwrap(await p.syntaxOk);
  const { rm, kl } = scores;
  const problemOf = (k: number) => Math.floor(k / p.perProblem);
  const outcomes: ProblemOutcome[] = p.responses.map((r, k) => ({
    tokens: r.ids,
    syntaxOk: syntaxOk[k],
    passed: tests[k].passed,
    execScore: tests[k].execScore,
    testsPassed: tests[k].testsPassed,
    definesCalled: definesCalledFunctions(r.text, called[problemOf(k)]),
    rmScore: rm ? rm[k] : null,
    logRatio: kl ? kl[k] : null,
  }));
  p.responses.forEach((r, k) =>
    samples.push({
      model: name,
      task_id: opts.problems[problemOf(k)].taskId,
      decoding: p.decoding,
      sample: k % p.perProblem,
      response: r.text,
      passed: tests[k].passed,
      tests_passed: tests[k].testsPassed,
      syntax_ok: syntaxOk[k],
      exec_score: tests[k].execScore,
      rm_score: rm ? rm[k] : null,
    }),
  );
  return summarize(byProblem(outcomes, p.perProblem));
}

export async function evaluate(opts: EvalOptions): Promise<EvalResult> {
  checkOptions(opts);
  const runs: RowRun[] = [];
  // The stubs' test runs are queued first, in the background: they fill the sandbox's idle slots while the models
  // generate, and never delay a model's runs.
  const stubs = opts.stubs ? stubRuns(opts) : [];
  for (const m of opts.models) runs.push(await runModel(opts, m));
  runs.push(...stubs);
  const logRatios = await referenceLogRatios(opts, runs);
  const rmScores = await rewardScores(opts, runs);

  // 5. Wait for the sandbox, summarise each pass by problem, and build eval.json.
  const called = opts.problems.map((p) => calledFunctions(p.tests, p.setup));
  const samples: Sample[] = [];
  const timings: ModelTiming[] = [];
  const rows: Row[] = [];
  for (const run of runs) {
    const passes: Row['passes'] = {};
    for (const p of run.passes) passes[p.decoding] = await summarizePass(opts, run.name, p, { rm: rmScores.get(p), kl: logRatios.get(p) }, called, samples);
    rows.push({ name: run.name, passes, headline: run.headline, temperature: run.temperature, samplingTemperature: run.samplingTemperature, dev: run.dev });
    if (run.headline !== 'stub') {
      const { start, end } = run.clock;
      timings.push({ model: run.name, generateSeconds: run.generateSeconds, testSeconds: start ? (end - start) / 1000 : 0 });
    }
  }
  const ctx = { problems: opts.problems, samples: opts.samples, sftName: opts.klReference?.name ?? null };
  return { report: assembleReport(rows, ctx), perProblem: perProblemReport(rows, ctx), samples, timings };
}
