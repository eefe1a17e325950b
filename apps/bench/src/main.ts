// bench: training and generation speed of the Qwen2 model on this machine, one JSON line each.
// The preset matches tools/torch_ref_bench.py so the two can be compared in one run: `bench compare`.
// `bench sandbox`: test runs per second of the sandbox, one python process per run against batched runs.
// `bench interpreter`: interpreter tool calls per second, each process spawned against forked from the fork server.
// `bench gemm`: the native GEMM at a model's training shapes per kernel and precision, against the measured peak.
// The benchmarks live in libs/bench; this file reads the settings and prints.
import { Command } from 'commander';
import { runCli, settingsCommand, UsageError } from '@rlhf-code/cli';
import {
  benchGemm,
  benchGenerate,
  BenchCompareSettings,
  benchInterpreter,
  BenchMode,
  benchSandbox,
  BenchSettings,
  benchTrain,
  compare,
  formatGemmTable,
  formatPlan,
  GemmBenchSettings,
  InterpreterBenchSettings,
  measureStepPeak,
  MemorySettings,
  planMemory,
  PRESET_KEYS,
  SandboxBenchSettings,
} from '@rlhf-code/bench';
import { modelConfigOf } from '@rlhf-code/model';
import { describeBackend, initBackend, shutdownBackend } from '@rlhf-code/backend';

function print(x: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(x) + '\n');
}

async function train(f: BenchSettings): Promise<void> {
  const backend = describeBackend(await initBackend());
  print({ backend, ...(await benchTrain(f)) });
}

async function generate(f: BenchSettings): Promise<void> {
  const backend = describeBackend(await initBackend());
  print({ backend, ...(await benchGenerate(f)) });
}

function compareCommand(f: BenchCompareSettings): void {
  const modes: BenchMode[] = f.mode === 'both' ? ['train', 'generate'] : [f.mode];
  compare(
    {
      modes,
      runs: f.runs,
      python: f.python,
      torchScript: f.torchScript,
      presetArgs: [...PRESET_KEYS.flatMap((k) => [`--${k}`, String(f[k])]), '--lora-rank', String(f.loraRank)],
      oursArgs: ['--base-dtype', f.baseDtype, '--int8-activations', f.int8Activations, '--precision', f.precision], // the runtime settings (--backend) reach the child through the environment
    },
    print,
  );
}

async function memory(f: MemorySettings): Promise<void> {
  if (f.measure && f.baseDtype !== 'fp32') throw new UsageError('--measure runs the stage in fp32: leave --base-dtype at fp32 to measure');
  const input = { ...f, config: modelConfigOf(f.model) };
  const plan = planMemory(input);
  process.stderr.write(formatPlan(plan) + '\n');
  let measured: number | null = null;
  if (f.measure) {
    await initBackend();
    measured = await measureStepPeak(input);
    process.stderr.write(`measured peak ${(measured / 1e6).toFixed(1)} MB (${(100 * (plan.total / measured - 1)).toFixed(1)}% off the plan)\n`);
  }
  print({ model: f.model, ...plan, ...(f.measure ? { measured_peak: measured } : {}) });
}

async function sandbox(f: SandboxBenchSettings): Promise<void> {
  print(await benchSandbox(f, (msg) => process.stderr.write(`bench sandbox: ${msg}\n`)));
}

async function interpreter(f: InterpreterBenchSettings): Promise<void> {
  print(await benchInterpreter(f, (msg) => process.stderr.write(`bench interpreter: ${msg}\n`)));
}

function gemm(f: GemmBenchSettings): void {
  const record = benchGemm(f, (line) => process.stderr.write(`bench gemm: ${line}\n`));
  process.stderr.write(formatGemmTable(record) + '\n');
  print(record as unknown as Record<string, unknown>);
}

const program = new Command('bench').description('Speed of the Qwen2 model and of the sandbox: one JSON line per benchmark.');
settingsCommand(program.command('train').description('training step (forward, loss, backward, AdamW): {"backend", "params", "step_s", "tokens_per_s"}'), BenchSettings, train);
settingsCommand(program.command('generate').description('greedy generation with a KV cache, batch 1: {"backend", "ttft_ms", "total_ms", "decode_tokens_per_s"}'), BenchSettings, generate);
settingsCommand(
  program
    .command('memory')
    .description(
      'the expected peak memory of a stage for a model config, per component (weights, optimizer, gradients, activations, kv_cache): ' +
        'a table on stderr and one JSON line on stdout {"stage", "params", "trainable", "components": {...bytes}, "total", ...}',
    ),
  MemorySettings,
  memory,
);
settingsCommand(
  program
    .command('compare')
    .description(
      'this project against the PyTorch yardstick (torch_ref_bench.py) on the same preset, in one invocation: per mode, ' +
        '--runs pairs run one at a time, ours then torch (--threads = CPU cores); progress on stderr, one JSON line per mode on stdout. ' +
        'train: {"mode", "backend", "torch", "runs", "ours_tokens_per_s", "torch_tokens_per_s", "ratio"}; ' +
        'generate: {"mode", "backend", "torch", "runs", "ours_decode_tokens_per_s", "torch_decode_tokens_per_s", "decode_ratio", ' +
        '"ours_ttft_ms", "torch_ttft_ms", "ttft_ratio"}. Each figure is {"median", "min", "max", "values"}; ratios are ours/torch ' +
        'per pair (pair i = our run i and torch run i), so > 1 is faster for tokens/s and < 1 is faster for ttft_ms',
    ),
  BenchCompareSettings,
  compareCommand,
);

settingsCommand(
  program
    .command('sandbox')
    .description(
      'test runs per second of the sandbox pool, one python process per run (batch size 1) against batched runs (the pool\'s ' +
        'default batch size), on --runs small scoring jobs, --repetitions alternated pairs; progress on stderr, one JSON line on stdout ' +
        '{"runs", "repetitions", "concurrency", "batch_size", "single_runs_per_s", "batched_runs_per_s", "ratio"}: each figure ' +
        '{"median", "min", "max", "values"}, ratio = batched / single per pair (> 1: batching is faster)',
    ),
  SandboxBenchSettings,
  sandbox,
);

settingsCommand(
  program
    .command('interpreter')
    .description(
      'interpreter tool calls per second through a sandbox pool, each interpreter process spawned (a python start) against ' +
        'forked from the fork server: --calls stateless calls, and --episodes stateful episodes of 2 calls (all open at once), ' +
        '--repetitions alternated pairs; progress on stderr, one JSON line on stdout {"calls", "episodes", "repetitions", ' +
        '"concurrency", "spawn_stateless_calls_per_s", "fork_stateless_calls_per_s", "spawn_stateful_calls_per_s", ' +
        '"fork_stateful_calls_per_s", "stateless_ratio", "stateful_ratio"}: each figure {"median", "min", "max", "values"}, ' +
        'ratio = fork / spawn per pair (> 1: forking is faster)',
    ),
  InterpreterBenchSettings,
  interpreter,
);

settingsCommand(
  program
    .command('gemm')
    .description(
      'the native GEMM at the training shapes of --model (N = batch x seq rows; every projection\'s forward x W^T, input ' +
        'gradient dy W and weight gradient dy^T x, and the LM head\'s) per micro-kernel and precision (fp32 avx2, fp32 avx512, ' +
        'bf16 avx512bf16, those this CPU has), on each --threads count, beside the peak of a register-only loop of the ' +
        'kernel\'s multiply-add; progress on stderr, then a table (product, shape, dtype, kernel, threads, GFLOP/s, % of peak), ' +
        'then one JSON line on stdout {"model", "rows", "threads", "peak_gflops", "achieved_gflops", "percent_of_peak", ' +
        '"products"}: peak_gflops[threads][instruction], achieved_gflops[threads]["dtype kernel"] = a step\'s GEMMs (each product ' +
        'weighted by how often a step runs it)',
    ),
  GemmBenchSettings,
  gemm,
);

void runCli(program, shutdownBackend);
