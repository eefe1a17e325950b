// The tool-use stages behind `tool-rl warmstart | train | eval` (apps/tool-rl is their command line):
//   runToolWarmStart  SFT on synthetic traces of the tasks' reference calls (the format, before RL)
//   runToolGrpo       GRPO over multi-turn episodes with the interpreter
//   runToolEval       success on held-out tasks per (checkpoint, interpreter) row, each row paired with a baseline
import * as fs from 'fs';
import * as path from 'path';
import { readToolTasks, shuffle, type ToolTaskRecord } from '@rlhf-code/data';
import { resumableRng, loadModelAndTokenizer, type Qwen2Model } from '@rlhf-code/model';
import { loadPpoModels, savePpoCheckpoint } from '@rlhf-code/rl';
import { SandboxPool } from '@rlhf-code/sandbox';
import { meanSe, paired, type PairedDiff } from '@rlhf-code/stats';
import { chatTemplateOf, loadTokenizer } from '@rlhf-code/tokenizer';
import { loadLmStageModel, loraConfigOf, RunDir, runLmStage, trainerConfig, TrainingRun, yieldToEventLoop } from '@rlhf-code/train';
import { interpreterTools, runEpisodes, taskMessages, type Episode } from './episode';
import { judgeEpisodes } from './judge';
import { policyTurns } from './policy-turns';
import { TOOL_MODES, type ToolEvalSettings, type ToolGrpoSettings, type ToolMode, type ToolWarmStartSettings } from './settings';
import { ToolGrpoTrainer } from './tool-grpo';
import { warmStartExamples } from './warm-start';

type EpisodeLimits = Pick<ToolGrpoSettings, 'maxTurns' | 'maxTurnTokens' | 'maxTotalTokens' | 'toolTimeoutMs' | 'toolMemoryMb' | 'toolOutputChars' | 'toolWorkers' | 'system'>;

/** The interpreter options of the settings (the pool is the concurrency limit). */
const interpreterOptions = (f: EpisodeLimits) => ({ timeoutMs: f.toolTimeoutMs, memoryMb: f.toolMemoryMb, outputChars: Math.max(f.toolOutputChars, 64) });

/** Tasks of a file, the first `limit` (0 = all), with at least `min` of them. */
async function readTasks(file: string, limit: number, flag: string, min = 1): Promise<ToolTaskRecord[]> {
  let tasks = await readToolTasks(file);
  if (limit > 0) tasks = tasks.slice(0, limit);
  if (tasks.length < min) throw new Error(`${flag} ${file}: need at least ${min} tasks, found ${tasks.length}`);
  return tasks;
}

export async function runToolWarmStart(f: ToolWarmStartSettings, log: (line: string) => void = console.error) {
  const tok = loadTokenizer(f.model);
  const template = chatTemplateOf(tok);
  const records = await readTasks(f.data, 0, '--data');
  const withCalls = records.filter((r) => r.calls && r.answer !== undefined);
  if (withCalls.length === 0) throw new Error(`--data ${f.data}: no task has "calls" and "answer" (the warm-start traces make the reference calls)`);
  const rng = resumableRng(`warmstart:${f.seed}`);
  const tasks = withCalls.map((r) => ({ question: r.question, answer: r.answer!, calls: r.calls!, direct: rng.next() < f.directShare }));
  const pool = new SandboxPool({ concurrency: 2 });
  const { examples: all } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(f.interpreter === 'stateful', { timeoutMs: 30_000 }, pool), system: f.system });
  const fits = all.filter((e) => e.ids.length <= f.maxLen);
  const order = shuffle(fits, `warmstart-split:${f.seed}`);
  const nHeld = Math.round(order.length * f.heldoutFraction);
  const heldOut = order.slice(0, nHeld);
  const examples = order.slice(nHeld);
  const direct = tasks.filter((t) => t.direct).length;
  log(
    `tool-rl warmstart: ${records.length} tasks in ${f.data}: ${withCalls.length} with reference calls (${records.length - withCalls.length} without, skipped); ` +
      `${direct} traces answer without the tool; ${all.length - fits.length} longer than --max-len ${f.maxLen} dropped; ${examples.length} training / ${heldOut.length} held-out traces`,
  );
  const model = await loadLmStageModel(f, new RunDir(f.out).resumeFrom(f.resume), (line) => log(`tool-rl warmstart: ${line}`));
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
  const tasks = await readTasks(f.data, f.limit, '--data', 1);
  const tok = loadTokenizer(f.model);
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
  const { policy, reference } = await loadPpoModels({ modelDir: f.model, resumeDir, algo: 'grpo', rewardModelDir: null, lora, seed: f.seed });
  const pool = new SandboxPool({ concurrency: f.toolWorkers });
  const rng = resumableRng(`tool-grpo:${f.seed}`, saved?.rng);
  let batch: ToolTaskRecord[] = [];
  const grpo = new ToolGrpoTrainer(
    {
      policy,
      reference,
      tokenizer: tok,
      template,
      toolFor: interpreterTools(f.interpreter === 'stateful', interpreterOptions(f), pool),
      judge: (episodes, rows) => judgeEpisodes(episodes, rows.map((r) => batch[r]), pool),
      rng,
      trainer: trainerConfig(f, f.steps * f.ppoEpochs * f.miniBatches),
      maxToolChars: f.toolOutputChars,
    },
    f,
  );
  const done = saved?.iteration ?? 0;
  if (state) await runDir.restore(grpo.trainer, state);
  log(`tool-rl train: ${tasks.length} tasks from ${f.data}; ${f.steps} iterations of ${f.batchSize} tasks x ${f.groupSize} episodes, ${f.interpreter} interpreter` + (lora ? `, LoRA r=${lora.r}` : ''));
  const run = new TrainingRun({ outDir: f.out, label: 'tool grpo', totalSteps: f.steps, append: resumeDir !== undefined, resumeStep: resumeDir ? done : undefined, quiet: f.quiet });
  if (resumeDir) run.print(`tool-rl train: resuming from ${f.out} at iteration ${done}`);
  else if (f.resume) run.print(`tool-rl train: --resume: no checkpoint in ${f.out} yet, starting from iteration 0`);
  const save = (step: number) =>
    savePpoCheckpoint(f.out, { policy, valueHead: null }, {
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
      const m = await grpo.step(batch.map((t) => taskMessages(t, f.system)));
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
    grpo.dispose();
    policy.dispose();
    reference.dispose();
  }
  return { stage: 'tool-grpo', out: f.out, step, interrupted: step < f.steps, seconds: (Date.now() - t0) / 1000 };
}

/** One row of the evaluation: a checkpoint with an interpreter (or none). */
export interface EvalRun {
  name: string;
  dir: string;
  tool: ToolMode;
}

/** `name=dir:tool,...` -> rows; errors name the entry. */
export function parseEvalRuns(spec: string): EvalRun[] {
  const runs = spec.split(',').map((entry) => {
    const m = /^([\w.-]+)=(.+):(\w+)$/.exec(entry.trim());
    if (!m) throw new Error(`--runs: "${entry}" is not name=checkpoint:tool (tool = ${TOOL_MODES.join(', ')})`);
    if (!(TOOL_MODES as readonly string[]).includes(m[3])) throw new Error(`--runs: "${entry}": tool must be one of ${TOOL_MODES.join(', ')}, got "${m[3]}"`);
    return { name: m[1], dir: m[2], tool: m[3] as ToolMode };
  });
  const names = runs.map((r) => r.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`--runs: the name "${dup}" is used twice`);
  return runs;
}

export interface EvalRow {
  success: number;
  se: number | null;
  tool_calls: number;
  turns: number;
  malformed: number;
  answered: number;
  by_kind: Record<string, { success: number; se: number | null; n: number }>;
  checkpoint: string;
  tool: ToolMode;
  seconds: number;
}

/**
 * Episodes of one row: every task `k` times. With commonRandom every row draws episode i's turn k from the same stream
 * (policy-turns.ts), so the rows' paired differences carry less sampling noise; each row's own figures are unchanged
 * in distribution.
 */
async function evalRow(r: EvalRun, tasks: readonly ToolTaskRecord[], f: ToolEvalSettings, pool: SandboxPool): Promise<{ row: EvalRow; perTask: number[] }> {
  const t0 = Date.now();
  const { model, tokenizer } = await loadModelAndTokenizer(r.dir, { trainable: false, merge: true });
  try {
    const template = chatTemplateOf(tokenizer);
    const rows = tasks.flatMap((t) => new Array<ToolTaskRecord>(f.samplesPerTask).fill(t));
    const episodes: Episode[] = await runEpisodes(policyTurns(model, { tokenizer, temperature: f.temperature, rng: resumableRng(f.commonRandom ? `tool-eval:${f.seed}` : `tool-eval:${f.seed}:${r.name}`), batchSize: f.batchSize }), rows.map((t) => taskMessages(t, f.system)), {
      tokenizer,
      template,
      maxTurns: f.maxTurns,
      maxTurnTokens: f.maxTurnTokens,
      maxTotalTokens: f.maxTotalTokens,
      maxToolChars: f.toolOutputChars,
      noTool: r.tool === 'none',
      toolFor: interpreterTools(r.tool === 'stateful', interpreterOptions(f), pool),
    });
    const ok = (await judgeEpisodes(episodes, rows, pool)).map(Number);
    const k = f.samplesPerTask;
    const perTask = tasks.map((_, i) => ok.slice(i * k, (i + 1) * k).reduce((a, b) => a + b, 0) / k);
    const s = meanSe(perTask);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const calls = episodes.reduce((n, e) => n + e.toolCalls + e.malformedCalls, 0);
    const byKind: EvalRow['by_kind'] = {};
    for (const kind of new Set(tasks.map((t) => t.kind ?? 'task'))) {
      const xs = perTask.filter((_, i) => (tasks[i].kind ?? 'task') === kind);
      const ks = meanSe(xs);
      byKind[kind] = { success: ks.mean, se: ks.se, n: xs.length };
    }
    return {
      perTask,
      row: {
        success: s.mean,
        se: s.se,
        tool_calls: mean(episodes.map((e) => e.toolCalls)),
        turns: mean(episodes.map((e) => e.turns)),
        malformed: calls > 0 ? episodes.reduce((n, e) => n + e.malformedCalls, 0) / calls : 0,
        answered: mean(episodes.map((e) => Number(e.end === 'answer'))),
        by_kind: byKind,
        checkpoint: r.dir,
        tool: r.tool,
        seconds: (Date.now() - t0) / 1000,
      },
    };
  } finally {
    model.dispose();
  }
}

export async function runToolEval(f: ToolEvalSettings, log: (line: string) => void = console.error) {
  const runs = parseEvalRuns(f.runs);
  if (!runs.some((r) => r.name === f.baseline)) throw new Error(`--baseline ${f.baseline}: no such row in --runs (rows: ${runs.map((r) => r.name).join(', ')})`);
  for (const r of runs) if (!fs.existsSync(path.join(r.dir, 'config.json')) && !fs.existsSync(path.join(r.dir, 'adapter_config.json'))) throw new Error(`--runs ${r.name}: ${r.dir} is not a checkpoint folder (no config.json)`);
  const tasks = await readTasks(f.data, f.limit, '--data', 2);
  const pool = new SandboxPool({ concurrency: f.toolWorkers });
  const models: Record<string, EvalRow> = {};
  const perTask: Record<string, number[]> = {};
  for (const r of runs) {
    const { row, perTask: p } = await evalRow(r, tasks, f, pool);
    models[r.name] = row;
    perTask[r.name] = p;
    log(`tool-rl eval: ${r.name.padEnd(16)} success ${row.success.toFixed(3)} ± ${row.se?.toFixed(3) ?? 'n/a'}  calls ${row.tool_calls.toFixed(2)}  turns ${row.turns.toFixed(2)}  malformed ${row.malformed.toFixed(3)}  (${row.seconds.toFixed(0)} s)`);
  }
  const vs: Record<string, PairedDiff & { n: number; z: number | null }> = {};
  for (const r of runs) {
    if (r.name === f.baseline) continue;
    const d = paired(perTask[r.name], perTask[f.baseline]);
    vs[r.name] = { ...d, n: tasks.length, z: d.se ? d.diff / d.se : null };
    log(`tool-rl eval: ${r.name} - ${f.baseline}: ${diffText(d, '95% CI ')}`);
  }
  // Rows of one checkpoint with different tools (stateful vs stateless, with vs without the tool), paired per task.
  const sameCheckpoint: Record<string, PairedDiff & { n: number; z: number | null }> = {};
  runs.forEach((a, i) =>
    runs.slice(i + 1).forEach((b) => {
      if (a.dir !== b.dir) return;
      const d = paired(perTask[a.name], perTask[b.name]);
      sameCheckpoint[`${a.name} - ${b.name}`] = { ...d, n: tasks.length, z: d.se ? d.diff / d.se : null };
      log(`tool-rl eval: ${a.name} - ${b.name}: ${diffText(d, '95% CI ')}`);
    }),
  );
  const result = {
    n_tasks: tasks.length, samples_per_task: f.samplesPerTask, data: f.data, baseline: f.baseline, temperature: f.temperature, common_random: f.commonRandom,
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

/** eval.json as a Markdown table (eval.md beside it): one row per run, the paired difference with the baseline. */
function evalTable(r: {
  n_tasks: number; samples_per_task: number; data: string; baseline: string; common_random: boolean; models: Record<string, EvalRow>; vs_sft: Record<string, PairedDiff>;
  same_checkpoint: Record<string, PairedDiff>;
}): string {
  const n = (x: number | null, d = 3) => (x === null ? 'n/a' : x.toFixed(d));
  const crn = r.common_random ? ', every row sampled with the same random numbers per episode and turn' : ', each row with its own random numbers';
  const lines = [
    `${r.n_tasks} tasks of ${r.data} x ${r.samples_per_task} episodes${crn}; success = mean over tasks ± SE; the difference is paired per task with ${r.baseline} (95% t interval).`,
    '',
    `| run | tool | success | - ${r.baseline} (95% CI) | tool calls | turns | malformed |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [name, m] of Object.entries(r.models)) {
    const d = r.vs_sft[name];
    lines.push(`| ${name} | ${m.tool} | ${n(m.success)} ± ${n(m.se)} | ${d ? diffText(d) : '(baseline)'} | ${n(m.tool_calls, 2)} | ${n(m.turns, 2)} | ${n(m.malformed)} |`);
  }
  const same = Object.entries(r.same_checkpoint);
  if (same.length > 0) {
    lines.push('', 'Rows of one checkpoint with different tools, paired per task:', '', '| rows | difference (95% CI) |', '| --- | --- |');
    for (const [pair, d] of same) lines.push(`| ${pair} | ${diffText(d)} |`);
  }
  return lines.join('\n') + '\n';
}
