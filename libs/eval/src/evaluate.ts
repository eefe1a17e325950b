// The whole evaluation: every model answers every problem once, the answers are checked and scored, and the
// per-problem outcomes are aggregated into eval.json's numbers.
//
// One model is in memory at a time (a real 1.5B checkpoint is 6 GB in float32):
//   1. per model: generate (batched) -> its code goes to the sandbox at once, batch by batch, so python runs
//      while the next batch generates; if KL is wanted, the model's own log-probs of its responses.
//   2. the KL reference (SFT) model: its log-probs of every other model's responses.
//   3. the reward model: a score for every (prompt, response).
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { isSequenceClassifier, Qwen2Model, readConfig, RewardModel } from '@rlhf-code/model';
import { encodePair, loadTokenizer, Tokenizer } from '@rlhf-code/tokenizer';
import type { EvalProblem } from './data';
import type { CodeExecutor } from './executor';
import { responseLogProbs } from './logprobs';
import { aggregate, ModelMetrics, ProblemOutcome, sequenceLogRatio } from './metrics';
import type { KlReference, NamedModel } from './models-flag';
import { DecodingOptions, generateResponses, Response, sampledIds } from './responses';

export interface EvalOptions extends DecodingOptions {
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
  done: number;
  total: number;
}

/** eval.json */
export interface EvalReport {
  n_problems: number;
  models: Record<string, ModelMetrics>;
}

/** One line of samples.jsonl. */
export interface Sample {
  model: string;
  task_id: number | string;
  response: string;
  passed: boolean;
  syntax_ok: boolean;
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

interface ModelRun {
  name: string;
  responses: Response[];
  /** Settled sandbox outcomes (errors kept, not thrown, so nothing rejects unobserved while other models run). */
  tests: Promise<boolean | Error>[];
  syntaxOk: Promise<boolean[] | Error>;
  /** Own log-probs of each response's generated ids, or null when KL is not measured for this model. */
  ownLogProbs: number[][] | null;
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
  if (tok.vocabSize > vocab) throw new Error(`${name}=${dir}: its tokenizer has ${tok.vocabSize} tokens, more than the model's ${vocab}`);
  return tok;
}

export async function evaluate(opts: EvalOptions): Promise<EvalResult> {
  const { problems, executor, klReference: ref } = opts;
  if (problems.length === 0) throw new Error('evaluate: no problems');
  const log = opts.log ?? (() => undefined);
  const runs: ModelRun[] = [];

  // 1. Generate, start the sandbox, own log-probs.
  for (const { name, dir } of opts.models) {
    const t0 = performance.now();
    if (isSequenceClassifier(readConfig(dir))) throw new Error(`${name}=${dir}: a reward model (Qwen2ForSequenceClassification), not a language model that can answer`);
    const model = await Qwen2Model.load(dir, { trainable: false });
    try {
      const tok = loadModelTokenizer(name, dir, model.config.vocab_size);
      const run: ModelRun = {
        name,
        responses: [],
        tests: [],
        syntaxOk: Promise.resolve([]),
        ownLogProbs: null,
        tokenizerHash: tokenizerHash(dir),
        generateSeconds: 0,
        testStart: 0,
        testEnd: 0,
      };
      const onBatch = (start: number, batch: Response[]) => {
        if (run.testStart === 0) run.testStart = performance.now();
        batch.forEach((r, i) => {
          const p = problems[start + i];
          const passes = isBlank(r.text) ? Promise.resolve(false) : executor.passesTests(r.text, p.tests, p.setup);
          run.tests.push(settle(passes.finally(() => (run.testEnd = performance.now()))));
        });
        opts.onProgress?.({ stage: 'generate', model: name, done: start + batch.length, total: problems.length });
      };
      opts.onProgress?.({ stage: 'generate', model: name, done: 0, total: problems.length });
      run.responses = await generateResponses(model, tok, problems.map((p) => p.prompt), opts, onBatch);
      const texts = run.responses.map((r) => r.text);
      run.syntaxOk = settle(executor.checkSyntax(texts).then((ok) => ok.map((v, i) => v && !isBlank(texts[i]))));
      if (ref !== null && ref.name !== name) {
        const rows = run.responses.map((r) => ({ prompt: r.promptIds, response: sampledIds(r) }));
        run.ownLogProbs = responseLogProbs(model, rows, tok.padId, opts.batchSize);
      }
      run.generateSeconds = seconds(t0);
      runs.push(run);
      log(`${name}: ${problems.length} responses in ${run.generateSeconds.toFixed(1)} s`);
    } finally {
      model.dispose();
    }
  }

  // 2. The reference model's log-probs of the other models' responses.
  const logRatios = new Map<string, number[]>();
  const needKl = runs.filter((r) => r.ownLogProbs !== null);
  if (ref && needKl.length > 0) {
    const refModel = await Qwen2Model.load(ref.dir, { trainable: false });
    try {
      const refHash = tokenizerHash(ref.dir);
      const refTok = loadModelTokenizer('KL reference', ref.dir, refModel.config.vocab_size);
      for (const run of needKl) {
        if (run.tokenizerHash !== refHash) {
          throw new Error(`KL: ${run.name} and the reference ${ref.dir} have different tokenizers, so their token log-probs cannot be compared`);
        }
        opts.onProgress?.({ stage: 'kl', model: run.name, done: 0, total: problems.length });
        const rows = run.responses.map((r) => ({ prompt: r.promptIds, response: sampledIds(r) }));
        const refLp = responseLogProbs(refModel, rows, refTok.padId, opts.batchSize);
        logRatios.set(run.name, refLp.map((lp, i) => sequenceLogRatio(run.ownLogProbs![i], lp)));
        opts.onProgress?.({ stage: 'kl', model: run.name, done: problems.length, total: problems.length });
      }
    } finally {
      refModel.dispose();
    }
  }

  // 3. Reward-model scores, read at the end token appended by encodePair (as the RM was trained).
  const rmScores = new Map<string, number[]>();
  if (opts.rewardModelDir) {
    const rm = await RewardModel.load(opts.rewardModelDir, { trainable: false });
    try {
      const rmTok = loadModelTokenizer('reward model', opts.rewardModelDir, rm.config.vocab_size);
      const maxLen = rm.config.max_position_embeddings;
      for (const run of runs) {
        opts.onProgress?.({ stage: 'rm', model: run.name, done: 0, total: problems.length });
        const rows = run.responses.map((r, i) => encodePair(rmTok, problems[i].prompt, r.text, { template: opts.template, maxLen }).ids);
        rmScores.set(run.name, rm.score(rows, rmTok.padId, opts.batchSize));
        opts.onProgress?.({ stage: 'rm', model: run.name, done: problems.length, total: problems.length });
      }
    } finally {
      rm.dispose();
    }
  }

  // 4. Wait for the sandbox and aggregate.
  const report: EvalReport = { n_problems: problems.length, models: {} };
  const samples: Sample[] = [];
  const timings: ModelTiming[] = [];
  for (const run of runs) {
    const passed = (await Promise.all(run.tests)).map(unwrap);
    const syntaxOk = unwrap(await run.syntaxOk);
    timings.push({ model: run.name, generateSeconds: run.generateSeconds, testSeconds: run.testStart ? (run.testEnd - run.testStart) / 1000 : 0 });
    const rm = rmScores.get(run.name);
    const kl = logRatios.get(run.name);
    const outcomes: ProblemOutcome[] = run.responses.map((r, i) => ({
      tokens: r.ids,
      syntaxOk: syntaxOk[i],
      passed: passed[i],
      rmScore: rm ? rm[i] : null,
      logRatio: kl ? kl[i] : null,
    }));
    report.models[run.name] = aggregate(outcomes);
    run.responses.forEach((r, i) =>
      samples.push({ model: run.name, task_id: problems[i].taskId, response: r.text, passed: passed[i], syntax_ok: syntaxOk[i], rm_score: rm ? rm[i] : null }),
    );
  }
  return { report, samples, timings };
}
