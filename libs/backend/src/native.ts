// The native kernel addon (libs/backend/native/*.cc, built by tools/build-native.cjs when `npm ci` runs the
// root postinstall): loading it, checking it fits this machine and its sources, and its thread settings.
// Every reason it cannot be used (not built, another platform, no AVX2/FMA, the runtime setting native off:
// RLHF_NATIVE=0) becomes a `reason` string: the caller prints one warning and keeps the wasm kernels. Its settings are
// the runtime settings native, nativeThreads, nativeGemm and avx512 (@rlhf-code/cli runtimeSettings).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BF16_GEMMS, NATIVE_GEMMS, RUNTIME_ENV, runtimeSettings } from '@rlhf-code/cli';

/** The micro-kernels of the int16-activation x int8-weight GEMM (native/int16_gemm.h): vpmaddwd + vpaddd, or vpdpwssd on ymm / zmm. */
export type Int16Kernel = 'avx2' | 'avxvnni' | 'avx512vnni';

/**
 * The micro-kernels of the float32 GEMM (native/kernels.h gemmKernel): avx2 (6 x 16 ymm FMA), avx512 (12 x 32 zmm FMA)
 * and avx512bf16 (the same, plus vdpbf16ps for bf16 products). fp32 results are bit-identical on all three; a bf16
 * product runs on vdpbf16ps with avx512bf16, else it is emulated (operands rounded to bf16, then fp32 FMA).
 */
export type GemmKernel = 'avx2' | 'avx512' | 'avx512bf16';
/** The precision of a product's operands: fp32, or bf16 (rounded to nearest even, fp32 accumulation and output). */
export type GemmPrecision = 'fp32' | 'bf16';

/** What the addon reports: whether the CPU has AVX2 and FMA, which GEMM it uses and its micro-kernel, its thread count. */
export interface NativeInfo {
  cpu: boolean;
  gemm: 'own' | 'openblas';
  kernel: GemmKernel;
  threads: number;
}

/** The addon's functions. Offsets and sizes are in float32 elements of `heap` (the wasm memory). */
export interface NativeAddon {
  info(): NativeInfo;
  configure(threads: number, gemm: GemmChoice): NativeInfo;
  /** The int16 GEMM's micro-kernel in use (by default the widest this CPU has) and those the CPU has, AVX2 first. */
  int16Kernels(): { active: Int16Kernel; available: Int16Kernel[] };
  /** Chooses the int16 GEMM's micro-kernel (a RangeError for one this CPU lacks); returns int16Kernels(). */
  setInt16Kernel(name: Int16Kernel): { active: Int16Kernel; available: Int16Kernel[] };
  /** The GEMM's micro-kernel in use (loadNative: defaultGemmKernel) and those the CPU has, AVX2 first. */
  gemmKernels(): { active: GemmKernel; available: GemmKernel[] };
  /** Chooses the GEMM's micro-kernel (a RangeError for one this CPU lacks); returns gemmKernels(). */
  setGemmKernel(name: GemmKernel): { active: GemmKernel; available: GemmKernel[] };
  /**
   * GFLOP/s of a register-only loop of one multiply-add on all the addon's threads at once for `seconds`: avx2 (ymm FMA),
   * avx512 (zmm FMA) or avx512bf16 (vdpbf16ps); -1 when the CPU lacks it.
   */
  peakGflops(kind: GemmKernel, seconds: number): number;
  /** C_i = op(A_i) op(B_i); precision bf16: both operands rounded to bf16, fp32 accumulation (default fp32). */
  batchMatMul(heap: Float32Array, transA: boolean, transB: boolean, m: number, n: number, k: number,
    aOffsets: Int32Array, bOffsets: Int32Array, cOffsets: Int32Array, precision?: GemmPrecision): void;
  /** The sum of squares of the arrays at `offsets` (sizes[i] elements each), in double; chunked, thread-count independent. */
  sumSquares(heap: Float32Array, offsets: Int32Array, sizes: Int32Array): number;
  /** out = a + b for a [rows, cols] and b [bRows, cols], bRows rows or 1 (a broadcast row); offsets in floats. */
  addRows(heap: Float32Array, rows: number, cols: number, a: number, b: number, bRows: number, out: number): void;
  /** out[c] = the sum over rows of x[r, c], x [rows, cols], out [cols]; offsets in floats. */
  sumRows(heap: Float32Array, rows: number, cols: number, x: number, out: number): void;
  adamw(heap: Float32Array, p: number, g: number, m: number, v: number, pOut: number, mOut: number, vOut: number,
    size: number, lr: number, beta1: number, beta2: number, eps: number, decay: number, bc1: number, bc2: number): void;
  targetLogProbs(heap: Float32Array, rows: number, vocab: number, x: number, targets: number, value: number, lse: number): void;
  targetLogProbsGrad(heap: Float32Array, rows: number, vocab: number, x: number, targets: number, lse: number,
    dy: number, dx: number): void;
  cachedAttention(heap: Float32Array, batch: number, seq: number, heads: number, kvHeads: number, headDim: number,
    past: number, capacity: number, theta: number, qkv: number, positions: number, keyMask: number, kCache: number,
    vCache: number, out: number): void;
  /** One decoder layer of the decode path; spec: its sizes and heap offsets in addon.cc's LayerSpec order. */
  decodeLayer(heap: Float32Array, spec: Float64Array): void;
  rmsNorm(heap: Float32Array, rows: number, dim: number, x: number, w: number, eps: number, y: number): void;
  /** Host arrays, not the heap: out[i] = exp((x[i] - max) * scale); returns [max, sum of out]. */
  expTerms(x: Float32Array, scale: number, out: Float64Array): [number, number];
  rmsNormGrad(heap: Float32Array, rows: number, dim: number, x: number, w: number, eps: number, dy: number, dx: number, dw: number): void;
  swiglu(heap: Float32Array, rows: number, inner: number, g: number, u: number, stride: number, y: number): void;
  swigluGrad(heap: Float32Array, rows: number, inner: number, g: number, u: number, dy: number, dg: number, du: number): void;
  segmentSum(heap: Float32Array, rows: number, cols: number, x: number, ids: number, segments: number, out: number): void;
  /**
   * C [m, n] = A [m, k] op(W) for W [rows, cols] of type 0 (int8, scales [rows]) or 1 (bf16): transW, W^T. int16: an
   * int8 W multiplies A quantised to int16 (more than 16 rows; native/kernels.h).
   */
  lowPrecisionMatMul(heap: Float32Array, type: number, rows: number, cols: number, w: number, scales: number, transW: boolean,
    m: number, a: number, c: number, int16: boolean): void;
  lowPrecisionRows(heap: Float32Array, type: number, rows: number, cols: number, w: number, scales: number, ids: number,
    count: number, out: number): void;
  attentionForward(heap: Float32Array, batch: number, seq: number, heads: number, kvHeads: number, headDim: number,
    theta: number, q: number, k: number, v: number, positions: number, keyMask: number, out: number, lse: number,
    prefix: number, kPrefix: number, vPrefix: number): void;
  attentionBackward(heap: Float32Array, batch: number, seq: number, heads: number, kvHeads: number, headDim: number,
    theta: number, q: number, k: number, v: number, positions: number, keyMask: number, out: number, lse: number,
    dout: number, dq: number, dk: number, dv: number, prefix: number, kPrefix: number, vPrefix: number, dkPrefix: number, dvPrefix: number): void;
}

export type GemmChoice = (typeof NATIVE_GEMMS)[number];
/** How bf16 products run on a CPU with AVX-512 BF16 (the runtime setting bf16Gemm, RLHF_BF16_GEMM). */
export type Bf16Gemm = (typeof BF16_GEMMS)[number];

export interface NativeOptions {
  /** Default: the runtime setting native (RLHF_NATIVE), else enabled. */
  enabled?: boolean;
  /** Default: the runtime setting nativeThreads (RLHF_NATIVE_THREADS), else the number of cores. */
  threads?: number;
  /** Default: the runtime setting nativeGemm (RLHF_NATIVE_GEMM), else 'own'. */
  gemm?: GemmChoice;

  /** The build's record of the sources it was built from (default: the one `npm run build:native` writes). */
  stampFile?: string;
}

export const ADDON_FILE = path.join(__dirname, '../native/build/rlhf_native.node');
const BUILD_SCRIPT = path.join(__dirname, '../../../tools/build-native.cjs');

let active: { addon: NativeAddon; info: NativeInfo } | null = null;

/** The loaded addon, or null when the native kernels are not in use. */
export function nativeAddon(): NativeAddon | null {
  return active?.addon ?? null;
}

/**
 * The settings asked for, from options then the runtime settings, validated (a bad value is an error naming it), and
 * avx512: false leaves the GEMMs their AVX2 and AVX-VNNI micro-kernels, as on a CPU without AVX-512 (the addon reads
 * it from the environment itself as it loads: native/kernels.h avx512Allowed).
 */
export function nativeSettings(opts: NativeOptions = {}): { enabled: boolean; threads: number; gemm: GemmChoice; avx512: boolean; bf16Gemm: Bf16Gemm } {
  const runtime = runtimeSettings();
  const enabled = opts.enabled ?? runtime.native;
  const threads = opts.threads ?? (runtime.nativeThreads === 'auto' ? os.cpus().length : runtime.nativeThreads);
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    const source = opts.threads != null ? 'option threads' : RUNTIME_ENV.nativeThreads;
    throw new Error(`${source} must be an integer in [1, 256]; got '${threads}'`);
  }
  const gemm = opts.gemm ?? runtime.nativeGemm;
  if (!NATIVE_GEMMS.includes(gemm)) throw new Error(`option gemm must be one of ${NATIVE_GEMMS.join(', ')}; got '${gemm}'`);
  return { enabled, threads, gemm, avx512: runtime.avx512, bf16Gemm: runtime.bf16Gemm };
}

/** The CPU's vendor as the kernel names it (/proc/cpuinfo's vendor_id: GenuineIntel, AuthenticAMD), '' where unknown. */
export function cpuVendor(): string {
  try {
    return /^vendor_id\s*:\s*(\S+)/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

/**
 * The GEMM micro-kernel a process starts on: the widest this CPU has, except that avx512bf16 (bf16 products on
 * vdpbf16ps) gives way to avx512 (bf16 emulated on the fp32 FMA kernel) when `bf16Gemm` says emulated, or says auto on
 * a CPU that is not AMD's. vdpbf16ps does twice the FLOPs per instruction, but its throughput differs by design:
 * measured 1.8x the FMA's FLOPs on Zen 5, 0.5x on a Xeon of family 6 model 207 (`bench gemm` measures both). auto is
 * decided by the vendor, never by timing: the two paths add in different orders, so a choice measured at start-up
 * (as it once was) flipped under load and the same command gave other numbers (EXPERIMENTS.md 2026-11-30 (evening)).
 * fp32 products are the same bits on either kernel.
 */
export function defaultGemmKernel(addon: NativeAddon, bf16Gemm: Bf16Gemm, vendor: string = cpuVendor()): GemmKernel {
  const widest = addon.gemmKernels().available.at(-1)!;
  if (widest !== 'avx512bf16' || bf16Gemm === 'vdpbf16ps') return widest;
  if (bf16Gemm === 'emulated') return 'avx512';
  return vendor === 'AuthenticAMD' ? 'avx512bf16' : 'avx512';
}

/**
 * Loads and configures the addon. Returns its info, or `{ reason }` saying why the native kernels are not
 * used. Throws only for invalid settings (and for gemm 'openblas' asked for explicitly on a machine without it).
 */
export function loadNative(opts: NativeOptions = {}): { info: NativeInfo } | { reason: string } {
  const { enabled, threads, gemm, avx512, bf16Gemm } = nativeSettings(opts);
  active = null;
  if (!enabled) return { reason: 'RLHF_NATIVE=0' };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { reason: `no native kernels for ${process.platform}/${process.arch}` };
  }
  if (!fs.existsSync(ADDON_FILE)) return { reason: 'the addon was not built (run `npm run build:native` to see why)' };
  // An addon built from other sources may take other arguments than the TypeScript that calls it: never run it.
  const stale = staleBuild(opts.stampFile);
  if (stale) return { reason: stale };
  // The addon reads its AVX-512 switch itself, once, as it loads: handed over in the form it reads.
  if (!avx512) process.env[RUNTIME_ENV.avx512] = '0';
  let addon: NativeAddon;
  try {
    addon = require(ADDON_FILE) as NativeAddon;
  } catch (err) {
    return { reason: `the addon failed to load: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  if (!addon.info().cpu) return { reason: 'this CPU lacks AVX2 or FMA' };
  addon.configure(threads, gemm);
  // Set each time: a test may have chosen another.
  addon.setGemmKernel(defaultGemmKernel(addon, bf16Gemm));
  const info = addon.info();
  active = { addon, info };
  return { info };
}

/** The GEMM's micro-kernel in use and those this CPU has; null without the native kernels. */
export function gemmKernels(): { active: GemmKernel; available: GemmKernel[] } | null {
  return active?.addon.gemmKernels() ?? null;
}

/** Chooses the GEMM's micro-kernel (tests, benchmarks); throws without the native kernels or for one this CPU lacks. */
export function setGemmKernel(name: GemmKernel): void {
  if (active == null) throw new Error('setGemmKernel: the native kernels are not in use');
  active.addon.setGemmKernel(name);
}

/** The int16 GEMM's micro-kernel in use and those this CPU has; null without the native kernels. */
export function int16Kernels(): { active: Int16Kernel; available: Int16Kernel[] } | null {
  return active?.addon.int16Kernels() ?? null;
}

/** Chooses the int16 GEMM's micro-kernel (tests, benchmarks); throws without the native kernels or for one this CPU lacks. */
export function setInt16Kernel(name: Int16Kernel): void {
  if (active == null) throw new Error('setInt16Kernel: the native kernels are not in use');
  active.addon.setInt16Kernel(name);
}

/** Stops using the native kernels (the addon stays loaded; a later loadNative re-enables it). */
export function unloadNative(): void {
  active = null;
}

/** The reason not to use the addon when the sources changed after it was built (a pull, an edit of the C++), else null. */
function staleBuild(stamp?: string): string | null {
  try {
    const { sourceHash, stampFile } = require(BUILD_SCRIPT) as { sourceHash(): string; stampFile: string };
    const built = JSON.parse(fs.readFileSync(stamp ?? stampFile, 'utf8')) as { sources?: string };
    if (built.sources !== sourceHash()) {
      return 'the addon is older than its sources in libs/backend/native (run `npm run build:native`)';
    }
  } catch {
    // No sources or stamp beside an installed addon: nothing to compare.
  }
  return null;
}
