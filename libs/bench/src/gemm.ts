// bench gemm: the native GEMM at the training shapes of a model, per micro-kernel and precision, beside the machine's
// measured peak of the multiply-add that kernel uses. Two parts, on each thread count asked for:
//   peak      a register-only loop of one instruction on every thread at once (no memory traffic): fp32 vfmadd ymm
//             (AVX2), fp32 vfmadd zmm (AVX-512), vdpbf16ps zmm (AVX-512 BF16): the limit of each precision, measured
//             before and after the products and the higher kept (on a shared machine a busy moment only lowers it);
//   products  every distinct product of one training step of the model on N = batch x seq rows (a linear layer
//             W [out, in]: forward x W^T, input gradient dy W, weight gradient dy^T x; the LM head, tied or not, the
//             same three with W [V, D]), timed on the addon directly (no tfjs in between): median of `reps` calls after
//             a warm-up, on fresh operands in [-1, 1).
// achieved_gflops weighs each product by how often a step runs it (its FLOPs over its time, summed over the step): the
// rate of a whole step's GEMMs, comparable with peak_gflops.
import { markdownTable } from '@rlhf-code/cli';
import { loadNative, nativeAddon, type GemmKernel, type GemmPrecision } from '@rlhf-code/backend';
import { headDim, modelConfigOf, type Qwen2Config } from '@rlhf-code/model';
import { median } from './compare';
import type { GemmBenchSettings } from './settings';

/** One product C [m, n] = op(A) op(B) with op(A) [m, k], op(B) [k, n] of a training step, `perStep` times per step. */
export interface GemmShape {
  name: string;
  m: number;
  n: number;
  k: number;
  transA: boolean;
  transB: boolean;
  perStep: number;
}

/** A micro-kernel and the precision it is timed in; its peak is that of `peak`'s instruction. */
interface Variant {
  precision: GemmPrecision;
  kernel: GemmKernel;
  peak: GemmKernel;
}

// fp32 on the FMA kernels (avx512bf16's fp32 is avx512's); bf16 emulated on the zmm FMA kernel (operands rounded at
// packing) and on vdpbf16ps, the two ways a bf16 product can run (runtime bf16Gemm); the kernels this CPU lacks are
// skipped.
const VARIANTS: Variant[] = [
  { precision: 'fp32', kernel: 'avx2', peak: 'avx2' },
  { precision: 'fp32', kernel: 'avx512', peak: 'avx512' },
  { precision: 'bf16', kernel: 'avx512', peak: 'avx512' },
  { precision: 'bf16', kernel: 'avx512bf16', peak: 'avx512bf16' },
];

/** The label of a variant in the table and the JSON: "fp32 avx512". */
const label = (v: Variant) => `${v.precision} ${v.kernel}`;

/**
 * The distinct products of one training step (forward and backward) of `config` on `rows` rows: the seven projections
 * of a decoder layer (q, k, v, o, gate, up, down; each `layers` times) and the LM head, products of equal shape merged.
 * Attention's own products (scores, values) run inside the fused attention kernel and are not listed.
 */
export function trainingShapes(config: Qwen2Config, rows: number): GemmShape[] {
  const D = config.hidden_size, I = config.intermediate_size, L = config.num_hidden_layers;
  const hd = headDim(config), Q = config.num_attention_heads * hd, KV = config.num_key_value_heads * hd;
  // [name, in, out, times per step]
  const linears: Array<[string, number, number, number]> = [
    ['q', D, Q, L], ['k', D, KV, L], ['v', D, KV, L], ['o', Q, D, L], ['gate', D, I, L], ['up', D, I, L], ['down', I, D, L],
    ['lm_head', D, config.vocab_size, 1],
  ];
  const byShape = new Map<string, GemmShape>();
  for (const [name, inDim, outDim, times] of linears) {
    const products: Array<[string, number, number, number, boolean, boolean]> = [
      [`${name} x W^T`, rows, outDim, inDim, false, true], // forward: x [N, in] W^T, W [out, in]
      [`${name} dy W`, rows, inDim, outDim, false, false], // input gradient: dy [N, out] W [out, in]
      [`${name} dy^T x`, outDim, inDim, rows, true, false], // weight gradient: dy^T [out, N] x [N, in]
    ];
    for (const [label, m, n, k, transA, transB] of products) {
      const key = `${m},${n},${k},${transA},${transB}`;
      const seen = byShape.get(key);
      if (seen) {
        seen.perStep += times;
        seen.name = `${seen.name.split(' ')[0]}/${label}`;
      } else {
        byShape.set(key, { name: label, m, n, k, transA, transB, perStep: times });
      }
    }
  }
  return [...byShape.values()];
}

/** Median seconds of `reps` calls of fn after one warm-up call. */
function medianSeconds(fn: () => void, reps: number): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return median(times);
}

/** Values in [-1, 1) from a small LCG (no dependence on Math.random's state). */
function fill(out: Float32Array, seed: number): void {
  let state = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 2 ** 31 - 1;
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** One timed product: its shape, how it ran and its rate. */
export interface GemmRow {
  name: string;
  m: number;
  n: number;
  k: number;
  trans_a: boolean;
  trans_b: boolean;
  per_step: number;
  dtype: GemmPrecision;
  kernel: GemmKernel;
  threads: number;
  gflops: number;
  percent_of_peak: number;
}

export interface GemmBenchRecord {
  model: string;
  rows: number;
  threads: number[];
  /** The skipped kernels' names (the CPU lacks them), absent when none. */
  unavailable?: GemmKernel[];
  /** threads -> instruction -> GFLOP/s of the register-only loop. */
  peak_gflops: Record<string, Partial<Record<GemmKernel, number>>>;
  /** threads -> "precision kernel" -> GFLOP/s of a step's GEMMs (flop-weighted over `products`). */
  achieved_gflops: Record<string, Record<string, number>>;
  /** threads -> "precision kernel" -> achieved_gflops as a percentage of its instruction's peak. */
  percent_of_peak: Record<string, Record<string, number>>;
  products: GemmRow[];
}

/**
 * Runs the benchmark (see the file comment); `log` gets a line per measurement. Needs the native kernels (an error
 * saying why not otherwise). Leaves the addon on its widest kernel and the last thread count.
 */
export function benchGemm(f: GemmBenchSettings, log: (line: string) => void): GemmBenchRecord {
  const config = modelConfigOf(f.model);
  const rows = f.batch * f.seq;
  const shapes = trainingShapes(config, rows);
  const loaded = loadNative({ threads: f.threads[0], gemm: 'own' });
  if ('reason' in loaded) throw new Error(`bench gemm times the native kernels, which are off: ${loaded.reason}`);
  const addon = nativeAddon()!;
  const available = addon.gemmKernels().available;
  const widest = available[available.length - 1];
  const variants = VARIANTS.filter((v) => available.includes(v.kernel));
  const unavailable = [...new Set(VARIANTS.map((v) => v.kernel))].filter((k) => !available.includes(k));

  const record: GemmBenchRecord = {
    model: f.model, rows, threads: f.threads, ...(unavailable.length ? { unavailable } : {}),
    peak_gflops: {}, achieved_gflops: {}, percent_of_peak: {}, products: [],
  };
  try {
    for (const threads of f.threads) {
      addon.configure(threads, 'own');
      // The peaks are measured before and after the products, the higher kept: a process that takes a core for a moment
      // lowers one measurement, and an underestimated peak would inflate every percentage.
      const peaks: Partial<Record<GemmKernel, number>> = {};
      const measurePeaks = (when: string) => {
        for (const v of variants) {
          const gflops = round1(addon.peakGflops(v.peak, f.peakSeconds));
          peaks[v.peak] = Math.max(peaks[v.peak] ?? 0, gflops);
          log(`${threads} thread${threads === 1 ? '' : 's'}: peak ${v.peak} ${gflops} GFLOP/s (${when})`);
        }
      };
      measurePeaks('before');
      record.peak_gflops[threads] = peaks;
      const rows: Array<{ row: GemmRow; gflops: number; peak: GemmKernel }> = [];
      const totals = new Map<string, { flops: number; seconds: number }>();
      for (const [index, s] of shapes.entries()) {
        // Heap [A | B | C]: A stored [m, k] or [k, m], B [k, n] or [n, k], C [m, n].
        const heap = new Float32Array(s.m * s.k + s.k * s.n + s.m * s.n);
        fill(heap.subarray(0, s.m * s.k + s.k * s.n), index + 1);
        const offsets = [0, s.m * s.k, s.m * s.k + s.k * s.n].map((o) => Int32Array.of(o));
        const flops = 2 * s.m * s.n * s.k;
        for (const v of variants) {
          addon.setGemmKernel(v.kernel);
          const seconds = medianSeconds(() => addon.batchMatMul(heap, s.transA, s.transB, s.m, s.n, s.k, offsets[0], offsets[1], offsets[2], v.precision), f.reps);
          const gflops = flops / seconds / 1e9;
          const total = totals.get(label(v)) ?? { flops: 0, seconds: 0 };
          totals.set(label(v), { flops: total.flops + flops * s.perStep, seconds: total.seconds + seconds * s.perStep });
          const row: GemmRow = {
            name: s.name, m: s.m, n: s.n, k: s.k, trans_a: s.transA, trans_b: s.transB, per_step: s.perStep,
            dtype: v.precision, kernel: v.kernel, threads, gflops: round1(gflops), percent_of_peak: 0,
          };
          rows.push({ row, gflops, peak: v.peak });
          log(`${threads} thread${threads === 1 ? '' : 's'}: ${s.name} [${s.m}x${s.k}]x[${s.k}x${s.n}] ${label(v)}: ${row.gflops} GFLOP/s`);
        }
      }
      measurePeaks('after');
      for (const { row, gflops, peak } of rows) {
        row.percent_of_peak = round1((100 * gflops) / peaks[peak]!);
        record.products.push(row);
      }
      record.achieved_gflops[threads] = {};
      record.percent_of_peak[threads] = {};
      for (const v of variants) {
        const t = totals.get(label(v))!;
        record.achieved_gflops[threads][label(v)] = round1(t.flops / t.seconds / 1e9);
        record.percent_of_peak[threads][label(v)] = round1((100 * t.flops) / t.seconds / 1e9 / peaks[v.peak]!);
      }
    }
  } finally {
    addon.setGemmKernel(widest);
  }
  return record;
}

/**
 * The record as a markdown table (on stderr, and ready to paste into a note): one row per product, kernel and thread
 * count, then each variant's whole step; the peaks on the line above it.
 */
export function formatGemmTable(r: GemmBenchRecord): string {
  const rows: string[][] = [];
  for (const p of r.products) {
    rows.push([p.name, `${p.m} x ${p.k} x ${p.n}`, String(p.per_step), p.dtype, p.kernel, String(p.threads), p.gflops.toFixed(1), p.percent_of_peak.toFixed(1)]);
  }
  for (const threads of r.threads) {
    for (const [variant, gflops] of Object.entries(r.achieved_gflops[threads] ?? {})) {
      const [dtype, kernel] = variant.split(' ');
      rows.push(['a step\'s GEMMs', `${r.rows} rows`, '', dtype, kernel, String(threads), gflops.toFixed(1), r.percent_of_peak[threads][variant].toFixed(1)]);
    }
  }
  const table = markdownTable(['product', 'm x k x n', 'per step', 'dtype', 'kernel', 'threads', 'GFLOP/s', '% of peak'], rows, {
    align: ['left', 'left', 'right', 'left', 'left', 'right', 'right', 'right'],
  });
  const peaks = r.threads.map((t) => `${t} thread${t === 1 ? '' : 's'}: ${Object.entries(r.peak_gflops[t]).map(([k, g]) => `${k} ${g!.toFixed(1)}`).join(', ')}`);
  return `peak GFLOP/s (register-only loops) ${peaks.join('; ')}\n${table}`;
}
