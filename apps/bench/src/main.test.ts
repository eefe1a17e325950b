// bench's command line: its settings, the one-line errors for a python without torch and a missing torch script, and
// bench gemm's markdown table and JSON line on a tiny model.
import * as fs from 'fs';
import * as path from 'path';
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { BenchCompareSettings, BenchTrainSettings, GemmBenchSettings, InterpreterBenchSettings, SandboxBenchSettings, TORCH_INSTALL } from '@rlhf-code/bench';

const bench = (...args: string[]) => runApp('bench', args);
const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at /.test(l));

describe('bench compare: CLI', () => {
  it('--print-config: the preset and compare settings of libs/bench', () => {
    expect(printedConfig('bench', ['compare'])).toEqual(BenchCompareSettings.parse({}));
    expect(printedConfig('bench', ['train', '--hidden', '64', '--steps', '6'])).toEqual(BenchTrainSettings.parse({ hidden: 64, steps: 6 }));
    expect(bench('train', '--steps', '2', '--print-config').stderr).toBe('bench: error: --steps: Too small: expected number to be >=5\n');
  });

  it('a python without torch is one line naming the python and how to install torch', () => {
    const r = bench('compare', '--python', '/nonexistent/python', '--torch-script', __filename);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench: error: --python \/nonexistent\/python: cannot import torch/);
    expect(r.stderr).toContain(TORCH_INSTALL);
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('a missing torch script is one line naming the path', () => {
    const r = bench('compare', '--torch-script', '/nonexistent/torch_ref_bench.py');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('bench: error: --torch-script: /nonexistent/torch_ref_bench.py not found (the PyTorch yardstick; pass --torch-script PATH)\n');
  });
});

describe('bench generate: CLI', () => {
  it('a checkpoint on the llamacpp engine: one JSON line with the engine, its threads and the decode speed', () => {
    const r = bench('generate', '--model', 'models/base', '--engine', 'llamacpp', '--engine-threads', '1', '--seq', '16', '--new', '4');
    expect(r.code).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ mode: 'generate', model: 'models/base', engine: 'llamacpp', engine_weights: 'F32', engine_threads: 1, prompt_tokens: 16, new_tokens: 4 });
    expect(line.ttft_ms).toBeGreaterThan(0);
    expect(line.total_ms).toBeGreaterThan(line.ttft_ms);
    expect(line.decode_tokens_per_s).toBeGreaterThan(0);
  });

  it('an engine without --model, or threads for an engine without its own, is one line naming the flag', () => {
    expect(bench('generate', '--engine', 'llamacpp').stderr).toBe('bench: error: --engine llamacpp: give --model (a checkpoint folder the engine opens)\n');
    const r = bench('generate', '--model', 'models/base', '--engine-threads', '1');
    expect(r.stderr).toMatch(/\nbench: error: --engine-threads: only the llamacpp engine runs its own threads, not --engine local\n$/);
    expect(stackLines(r.stderr)).toEqual([]);
  });
});

describe('bench memory: CLI', () => {
  it('a config.json: the table on stderr, one JSON line on stdout', () => {
    const r = bench('memory', '--model', 'models/configs/qwen2.5-coder-0.5b.json', '--stage', 'ppo', '--lora-rank', '8', '--batch-size', '1', '--seq-len', '256', '--recompute-layers');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^stage ppo, LoRA r=8, batch 1 x 256 tokens \(128 response\), layer recomputation, reward model shared\nparameters 494,032,768, trainable /);
    for (const k of ['weights', 'optimizer', 'gradients', 'activations', 'kv_cache']) expect(r.stderr).toMatch(new RegExp(`^${k} +\\d+\\.\\d$`, 'm'));
    expect(r.stderr).toMatch(/^peak +\d+\.\d  \(\d+\.\d\d GiB\)$/m);
    const plan = JSON.parse(r.stdout.trim());
    expect(plan).toMatchObject({ model: 'models/configs/qwen2.5-coder-0.5b.json', stage: 'ppo', lora_rank: 8, batch_size: 1, seq_len: 256, params: 494032768, reward_model: 'shared' });
    expect(Object.keys(plan.components)).toEqual(['weights', 'optimizer', 'gradients', 'activations', 'kv_cache']);
    expect(plan.total).toBeGreaterThan(plan.components.weights);
  });

  it('a missing model or a bad stage is one line naming it', () => {
    expect(bench('memory', '--model', '/nonexistent', '--stage', 'sft').stderr).toBe('bench: error: model folder /nonexistent does not exist\n');
    expect(bench('memory', '--model', 'models/base', '--stage', 'dpo').stderr).toContain("argument 'dpo' is invalid. Allowed choices are sft, rm, ppo, online.");
  });
});

describe('bench sandbox: CLI', () => {
  it('--print-config: the settings of libs/bench', () => {
    expect(printedConfig('bench', ['sandbox'])).toEqual(SandboxBenchSettings.parse({}));
    expect(bench('sandbox', '--batch-size', '1', '--print-config').stderr).toBe('bench: error: --batch-size: Too small: expected number to be >=2\n');
  });

  it('one JSON line on stdout: runs per second of both pools and their ratio, per pair; progress on stderr', () => {
    const r = bench('sandbox', '--runs', '6', '--repetitions', '2');
    expect(r.code).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ runs: 6, repetitions: 2, concurrency: 2, batch_size: 16 });
    for (const k of ['single_runs_per_s', 'batched_runs_per_s', 'ratio']) expect(line[k].values).toHaveLength(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^bench sandbox: pair 1\/2: batch size 1: [\d.]+ runs\/s$/),
      expect.stringMatching(/^bench sandbox: pair 1\/2: batch size 16: [\d.]+ runs\/s$/),
      expect.stringMatching(/^bench sandbox: pair 2\/2: batch size 16: /),
      expect.stringMatching(/^bench sandbox: pair 2\/2: batch size 1: /),
    ]);
  });
});

describe('bench interpreter: CLI', () => {
  it('--print-config: the settings of libs/bench', () => {
    expect(printedConfig('bench', ['interpreter'])).toEqual(InterpreterBenchSettings.parse({}));
  });

  it('one JSON line on stdout: calls per second per start mode, stateless and stateful, and their ratios; progress on stderr', () => {
    const r = bench('interpreter', '--calls', '4', '--episodes', '2', '--repetitions', '2');
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' }); // a failure shows why
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ calls: 4, episodes: 2, repetitions: 2, concurrency: 2 });
    for (const mode of ['spawn', 'fork']) for (const kind of ['stateless', 'stateful']) expect(line[`${mode}_${kind}_calls_per_s`].values).toHaveLength(2);
    for (const k of ['stateless_ratio', 'stateful_ratio']) expect(line[k].values).toHaveLength(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^bench interpreter: pair 1\/2: spawn stateless: [\d.]+ calls\/s$/),
      expect.stringMatching(/^bench interpreter: pair 1\/2: spawn stateful: [\d.]+ calls\/s$/),
      expect.stringMatching(/^bench interpreter: pair 1\/2: fork stateless: /),
      expect.stringMatching(/^bench interpreter: pair 1\/2: fork stateful: /),
      expect.stringMatching(/^bench interpreter: pair 2\/2: fork stateless: /),
      expect.stringMatching(/^bench interpreter: pair 2\/2: fork stateful: /),
      expect.stringMatching(/^bench interpreter: pair 2\/2: spawn stateless: /),
      expect.stringMatching(/^bench interpreter: pair 2\/2: spawn stateful: /),
    ]);
  });
});

// Where the native addon is built (as in libs/backend's tests): bench gemm needs it.
const nativeBuilt = process.platform === 'linux' && process.arch === 'x64' && process.env.RLHF_NATIVE !== '0' &&
  fs.existsSync(path.join(__dirname, '../../../libs/backend/native/build/rlhf_native.node'));

describe('bench gemm: CLI', () => {
  it('--print-config: the settings of libs/bench', () => {
    expect(printedConfig('bench', ['gemm'])).toEqual(GemmBenchSettings.parse({}));
    expect(printedConfig('bench', ['gemm', '--threads', '1,2', '--reps', '3'])).toEqual(GemmBenchSettings.parse({ threads: [1, 2], reps: 3 }));
    expect(bench('gemm', '--reps', '2', '--print-config').stderr).toBe('bench: error: --reps: Too small: expected number to be >=3\n');
  });

  (nativeBuilt ? it : it.skip)('a tiny model: the table on stderr, one JSON line on stdout with every product, peak and achieved GFLOP/s', () => {
    const r = bench('gemm', '--model', 'test-fixtures/qwen2-tiny-f32-untied', '--batch', '2', '--seq', '16', '--threads', '1', '--reps', '3', '--peak-seconds', '0.01');
    expect(r.code).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    expect(line).toMatchObject({ model: 'test-fixtures/qwen2-tiny-f32-untied', rows: 32, threads: [1] });
    const kernels = Object.keys(line.peak_gflops['1']);
    expect(kernels[0]).toBe('avx2');
    for (const k of kernels) expect(line.peak_gflops['1'][k]).toBeGreaterThan(0);
    // hidden 64, 4 heads of 16, 2 kv heads, ffn 160, vocab 1024, 2 layers: q/o, k/v, gate/up, down and the LM head, 3 products each.
    const names = [...new Set(line.products.map((p: { name: string }) => p.name))];
    expect(names).toEqual([
      'q/o x W^T', 'q/o dy W', 'q/o dy^T x', 'k/v x W^T', 'k/v dy W', 'k/v dy^T x', 'gate/up x W^T', 'gate/up dy W', 'gate/up dy^T x',
      'down x W^T', 'down dy W', 'down dy^T x', 'lm_head x W^T', 'lm_head dy W', 'lm_head dy^T x',
    ]);
    const variants = ['fp32 avx2', 'fp32 avx512', 'bf16 avx512', 'bf16 avx512bf16'].filter((v) => kernels.includes(v.split(' ')[1]));
    expect(line.products).toHaveLength(names.length * variants.length);
    expect(line.products[0]).toMatchObject({ name: 'q/o x W^T', m: 32, n: 64, k: 64, trans_a: false, trans_b: true, per_step: 4, dtype: 'fp32', kernel: 'avx2', threads: 1 });
    expect(Object.keys(line.achieved_gflops['1'])).toEqual(variants);
    expect(r.stderr).toMatch(/^peak GFLOP\/s \(register-only loops\) 1 thread: avx2 [\d.]+/m);
    expect(r.stderr).toMatch(/^\| product +\| m x k x n +\| per step \| dtype +\| kernel +\| threads \| GFLOP\/s \| % of peak \|$/m);
    expect(r.stderr).toMatch(/^\| -+ \| -+ \| -+: \| -+ \| -+ \| -+: \| -+: \| -+: \|$/m);
    expect(r.stderr).toMatch(/^\| a step's GEMMs +\| 32 rows +\| +\| fp32 +\| avx2 +\| +1 \| +[\d.]+ \| +[\d.]+ \|$/m);
  });
});
