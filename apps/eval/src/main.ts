// eval: compare checkpoints (e.g. base, SFT, PPO) on held-out coding problems and write eval.json, eval.md,
// eval.svg, per_problem.json and samples.jsonl (`run`); average the runs of several seeds (`seeds`); measure the pretrained base model's held-out loss and FIM quality (`base`).
// All the work is in libs/eval; this file reads flags and prints.
import { Command } from 'commander';
import { runCli, settingsCommand, stagedProgress, UsageError } from '@rlhf-code/cli';
import { readCorpus, readFimData } from '@rlhf-code/data';
import {
  BASE_METRIC_DESCRIPTIONS,
  chartSpec,
  checkModelDirs,
  defaultSeqLen,
  evaluate,
  evaluateBase,
  EvalBaseSettings,
  EvalRunSettings,
  EvalSeedsSettings,
  fimSamples,
  formatSeeds,
  formatTable,
  functionCases,
  functionSamples,
  METRIC_DESCRIPTIONS,
  ModelsFlagError,
  parseModelsFlag,
  readEvalProblems,
  renderSvg,
  resolveKlReference,
  sandboxExecutor,
  SeedRunsError,
  selectFimCases,
  withFileContext,
  writeBaseEval,
  writeEvalOutputs,
  writeSeeds,
} from '@rlhf-code/eval';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { modelFolderProblem } from '@rlhf-code/model';

const DEFAULT_REWARD_MODEL = 'results/rm';

/**
 * --reward-model: an explicit folder (a reward model's checkpoint or LoRA adapter folder), "none", or the default
 * results/rm when it exists.
 */
function rewardModelDir(flag: string | undefined, warn: (s: string) => void): string | null {
  if (flag === 'none') return null;
  const dir = flag ?? DEFAULT_REWARD_MODEL;
  const problem = modelFolderProblem(dir, 'reward-model');
  if (problem === null) return dir;
  if (flag !== undefined) throw new UsageError(`--reward-model: ${dir}: ${problem}; pass "none" to skip rm_score`);
  warn(`eval: no reward model at ${dir} (${problem}; train one with \`npx nx run rm:train\`); rm_score will be null`);
  return null;
}

async function runCommand(flags: EvalRunSettings): Promise<void> {
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
  const dev = flags.devData === undefined ? undefined : { problems: await readEvalProblems(flags.devData), temperatures: flags.temperatures, samples: flags.devSamples };
  // --greedy: the greedy pass alone, as before the sampled evaluation existed.
  const samples = flags.greedy ? 0 : flags.samples;
  const greedyPass = flags.greedy || flags.greedyPass;
  const sampledAt = dev ? "each model's best sampling temperature on dev" : `temperature ${flags.temperature}`;
  const decoding = [
    ...(dev ? [`temperature chosen per model among ${flags.temperatures.join(', ')} (0 = greedy) on ${dev.problems.length} dev problems from ${flags.devData}`] : []),
    ...(samples > 0 ? [`${samples} samples per problem at ${sampledAt}, seed ${flags.seed}`] : []),
    ...(greedyPass ? ['greedy'] : dev ? ['greedy where chosen'] : []),
  ].join(' + ');

  await initBackend({ backend: flags.backend });
  warn(`eval: ${models.length} models x ${problems.length} problems from ${flags.data} (${decoding}, max ${flags.maxNewTokens} new tokens)`);
  const bars = stagedProgress(() => 'responses', 19);
  const t0 = performance.now();
  const executor = sandboxExecutor({ concurrency: flags.concurrency, timeoutMs: flags.timeoutMs });
  let result;
  try {
    result = await evaluate({
      models,
      problems,
      rewardModelDir: rewardModel,
      klReference,
      baseDtype: flags.baseDtype,
      executor,
      maxNewTokens: flags.maxNewTokens,
      batchSize: flags.batchSize,
      samples,
      greedy: greedyPass,
      temperature: flags.temperature,
      dev,
      stubs: flags.stubs,
      seed: flags.seed,
      template: flags.template,
      onProgress: (p) => bars.update(`${p.stage.padEnd(8)} ${p.model.padEnd(10)}`, p.done, p.total),
    });
  } finally {
    bars.stop();
  }
  for (const t of result.timings) {
    warn(`eval: ${t.model}: generation ${t.generateSeconds.toFixed(1)} s (${((t.generateSeconds / problems.length) * 1000).toFixed(0)} ms/problem), tests ${t.testSeconds.toFixed(1)} s`);
  }
  const runs = executor.runCounts?.();
  if (runs) warn(`eval: test runs: ${runs.executed} in python, ${runs.reused} answered by an identical earlier run`);
  const svg = flags.chart ? await renderSvg(chartSpec(result.report)) : null;
  const written = await writeEvalOutputs(
    flags.out,
    result,
    {
      data: flags.data,
      decoding,
      maxNewTokens: flags.maxNewTokens,
      rewardModel,
      klReference: klReference?.dir ?? null,
      dev: dev ? { data: flags.devData!, problems: dev.problems.length, samples: flags.devSamples } : null,
    },
    svg,
  );
  warn(`eval: done in ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote ${written.join(', ')}`);
  process.stdout.write(formatTable(result.report) + '\n');
}

async function seedsCommand(flags: EvalSeedsSettings): Promise<void> {
  let result;
  try {
    result = await writeSeeds(flags.runs, flags.out);
  } catch (e) {
    throw e instanceof SeedRunsError ? new UsageError(`--runs: ${e.message}`) : e;
  }
  process.stderr.write(`eval seeds: ${flags.runs.length} runs averaged; wrote ${result.written.join(', ')}\n`);
  process.stdout.write([formatTable(result.report), formatSeeds(result.report)].filter(Boolean).join('\n\n') + '\n');
}

// ---------------------------------------------------------------------------------------------
// base: the pretrained base model's held-out loss and FIM figures

async function baseCommand(f: EvalBaseSettings): Promise<void> {
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
  const unit: Record<string, string> = { heldout: 'windows', heldout_fim: 'windows', fim: 'examples', functions: 'functions' };
  const bar = stagedProgress((stage) => unit[stage] ?? '');
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

const program = new Command('eval').description('Evaluate Qwen2 checkpoints on coding problems: pass@1, pass@k, syntax, tests passed, reward, diversity, length, KL to SFT.');
settingsCommand(
  program
    .command('run')
    .description(
      'sample --samples responses per problem at --temperature (and one greedy) with each model (or at its best temperature on --dev-data), run the tests, score, score trivial programs beside them (--stubs), compare with the SFT model per problem, and write <out>/eval.{json,md,svg} + samples.jsonl',
    ),
  EvalRunSettings,
  runCommand,
).addHelpText('after', '\nMetrics (eval.json / eval.md):\n' + Object.entries(METRIC_DESCRIPTIONS).map(([k, d]) => `  ${k}: ${d}`).join('\n'));
settingsCommand(
  program
    .command('seeds')
    .description(
      'average eval:run output folders of the same problems and models, one per seed: pass@1 the mean of the runs (pass_at_1_by_seed, seed_sd), vs_sft and flips on the per-problem outcomes averaged over the runs; writes <out>/eval.{json,md} + per_problem.json',
    ),
  EvalSeedsSettings,
  seedsCommand,
);
settingsCommand(
  program
    .command('base')
    .description(
      'the pretrained base model: held-out LM loss on the corpus test files, FIM first-line exact match and syntax-valid rate, syntax-valid rate of function bodies it writes; writes <out>/base_eval.json + fim_samples.jsonl + function_samples.jsonl',
    ),
  EvalBaseSettings,
  baseCommand,
).addHelpText('after', '\nFigures (base_eval.json):\n' + Object.entries(BASE_METRIC_DESCRIPTIONS).map(([k, d]) => `  ${k}: ${d}`).join('\n'));

void runCli(program, shutdownBackend);
