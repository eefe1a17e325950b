// The tool-use stages behind `tool-rl warmstart | train | eval` (apps/tool-rl is their command line):
//   runToolWarmStart  SFT on synthetic traces of the tasks' reference calls or code (the format, before RL)
//   runToolGrpo       GRPO over multi-turn episodes with the interpreter
//   runToolEval       success (pass@1 on programming tasks) on held-out tasks per (checkpoint, interpreter,
//                     temperature) row, each row paired with a baseline; the offline eval's stubs as rows
// Two families of tasks, in any mix of files: programming tasks (problems in MBPP's schema, e.g. the task suite's
// splits: write the function, run it, end with the final code; judged by the hidden tests) and computed-value
// questions (data/tools: the answer stated exactly).
import * as fs from 'fs';
import * as path from 'path';
import { markdownTable } from '@rlhf-code/cli';
import { readToolTasks, shuffle, type ToolTaskRecord } from '@rlhf-code/data';
import { initBackend } from '@rlhf-code/backend';
import { LocalEngine, openEngine, publishPolicy } from '@rlhf-code/engine';
import { checkpointAt, openCheckpoint, resumableRng, type Checkpoint, type Qwen2Model } from '@rlhf-code/model';
import { loadRlModels, saveRlCheckpoint } from '@rlhf-code/rl';
import { SandboxPool, STUB_NAMES, stubPrograms } from '@rlhf-code/sandbox';
import { bestTemperature, meanSe, paired, temperatureKey, type DevPoint, type PairedDiff } from '@rlhf-code/stats';
import { chatTemplateOf, type Tokenizer } from '@rlhf-code/tokenizer';
import { loadLmStageModel, runLmStage } from '@rlhf-code/train';
import { loraConfigOf, RunDir, trainerConfig, TrainingRun, yieldToEventLoop } from '@rlhf-code/trainer-core';
import { interpreterTools, runEpisodes, taskMessages, type Episode } from './episode';
import { judgeCode, judgeEpisodes, type Verdict } from './judge';
import { policyTurns } from './policy-turns';
import { TOOL_MODES, type ToolEvalSettings, type ToolGrpoSettings, type ToolMode, type ToolWarmStartSettings } from './settings';
import { ToolGrpoTrainer } from './tool-grpo';
import { solvedTasks, warmStartExamples } from './warm-start';

type EpisodeLimits = Pick<ToolGrpoSettings, 'maxTurns' | 'maxTurnTokens' | 'maxTotalTokens' | 'toolTimeoutMs' | 'toolMemoryMb' | 'toolOutputChars' | 'toolWorkers' | 'system'>;

/** The interpreter options of the settings (the pool is the concurrency limit). */
const interpreterOptions = (f: EpisodeLimits) => ({ timeoutMs: f.toolTimeoutMs, memoryMb: f.toolMemoryMb, outputChars: Math.max(f.toolOutputChars, 64) });

/**
 * Tasks of `files` in order (each FILE, or FILE:N: N of its tasks drawn with `seed`, kept in file order), the first
 * `limit` of them (0 = all), with at least `min`.
 */
export async function readTasks(files: readonly string[], o: { limit: number; seed: number; flag: string; min?: number }): Promise<ToolTaskRecord[]> {
  const parts = await Promise.all(
    files.map(async (spec) => {
      const m = /^(.+):(\d+)$/.exec(spec);
      const file = m ? m[1] : spec;
      const all = await readToolTasks(file);
      if (!m) return all;
      const n = Number(m[2]);
      if (n < 1 || n > all.length) throw new Error(`${o.flag} ${spec}: asks for ${n} tasks, ${file} has ${all.length}`);
      const order = all.map((_, i) => i);
      return shuffle(order, `tool-tasks:${file}:${o.seed}`).slice(0, n).sort((a, b) => a - b).map((i) => all[i]);
    }),
  );
  let tasks = parts.flat();
  if (o.limit > 0) tasks = tasks.slice(0, o.limit);
  const min = o.min ?? 1;
  if (tasks.length < min) throw new Error(`${o.flag} ${files.join(',')}: need at least ${min} tasks, found ${tasks.length}`);
  return tasks;
}

export async function runToolWarmStart(f: ToolWarmStartSettings, log: (line: string) => void = console.error) {
  const base = checkpointAt(f.model, '--model');
  await initBackend();
  const tok = base.tokenizer();
  const template = chatTemplateOf(tok);
  const records = await readTasks(f.data, { limit: 0, seed: f.seed, flag: '--data' });
  const tasks = solvedTasks(records, resumableRng(`warmstart:${f.seed}`), f).filter((t) => t !== null);
  if (tasks.length === 0) throw new Error(`--data ${f.data.join(',')}: no task has a trace ("calls" and "answer", or tests and a reference)`);
  const pool = new SandboxPool({ concurrency: 2 });
  const { examples: all, toolOutputs } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(f.interpreter === 'stateful', { timeoutMs: 30_000 }, pool), system: f.system, callForm: f.callForm });
  const code = tasks.filter((t) => t.final.startsWith('```')).length;
  const isFix = (t: (typeof tasks)[number]) => t.wrongFirst === true && !t.direct;
  // The last call of a trace runs the reference: an error there is a wrong reference (or setup), not a lesson.
  const failing = toolOutputs.filter((outs) => outs.length > 0 && /Traceback|Error:/.test(outs[outs.length - 1])).length;
  if (failing > 0) log(`tool-rl warmstart: warning: ${failing} traces' reference calls end in an error (a wrong reference or test?)`);
  // A wrong attempt whose check reads as the reference's (a slip the shown test cannot see) teaches nothing: dropped.
  const unseen = new Set(tasks.flatMap((t, i) => (isFix(t) && toolOutputs[i][0] === toolOutputs[i][1] ? [i] : [])));
  const fixes = tasks.filter((t, i) => isFix(t) && !unseen.has(i)).length;
  const fits = all.filter((e, i) => e.ids.length <= f.maxLen && !unseen.has(i));
  const tooLong = all.filter((e, i) => e.ids.length > f.maxLen && !unseen.has(i)).length;
  const order = shuffle(fits, `warmstart-split:${f.seed}`);
  const nHeld = Math.round(order.length * f.heldoutFraction);
  const heldOut = order.slice(0, nHeld);
  const examples = order.slice(nHeld);
  const direct = tasks.filter((t) => t.direct).length;
  log(
    `tool-rl warmstart: ${records.length} tasks in ${f.data.join(',')}: ${tasks.length} with a trace (${code} programming, ${tasks.length - code} questions; ${records.length - tasks.length} without, skipped); ` +
      `${direct} traces answer without the tool, ${fixes} first run a wrong attempt (${unseen.size} whose attempt passed the shown check dropped); ${tooLong} longer than --max-len ${f.maxLen} dropped; ${examples.length} training / ${heldOut.length} held-out traces`,
  );
  const model = await loadLmStageModel(f, new RunDir(f.out).resumeFrom(f.resume), (line) => log(`tool-rl warmstart: ${line}`), base);
  try {
    const result = await runLmStage({
      label: 'tool warm-start',
      model,
      tokenizerDir: f.model,
      padId: tok.padId,
      outDir: f.out,
      examplesOf: () => examples,
      heldOut,
      epochs: f.epochs,
      maxSteps: f.maxSteps,
      batchSize: f.batchSize,
      gradAccum: 1,
      optim: f,
      saveEvery: f.saveEvery,
      seed: f.seed,
      resume: f.resume,
      quiet: f.quiet,
      extraFiles: { 'training_args.json': { stage: 'tool-warmstart', base_model: f.model, ...f } },
      baseModel: f.model,
    });
    if (f.mergeExport && !result.interrupted) await saveMerged(f.mergeExport, model, f.model, { stage: 'tool-warmstart', base_model: f.model, ...f });
    return { stage: 'tool-warmstart', out: f.out, step: result.position.step, interrupted: result.interrupted, traces: examples.length, direct, ...result.lastEval };
  } finally {
    model.dispose();
  }
}

/** --merge-export: a full checkpoint in `dir` with the LoRA adapter folded into the weights. */
async function saveMerged(dir: string, model: Qwen2Model, tokenizerDir: string, trainingArgs: object): Promise<void> {
  await new RunDir(dir).save({ config: model.config, weights: model.mergedWeights(), tokenizerDir, extraFiles: { 'training_args.json': trainingArgs } });
}

/** What a tool GRPO checkpoint's trainer_state.json keeps beside the optimizer: the iteration and the sampling stream. */
interface ToolGrpoState {
  iteration: number;
  rng: object;
}

export async function runToolGrpo(f: ToolGrpoSettings, log: (line: string) => void = console.error) {
  const base = checkpointAt(f.model, '--model');
  await initBackend();
  const tasks = await readTasks(f.data, { limit: f.limit, seed: f.seed, flag: '--data' });
  const tok = base.tokenizer();
  const template = chatTemplateOf(tok);
  const lora = loraConfigOf({ ...f, loraDropout: 0 }); // no dropout in RL: rollout and update log-probs must agree
  // --resume: the policy (or adapter) saved in --out, the reference still from --model; then the optimizer, the
  // iteration and the sampling stream from its trainer_state.json, so the run goes on as if never stopped.
  const runDir = new RunDir(f.out);
  const resumeDir = runDir.resumeFrom(f.resume);
  const state = resumeDir ? await runDir.load() : undefined;
  const saved = state?.extra.toolGrpo as ToolGrpoState | undefined;
  if (resumeDir && !(saved && Number.isInteger(saved.iteration) && typeof saved.rng === 'object')) {
    throw new Error(`${f.out}: cannot resume: trainer_state.json has no tool GRPO state (iteration, rng); was it written by tool-rl train?`);
  }
  const { policy, reference } = await loadRlModels({ modelDir: f.model, resumeDir, algo: 'grpo', rewardModelDir: null, lora, seed: f.seed });
  const pool = new SandboxPool({ concurrency: f.toolWorkers });
  const rng = resumableRng(`tool-grpo:${f.seed}`, saved?.rng);
  const engine = await openEngine(f, { model: policy, tokenizer: tok, checkpointDir: f.model, publishes: true });
  // Version k: the policy after iteration k.
  const publish = (version: number) => publishPolicy(engine, policy, { version, baseModel: f.model });
  let batch: ToolTaskRecord[] = [];
  const grpo = new ToolGrpoTrainer(
    {
      policy,
      reference,
      tokenizer: tok,
      template,
      toolFor: interpreterTools(f.interpreter === 'stateful', interpreterOptions(f), pool),
      judge: (episodes, rows) => judgeEpisodes(episodes, rows.map((r) => batch[r]), pool),
      generate: () => policyTurns(engine, { tokenizer: tok, temperature: f.temperature, rng }),
      trainer: trainerConfig(f, f.steps * f.ppoEpochs * f.miniBatches),
      maxToolChars: f.toolOutputChars,
    },
    f,
  );
  const done = saved?.iteration ?? 0;
  if (state) await runDir.restore(grpo.trainer, state);
  if (done > 0) await publish(done);
  log(`tool-rl train: ${tasks.length} tasks from ${f.data.join(',')}; ${f.steps} iterations of ${f.batchSize} tasks x ${f.groupSize} episodes, ${f.interpreter} interpreter` + (lora ? `, LoRA r=${lora.r}` : ''));
  const run = new TrainingRun({ outDir: f.out, label: 'tool grpo', totalSteps: f.steps, append: resumeDir !== undefined, resumeStep: resumeDir ? done : undefined, quiet: f.quiet });
  if (resumeDir) run.print(`tool-rl train: resuming from ${f.out} at iteration ${done}`);
  else if (f.resume) run.print(`tool-rl train: --resume: no checkpoint in ${f.out} yet, starting from iteration 0`);
  const save = (step: number) =>
    saveRlCheckpoint(f.out, { policy, valueHead: null }, {
      tokenizerDir: f.model,
      baseModel: f.model,
      trainingState: RunDir.stateOf(grpo.trainer, { step: grpo.trainer.stepCount, epoch: 0, stepInEpoch: 0 }, { toolGrpo: { iteration: step, rng: rng.state() } satisfies ToolGrpoState }),
      extraFiles: { 'training_args.json': { stage: 'tool-grpo', base_model: f.model, step, ...f } },
    });
  // Tasks in a fresh seeded order every pass over the file, --batch-size at a time (a pass's remainder is skipped, as
  // PPO's epochs do).
  const perPass = Math.max(1, Math.floor(tasks.length / f.batchSize));
  const batchOf = (step: number) => {
    const k = (step - 1) % perPass;
    return shuffle(tasks, `tool-grpo:${f.seed}:${Math.floor((step - 1) / perPass)}`).slice(k * f.batchSize, (k + 1) * f.batchSize);
  };
  let step = done;
  const t0 = Date.now();
  try {
    for (step = done + 1; step <= f.steps && !run.stopRequested; step++) {
      batch = batchOf(step);
      const m = await grpo.step(batch.map((t) => taskMessages(t, f.system)), step - 1); // the policy is version step - 1
      await publish(step);
      run.log(step, m, ['env/success_mean', 'env/tool_calls_mean']);
      if (f.saveEvery > 0 && step % f.saveEvery === 0 && step < f.steps) await save(step);
      await yieldToEventLoop();
    }
    step--;
    await save(step);
    if (f.mergeExport && step === f.steps) {
      await saveMerged(f.mergeExport, policy, f.model, { stage: 'tool-grpo', base_model: f.model, step, ...f });
      log(`tool-rl train: merged the adapter into ${f.mergeExport}`);
    }
  } finally {
    run.close();
    await engine.close();
    grpo.dispose();
    policy.dispose();
    reference.dispose();
  }
  return { stage: 'tool-grpo', out: f.out, step, interrupted: step < f.steps, seconds: (Date.now() - t0) / 1000 };
}

/** One row of the evaluation: a checkpoint with an interpreter (or none), sampled at a temperature. */
export interface EvalRun {
  name: string;
  dir: string;
  tool: ToolMode;
  /** The row's own temperature (`@T`, 0 = greedy); absent: chosen on --dev-data, else --temperature. */
  temperature?: number;
}

/** `name=dir:tool[@temperature],...` -> rows; errors name the entry. */
export function parseEvalRuns(spec: string): EvalRun[] {
  const runs = spec.split(',').map((entry) => {
    const m = /^([\w.-]+)=(.+):(\w+)(?:@([^@:]+))?$/.exec(entry.trim());
    if (!m) throw new Error(`--runs: "${entry}" is not name=checkpoint:tool[@temperature] (tool = ${TOOL_MODES.join(', ')})`);
    if (!(TOOL_MODES as readonly string[]).includes(m[3])) throw new Error(`--runs: "${entry}": tool must be one of ${TOOL_MODES.join(', ')}, got "${m[3]}"`);
    const run: EvalRun = { name: m[1], dir: m[2], tool: m[3] as ToolMode };
    if (m[4] !== undefined) {
      const t = Number(m[4]);
      if (!(t >= 0 && Number.isFinite(t)) || m[4].trim() === '') throw new Error(`--runs: "${entry}": the temperature after @ must be a number >= 0 (0 = greedy), got "${m[4]}"`);
      run.temperature = t;
    }
    return run;
  });
  const names = runs.map((r) => r.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`--runs: the name "${dup}" is used twice`);
  return runs;
}

/** A paired difference per task (row - other), with the number of tasks and the difference in SEs. */
export type PairedRow = PairedDiff & { n: number; z: number | null };
const pairedRow = (a: readonly number[], b: readonly number[]): PairedRow => {
  const d = paired([...a], [...b]);
  return { ...d, n: a.length, z: d.se ? d.diff / d.se : null };
};

/** A row's success on a subset of the tasks (an operation, a group), paired with the baseline's on the same tasks. */
export interface EvalPart {
  success: number;
  se: number | null;
  n: number;
  vs_sft?: PairedRow;
}

export interface EvalRow {
  /** Mean over tasks of each task's success rate over its episodes: pass@1 on programming tasks. */
  success: number;
  se: number | null;
  /** Mean share of hidden tests the final code passed (programming tasks; a diagnostic stubs can earn); null for questions. */
  tests_passed: number | null;
  tool_calls: number;
  turns: number;
  malformed: number;
  answered: number;
  /** The sampling temperature of the row (0 = greedy); null for a stub. */
  temperature: number | null;
  /** Episodes per task (1 for a greedy row or a stub). */
  samples: number;
  /** With --dev-data, for a row without @temperature: its dev success per candidate temperature, which chose `temperature`. */
  dev?: Record<string, { success: number; se: number | null }>;
  /** success - the baseline's, paired per task (absent for the baseline itself). */
  vs_sft?: PairedRow;
  by_kind: Record<string, EvalPart>;
  /** By the tasks' `group` (the suite's sft_ops, rl_only_ops, unseen_ops), when they have one. */
  by_group?: Record<string, EvalPart>;
  /** null for a stub. */
  checkpoint: string | null;
  tool: ToolMode;
  seconds: number;
}

/** Per-task figures of one row: success rate and share of tests passed, each averaged over the task's episodes. */
interface PerTask {
  success: number[];
  testsPassed: (number | null)[];
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Verdicts of `k` episodes per task (task-major) as per-task figures. */
function perTaskOf(verdicts: readonly Verdict[], nTasks: number, k: number): PerTask {
  const of = (i: number) => verdicts.slice(i * k, (i + 1) * k);
  return {
    success: Array.from({ length: nTasks }, (_, i) => mean(of(i).map((v) => Number(v.success)))),
    testsPassed: Array.from({ length: nTasks }, (_, i) => (of(i)[0].testsPassed === null ? null : mean(of(i).map((v) => v.testsPassed ?? 0)))),
  };
}

/** success ± SE over the tasks of each value of `key` (in order of first appearance). */
function breakdown(perTask: readonly number[], tasks: readonly ToolTaskRecord[], key: (t: ToolTaskRecord) => string): Record<string, EvalPart> {
  const out: Record<string, EvalPart> = {};
  for (const k of new Set(tasks.map(key))) {
    const xs = perTask.filter((_, i) => key(tasks[i]) === k);
    const s = meanSe(xs);
    out[k] = { success: s.mean, se: s.se, n: xs.length };
  }
  return out;
}

const kindOf = (t: ToolTaskRecord) => t.kind ?? 'task';
const groupOf = (t: ToolTaskRecord) => t.group ?? 'none';

/** A row's figures over the tasks, before pairing with the baseline. */
function rowFigures(p: PerTask, tasks: readonly ToolTaskRecord[]) {
  const s = meanSe(p.success);
  const tp = p.testsPassed.filter((x) => x !== null);
  return {
    success: s.mean,
    se: s.se,
    tests_passed: tp.length > 0 ? mean(tp) : null,
    by_kind: breakdown(p.success, tasks, kindOf),
    ...(tasks.some((t) => t.group !== undefined) ? { by_group: breakdown(p.success, tasks, groupOf) } : {}),
  };
}

/**
 * Episodes of one row: every task `k` times. With commonRandom every row draws episode i's turn k from the same stream
 * (policy-turns.ts), so the rows' paired differences carry less sampling noise; each row's own figures are unchanged
 * in distribution.
 */
async function evalRow(
  r: EvalRun & { temperature: number },
  tasks: readonly ToolTaskRecord[],
  f: ToolEvalSettings & { samplesPerTask: number },
  pool: SandboxPool,
  model: Qwen2Model,
  tokenizer: Tokenizer,
): Promise<{ row: EvalRow; perTask: PerTask }> {
  const t0 = Date.now();
  const temperature = r.temperature;
  const k = temperature === 0 ? 1 : f.samplesPerTask; // greedy episodes are all the same
  const template = chatTemplateOf(tokenizer);
  const rows = tasks.flatMap((t) => new Array<ToolTaskRecord>(k).fill(t));
  const rng = resumableRng(f.commonRandom ? `tool-eval:${f.seed}` : `tool-eval:${f.seed}:${r.name}`);
  const episodes: Episode[] = await runEpisodes(policyTurns(new LocalEngine(model, tokenizer), { tokenizer, temperature, rng, batchSize: f.batchSize }), rows.map((t) => taskMessages(t, f.system)), {
    tokenizer,
    template,
    maxTurns: f.maxTurns,
    maxTurnTokens: f.maxTurnTokens,
    maxTotalTokens: f.maxTotalTokens,
    maxToolChars: f.toolOutputChars,
    noTool: r.tool === 'none',
    toolFor: interpreterTools(r.tool === 'stateful', interpreterOptions(f), pool),
  });
  const perTask = perTaskOf(await judgeEpisodes(episodes, rows, pool), tasks.length, k);
  const calls = episodes.reduce((n, e) => n + e.toolCalls + e.malformedCalls, 0);
  const { success, se, tests_passed, ...parts } = rowFigures(perTask, tasks);
  return {
    perTask,
    row: {
      success,
      se,
      tests_passed,
      tool_calls: mean(episodes.map((e) => e.toolCalls)),
      turns: mean(episodes.map((e) => e.turns)),
      malformed: calls > 0 ? episodes.reduce((n, e) => n + e.malformedCalls, 0) / calls : 0,
      answered: mean(episodes.map((e) => Number(e.end === 'answer'))),
      temperature,
      samples: k,
      ...parts,
      checkpoint: r.dir,
      tool: r.tool,
      seconds: (Date.now() - t0) / 1000,
    },
  };
}

/**
 * One row on the test tasks at its temperature: its own `@T`; else, with dev tasks, the candidate temperature with the
 * best dev success (ties to the lower: greedy first), the dev figures kept in the row; else --temperature.
 */
async function evalRowAtItsTemperature(
  r: EvalRun,
  checkpoint: Checkpoint<'causal-lm'>,
  tasks: readonly ToolTaskRecord[],
  dev: readonly ToolTaskRecord[] | null,
  f: ToolEvalSettings,
  pool: SandboxPool,
  log: (line: string) => void,
) {
  const { model, tokenizer } = await openCheckpoint(checkpoint, { trainable: false, merge: true });
  try {
    if (r.temperature !== undefined || dev === null) return await evalRow({ ...r, temperature: r.temperature ?? f.temperature }, tasks, f, pool, model, tokenizer);
    const points: (DevPoint & { se: number | null })[] = [];
    for (const t of f.temperatures) {
      const { row } = await evalRow({ ...r, temperature: t }, dev, { ...f, samplesPerTask: f.devSamples }, pool, model, tokenizer);
      points.push({ temperature: t, passAt1: row.success, se: row.se });
      log(`tool-rl eval: ${r.name.padEnd(16)} dev success ${row.success.toFixed(3)} ± ${row.se?.toFixed(3) ?? 'n/a'} at T=${t}  (${row.seconds.toFixed(0)} s)`);
    }
    const temperature = bestTemperature(points);
    const out = await evalRow({ ...r, temperature }, tasks, f, pool, model, tokenizer);
    out.row.dev = Object.fromEntries(points.map((p) => [temperatureKey(p.temperature), { success: p.passAt1, se: p.se }]));
    return out;
  } finally {
    model.dispose();
  }
}

/**
 * The stub rows: each of the offline evaluation's trivial programs (libs/sandbox stubPrograms, named stub:<what>) as
 * the final code of every programming task, judged as a model's final code (judgeCode); questions score 0.
 */
async function stubRows(tasks: readonly ToolTaskRecord[], pool: SandboxPool): Promise<{ name: string; row: EvalRow; perTask: PerTask }[]> {
  const t0 = Date.now();
  const programs = tasks.map((t) => (t.tests ? stubPrograms({ prompt: t.question, tests: t.tests, setup: t.setup, code: t.reference }) : null));
  const verdicts = await Promise.all(STUB_NAMES.map((_, s) => judgeCode(programs.map((p) => p?.[s].response ?? null), tasks, pool)));
  const seconds = (Date.now() - t0) / 1000;
  return STUB_NAMES.map((name, s) => {
    const perTask = perTaskOf(verdicts[s], tasks.length, 1);
    const row: EvalRow = { ...rowFigures(perTask, tasks), tool_calls: 0, turns: 0, malformed: 0, answered: 1, temperature: null, samples: 1, checkpoint: null, tool: 'none', seconds };
    return { name, row, perTask };
  });
}

export async function runToolEval(f: ToolEvalSettings, log: (line: string) => void = console.error) {
  await initBackend();
  const runs = parseEvalRuns(f.runs);
  if (!runs.some((r) => r.name === f.baseline)) throw new Error(`--baseline ${f.baseline}: no such row in --runs (rows: ${runs.map((r) => r.name).join(', ')})`);
  const checkpoints = runs.map((r) => checkpointAt(r.dir, `--runs ${r.name}`));
  const tasks = await readTasks(f.data, { limit: f.limit, seed: f.seed, flag: '--data', min: 2 });
  const dev = f.devData ? await readTasks(f.devData, { limit: 0, seed: f.seed, flag: '--dev-data', min: 2 }) : null;
  if (dev) {
    const seen = new Set(tasks.map((t) => t.question));
    const shared = dev.filter((t) => seen.has(t.question)).length;
    if (shared > 0) throw new Error(`--dev-data ${f.devData!.join(',')}: ${shared} of its tasks are also in --data (the temperature would be chosen on the reported tasks)`);
  }
  const programming = tasks.filter((t) => t.tests).length;
  const family = programming === tasks.length ? 'programming' : programming === 0 ? 'questions' : 'mixed';
  const pool = new SandboxPool({ concurrency: f.toolWorkers });
  const models: Record<string, EvalRow> = {};
  const perTask: Record<string, PerTask> = {};
  for (const [i, r] of runs.entries()) {
    const { row, perTask: p } = await evalRowAtItsTemperature(r, checkpoints[i], tasks, dev, f, pool, log);
    models[r.name] = row;
    perTask[r.name] = p;
    log(`tool-rl eval: ${r.name.padEnd(16)} success ${row.success.toFixed(3)} ± ${row.se?.toFixed(3) ?? 'n/a'} at T=${row.temperature}  calls ${row.tool_calls.toFixed(2)}  turns ${row.turns.toFixed(2)}  malformed ${row.malformed.toFixed(3)}  (${row.seconds.toFixed(0)} s)`);
  }
  if (f.stubs && programming > 0) {
    for (const { name, row, perTask: p } of await stubRows(tasks, pool)) {
      models[name] = row;
      perTask[name] = p;
    }
    const best = STUB_NAMES.reduce((a, b) => (models[b].success > models[a].success ? b : a));
    log(`tool-rl eval: ${STUB_NAMES.length} stub rows, the best ${best} at ${models[best].success.toFixed(3)} success`);
  }
  // Every row paired per task with the baseline, overall and within each group of tasks.
  const vs: Record<string, PairedRow> = {};
  const base = perTask[f.baseline].success;
  for (const [name, row] of Object.entries(models)) {
    if (name === f.baseline) continue;
    row.vs_sft = vs[name] = pairedRow(perTask[name].success, base);
    for (const [g, part] of Object.entries(row.by_group ?? {})) {
      const idx = tasks.flatMap((t, i) => (groupOf(t) === g ? [i] : []));
      part.vs_sft = pairedRow(idx.map((i) => perTask[name].success[i]), idx.map((i) => base[i]));
    }
    if (!name.startsWith('stub:')) log(`tool-rl eval: ${name} - ${f.baseline}: ${diffText(vs[name], '95% CI ')}`);
  }
  // Rows of one checkpoint with different tools (stateful vs stateless, with vs without the tool), paired per task.
  const sameCheckpoint: Record<string, PairedRow> = {};
  runs.forEach((a, i) =>
    runs.slice(i + 1).forEach((b) => {
      if (a.dir !== b.dir) return;
      const d = (sameCheckpoint[`${a.name} - ${b.name}`] = pairedRow(perTask[a.name].success, perTask[b.name].success));
      log(`tool-rl eval: ${a.name} - ${b.name}: ${diffText(d, '95% CI ')}`);
    }),
  );
  const result = {
    n_tasks: tasks.length, samples_per_task: f.samplesPerTask, data: f.data.join(','), dev_data: f.devData?.join(',') ?? null, temperatures: f.devData ? f.temperatures : null, family, baseline: f.baseline, temperature: f.temperature, common_random: f.commonRandom,
    models, vs_sft: vs, same_checkpoint: sameCheckpoint,
  };
  fs.mkdirSync(path.dirname(f.out), { recursive: true });
  fs.writeFileSync(f.out, JSON.stringify(result, null, 2) + '\n');
  fs.writeFileSync(f.out.replace(/\.json$/, '') + '.md', evalTable(result));
  return result;
}

/** "+0.109 ± 0.017 (0.077 .. 0.142)": a paired difference, its SE and 95% interval ("n/a" where undefined). */
function diffText(d: PairedDiff, ciLabel = ''): string {
  const n = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  return `${d.diff >= 0 ? '+' : ''}${n(d.diff)} ± ${n(d.se)} (${d.ci95 ? ciLabel + d.ci95.map(n).join(' .. ') : 'n/a'})`;
}

/** eval.json as Markdown (eval.md beside it): one row per run, the paired difference with the baseline; by group. */
function evalTable(r: {
  n_tasks: number; samples_per_task: number; data: string; dev_data: string | null; family: string; baseline: string; common_random: boolean; models: Record<string, EvalRow>;
  same_checkpoint: Record<string, PairedDiff>;
}): string {
  const n = (x: number | null, d = 3) => (x === null ? 'n/a' : x.toFixed(d));
  const crn = r.common_random ? ', every row sampled with the same random numbers per episode and turn' : ', each row with its own random numbers';
  const metric = r.family === 'programming' ? 'pass@1 (the final code passes every hidden test)' : r.family === 'questions' ? 'success (the answer stated exactly)' : 'success (pass@1 of programming tasks, exact answers of questions)';
  const lines = [
    `${r.n_tasks} tasks of ${r.data} x ${r.samples_per_task} episodes (1 when greedy, temperature 0)${crn}; ${metric} = mean over tasks ± SE; the difference is paired per task with ${r.baseline} (95% t interval).`,
    '',
    ...(r.dev_data
      ? [`Each row without its own temperature is at the one with its best success on the dev tasks ${r.dev_data}: ${Object.entries(r.models).filter(([, m]) => m.dev).map(([name, m]) => `${name} ${Object.entries(m.dev!).map(([t, d]) => `${t}: ${n(d.success)}`).join(', ')}`).join('; ')}.`, '']
      : []),
    markdownTable(
      ['run', 'tool', 'temperature', r.family === 'programming' ? 'pass@1' : 'success', `- ${r.baseline} (95% CI)`, 'tests passed', 'tool calls', 'turns', 'malformed'],
      Object.entries(r.models).map(([name, m]) => [
        name,
        m.tool,
        String(m.temperature ?? '-'),
        `${n(m.success)} ± ${n(m.se)}`,
        m.vs_sft ? diffText(m.vs_sft) : '(baseline)',
        n(m.tests_passed),
        n(m.tool_calls, 2),
        n(m.turns, 2),
        n(m.malformed),
      ]),
      { align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'] },
    ),
  ];
  const groups = Object.keys(r.models[r.baseline].by_group ?? {});
  if (groups.length > 0) {
    lines.push('', `By group of operations (the suite's \`group\`: who trained on the operation), ${r.family === 'programming' ? 'pass@1' : 'success'} ± SE and - ${r.baseline}:`, '');
    const cell = (m: EvalRow, g: string) => {
      const part = m.by_group?.[g];
      return part ? `${n(part.success)} ± ${n(part.se)}${part.vs_sft ? ` (${diffText(part.vs_sft)})` : ''}` : '-';
    };
    lines.push(
      markdownTable(
        ['run', ...groups.map((g) => `${g} (${r.models[r.baseline].by_group![g].n})`)],
        Object.entries(r.models).map(([name, m]) => [name, ...groups.map((g) => cell(m, g))]),
      ),
    );
  }
  const same = Object.entries(r.same_checkpoint);
  if (same.length > 0) {
    lines.push('', 'Rows of one checkpoint with different tools, paired per task:', '', markdownTable(['rows', 'difference (95% CI)'], same.map(([pair, d]) => [pair, diffText(d)])));
  }
  return lines.join('\n') + '\n';
}
