// The commands of apps/bench, from their settings (settings.ts): what each checks, the backend it starts, where its
// progress goes (stderr, prefixed `bench <command>:`) and its record, one JSON line on stdout. The measurements
// themselves are speed.ts, compare.ts, memory.ts, sandbox.ts and gemm.ts.
import { UsageError } from '@rlhf-code/cli';
import { describeBackend, initBackend } from '@rlhf-code/backend';
import { modelConfigOf } from '@rlhf-code/model';
import { compare, type BenchMode } from './compare';
import { benchGemm, formatGemmTable } from './gemm';
import { formatPlan, measureStepPeak, planMemory } from './memory';
import { benchInterpreter, benchSandbox } from './sandbox';
import { PRESET_KEYS, type BenchCompareSettings, type BenchGenerateSettings, type BenchTrainSettings, type GemmBenchSettings, type InterpreterBenchSettings, type MemorySettings, type SandboxBenchSettings } from './settings';
import { benchGenerate, benchTrain } from './speed';

/** A benchmark's record: one JSON line on stdout. */
function printRecord(record: object): void {
  process.stdout.write(JSON.stringify(record) + '\n');
}

/** A command's progress line on stderr. */
const progress = (command: string) => (line: string) => process.stderr.write(`bench ${command}: ${line}\n`);

/** `bench train`: a training step's time and tokens/s, with the backend it ran on. */
export async function runTrainBench(f: BenchTrainSettings): Promise<void> {
  const backend = describeBackend(await initBackend());
  printRecord({ backend, ...(await benchTrain(f)) });
}

/** `bench generate`: greedy generation's time to first token and decode tokens/s, with the backend it ran on. */
export async function runGenerateBench(f: BenchGenerateSettings): Promise<void> {
  if (f.model === undefined && f.engine !== 'local') throw new UsageError(`--engine ${f.engine}: give --model (a checkpoint folder the engine opens)`);
  const backend = describeBackend(await initBackend());
  printRecord({ backend, ...(await benchGenerate(f)) });
}

/** `bench compare`: our train / generate against the PyTorch yardstick on the same preset, one line per mode. */
export function runCompare(f: BenchCompareSettings): void {
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
    printRecord,
  );
}

/** `bench memory`: the planned peak per component (table on stderr), and with --measure a real step's peak beside it. */
export async function runMemoryBench(f: MemorySettings): Promise<void> {
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
  printRecord({ model: f.model, ...plan, ...(f.measure ? { measured_peak: measured } : {}) });
}

/** `bench sandbox`: test runs per second, one python process per run against batched runs. */
export async function runSandboxBench(f: SandboxBenchSettings): Promise<void> {
  printRecord(await benchSandbox(f, progress('sandbox')));
}

/** `bench interpreter`: interpreter tool calls per second, spawned against forked. */
export async function runInterpreterBench(f: InterpreterBenchSettings): Promise<void> {
  printRecord(await benchInterpreter(f, progress('interpreter')));
}

/** `bench gemm`: the native GEMM at a model's training shapes; the table on stderr, the record on stdout. */
export function runGemmBench(f: GemmBenchSettings): void {
  const record = benchGemm(f, progress('gemm'));
  process.stderr.write(formatGemmTable(record) + '\n');
  printRecord(record);
}
