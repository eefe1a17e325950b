// eval: compare checkpoints (e.g. base, SFT, PPO) on held-out coding problems and write eval.json, eval.md,
// eval.svg and samples.jsonl. All the work is in libs/eval; this file reads flags and prints.
import * as fs from 'fs';
import * as path from 'path';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import {
  chartSpec,
  checkModelDirs,
  DEFAULT_EVAL_DATA,
  evaluate,
  formatTable,
  METRIC_DESCRIPTIONS,
  ModelsFlagError,
  parseModelsFlag,
  Progress,
  readEvalProblems,
  renderSvg,
  resolveKlReference,
  sandboxExecutor,
  writeEvalOutputs,
} from '@rlhf-code/eval';
import { initBackend, shutdownBackend } from '@rlhf-code/model';
import { PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';

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
    greedy: z.boolean().optional(),
    temperature: z.coerce.number().positive().optional(),
    template: z.enum(PROMPT_TEMPLATES as ['raw', 'chat']).default('raw'),
    concurrency: z.coerce.number().int().positive().default(2),
    timeoutMs: z.coerce.number().int().positive().default(5000),
    chart: z.boolean().default(true),
    backend: backendSchema,
  })
  .refine((f) => !(f.greedy && f.temperature !== undefined), { message: 'cannot be combined with --temperature', path: ['greedy'] });

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
          format: `${p.stage.padEnd(8)} ${p.model.padEnd(10)} [{bar}] {value}/{total} problems | eta {eta_formatted}`,
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
  const greedy = flags.temperature === undefined;
  const decoding = greedy ? 'greedy' : `sampled at temperature ${flags.temperature}, seed ${flags.seed}`;

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
      greedy,
      temperature: flags.temperature ?? 1,
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

const program = new Command('eval').description('Evaluate Qwen2 checkpoints on coding problems: syntax, pass@1, reward, diversity, length, KL to SFT.');
program
  .command('run')
  .description('generate one response per problem with each model, run the tests, score, and write <out>/eval.{json,md,svg} + samples.jsonl')
  .requiredOption('--models <list>', 'models to compare as name=DIR pairs, e.g. base=models/base,sft=results/sft,ppo=results/ppo')
  .option('--data <file>', 'problems as JSONL {prompt, tests, setup?, task_id?}', DEFAULT_EVAL_DATA)
  .option('--limit <n>', 'evaluate only the first n problems of the file (default: all)')
  .option('--out <dir>', 'output folder', 'results/eval')
  .option('--reward-model <dir>', `reward-model checkpoint for rm_score, or "none" (default ${DEFAULT_REWARD_MODEL}; skipped with a warning if absent)`)
  .option('--sft-ref <name|dir>', 'KL reference: a name from --models, a checkpoint folder, or "none" (default: the model named "sft", else none)')
  .option('--max-new-tokens <n>', 'longest response; generation also stops at the end token', '128')
  .option('--batch-size <n>', 'prompts generated (and scored) together; lower it for big checkpoints', '16')
  .option('--seed <n>', 'random seed for sampling (with --temperature)', '0')
  .option('--greedy', 'always pick the most likely token (the default)')
  .option('--temperature <t>', 'sample from softmax(logits / t) instead of greedy decoding (top-k 0, top-p 1)')
  .addOption(new Option('--template <name>', 'prompt format: raw text (code models) or a ChatML user turn (instruct models)').choices([...PROMPT_TEMPLATES]).default('raw'))
  .option('--concurrency <n>', 'python sandbox processes running at once', '2')
  .option('--timeout-ms <n>', 'wall-clock limit of one sandbox run (response + all its tests)', '5000')
  .option('--no-chart', 'do not render eval.svg')
  .addOption(backendOption())
  .addHelpText('after', '\nMetrics (eval.json / eval.md):\n' + Object.entries(METRIC_DESCRIPTIONS).map(([k, d]) => `  ${k}: ${d}`).join('\n'))
  .action(runCommand);

void runCli(program, shutdownBackend);
