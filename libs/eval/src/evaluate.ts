// The whole evaluation: every model answers every problem several times at a temperature (and once greedily), the
// answers are checked and scored, and the per-problem outcomes become eval.json's means, standard errors and paired
// differences against the SFT model.
//
// One model is in memory at a time (a real 1.5B checkpoint is 6 GB in float32):
//   1. per model and decoding pass (sampled, greedy): generate (generateBatch, `batchSize` prompts at a time, stopping
//      at the template's end token) -> its code goes to the sandbox at once, batch by batch, so python runs while the
//      next batch generates; if KL is wanted, the model's own log-probs of its responses (at the pass's temperature;
//      libs/rl's responseLogProbs, the teacher-forced log-probs PPO trains with).
//   2. the KL reference (SFT) model: its log-probs of every other model's responses, at the same temperature.
//   3. the reward model: a score for every (prompt, response).
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { checkVocabulary, Completion, generateBatch, isSequenceClassifier, Qwen2Model, readConfig, RewardModel, sampledIds } from '@rlhf-code/model';
import { responseLogProbs } from '@rlhf-code/rl';
import { encodePair, encodePrompt, loadTokenizer, PromptTemplate, Tokenizer } from '@rlhf-code/tokenizer';
import type { EvalProblem } from './data';
import type { CodeExecutor, TestOutcome } from './executor';
import { calledFunctions, compareModels, definesCalledFunctions, MetricKey, ModelMetrics, ModelSummary, ProblemOutcome, sequenceLogRatio, summarize } from './metrics';
import type { KlReference, NamedModel } from './models-flag';
import type { PairedDiff } from '@rlhf-code/stats';

/** Responses sampled per problem by default: enough that per-problem means are not all 0 or 1. */
export const DEFAULT_EVAL_SAMPLES = 4;
/** PPO's default sampling temperature (apps/ppo --temperature), so the evaluation sees what PPO optimised. */
export const DEFAULT_EVAL_TEMPERATURE = 0.7;

export interface EvalOptions {
  maxNewTokens: number;
  /** Prompts generated together (and rows scored together for KL and the reward model). */
  batchSize: number;
  /** Sampling temperature (top-k 0, top-p 1). */
  temperature: number;
  /** Seeds generateBatch's root stream afresh for every model: answer k of every model is drawn from the same stream. */
  seed: number;
  template: PromptTemplate;
  /** Answers per problem sampled at `temperature` (0: greedy only). */
  samples: number;
  /** Also one greedy answer per problem, reported beside the sampled ones. */
  greedy: boolean;
  models: NamedModel[];
  problems: EvalProblem[];
  /** Reward-model folder, or null for rm_score = null. */
  rewardModelDir: string | null;
  klReference: KlReference | null;
  executor: CodeExecutor;
  onProgress?: (p: Progress) => void;
  /** Human-readable lines (loading, timings). */
  log?: (line: string) => void;
}

export interface Progress {
  stage: 'generate' | 'kl' | 'rm';
  model: string;
  /** Responses (of all decoding passes) done and in all. */
  done: number;
  total: number;
}

/** Greedy decoding's figures, reported beside the sampled ones (a greedy log-ratio is not a KL estimate). */
export type GreedyMetrics = Omit<ModelMetrics, 'kl_to_sft'> & { greedy_log_ratio: number | null };

/** eval.json's entry for one model: the sampled metrics' means (today's keys), their SEs, and comparisons. */
export type ModelReport = ModelMetrics & {
  se: Record<MetricKey, number | null>;
  /** This model minus the SFT model on the same problems (absent for the SFT model itself and without one). */
  vs_sft?: Record<MetricKey, PairedDiff | null>;
  greedy?: GreedyMetrics;
  /** Greedy-only runs (--greedy): log p_model - log p_sft of the greedy answer, averaged; kl_to_sft is then null. */
  greedy_log_ratio?: number | null;
};

/** eval.json */
export interface EvalReport {
  n_problems: number;
  /** Answers per problem behind the means (0: greedy only, then the means are the greedy figures). */
  samples_per_problem: number;
  temperature: number | null;
  models: Record<string, ModelReport>;
}

/** One line of samples.jsonl. */
export interface Sample {
  model: string;
  task_id: number | string;
  decoding: 'sampled' | 'greedy';
  /** Index of the answer among the problem's samples (0 for greedy). */
  sample: number;
  response: string;
  passed: boolean;
  syntax_ok: boolean;
  exec_score: number;
  rm_score: number | null;
}

export interface ModelTiming {
  model: string;
  /** Wall time of generation (and of the model's own log-probs when KL is measured). */
  generateSeconds: number;
  /** From the first batch handed to the sandbox until the last test result, overlapping generation. */
  testSeconds: number;
}

export interface EvalResult {
  report: EvalReport;
  samples: Sample[];
  timings: ModelTiming[];
}

/** A response: generateBatch's completion and the prompt ids as fed to the model (cut from the left to fit the window). */
type Response = Completion & { promptIds: number[] };

/** One decoding pass of one model: problem-major responses (problem i's answers at i * perProblem ...). */
interface PassRun {
  decoding: 'sampled' | 'greedy';
  perProblem: number;
  temperature: number;
  responses: Response[];
  /** Settled sandbox outcomes (errors kept, not thrown, so nothing rejects unobserved while other models run). */
  tests: Promise<TestOutcome | Error>[];
  syntaxOk: Promise<boolean[] | Error>;
  /** Own log-probs of each response's generated ids, or null when KL is not measured for this model. */
  ownLogProbs: number[][] | null;
}

/** One model's summaries per decoding pass. */
type PassSummaries = Partial<Record<PassRun['decoding'], ModelSummary>>;

interface ModelRun {
  name: string;
  passes: PassRun[];
  tokenizerHash: string;
  generateSeconds: number;
  testStart: number;
  testEnd: number;
}

const settle = <T>(p: Promise<T>): Promise<T | Error> => p.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));

function unwrap<T>(v: T | Error): T {
  if (v instanceof Error) throw v;
  return v;
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

/** A blank answer is not code, even though Python compiles an empty module. */
const isBlank = (code: string) => code.trim() === '';

function tokenizerHash(dir: string): string {
  const file = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(file)) throw new Error(`${dir}: no tokenizer.json (the evaluation decodes responses with the checkpoint's own tokenizer)`);
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function loadModelTokenizer(name: string, dir: string, vocab: number): Tokenizer {
  const tok = loadTokenizer(dir);
  checkVocabulary(tok, vocab, `${name}=${dir}`);
  return tok;
}

export async function evaluate(opts: EvalOptions): Promise<EvalResult> {
  const { problems, executor, klReference: ref } = opts;
  if (problems.length === 0) throw new Error('evaluate: no problems');
  if (!(Number.isInteger(opts.samples) && opts.samples >= 0)) throw new Error(`evaluate: samples must be an integer >= 0, got ${opts.samples}`);
  if (opts.samples === 0 && !opts.greedy) throw new Error('evaluate: nothing to do (no samples and no greedy pass)');
  const log = opts.log ?? (() => undefined);
  const passes: { decoding: 'sampled' | 'greedy'; perProblem: number; temperature: number }[] = [
    ...(opts.samples > 0 ? [{ decoding: 'sampled' as const, perProblem: opts.samples, temperature: opts.temperature }] : []),
    ...(opts.greedy ? [{ decoding: 'greedy' as const, perProblem: 1, temperature: 1 }] : []),
  ];
  const total = passes.reduce((n, p) => n + p.perProblem * problems.length, 0);
  /** A model's log-probs of every token a pass sampled (the end token included) at the pass's temperature: KL's terms. */
  const logProbs = (model: Qwen2Model, padId: number, p: PassRun) =>
    responseLogProbs(model, p.responses.map((r) => r.promptIds), p.responses.map(sampledIds), { temperature: p.temperature, padId, chunkSize: opts.batchSize });
  const called = problems.map((p) => calledFunctions(p.tests, p.setup));
  const runs: ModelRun[] = [];

  // 1. Generate, start the sandbox, own log-probs.
  for (const { name, dir } of opts.models) {
    const t0 = performance.now();
    if (isSequenceClassifier(readConfig(dir))) throw new Error(`${name}=${dir}: a reward model (Qwen2ForSequenceClassification), not a language model that can answer`);
    const model = await Qwen2Model.load(dir, { trainable: false });
    try {
      const tok = loadModelTokenizer(name, dir, model.config.vocab_size);
      // Each problem's prompt ids, cut from the left when the prompt + maxNewTokens exceed the context window.
      const maxPrompt = Math.max(1, model.config.max_position_embeddings - opts.maxNewTokens);
      const prompts = problems.map((q) => encodePrompt(tok, q.prompt, opts.template).slice(-maxPrompt));
      const run: ModelRun = { name, passes: [], tokenizerHash: tokenizerHash(dir), generateSeconds: 0, testStart: 0, testEnd: 0 };
      opts.onProgress?.({ stage: 'generate', model: name, done: 0, total });
      let done = 0;
      for (const pass of passes) {
        const p: PassRun = { ...pass, responses: [], tests: [], syntaxOk: Promise.resolve([]), ownLogProbs: null };
        const problemOf = (k: number) => problems[Math.floor(k / pass.perProblem)];
        const onBatch = (indices: readonly number[], batch: readonly Completion[]) => {
          if (run.testStart === 0) run.testStart = performance.now();
          batch.forEach((r, i) => {
            const problem = problemOf(indices[i]);
            p.tests[indices[i]] = settle(executor.runTests(r.text, problem.tests, problem.setup).finally(() => (run.testEnd = performance.now())));
          });
          done += batch.length;
          opts.onProgress?.({ stage: 'generate', model: name, done, total });
        };
        const rows = prompts.flatMap((ids) => new Array<number[]>(pass.perProblem).fill(ids));
        const completions = await generateBatch(model, rows, {
          maxNewTokens: opts.maxNewTokens,
          batchSize: opts.batchSize,
          tokenizer: tok,
          stop: opts.template,
          greedy: pass.decoding === 'greedy',
          temperature: pass.temperature,
          topK: 0,
          topP: 1,
          seed: opts.seed,
          onBatch,
        });
        p.responses = completions.map((c, k) => ({ ...c, promptIds: rows[k] }));
        const texts = p.responses.map((r) => r.text);
        p.syntaxOk = settle(executor.checkSyntax(texts).then((ok) => ok.map((v, i) => v && !isBlank(texts[i]))));
        if (ref !== null && ref.name !== name) p.ownLogProbs = logProbs(model, tok.padId, p);
        run.passes.push(p);
      }
      run.generateSeconds = seconds(t0);
      runs.push(run);
      log(`${name}: ${total} responses in ${run.generateSeconds.toFixed(1)} s`);
    } finally {
      model.dispose();
    }
  }

  // 2. The reference model's log-probs of the other models' responses, at each pass's temperature.
  const logRatios = new Map<PassRun, number[]>();
  const needKl = runs.filter((r) => r.passes.some((p) => p.ownLogProbs !== null));
  if (ref && needKl.length > 0) {
    const refModel = await Qwen2Model.load(ref.dir, { trainable: false });
    try {
      const refHash = tokenizerHash(ref.dir);
      const refTok = loadModelTokenizer('KL reference', ref.dir, refModel.config.vocab_size);
      for (const run of needKl) {
        if (run.tokenizerHash !== refHash) {
          throw new Error(`KL: ${run.name} and the reference ${ref.dir} have different tokenizers, so their token log-probs cannot be compared`);
        }
        opts.onProgress?.({ stage: 'kl', model: run.name, done: 0, total });
        let done = 0;
        for (const p of run.passes) {
          const refLp = logProbs(refModel, refTok.padId, p);
          logRatios.set(p, refLp.map((lp, i) => sequenceLogRatio(p.ownLogProbs![i], lp)));
          done += p.responses.length;
          opts.onProgress?.({ stage: 'kl', model: run.name, done, total });
        }
      }
    } finally {
      refModel.dispose();
    }
  }

  // 3. Reward-model scores, read at the end token appended by encodePair (as the RM was trained).
  const rmScores = new Map<PassRun, number[]>();
  if (opts.rewardModelDir) {
    const rm = await RewardModel.load(opts.rewardModelDir, { trainable: false });
    try {
      const rmTok = loadModelTokenizer('reward model', opts.rewardModelDir, rm.config.vocab_size);
      const maxLen = rm.config.max_position_embeddings;
      for (const run of runs) {
        opts.onProgress?.({ stage: 'rm', model: run.name, done: 0, total });
        let done = 0;
        for (const p of run.passes) {
          const rows = p.responses.map((r, k) => encodePair(rmTok, problems[Math.floor(k / p.perProblem)].prompt, r.text, { template: opts.template, maxLen }).ids);
          rmScores.set(p, rm.score(rows, rmTok.padId, opts.batchSize));
          done += rows.length;
          opts.onProgress?.({ stage: 'rm', model: run.name, done, total });
        }
      }
    } finally {
      rm.dispose();
    }
  }

  // 4. Wait for the sandbox, group each pass's outcomes by problem, summarise, and compare with the SFT model.
  const samples: Sample[] = [];
  const timings: ModelTiming[] = [];
  const summaries = new Map<string, PassSummaries>();
  for (const run of runs) {
    const entry: PassSummaries = {};
    for (const p of run.passes) {
      const tests = (await Promise.all(p.tests)).map(unwrap);
      const syntaxOk = unwrap(await p.syntaxOk);
      const rm = rmScores.get(p);
      const kl = logRatios.get(p);
      const outcomes: ProblemOutcome[] = p.responses.map((r, k) => ({
        tokens: r.ids,
        syntaxOk: syntaxOk[k],
        passed: tests[k].passed,
        execScore: tests[k].execScore,
        definesCalled: definesCalledFunctions(r.text, called[Math.floor(k / p.perProblem)]),
        rmScore: rm ? rm[k] : null,
        logRatio: kl ? kl[k] : null,
      }));
      entry[p.decoding] = summarize(problems.map((_, i) => outcomes.slice(i * p.perProblem, (i + 1) * p.perProblem)));
      p.responses.forEach((r, k) =>
        samples.push({
          model: run.name,
          task_id: problems[Math.floor(k / p.perProblem)].taskId,
          decoding: p.decoding,
          sample: k % p.perProblem,
          response: r.text,
          passed: tests[k].passed,
          syntax_ok: syntaxOk[k],
          exec_score: tests[k].execScore,
          rm_score: rm ? rm[k] : null,
        }),
      );
    }
    summaries.set(run.name, entry);
    timings.push({ model: run.name, generateSeconds: run.generateSeconds, testSeconds: run.testStart ? (run.testEnd - run.testStart) / 1000 : 0 });
  }
  const main = (e: PassSummaries) => (e.sampled ?? e.greedy)!;
  const sft = ref?.name ? summaries.get(ref.name) : undefined;
  const report: EvalReport = {
    n_problems: problems.length,
    samples_per_problem: opts.samples,
    temperature: opts.samples > 0 ? opts.temperature : null,
    models: {},
  };
  for (const [name, entry] of summaries) {
    const s = main(entry);
    const model: ModelReport = { ...s.metrics, se: s.se };
    if (sft && ref && name !== ref.name) model.vs_sft = compareModels(s, main(sft));
    if (!entry.sampled) {
      // Greedy only: the log-ratio of one greedy answer per problem is not an estimate of the KL, so it is not named one.
      model.greedy_log_ratio = model.kl_to_sft;
      model.kl_to_sft = null;
      model.se = { ...model.se, kl_to_sft: null };
    }
    if (entry.sampled && entry.greedy) {
      const { kl_to_sft: greedyLogRatio, ...rest } = entry.greedy.metrics;
      model.greedy = { ...rest, greedy_log_ratio: greedyLogRatio };
    }
    report.models[name] = model;
  }
  return { report, samples, timings };
}
