// Picks and initialises the tfjs backend for the whole process.
//
// 'auto' takes the fastest that works: @tensorflow/tfjs-node-gpu, @tensorflow/tfjs-node (native
// TensorFlow; optional peer dependencies, installed by users who can download libtensorflow),
// then the wasm backend with SIMD and threads, then the pure-JS cpu backend (30-60x slower than
// wasm, so it comes with a warning). The runtime settings backend and threads (@rlhf-code/cli runtimeSettings:
// RLHF_BACKEND, RLHF_THREADS, or a command's --backend / --config) override the defaults; explicit options override
// them. The choice goes to stderr: stdout belongs to the CLIs' JSON.
import * as os from 'os';
import * as tf from '@tensorflow/tfjs'; // not tfjs-core alone: that registers no gradients
import { runtimeSettings } from '@rlhf-code/cli';
import { guardWasmHeap } from './heap-guard';
import { loadNative, NativeInfo, nativeSettings, unloadNative } from './native';
import { registerTfjsFixes, registerWasmKernels } from './register';
import { initThreadedWasm, removeWasm, useStockWasm } from './wasm-threads';

export type BackendKind = 'node-gpu' | 'node' | 'wasm' | 'cpu';
export type BackendChoice = 'auto' | BackendKind;

export interface BackendInfo {
  /** tf.getBackend(): 'tensorflow' for the native backends, else 'wasm' or 'cpu'. */
  name: string;
  kind: BackendKind;
  /** Threads the backend computes with (wasm: XNNPACK's pool; native: the machine's cores). */
  threads: number;
  /** Whether vector instructions are used (the wasm SIMD build, or native TensorFlow). */
  simd: boolean;
  /** wasm only: the native addon's kernels (BatchMatMul, AdamW, log-probs), when built and usable here. */
  native?: NativeInfo;
}

export interface InitBackendOptions {
  /** Default: the runtime setting backend (RLHF_BACKEND), else 'auto'. */
  backend?: BackendChoice;
  /**
   * wasm threads. Default: the runtime setting threads (RLHF_THREADS), else 1 when the native kernels run (they do the
   * heavy work, and a second wasm thread only competes with theirs), else min(2, cores).
   */
  threads?: number;
  /** wasm only: use the native addon when it is usable. Default: the runtime setting native (RLHF_NATIVE), else true. */
  native?: boolean;
  /** No stderr line naming the backend (fallback warnings are still printed). */
  quiet?: boolean;
}

const CHOICES: readonly BackendChoice[] = ['auto', 'node-gpu', 'node', 'wasm', 'cpu'];
const NODE_PACKAGES = { 'node-gpu': '@tensorflow/tfjs-node-gpu', node: '@tensorflow/tfjs-node' } as const;

let initialised: { promise: Promise<BackendInfo>; threads: number | undefined } | null = null;

function parseChoice(value: string, source: string): BackendChoice {
  if (!(CHOICES as readonly string[]).includes(value)) {
    throw new Error(`${source} must be one of ${CHOICES.join(', ')}; got '${value}'`);
  }
  return value as BackendChoice;
}

function parseThreads(value: number, source: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${source} must be a positive integer; got '${value}'`);
  return value;
}

function warn(message: string): void {
  process.stderr.write(`[rlhf-code] warning: ${message}\n`);
}

/**
 * Initialises the backend once per process; later calls return the same info. A later call that
 * explicitly asks for a different backend or thread count throws instead of being ignored.
 */
export async function initBackend(opts: InitBackendOptions = {}): Promise<BackendInfo> {
  const runtime = runtimeSettings(); // a bad value is an error naming its variable
  const choice = opts.backend != null ? parseChoice(opts.backend, 'initBackend option backend') : runtime.backend;
  const threads =
    opts.threads != null
      ? parseThreads(opts.threads, 'initBackend option threads')
      : runtime.threads === 'auto'
        ? undefined // the default depends on whether the native kernels load
        : runtime.threads;

  if (initialised == null) {
    // Bad native settings are errors here, not a reason to fall back (a fallback would hide the typo).
    nativeSettings({ enabled: opts.native });
    const promise = select(choice, threads, opts.quiet ?? false, opts.native);
    initialised = { promise, threads };
    promise.catch(() => (initialised = null)); // a failed init may be retried
    return promise;
  }
  const first = initialised;
  const info = await first.promise;
  if (opts.backend != null && opts.backend !== 'auto' && opts.backend !== info.kind) {
    throw new Error(`initBackend: backend already initialised as '${info.kind}', cannot switch to '${opts.backend}'`);
  }
  const firstThreads = first.threads ?? info.threads;
  if (opts.threads != null && info.kind === 'wasm' && opts.threads !== firstThreads) {
    throw new Error(`initBackend: wasm already initialised with ${firstThreads} threads, asked for ${opts.threads}`);
  }
  return info;
}

async function select(choice: BackendChoice, threads: number | undefined, quiet: boolean, native?: boolean): Promise<BackendInfo> {
  registerTfjsFixes();
  const info = choice === 'auto' ? await selectAuto(threads, native) : await selectExplicit(choice, threads, native);
  if (!quiet) process.stderr.write(`[rlhf-code] backend: ${describe(info)}\n`);
  return info;
}

async function selectAuto(threads: number | undefined, native?: boolean): Promise<BackendInfo> {
  for (const kind of ['node-gpu', 'node'] as const) {
    try {
      return await initNative(kind);
    } catch (err) {
      if (!isNotInstalled(err, NODE_PACKAGES[kind])) warn(`${NODE_PACKAGES[kind]} is installed but failed: ${message(err)}`);
    }
  }
  try {
    return await initWasm(threads, native);
  } catch (err) {
    warn(`the wasm backend failed (${message(err)}); using the pure-JS cpu backend, 30-60x slower`);
    return initCpu();
  }
}

async function selectExplicit(kind: BackendKind, threads: number | undefined, native?: boolean): Promise<BackendInfo> {
  switch (kind) {
    case 'node-gpu':
    case 'node':
      return initNative(kind);
    case 'wasm':
      return initWasm(threads, native);
    case 'cpu':
      warn('the pure-JS cpu backend is 30-60x slower than wasm');
      return initCpu();
  }
}

/** Loads a native tfjs-node package (it registers backend 'tensorflow') and checks that it computes. */
async function initNative(kind: 'node-gpu' | 'node'): Promise<BackendInfo> {
  const pkg: string = NODE_PACKAGES[kind];
  // A computed name keeps TypeScript and jest from resolving these optional packages.
  require(pkg);
  if (!(await tf.setBackend('tensorflow'))) throw new Error(`tf.setBackend('tensorflow') failed after loading ${pkg}`);
  const two = tf.tidy(() => tf.add(tf.scalar(1), tf.scalar(1)).dataSync()[0]);
  if (two !== 2) throw new Error(`${pkg} computed 1 + 1 = ${two}`);
  return { name: tf.getBackend(), kind, threads: os.cpus().length, simd: true };
}

/**
 * The wasm backend with `threads` threads (the stock single-threaded one if that fails), plus our kernels:
 * the native addon's when it is usable here, else one warning line and the wasm kernels alone.
 */
async function initWasm(requested: number | undefined, native?: boolean): Promise<BackendInfo> {
  const addon = loadNative({ enabled: native });
  if ('reason' in addon) warn(`native kernels off (${addon.reason}); computing with the wasm kernels alone`);
  const threads = requested ?? ('info' in addon ? 1 : Math.min(2, os.cpus().length));
  registerWasmKernels();
  let actualThreads = 1;
  let simd: boolean;
  if (threads > 1) {
    try {
      actualThreads = await initThreadedWasm(threads);
      simd = true; // the threaded build is the SIMD one
    } catch (err) {
      warn(`threaded wasm failed (${message(err)}); using stock single-threaded wasm`);
      await useStockWasm();
      simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') as boolean;
    }
  } else {
    await useStockWasm();
    simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') as boolean;
  }
  guardWasmHeap();
  const info: BackendInfo = { name: tf.getBackend(), kind: 'wasm', threads: actualThreads, simd };
  if ('info' in addon) info.native = addon.info;
  return info;
}

async function initCpu(): Promise<BackendInfo> {
  if (!(await tf.setBackend('cpu'))) throw new Error("tf.setBackend('cpu') failed");
  return { name: tf.getBackend(), kind: 'cpu', threads: 1, simd: false };
}

/** Releases the backend: terminates the wasm pthread workers so the process (or jest) can exit. */
export async function shutdownBackend(): Promise<void> {
  if (initialised == null) return;
  const pending = initialised.promise;
  initialised = null;
  const info = await pending.catch(() => null);
  if (info?.kind === 'wasm') {
    removeWasm();
    unloadNative();
  }
}

/**
 * The one-line description printed at start-up, e.g. "wasm (simd, 1 thread) + native gemm (avx512bf16, 2 threads)": the
 * own GEMM's micro-kernel (avx2, avx512, avx512bf16: native.ts GemmKernel), or openblas.
 */
export function describe(info: BackendInfo): string {
  const plural = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
  const threads = plural(info.threads);
  switch (info.kind) {
    case 'wasm': {
      const native = info.native ? ` + native gemm (${info.native.gemm === 'own' ? info.native.kernel : 'openblas'}, ${plural(info.native.threads)})` : '';
      return `wasm (${info.simd ? 'simd' : 'no simd'}, ${threads})${native}`;
    }
    case 'cpu':
      return 'cpu (pure JS, 1 thread)';
    default:
      return `${info.kind} (native TensorFlow, ${threads})`;
  }
}

function isNotInstalled(err: unknown, pkg: string): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'MODULE_NOT_FOUND' && (e.message ?? '').includes(`'${pkg}'`);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
