// eval: compare checkpoints (e.g. base, SFT, PPO) on held-out coding problems and write eval.json, eval.md,
// eval.svg and samples.jsonl (`run`); measure the pretrained base model's held-out loss and FIM quality (`base`).
// All the work is in libs/eval; this file reads flags and prints.
import * as fs from 'fs';
import * as path from 'path';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import { readFimData } from '@rlhf-code/data';
import {
  BASE_METRIC_DESCRIPTIONS,
  chartSpec,
  checkModelDirs,
  DEFAULT_EVAL_DATA,
  defaultSeqLen,
  evaluate,
  evaluateBase,
  fimSamples,
  formatTable,
  functionCases,
  functionSamples,
  METRIC_DESCRIPTIONS,
  ModelsFlagError,
  parseModelsFlag,
  Progress,
  readEvalProblems,
  renderSvg,
  resolveKlReference,
  sandboxExecutor,
  selectFimCases,
  SERVED_MIN_TOKENS,
  withFileContext,
  writeBaseEval,
  writeEvalOutputs,
  DEFAULT_EVAL_SAMPLES,
  DEFAULT_EVAL_TEMPERATURE,
} from '@rlhf-code/eval';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { PROMPT_TEMPLATES, readCorpus } from '@rlhf-code/tokenizer';

const DEFAULT_REWARD_MODEL = 'results/rm';

const RunFlags = z
  .object({
    models: z.string(),
    data: z.string().default(DEFAULT_EVAL_DATA),
    limit: z.coerce.number().int().positive().optional(),
    out: z.string().default('results/eval'),
    rewardModel: z.string().optional(),
    sftRef: z.string().optional(),
    maxNewTokens: z.coerce.number().int().positive().default(128),
    batchSize: z.coerce.number().int().positive().default(16),
    seed: z.coerce.number().int().default(0),
    samples: z.coerce.number().int().nonnegative().default(DEFAULT_EVAL_SAMPLES),
    greedy: z.boolean().optional(),
    greedyPass: z.boolean().default(true),
    temperature: z.coerce.number().positive().default(DEFAULT_EVAL_TEMPERATURE),
    template: z.enum(PROMPT_TEMPLATES as ['raw', 'chat']).default('raw'),
    concurrency: z.coerce.number().int().positive().default(2),
    timeoutMs: z.coerce.number().int().positive().default(5000),
    chart: z.boolean().default(true),
    backend: backendSchema,
  })
  .refine((f) => !(f.greedy && !f.greedyPass), { message: 'cannot be combined with --no-greedy-pass', path: ['greedy'] });

/** --reward-model: explicit folder (must exist), "none", or the default results/rm when it exists. */
function rewardModelDir(flag: string | undefined, warn: (s: string) => void): string | null {
  if (flag === 'none') return null;
  const dir = flag ?? DEFAULT_REWARD_MODEL;
  if (fs.existsSync(path.join(dir, 'config.json'))) return dir;
  if (flag !== undefined) throw new UsageError(`--reward-model: ${dir} is not a checkpoint folder (no config.json); pass "none" to skip rm_score`);
  warn(`eval: no reward model at ${dir} (train one with \`npx nx run rm:train\`); rm_score will be null`);
  return null;
}

function progressBars(): { update: (p: Progress) => void; stop: () => void } {
  let bar: SingleBar | null = null;
  let key = '';
  return {
    update: (p) => {
      const k = `${p.stage} ${p.model}`;
      if (k !== key) {
        bar?.stop();
        key = k;
        bar = new SingleBar({
          format: `${p.stage.padEnd(8)} ${p.model.padEnd(10)} [{bar}] {value}/{total} responses | eta {eta_formatted}`,
          barsize: 24,
          hideCursor: false,
          stream: process.stderr,
          noTTYOutput: true,
          notTTYSchedule: 15000,
        });
        bar.start(p.total, p.done);
      } else bar!.update(p.done);
    },
    stop: () => bar?.stop(),
  };
}

async function runCommand(opts: unknown): Promise<void> {
  const flags = parseFlags(RunFlags, opts);
  const warn = (s: string) => process.stderr.write(s + '\n');
  let models;
  let klReference;
  try {
    models = parseModelsFlag(flags.models);
    checkModelDirs(models);
    klReference = resolveKlReference(models, flags.sftRef);
  } catch (e) {
    throw e instanceof ModelsFlagError ? new UsageError(e.message) : e;
  }
  const rewardModel = rewardModelDir(flags.rewardModel, warn);
  if (!klReference) warn('eval: no model named "sft" and no --sft-ref; kl_to_sft will be null');
  const problems = await readEvalProblems(flags.data, flags.limit);
  // --greedy: the greedy pass alone, as before the sampled evaluation existed.
  const samples = flags.greedy ? 0 : flags.samples;
  const greedyPass = flags.greedy || flags.greedyPass;
  if (samples === 0 && !greedyPass) throw new UsageError('--samples 0 with --no-greedy-pass leaves nothing to evaluate');
  const decoding = [
    ...(samples > 0 ? [`${samples} samples per problem at temperature ${flags.temperature}, seed ${flags.seed}`] : []),
    ...(greedyPass ? ['greedy'] : []),
  ].join(' + ');

  await initBackend({ backend: flags.backend });
  warn(`eval: ${models.length} models x ${problems.length} problems from ${flags.data} (${decoding}, max ${flags.maxNewTokens} new tokens)`);
  const bars = progressBars();
  const t0 = performance.now();
  let result;
  try {
    result = await evaluate({
      models,
      problems,
      rewardModelDir: rewardModel,
      klReference,
      executor: sandboxExecutor({ concurrency: flags.concurrency, timeoutMs: flags.timeoutMs }),
      maxNewTokens: flags.maxNewTokens,
      batchSize: flags.batchSize,
      samples,
      greedy: greedyPass,
      temperature: flags.temperature,
      seed: flags.seed,
      template: flags.template,
      onProgress: bars.update,
    });
  } finally {
    bars.stop();
  }
  for (const t of result.timings) {
    warn(`eval: ${t.model}: generation ${t.generateSeconds.toFixed(1)} s (${((t.generateSeconds / problems.length) * 1000).toFixed(0)} ms/problem), tests ${t.testSeconds.toFixed(1)} s`);
  }
  const svg = flags.chart ? await renderSvg(chartSpec(result.report)) : null;
  const written = await writeEvalOutputs(
    flags.out,
    result,
    { data: flags.data, decoding, maxNewTokens: flags.maxNewTokens, rewardModel, klReference: klReference?.dir ?? null },
    svg,
  );
  warn(`eval: done in ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote ${written.join(', ')}`);
  process.stdout.write(formatTable(result.report) + '\n');
}

// ---------------------------------------------------------------------------------------------
// base: the pretrained base model's held-out loss and FIM figures

const BaseFlags = z.object({
  model: z.string().default('models/base'),
  corpus: z.string().default('data/corpus/python-stdlib'),
  fim: z.string().default('data/fim/fim.jsonl'),
  fimSplit: z.string().min(1).default('test'),
  limit: z.coerce.number().int().positive().default(200),
  maxNewTokens: z.coerce.number().int().positive().default(64),
  minNewTokens: z.coerce.number().int().nonnegative().default(SERVED_MIN_TOKENS),
  batchSize: z.coerce.number().int().positive().default(16),
  seqLen: z.coerce.number().int().min(2).optional(),
  lossBatchSize: z.coerce.number().int().positive().default(4),
  heldoutWindows: z.coerce.number().int().nonnegative().default(0),
  samples: z.coerce.number().int().nonnegative().default(20),
  functions: z.coerce.number().int().nonnegative().default(100),
  functionMaxNewTokens: z.coerce.number().int().positive().default(256),
  out: z.string().default('results/eval-base'),
  seed: z.coerce.number().int().default(0),
  backend: backendSchema,
});

function stageBar(): { update: (stage: string, done: number, total: number) => void; stop: () => void } {
  let bar: SingleBar | null = null;
  let key = '';
  const unit: Record<string, string> = { heldout: 'windows', heldout_fim: 'windows', fim: 'examples', functions: 'functions' };
  return {
    update: (stage, done, total) => {
      if (stage !== key) {
        bar?.stop();
        key = stage;
        bar = new SingleBar({
          format: `${stage.padEnd(11)} [{bar}] {value}/{total} ${unit[stage] ?? ''} | eta {eta_formatted}`,
          barsize: 24,
          hideCursor: false,
          stream: process.stderr,
          noTTYOutput: true,
          notTTYSchedule: 15000,
        });
        bar.start(total, done);
      } else bar!.update(done);
    },
    stop: () => bar?.stop(),
  };
}

async function baseCommand(opts: unknown): Promise<void> {
  const f = parseFlags(BaseFlags, opts);
  const warn = (s: string) => process.stderr.write(s + '\n');
  try {
    checkModelDirs([{ name: 'base', dir: f.model }], '--model');
  } catch (e) {
    throw e instanceof ModelsFlagError ? new UsageError(e.message) : e;
  }
  // Read every input before loading the model, so a wrong path fails at once.
  let heldout;
  try {
    heldout = readCorpus(f.corpus).test;
  } catch (e) {
    throw new UsageError(`--corpus: ${(e as Error).message}`);
  }
  if (heldout.length === 0) throw new UsageError(`--corpus: ${f.corpus} has no held-out files (the test side of the path-hash split)`);
  let cases;
  try {
    cases = selectFimCases(await readFimData(f.fim), { split: f.fimSplit, limit: f.limit, seed: f.seed });
  } catch (e) {
    throw new UsageError(`--fim: ${(e as Error).message}`);
  }
  // The whole source file of each example (by its path in --corpus), for syntax_valid_in_file.
  cases = withFileContext(cases, f.corpus);
  const located = cases.filter((c) => c.file).length;
  if (located < cases.length) warn(`eval base: ${cases.length - located} of ${cases.length} FIM examples not found in ${f.corpus}; syntax_valid_in_file covers the other ${located}`);
  const seqLen = f.seqLen ?? defaultSeqLen(f.model);

  await initBackend({ backend: f.backend });
  warn(
    `eval base: ${f.model}; held-out loss on ${heldout.length} files of ${f.corpus} (windows of ${seqLen} tokens` +
      `${f.heldoutWindows ? `, first ${f.heldoutWindows}` : ''}); ${cases.length} "${f.fimSplit}" FIM examples of ${f.fim} (greedy, ${f.minNewTokens}-${f.maxNewTokens} new tokens)`,
  );
  const bar = stageBar();
  const t0 = performance.now();
  let result;
  try {
    result = await evaluateBase({
      modelDir: f.model,
      heldoutTexts: heldout.map((h) => h.text),
      fimCases: cases,
      seqLen,
      lossBatchSize: f.lossBatchSize,
      maxHeldoutWindows: f.heldoutWindows,
      maxNewTokens: f.maxNewTokens,
      minNewTokens: f.minNewTokens,
      batchSize: f.batchSize,
      functions: f.functions > 0 ? { cases: functionCases(heldout), limit: f.functions, seed: f.seed, maxNewTokens: f.functionMaxNewTokens } : undefined,
      onProgress: bar.update,
    });
  } finally {
    bar.stop();
  }
  const written = await writeBaseEval(
    f.out,
    result.report,
    fimSamples(cases, result.outcomes, result.completions, f.samples),
    result.functions ? functionSamples(result.functions, f.samples) : null,
  );
  const s = result.report.seconds;
  warn(
    `eval base: done in ${((performance.now() - t0) / 1000).toFixed(1)} s (held-out loss ${s.heldout.toFixed(1)} s, ` +
      `FIM generation ${s.fim_generate.toFixed(1)} s, syntax ${s.syntax.toFixed(1)} s, functions ${s.functions.toFixed(1)} s); wrote ${written.join(', ')}`,
  );
  process.stdout.write(JSON.stringify(result.report) + '\n');
}

const program = new Command('eval').description('Evaluate Qwen2 checkpoints on coding problems: syntax, pass@1, reward, diversity, length, KL to SFT.');
program
  .command('run')
  .description('sample --samples responses per problem at --temperature (and one greedy) with each model, run the tests, score, compare with the SFT model per problem, and write <out>/eval.{json,md,svg} + samples.jsonl')
  .requiredOption('--models <list>', 'models to compare as name=DIR pairs, e.g. base=models/base,sft=results/sft,ppo=results/ppo')
  .option('--data <file>', 'problems as JSONL {prompt, tests, setup?, task_id?}', DEFAULT_EVAL_DATA)
  .option('--limit <n>', 'evaluate only the first n problems of the file (default: all)')
  .option('--out <dir>', 'output folder', 'results/eval')
  .option('--reward-model <dir>', `reward-model checkpoint for rm_score, or "none" (default ${DEFAULT_REWARD_MODEL}; skipped with a warning if absent)`)
  .option('--sft-ref <name|dir>', 'KL reference: a name from --models, a checkpoint folder, or "none" (default: the model named "sft", else none)')
  .option('--max-new-tokens <n>', 'longest response; generation also stops at the end token', '128')
  .option('--batch-size <n>', 'prompts generated (and scored) together; lower it for big checkpoints', '16')
  .option('--seed <n>', 'random seed for sampling (each answer its own stream, the same streams for every model)', '0')
  .option('--samples <k>', 'responses sampled per problem; the means and SEs are over problems of the per-problem means (0 = greedy only)', String(DEFAULT_EVAL_SAMPLES))
  .option('--temperature <t>', "sampling temperature, top-k 0, top-p 1 (default: PPO's)", String(DEFAULT_EVAL_TEMPERATURE))
  .option('--no-greedy-pass', 'skip the greedy response per problem reported beside the sampled ones')
  .option('--greedy', 'greedy decoding only, one response per problem (same as --samples 0)')
  .addOption(new Option('--template <name>', 'prompt format: raw text (code models) or a ChatML user turn (instruct models)').choices([...PROMPT_TEMPLATES]).default('raw'))
  .option('--concurrency <n>', 'python sandbox processes running at once', '2')
  .option('--timeout-ms <n>', 'wall-clock limit of one sandbox run (response + all its tests)', '5000')
  .option('--no-chart', 'do not render eval.svg')
  .addOption(backendOption())
  .addHelpText('after', '\nMetrics (eval.json / eval.md):\n' + Object.entries(METRIC_DESCRIPTIONS).map(([k, d]) => `  ${k}: ${d}`).join('\n'))
  .action(runCommand);

program
  .command('base')
  .description('the pretrained base model: held-out LM loss on the corpus test files, FIM first-line exact match and syntax-valid rate, syntax-valid rate of function bodies it writes; writes <out>/base_eval.json + fim_samples.jsonl + function_samples.jsonl')
  .addOption(new Option('--model <dir>', 'checkpoint folder (Hugging Face layout with tokenizer.json)').env('MODEL_PATH').default('models/base'))
  .option('--corpus <dir>', 'Python corpus: its held-out files (path-hash split, as in pretraining) give the loss; the FIM examples\' source files give syntax_valid_in_file', 'data/corpus/python-stdlib')
  .option('--fim <file>', 'FIM examples as JSONL {prefix, suffix, middle, split?, path?}', 'data/fim/fim.jsonl')
  .option('--fim-split <name>', 'which FIM examples: records whose split equals this, or "all"', 'test')
  .option('--limit <n>', 'at most n FIM examples (a seeded random subset when the split has more)', '200')
  .option('--max-new-tokens <n>', 'longest completion; generation also stops at <|endoftext|> and the FIM tokens', '64')
  .option('--min-new-tokens <n>', 'no end token before this many tokens; the default is the online server\'s (completion.minTokens); 0 = the model\'s raw choice, empty middles included', String(SERVED_MIN_TOKENS))
  .option('--batch-size <n>', 'FIM prompts generated together (left padded)', '16')
  .option('--seq-len <n>', "held-out window length (default: seqLen in the model's training_args.json, else 512)")
  .option('--loss-batch-size <n>', 'held-out windows per forward pass', '4')
  .option('--heldout-windows <n>', 'use only the first n held-out windows, 0 = all', '0')
  .option('--samples <n>', 'FIM examples written to fim_samples.jsonl (and functions to function_samples.jsonl)', '20')
  .option('--functions <n>', 'held-out documented functions whose body the model writes after the true signature + docstring (a seeded subset); 0 = skip', '100')
  .option('--function-max-new-tokens <n>', 'longest function body; it also ends at a line back at the def\'s indentation or <|endoftext|>', '256')
  .option('--out <dir>', 'output folder', 'results/eval-base')
  .option('--seed <n>', 'seed of the --limit subset (decoding is greedy)', '0')
  .addOption(backendOption())
  .addHelpText('after', '\nFigures (base_eval.json):\n' + Object.entries(BASE_METRIC_DESCRIPTIONS).map(([k, d]) => `  ${k}: ${d}`).join('\n'))
  .action(baseCommand);

void runCli(program, shutdownBackend);
