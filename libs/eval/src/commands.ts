// The eval commands (apps/eval is their command line), each from its settings, printing as it goes:
//   runEval      `eval run`: the compared models on the problems, the report files, the table on stdout
//   runSeeds     `eval seeds`: the runs of several seeds averaged, the tables on stdout
//   runBaseEval  `eval base`: the pretrained base model's held-out loss and FIM figures, one JSON line on stdout
//   runBaseCompare `eval base-compare`: two eval base runs, each figure's difference paired, a table on stdout
import { promises as fs } from 'fs';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { stagedProgress, UsageError } from '@rlhf-code/cli';
import { readCorpus, readFimData } from '@rlhf-code/data';
import { checkpointOr, writeFileAtomic, type Checkpoint } from '@rlhf-code/model';
import { defaultSeqLen, evaluateBase, fimSamples, functionSamples, selectFimCases, withFileContext, writeBaseEval } from './base-eval';
import { chartSpec, renderSvg } from './chart';
import { readEvalProblems } from './data';
import { evaluate } from './evaluate';
import { sandboxExecutor } from './executor';
import { functionCases } from './function-eval';
import { checkModelDirs, ModelsFlagError, parseModelsFlag, resolveKlReference } from './models-flag';
import { formatSeeds, formatTable } from './report';
import { SeedRunsError, writeSeeds } from './seeds';
import type { EvalBaseCompareSettings, EvalBaseSettings, EvalRunSettings, EvalSeedsSettings } from './settings';
import { BaseCompareError, compareBaseEvals, formatBaseCompare, readBaseEval } from './base-compare';
import { writeEvalOutputs } from './write';

const DEFAULT_REWARD_MODEL = 'results/rm';

const warn = (s: string) => process.stderr.write(s + '\n');

/** A --models / --sft-ref mistake as a usage error (one line each, no stack). */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw e instanceof ModelsFlagError ? new UsageError(e.message) : e;
  }
}

/**
 * --reward-model: an explicit folder (a reward model's checkpoint or LoRA adapter folder), "none", or the default
 * results/rm when it exists; checked.
 */
function rewardModelAt(flag: string | undefined): Checkpoint<'reward-model'> | null {
  if (flag === 'none') return null;
  const dir = flag ?? DEFAULT_REWARD_MODEL;
  const r = checkpointOr(dir, '--reward-model', 'reward-model');
  if (!('problem' in r)) return r;
  if (flag !== undefined) throw new UsageError(`--reward-model: ${dir}: ${r.problem}; pass "none" to skip rm_score`);
  warn(`eval: no reward model at ${dir} (${r.problem}; train one with \`npx nx run rm:train\`); rm_score will be null`);
  return null;
}

/** `eval run`: every folder checked before any model loads; --models is required here (--print-config runs without it). */
export async function runEval(flags: EvalRunSettings): Promise<void> {
  if (flags.models === undefined) throw new UsageError('--models: required (give --models, or "models" in a --config file)');
  const spec = flags.models;
  const { models, klReference } = usage(() => {
    const models = checkModelDirs(parseModelsFlag(spec));
    return { models, klReference: resolveKlReference(models, flags.sftRef) };
  });
  const rewardModel = rewardModelAt(flags.rewardModel);
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

  await initBackend();
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
      engine: flags,
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
      rewardModel: rewardModel?.dir ?? null,
      klReference: klReference?.dir ?? null,
      dev: dev ? { data: flags.devData!, problems: dev.problems.length, samples: flags.devSamples } : null,
    },
    svg,
  );
  warn(`eval: done in ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote ${written.join(', ')}`);
  process.stdout.write(formatTable(result.report) + '\n');
}

/** `eval seeds`: the runs averaged into --out. */
export async function runSeeds(flags: EvalSeedsSettings): Promise<void> {
  let result;
  try {
    result = await writeSeeds(flags.runs, flags.out);
  } catch (e) {
    throw e instanceof SeedRunsError ? new UsageError(`--runs: ${e.message}`) : e;
  }
  process.stderr.write(`eval seeds: ${flags.runs.length} runs averaged; wrote ${result.written.join(', ')}\n`);
  process.stdout.write([formatTable(result.report), formatSeeds(result.report)].filter(Boolean).join('\n\n') + '\n');
}

/** `eval base`: the pretrained base model's held-out loss and FIM figures; every input read before the model loads. */
export async function runBaseEval(f: EvalBaseSettings): Promise<void> {
  const base = checkpointOr(f.model, '--model');
  if ('problem' in base) throw new UsageError(`--model: base=${f.model}: ${base.problem}`);
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

  await initBackend();
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
      checkpoint: base,
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

/** `eval base-compare`: the candidate's figures against the baseline's, paired; the table on stdout (and in --out). */
export async function runBaseCompare(f: EvalBaseCompareSettings): Promise<void> {
  if (!f.baseline) throw new UsageError('--baseline is required: the eval base output folder compared against');
  if (!f.candidate) throw new UsageError('--candidate is required: the eval base output folder of the model compared');
  let rows, names;
  try {
    const baseline = readBaseEval(f.baseline, '--baseline');
    const candidate = readBaseEval(f.candidate, '--candidate');
    names = { baseline: `baseline (${baseline.model})`, candidate: `candidate (${candidate.model})` };
    rows = compareBaseEvals(baseline, candidate);
  } catch (e) {
    throw e instanceof BaseCompareError ? new UsageError(e.message) : e;
  }
  const table = formatBaseCompare(rows, names);
  if (f.out) {
    await fs.mkdir(f.out, { recursive: true });
    await writeFileAtomic(path.join(f.out, 'base_compare.json'), JSON.stringify({ baseline: f.baseline, candidate: f.candidate, rows }, null, 2) + '\n');
    await writeFileAtomic(path.join(f.out, 'base_compare.md'), table + '\n');
    warn(`eval base-compare: wrote ${path.join(f.out, 'base_compare.json')}, ${path.join(f.out, 'base_compare.md')}`);
  }
  process.stdout.write(table + '\n');
}
