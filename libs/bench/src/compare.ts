// bench compare: this project against the PyTorch yardstick (tools/torch_ref_bench.py) in one invocation.
// Runs alternate (ours, torch, ours, torch, ...) one at a time; each child prints one JSON line. The summary of the
// runs is a pure function (summarize) so it can be tested without running benchmarks; it sets our median beside the
// machine's read bandwidth and fp32 GEMM peak, measured once per invocation (the torch script's `limits` mode).
import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { z } from 'zod';
import { UsageError } from '@rlhf-code/cli';
import { quantile } from '@rlhf-code/stats';

/** The repo root (libs/bench/src -> ../../..): our child runs from here; the torch script is in its tools/. */
export const REPO_ROOT = path.join(__dirname, '../../..');
export const DEFAULT_TORCH_SCRIPT = path.join(REPO_ROOT, 'tools/torch_ref_bench.py');
export const DEFAULT_PYTHON = '/usr/bin/python3';
export const TORCH_INSTALL = 'apt-get install -y python3-torch libopenblas0-pthread';

export type BenchMode = 'train' | 'generate';

/** The median (stats' quantile at 0.5: the middle value, or the mean of the two middle ones); NaN with no values. */
export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5) ?? NaN;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function stats(values: number[]): Stats {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values };
}

/** The last line of a child's stdout that starts with '{', parsed; null if there is none or it is not JSON. */
export function lastJsonLine(stdout: string): Record<string, unknown> | null {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .pop();
  if (line === undefined) return null;
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** This machine's ceilings as the torch script measures them (`limits` mode): read bandwidth and fp32 GEMM throughput. */
export interface MachineLimits {
  read_gb_per_s: number;
  gemm_gflop_per_s: number;
}

/** Bytes a weight takes in each dtype (the int8 scales, one per output channel, are left out). */
const WEIGHT_BYTES: Record<string, number> = { fp32: 4, bf16: 2, int8: 1 };

/**
 * What our median run achieved against the machine's ceilings. Decoding reads every weight once per token:
 * params x bytes per weight x tokens/s against the read bandwidth. A training token costs about 6 x params FLOPs with
 * every weight trained (forward, input and weight gradients) and 4 x params with LoRA (no weight gradients of the
 * frozen base): against the fp32 GEMM peak (int16 activations can pass it).
 */
export function againstLimits(mode: BenchMode, ours: Record<string, unknown>, oursMedian: number, limits: MachineLimits): Record<string, number> {
  const params = z.number().positive().parse(ours.params);
  if (mode === 'generate') {
    const gb = (params * (WEIGHT_BYTES[String(ours.base_dtype ?? 'fp32')] ?? 4) * oursMedian) / 1e9;
    return { ours_read_gb_per_s: gb, share_of_read_bandwidth: gb / limits.read_gb_per_s };
  }
  const gflop = ((Number(ours.lora_rank ?? 0) > 0 ? 4 : 6) * params * oursMedian) / 1e9;
  return { ours_gflop_per_s: gflop, share_of_gemm_peak: gflop / limits.gemm_gflop_per_s };
}

/**
 * Our training runs against the peak of the instruction their precision ran on, as `bench train` measures both:
 * `precision`, `peak_kernel`, `peak_gflops` (the register-only loop's rate, from the first run), `achieved_gflops`
 * (a step's matrix FLOPs over its time, {median, min, max, values} over the runs) and `percent_of_peak` (the median
 * against the peak). Empty when the runs carry no achieved_gflops (an older bench, or a backend without the addon).
 */
export function againstPeak(ours: Record<string, unknown>[]): Record<string, unknown> {
  const achieved = ours.map((r) => r.achieved_gflops);
  if (!achieved.every((a): a is number => typeof a === 'number' && a > 0)) return {};
  const peak = typeof ours[0].peak_gflops === 'number' && ours[0].peak_gflops > 0 ? ours[0].peak_gflops : null;
  return {
    precision: ours[0].precision ?? null,
    peak_kernel: ours[0].peak_kernel ?? null,
    peak_gflops: peak,
    achieved_gflops: stats(achieved),
    percent_of_peak: peak ? Math.round((1000 * median(achieved)) / peak) / 10 : null,
  };
}

/**
 * One JSON object per mode from paired runs: pair i is our run i and torch run i (run back to back), ratios are
 * ours/torch per pair, and every figure is {median, min, max, values}. train: tokens_per_s (ratio > 1: we are faster);
 * generate: decode_tokens_per_s (decode_ratio > 1: faster) and ttft_ms (ttft_ratio < 1: faster).
 */
export function summarize(mode: BenchMode, ours: Record<string, unknown>[], torch: Record<string, unknown>[], limits?: MachineLimits): Record<string, unknown> {
  if (ours.length === 0 || ours.length !== torch.length) throw new Error(`summarize: ${ours.length} runs of ours vs ${torch.length} of torch`);
  const distinct = (xs: unknown[]) => [...new Set(xs.map((x) => (typeof x === 'string' ? x : 'unknown')))].join(' | ');
  const head = { mode, backend: distinct(ours.map((r) => r.backend)), torch: distinct(torch.map((r) => r.engine)), runs: ours.length };
  // ours and torch print the same metric keys
  const column = (rows: Record<string, unknown>[], key: string, who: string) =>
    rows.map((r, i) => {
      const p = z.number().positive().safeParse(r[key]);
      if (!p.success) throw new Error(`${who} ${mode} run ${i + 1}: no positive number "${key}" in ${JSON.stringify(r)}`);
      return p.data;
    });
  const ratios = (a: number[], b: number[]) => a.map((x, i) => x / b[i]);
  if (mode === 'train') {
    const o = column(ours, 'tokens_per_s', 'ours');
    const t = column(torch, 'tokens_per_s', 'torch');
    const machine = limits ? { machine: limits, ...againstLimits(mode, ours[0], median(o), limits) } : {};
    return { ...head, ours_tokens_per_s: stats(o), torch_tokens_per_s: stats(t), ratio: stats(ratios(o, t)), ...againstPeak(ours), ...machine };
  }
  const od = column(ours, 'decode_tokens_per_s', 'ours');
  const td = column(torch, 'decode_tokens_per_s', 'torch');
  const ot = column(ours, 'ttft_ms', 'ours');
  const tt = column(torch, 'ttft_ms', 'torch');
  return {
    ...head,
    ours_decode_tokens_per_s: stats(od),
    torch_decode_tokens_per_s: stats(td),
    decode_ratio: stats(ratios(od, td)),
    ours_ttft_ms: stats(ot),
    torch_ttft_ms: stats(tt),
    ttft_ratio: stats(ratios(ot, tt)),
    ...(limits ? { machine: limits, ...againstLimits(mode, ours[0], median(od), limits) } : {}),
  };
}

/** The torch script exists and `python -c "import torch"` works; otherwise one clear UsageError line. */
export function checkTorch(python: string, script: string): void {
  if (!existsSync(script)) throw new UsageError(`--torch-script: ${script} not found (the PyTorch yardstick; pass --torch-script PATH)`);
  const r = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    const why = r.error
      ? (r.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'not found'
        : r.error.message
      : (r.stderr.trim().split('\n').pop() || `exit code ${r.status}`);
    throw new UsageError(`--python ${python}: cannot import torch (${why}); install it with: ${TORCH_INSTALL} (then --python /usr/bin/python3)`);
  }
}

/** Run one benchmark child to the end (stdout captured, stderr kept for errors) and return its JSON line. */
export function runChild(who: string, cmd: string, args: string[]): Record<string, unknown> {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, env: process.env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = r.error == null && r.status === 0 ? lastJsonLine(r.stdout) : null;
  if (line == null) {
    const why = r.error ? r.error.message : r.status !== 0 ? `exit code ${r.status ?? r.signal}` : 'no JSON line on stdout';
    const tail = (r.stderr ?? '').trim().split('\n').slice(-5).join(' / ');
    throw new Error(`${who} failed (${why}): ${[cmd, ...args].join(' ')}${tail ? `: ${tail}` : ''}`);
  }
  return line;
}

export interface CompareOptions {
  modes: BenchMode[];
  runs: number;
  python: string;
  torchScript: string;
  /** --hidden 256 --layers 4 ... for both children. */
  presetArgs: string[];
  /** Extra flags for our child only (e.g. --backend). */
  oursArgs: string[];
}

/** Alternate our bench and torch `runs` times per mode; one summary line per mode through `emit`. */
export function compare(o: CompareOptions, emit: (line: Record<string, unknown>) => void): void {
  checkTorch(o.python, o.torchScript);
  const threads = os.cpus().length;
  const log = (msg: string) => process.stderr.write(`bench compare: ${msg}\n`);
  const brief = (mode: BenchMode, r: Record<string, unknown>) =>
    mode === 'train' ? `${fmt(r.tokens_per_s)} tokens/s` : `${fmt(r.decode_tokens_per_s)} decode tokens/s, ttft ${fmt(r.ttft_ms)} ms`;
  // The machine's ceilings, measured once before the runs (PyTorch's sum and GEMM, the same threads).
  const l = runChild('torch (limits)', o.python, [o.torchScript, 'limits', '--threads', String(threads)]);
  const limits: MachineLimits = { read_gb_per_s: z.number().positive().parse(l.read_gb_per_s), gemm_gflop_per_s: z.number().positive().parse(l.gemm_gflop_per_s) };
  log(`this machine: read ${fmt(limits.read_gb_per_s)} GB/s, fp32 GEMM ${fmt(limits.gemm_gflop_per_s)} GFLOP/s (${threads} threads)`);
  for (const mode of o.modes) {
    const ours: Record<string, unknown>[] = [];
    const torch: Record<string, unknown>[] = [];
    for (let i = 1; i <= o.runs; i++) {
      log(`${mode} ${i}/${o.runs}: ours ...`);
      const a = runChild(`ours (${mode} ${i}/${o.runs})`, process.execPath, ['--import', 'tsx', 'apps/bench/src/main.ts', mode, ...o.presetArgs, ...o.oursArgs]);
      ours.push(a);
      log(`${mode} ${i}/${o.runs}: ours ${brief(mode, a)}; torch (${threads} threads) ...`);
      const t = runChild(`torch (${mode} ${i}/${o.runs})`, o.python, [o.torchScript, mode, ...o.presetArgs, '--threads', String(threads)]);
      torch.push(t);
      log(`${mode} ${i}/${o.runs}: torch ${brief(mode, t)}`);
    }
    emit(summarize(mode, ours, torch, limits));
  }
}

function fmt(x: unknown): string {
  return typeof x === 'number' ? x.toFixed(1) : String(x);
}
