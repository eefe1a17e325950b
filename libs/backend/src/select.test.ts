import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { ADDON_FILE, defaultGemmKernel, nativeSettings, type GemmKernel, type NativeAddon } from './native';
import { initBackend, shutdownBackend } from './select';
import { nativeAddonBuilt } from './testing';

// The default wasm threads: 1 beside the native kernels, else min(2, cores).
const THREADS = nativeAddonBuilt() ? 1 : Math.min(2, os.cpus().length);
// What BackendInfo carries about the native kernels here (none where the addon is not built).
const CORES = os.cpus().length;
// The GEMM's micro-kernel: the widest this CPU has (its flags in /proc/cpuinfo), AVX2 with RLHF_AVX512=0.
const FLAGS = new Set((fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '').match(/^flags\s*:.*$/m)?.[0].split(/\s+/) ?? []);
const AVX512 = ['avx512f', 'avx512bw', 'avx512vl', 'avx512dq'].every((f) => FLAGS.has(f));
// With AVX-512 BF16 a process runs bf16 on vdpbf16ps (avx512bf16) on AMD, emulated (avx512) elsewhere: defaultGemmKernel,
// whose rule gemm-kernels.test.ts tests; here its answer is taken as given (the raw addon's own default, before
// loadNative, is the widest kernel).
const bf16Choice = (): GemmKernel =>
  nativeAddonBuilt() ? defaultGemmKernel(require(ADDON_FILE) as NativeAddon, nativeSettings().bf16Gemm) : 'avx512bf16';
const KERNEL = process.env.RLHF_AVX512 === '0' || !AVX512 ? 'avx2' : FLAGS.has('avx512_bf16') ? bf16Choice() : 'avx512';
const NATIVE = nativeAddonBuilt() ? { native: { cpu: true, gemm: 'own', kernel: KERNEL, threads: CORES } } : {};
const NATIVE_LINE = nativeAddonBuilt() ? ` + native gemm (${KERNEL}, ${CORES} thread${CORES === 1 ? '' : 's'})` : '';

afterEach(() => {
  delete process.env.RLHF_BACKEND;
  delete process.env.RLHF_THREADS;
  delete process.env.RLHF_NATIVE;
});

describe('initBackend in this process', () => {
  afterAll(() => shutdownBackend());

  test('wasm comes up with SIMD and its default threads, and computes', async () => {
    const info = await initBackend({ backend: 'wasm', quiet: true });
    expect(info).toEqual({ name: 'wasm', kind: 'wasm', threads: THREADS, simd: true, ...NATIVE });
    expect(tf.getBackend()).toBe('wasm');
    expect(Array.from(tf.matMul(tf.ones([2, 3]), tf.ones([3, 2])).dataSync())).toEqual([3, 3, 3, 3]);
  });

  test('is idempotent and refuses conflicting requests', async () => {
    const first = await initBackend({ backend: 'wasm', quiet: true });
    expect(await initBackend()).toBe(first);
    expect(await initBackend({ backend: 'auto' })).toBe(first);
    await expect(initBackend({ backend: 'cpu' })).rejects.toThrow(
      "initBackend: backend already initialised as 'wasm', cannot switch to 'cpu'",
    );
    await expect(initBackend({ threads: THREADS + 1 })).rejects.toThrow(
      `initBackend: wasm already initialised with ${THREADS} threads, asked for ${THREADS + 1}`,
    );
  });

  test('rejects bad options and environment values', async () => {
    await expect(initBackend({ backend: 'gpu' as 'cpu' })).rejects.toThrow(
      "initBackend option backend must be one of auto, node-gpu, node, wasm, cpu; got 'gpu'",
    );
    process.env.RLHF_BACKEND = 'tpu';
    await expect(initBackend()).rejects.toThrow(/^RLHF_BACKEND: Invalid option: expected one of "auto"\|"node-gpu"\|"node"\|"wasm"\|"cpu"/);
    delete process.env.RLHF_BACKEND;
    process.env.RLHF_THREADS = '0';
    await expect(initBackend()).rejects.toThrow(/^RLHF_THREADS: Too small/);
    delete process.env.RLHF_THREADS;
    await expect(initBackend({ threads: 1.5 })).rejects.toThrow(
      "initBackend option threads must be a positive integer; got '1.5'",
    );
  });

  test('after shutdownBackend it can be initialised again, also single-threaded', async () => {
    await initBackend({ backend: 'wasm', quiet: true });
    await shutdownBackend();
    const single = await initBackend({ backend: 'wasm', threads: 1, quiet: true });
    expect(single).toEqual({ name: 'wasm', kind: 'wasm', threads: 1, simd: true, ...NATIVE });
    expect(tf.sum(tf.ones([4])).dataSync()[0]).toBe(4);
    await shutdownBackend();
    const again = await initBackend({ backend: 'wasm', quiet: true });
    expect(again.threads).toBe(THREADS);
    expect(tf.sum(tf.ones([4])).dataSync()[0]).toBe(4);
  });

  test('falls back to stock single-threaded wasm, with a warning, when the threaded build fails', async () => {
    await shutdownBackend();
    // Make writing the pthread worker script fail, as on a read-only or full temp dir.
    const isWorkerFile = (p: unknown) => String(p).includes('rlhf-code-tfjs-wasm-worker');
    const nodeFs = require('fs') as typeof fs; // the module object itself: `import *` gives a frozen copy
    const realExists = nodeFs.existsSync;
    const realWrite = nodeFs.writeFileSync;
    const exists = jest.spyOn(nodeFs, 'existsSync').mockImplementation((p) => !isWorkerFile(p) && realExists(p));
    const write = jest.spyOn(nodeFs, 'writeFileSync').mockImplementation((p, ...rest) => {
      if (isWorkerFile(p)) throw new Error('ENOSPC: no space left on device');
      return realWrite(p, ...rest);
    });
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const info = await initBackend({ backend: 'wasm', threads: 2 });
      expect(info).toEqual({ name: 'wasm', kind: 'wasm', threads: 1, simd: true, ...NATIVE });
      expect(stderr.mock.calls.map(([line]) => line)).toEqual([
        '[rlhf-code] warning: threaded wasm failed (ENOSPC: no space left on device); using stock single-threaded wasm\n',
        `[rlhf-code] backend: wasm (simd, 1 thread)${NATIVE_LINE}\n`,
      ]);
      expect(tf.sum(tf.ones([3])).dataSync()[0]).toBe(3);
    } finally {
      [exists, write, stderr].forEach((spy) => spy.mockRestore());
    }
  });

  test('a bad RLHF_NATIVE_* setting is an error naming it, not a fallback', async () => {
    await shutdownBackend();
    process.env.RLHF_NATIVE_THREADS = '0';
    try {
      await expect(initBackend({ backend: 'wasm', quiet: true })).rejects.toThrow(/^RLHF_NATIVE_THREADS: Too small/);
    } finally {
      delete process.env.RLHF_NATIVE_THREADS;
    }
  });

  test('RLHF_BACKEND and RLHF_THREADS set the defaults', async () => {
    await shutdownBackend();
    process.env.RLHF_BACKEND = 'wasm';
    process.env.RLHF_THREADS = '1';
    expect(await initBackend({ quiet: true })).toEqual({ name: 'wasm', kind: 'wasm', threads: 1, simd: true, ...NATIVE });
  });

  test('without a built addon: one warning line, and the wasm kernels compute', async () => {
    await shutdownBackend();
    const nodeFs = require('fs') as typeof fs;
    const realExists = nodeFs.existsSync;
    const exists = jest.spyOn(nodeFs, 'existsSync').mockImplementation((p) => p !== ADDON_FILE && realExists(p));
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const info = await initBackend({ backend: 'wasm', threads: 1 });
      expect(info).toEqual({ name: 'wasm', kind: 'wasm', threads: 1, simd: true });
      expect(stderr.mock.calls.map(([line]) => line)).toEqual([
        '[rlhf-code] warning: native kernels off (the addon was not built (run `npm run build:native` to see why)); computing with the wasm kernels alone\n',
        '[rlhf-code] backend: wasm (simd, 1 thread)\n',
      ]);
      expect(Array.from(tf.matMul(tf.ones([2, 3]), tf.ones([3, 2]), false, false).dataSync())).toEqual([3, 3, 3, 3]);
      expect(tf.getKernel('RlhfAttention', 'wasm')).toBeUndefined(); // the model takes its composite path
    } finally {
      [exists, stderr].forEach((spy) => spy.mockRestore());
      await shutdownBackend();
    }
  });
});

/** Runs a script calling initBackend in a fresh Node process (what a CLI does). */
function runChild(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlhf-select-'));
  const script = path.join(dir, 'main.ts');
  fs.writeFileSync(
    script,
    `import { initBackend } from ${JSON.stringify(path.join(__dirname, 'select'))};\n` +
      `initBackend().then((info) => process.stdout.write(JSON.stringify(info)));\n`, // no shutdown: must exit anyway
  );
  const tsx = require.resolve('tsx/cli');
  return new Promise((resolve) => {
    execFile(process.execPath, [tsx, script], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      fs.rmSync(dir, { recursive: true });
      resolve({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}

describe('initBackend in a CLI process', () => {
  test("'auto' without tfjs-node picks threaded wasm, keeps stdout clean and exits without shutdown", async () => {
    const { code, stdout, stderr } = await runChild({ RLHF_BACKEND: '', RLHF_THREADS: '' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ name: 'wasm', kind: 'wasm', threads: THREADS, simd: true, ...NATIVE });
    expect(stderr.split('\n').filter((l) => l.startsWith('[rlhf-code]'))).toEqual([
      `[rlhf-code] backend: wasm (simd, ${THREADS} thread${THREADS === 1 ? '' : 's'})${NATIVE_LINE}`,
    ]);
  });

  test('RLHF_NATIVE=0: one warning line naming it, then the wasm backend alone', async () => {
    const { code, stdout, stderr } = await runChild({ RLHF_BACKEND: 'wasm', RLHF_NATIVE: '0' });
    const wasmThreads = Math.min(2, os.cpus().length); // the default without native kernels
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ name: 'wasm', kind: 'wasm', threads: wasmThreads, simd: true });
    expect(stderr.split('\n').filter((l) => l.startsWith('[rlhf-code]'))).toEqual([
      '[rlhf-code] warning: native kernels off (RLHF_NATIVE=0); computing with the wasm kernels alone',
      `[rlhf-code] backend: wasm (simd, ${wasmThreads} thread${wasmThreads === 1 ? '' : 's'})`,
    ]);
  });

  test('RLHF_BACKEND=cpu warns on stderr', async () => {
    const { code, stdout, stderr } = await runChild({ RLHF_BACKEND: 'cpu' });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ name: 'cpu', kind: 'cpu', threads: 1, simd: false });
    expect(stderr.split('\n').filter((l) => l.startsWith('[rlhf-code]'))).toEqual([
      '[rlhf-code] warning: the pure-JS cpu backend is 30-60x slower than wasm',
      '[rlhf-code] backend: cpu (pure JS, 1 thread)',
    ]);
  });
});
