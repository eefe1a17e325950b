// The three tool stages end to end on a tiny random model: warm-start -> GRPO -> eval writes the table in the shape
// the issue names, each row paired with the baseline; bad --runs entries and task files fail with a clear message.
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { loadMergedWeights } from '@rlhf-code/model';
import { saveTinyModel, tempDir, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { ToolEvalSettings, ToolGrpoSettings, ToolWarmStartSettings } from './settings';
import { STUB_NAMES } from '@rlhf-code/sandbox';
import { bestTemperature } from '@rlhf-code/stats';
import { parseEvalRuns, readTasks, runToolEval, runToolGrpo, runToolWarmStart } from './stages';

jest.setTimeout(120_000);
beforeAll(() => initBackend({ quiet: true }));

test('parseEvalRuns: name=checkpoint:tool[@temperature] rows; errors name the entry', () => {
  expect(parseEvalRuns('a=results/x:stateful, b=/abs/y:none@0.2')).toEqual([
    { name: 'a', dir: 'results/x', tool: 'stateful' },
    { name: 'b', dir: '/abs/y', tool: 'none', temperature: 0.2 },
  ]);
  expect(() => parseEvalRuns('a=results/x')).toThrow('--runs: "a=results/x" is not name=checkpoint:tool[@temperature]');
  expect(parseEvalRuns('a=results/x:none@0')).toEqual([{ name: 'a', dir: 'results/x', tool: 'none', temperature: 0 }]); // greedy
  expect(() => parseEvalRuns('a=results/x:none@-1')).toThrow('the temperature after @ must be a number >= 0 (0 = greedy), got "-1"');
  expect(() => parseEvalRuns('a=results/x:none@hot')).toThrow('got "hot"');
  expect(() => parseEvalRuns('a=results/x:docker')).toThrow('tool must be one of stateful, stateless, none, got "docker"');
  expect(() => parseEvalRuns('a=x:none,a=y:none')).toThrow('the name "a" is used twice');
});

test('warm-start -> GRPO -> eval on a tiny model: checkpoints, metrics and eval.json', async () => {
  const dir = tempDir('tool-stages-');
  const base = path.join(dir, 'base');
  await saveTinyModel(base, { seed: 5, tokenizerDir: TOKENIZER_DIR });
  const task = (i: number) => ({ id: `t${i}`, kind: i % 2 ? 'odd' : 'even', question: `What is ${i} + 1000?`, answer: String(i + 1000), calls: [`print(${i} + 1000)`] });
  const questions = path.join(dir, 'tasks.jsonl');
  fs.writeFileSync(questions, [0, 1, 2, 3].map((i) => JSON.stringify(task(i))).join('\n') + '\n');
  // Programming tasks in MBPP's schema, as the task suite writes them: two with a reference (sft), two without (test).
  const problem = (i: number, code: boolean) => ({
    task_id: i, text: `Write a function add_${i}(a, b) that returns a + b + ${i}.`, ...(code ? { code: `def add_${i}(a, b):\n    return a + b + ${i}\n` } : {}),
    test_list: [`assert add_${i}(1, 2) == ${3 + i}`, `assert add_${i}(0, 0) == ${i}`, `assert add_${i}(5, -5) == ${i}`], test_setup_code: '', challenge_test_list: [],
    op: `add_${i % 2}`, group: i < 3 ? 'sft_ops' : 'unseen_ops',
  });
  const sft = path.join(dir, 'sft.jsonl');
  const heldOut = path.join(dir, 'test.jsonl');
  fs.writeFileSync(sft, [1, 2].map((i) => JSON.stringify(problem(i, true))).join('\n') + '\n');
  fs.writeFileSync(heldOut, [3, 4, 5].map((i) => JSON.stringify(problem(i, false))).join('\n') + '\n');
  const data = [sft, `${questions}:3`]; // both families, three of the four questions
  const quiet = () => {};

  const lines: string[] = [];
  const ws = await runToolWarmStart(ToolWarmStartSettings.parse({ model: base, data, out: path.join(dir, 'sft'), maxSteps: 2, batchSize: 2, heldoutFraction: 0, directShare: 0, quiet: true }), (l) => lines.push(l));
  expect(ws).toMatchObject({ stage: 'tool-warmstart', step: 2, traces: 5 });
  expect(lines[0]).toContain('5 with a trace (2 programming, 3 questions; 0 without, skipped)');
  expect((await readTasks([`${questions}:3`], { limit: 0, seed: 0, flag: '--data' })).map((t) => t.id)).toEqual((await readTasks([`${questions}:3`], { limit: 0, seed: 0, flag: '--data' })).map((t) => t.id)); // seeded
  await expect(readTasks([`${questions}:9`], { limit: 0, seed: 0, flag: '--data' })).rejects.toThrow(`--data ${questions}:9: asks for 9 tasks, ${questions} has 4`);
  expect(fs.existsSync(path.join(dir, 'sft', 'model.safetensors'))).toBe(true);

  const limits = { maxTurns: 2, maxTurnTokens: 8, maxTotalTokens: 400 };
  const g = await runToolGrpo(ToolGrpoSettings.parse({ model: path.join(dir, 'sft'), data, out: path.join(dir, 'grpo'), steps: 2, batchSize: 2, groupSize: 2, microBatchSize: 2, quiet: true, ...limits }), quiet);
  expect(g).toMatchObject({ stage: 'tool-grpo', step: 2, interrupted: false });
  const metrics = fs.readFileSync(path.join(dir, 'grpo', 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(metrics.map((m) => m.step)).toEqual([1, 2]);
  for (const k of ['env/success_mean', 'env/tool_calls_mean', 'env/turns_mean', 'env/malformed_rate', 'tokens/masked_share']) expect(typeof metrics[0][k]).toBe('number');

  // With LoRA: the adapter folder, and --merge-export's full checkpoint holding the same merged weights.
  const merged = path.join(dir, 'grpo-merged');
  await runToolGrpo(ToolGrpoSettings.parse({ model: path.join(dir, 'sft'), data, out: path.join(dir, 'grpo-lora'), steps: 1, batchSize: 2, groupSize: 2, microBatchSize: 2, loraRank: 2, mergeExport: merged, quiet: true, ...limits }), quiet);
  const fromAdapter = await loadMergedWeights(path.join(dir, 'grpo-lora'));
  const fromExport = await loadMergedWeights(merged);
  expect([...fromExport.weights.keys()].sort()).toEqual([...fromAdapter.weights.keys()].sort());
  for (const [name, t] of fromAdapter.weights) expect(Array.from(fromExport.weights.get(name)!.data)).toEqual(Array.from(t.data));

  // --resume: one iteration, then on to two from the checkpoint, is the two-iteration run (adapter, metrics, the
  // sampling stream: the second iteration's episodes are the same).
  const lora = { data, steps: 2, batchSize: 2, groupSize: 2, microBatchSize: 2, loraRank: 2, quiet: true, ...limits, model: path.join(dir, 'sft') };
  await runToolGrpo(ToolGrpoSettings.parse({ ...lora, out: path.join(dir, 'straight') }), quiet);
  await runToolGrpo(ToolGrpoSettings.parse({ ...lora, steps: 1, out: path.join(dir, 'resumed') }), quiet);
  const resumed = await runToolGrpo(ToolGrpoSettings.parse({ ...lora, resume: true, out: path.join(dir, 'resumed') }), quiet);
  expect(resumed).toMatchObject({ step: 2, interrupted: false });
  const w1 = await loadMergedWeights(path.join(dir, 'straight'));
  const w2 = await loadMergedWeights(path.join(dir, 'resumed'));
  for (const [name, t] of w1.weights) expect(Array.from(w2.weights.get(name)!.data)).toEqual(Array.from(t.data));
  const untimed = (d: string) =>
    fs.readFileSync(path.join(dir, d, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => Object.fromEntries(Object.entries(JSON.parse(l)).filter(([k]) => !k.startsWith('time'))));
  expect(untimed('resumed')).toEqual(untimed('straight'));
  fs.writeFileSync(path.join(dir, 'straight', 'trainer_state.json'), JSON.stringify({ position: { step: 4, epoch: 0, stepInEpoch: 0 } }));
  await expect(runToolGrpo(ToolGrpoSettings.parse({ ...lora, resume: true, out: path.join(dir, 'straight') }), quiet)).rejects.toThrow('trainer_state.json has no tool GRPO state');

  const out = path.join(dir, 'eval.json');
  const runs = `ws=${path.join(dir, 'sft')}:stateful,grpo=${path.join(dir, 'grpo')}:stateless@0.5,none=${path.join(dir, 'grpo')}:none`;
  const tensors = tf.memory().numTensors;
  const r = await runToolEval(ToolEvalSettings.parse({ runs, baseline: 'ws', data: [heldOut], out, samplesPerTask: 2, ...limits }), quiet);
  expect(tf.memory().numTensors).toBe(tensors); // every row's model and episodes released
  const json = JSON.parse(fs.readFileSync(out, 'utf8'));
  expect(json).toEqual(JSON.parse(JSON.stringify(r)));
  expect(json).toMatchObject({ n_tasks: 3, samples_per_task: 2, family: 'programming', temperature: 1 });
  expect(Object.keys(json.models)).toEqual(['ws', 'grpo', 'none', ...STUB_NAMES]);
  for (const row of Object.values(json.models) as Record<string, unknown>[]) {
    for (const k of ['success', 'se', 'tests_passed', 'tool_calls', 'turns', 'malformed', 'temperature', 'by_kind', 'by_group']) expect(row).toHaveProperty(k);
  }
  expect([json.models.ws.temperature, json.models.grpo.temperature, json.models['stub:pass'].temperature]).toEqual([1, 0.5, null]);
  expect(json.models.none.tool_calls).toBe(0); // no tool offered, none run
  for (const stub of STUB_NAMES) expect(json.models[stub].success).toBe(0); // no stub passes the hidden tests
  expect(json.models['stub:echo-arg'].tests_passed).toBeCloseTo(1 / 9, 10); // add_5(5, -5) == 5: a test passed, still 0 success
  expect(Object.keys(json.vs_sft)).toEqual(['grpo', 'none', ...STUB_NAMES]);
  expect(json.vs_sft.grpo.diff).toBeCloseTo(json.models.grpo.success - json.models.ws.success, 10);
  expect(json.models.grpo.vs_sft).toEqual(json.vs_sft.grpo); // per row too
  expect(json.models.ws.vs_sft).toBeUndefined();
  expect(Object.keys(json.models.grpo.by_group)).toEqual(['unseen_ops']);
  expect(json.models.grpo.by_group.unseen_ops).toMatchObject({ n: 3, success: json.models.grpo.success, vs_sft: { n: 3 } });
  expect(Object.keys(json.same_checkpoint)).toEqual(['grpo - none']); // the one pair of rows sharing a checkpoint
  expect(json.same_checkpoint['grpo - none'].diff).toBeCloseTo(json.models.grpo.success - json.models.none.success, 10);
  expect(json.common_random).toBe(true);
  const table = fs.readFileSync(path.join(dir, 'eval.md'), 'utf8').replace(/ +\|/g, ' |').replace(/\| +/g, '| '); // the cells without their padding
  expect(table).toContain('| ws | stateful | 1 |');
  expect(table).toContain('| stub:pass | none | - | 0.000 ± 0.000 |');
  expect(table).toContain('By group of operations');
  expect(table).toContain('(baseline)');
  expect(table.split('\n').filter((l) => l.startsWith('| grpo | stateless |'))).toHaveLength(1);
  expect(table).toContain('| grpo - none |');

  // --dev-data: a row without @T is evaluated on the dev tasks at each candidate temperature and reported at the best
  // (ties to the lower); a greedy row runs each task once; the row with @0.5 keeps it and has no dev figures.
  const devOut = path.join(dir, 'eval-dev.json');
  const d = await runToolEval(ToolEvalSettings.parse({ runs, baseline: 'ws', data: [heldOut], devData: [sft], temperatures: [1, 0], devSamples: 1, out: devOut, samplesPerTask: 2, ...limits }), quiet);
  expect(Object.keys(d.models.ws.dev!).sort()).toEqual(['0', '1']);
  const chosen = bestTemperature(Object.entries(d.models.ws.dev!).map(([t, p]) => ({ temperature: Number(t), passAt1: p.success })));
  expect(d.models.ws.temperature).toBe(chosen);
  expect(d.models.ws.samples).toBe(chosen === 0 ? 1 : 2);
  expect(d.models.grpo).toMatchObject({ temperature: 0.5, samples: 2 });
  expect(d.models.grpo.dev).toBeUndefined();
  expect(d).toMatchObject({ dev_data: sft, temperatures: [1, 0] });
  // The dev figure at T = 0 is the row's greedy success on the dev tasks, as a plain evaluation of them gives it.
  const greedyOnDev = await runToolEval(ToolEvalSettings.parse({ runs: `ws=${path.join(dir, 'sft')}:stateful@0`, baseline: 'ws', data: [sft], stubs: false, out: path.join(dir, 'g.json'), ...limits }), quiet);
  expect(greedyOnDev.models.ws).toMatchObject({ success: d.models.ws.dev!['0'].success, samples: 1 });
  expect(fs.readFileSync(path.join(dir, 'eval-dev.md'), 'utf8')).toContain(`Each row without its own temperature is at the one with its best success on the dev tasks ${sft}: ws 0: `);
  await expect(runToolEval(ToolEvalSettings.parse({ runs, baseline: 'ws', data: [heldOut], devData: [heldOut], out: devOut, ...limits }), quiet)).rejects.toThrow(
    `--dev-data ${heldOut}: 3 of its tasks are also in --data (the temperature would be chosen on the reported tasks)`,
  );
  expect(() => ToolEvalSettings.parse({ temperatures: [0, 0] })).toThrow('lists a temperature twice');

  await expect(runToolEval(ToolEvalSettings.parse({ runs, baseline: 'sft', data, out }), quiet)).rejects.toThrow('--baseline sft: no such row in --runs (rows: ws, grpo, none)');
  await expect(runToolEval(ToolEvalSettings.parse({ runs: `a=${dir}/nothing:none`, baseline: 'a', data, out }), quiet)).rejects.toThrow(`--runs a: ${dir}/nothing: folder not found`);
});
