// bench: training and generation speed of the Qwen2 model on this machine, one JSON line each.
// The preset matches tools/torch_ref_bench.py so the two can be compared in one run: `bench compare`.
// `bench sandbox`: test runs per second of the sandbox, one python process per run against batched runs.
// `bench interpreter`: interpreter tool calls per second, each process spawned against forked from the fork server.
// `bench gemm`: the native GEMM at a model's training shapes per kernel and precision, against the measured peak.
// The benchmarks and their commands live in libs/bench; this file turns flags into their settings.
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import {
  BenchCompareSettings,
  BenchGenerateSettings,
  BenchTrainSettings,
  GemmBenchSettings,
  InterpreterBenchSettings,
  MemorySettings,
  runCompare,
  runGemmBench,
  runGenerateBench,
  runInterpreterBench,
  runMemoryBench,
  runSandboxBench,
  runTrainBench,
  SandboxBenchSettings,
} from '@rlhf-code/bench';
import { shutdownBackend } from '@rlhf-code/backend';

const program = new Command('bench').description('Speed of the Qwen2 model and of the sandbox: one JSON line per benchmark.');
settingsCommand(program.command('train').description('training step (forward, loss, backward, AdamW): {"backend", "params", "step_s", "tokens_per_s", "achieved_gflops", "peak_gflops", "percent_of_peak"}; --profile adds where one step\'s time goes'), BenchTrainSettings, runTrainBench);
settingsCommand(
  program
    .command('generate')
    .description('greedy generation, batch 1, of the preset\'s random model or of a --model checkpoint on any --engine (llamacpp, openai:URL): {"backend", "ttft_ms", "total_ms", "decode_tokens_per_s"}'),
  BenchGenerateSettings,
  runGenerateBench,
);
settingsCommand(
  program
    .command('memory')
    .description(
      'the expected peak memory of a stage for a model config, per component (weights, optimizer, gradients, activations, kv_cache): ' +
        'a table on stderr and one JSON line on stdout {"stage", "params", "trainable", "components": {...bytes}, "total", ...}',
    ),
  MemorySettings,
  runMemoryBench,
);
settingsCommand(
  program
    .command('compare')
    .description(
      'this project against the PyTorch yardstick (torch_ref_bench.py) on the same preset, in one invocation: per mode, ' +
        '--runs pairs run one at a time, ours then torch (--threads = CPU cores); progress on stderr, one JSON line per mode on stdout. ' +
        'train: {"mode", "backend", "torch", "runs", "ours_tokens_per_s", "torch_tokens_per_s", "ratio", "precision", "peak_kernel", ' +
        '"peak_gflops", "achieved_gflops", "percent_of_peak"} (our runs against the measured peak of the instruction their precision runs on); ' +
        'generate: {"mode", "backend", "torch", "runs", "ours_decode_tokens_per_s", "torch_decode_tokens_per_s", "decode_ratio", ' +
        '"ours_ttft_ms", "torch_ttft_ms", "ttft_ratio"}. Each figure is {"median", "min", "max", "values"}; ratios are ours/torch ' +
        'per pair (pair i = our run i and torch run i), so > 1 is faster for tokens/s and < 1 is faster for ttft_ms',
    ),
  BenchCompareSettings,
  runCompare,
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
  runSandboxBench,
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
  runInterpreterBench,
);

settingsCommand(
  program
    .command('gemm')
    .description(
      'the native GEMM at the training shapes of --model (N = batch x seq rows; every projection\'s forward x W^T, input ' +
        'gradient dy W and weight gradient dy^T x, and the LM head\'s) per micro-kernel and precision (fp32 avx2, fp32 avx512, ' +
        'bf16 avx512 (emulated: operands rounded to bf16, fp32 FMA), bf16 avx512bf16 (vdpbf16ps), those this CPU has), on each --threads count, beside the peak of a register-only loop of the ' +
        'kernel\'s multiply-add; progress on stderr, then a table (product, shape, dtype, kernel, threads, GFLOP/s, % of peak), ' +
        'then one JSON line on stdout {"model", "rows", "threads", "peak_gflops", "achieved_gflops", "percent_of_peak", ' +
        '"products"}: peak_gflops[threads][instruction], achieved_gflops[threads]["dtype kernel"] = a step\'s GEMMs (each product ' +
        'weighted by how often a step runs it)',
    ),
  GemmBenchSettings,
  runGemmBench,
);

void runCli(program, shutdownBackend);
