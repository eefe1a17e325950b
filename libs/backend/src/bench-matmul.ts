// Matmul throughput on the wasm backend: 1 vs 2 threads, stock vs fast BatchMatMul kernel.
// Prints one JSON object (GFLOP/s) to stdout.  Run: npx tsx libs/backend/src/bench-matmul.ts
import * as tf from '@tensorflow/tfjs';
import { quantile } from '@rlhf-code/stats';
import { useBatchMatMul } from './register';
import { initBackend, shutdownBackend } from './select';

interface Case {
  name: string;
  flops: number;
  /** Builds the inputs, returns the function to time; the inputs are disposed after timing. */
  setup(): { run: () => void; inputs: tf.Tensor[] };
}

/**
 * Median seconds per call over `reps` timed calls after one warm-up call. The timed functions
 * return nothing from tf.tidy: tidy walks its result, element by element for a typed array.
 */
function secondsPerCall(run: () => void, reps: number): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    run();
    times.push((performance.now() - t0) / 1000);
  }
  return quantile(times, 0.5)!;
}

/** a x b with the given transposes; a, b stored so the product is [m, k] x [k, n]. */
function matmulCase(m: number, k: number, n: number, transposeA: boolean, transposeB: boolean): Case {
  return {
    name: `matmul ${m}x${k}x${n}${transposeA ? ' transposeA' : ''}${transposeB ? ' transposeB' : ''}`,
    flops: 2 * m * k * n,
    setup() {
      const a = tf.randomNormal(transposeA ? [k, m] : [m, k]);
      const b = tf.randomNormal(transposeB ? [n, k] : [k, n]);
      const run = () => tf.tidy(() => void tf.matMul(a, b, transposeA, transposeB).dataSync());
      return { run, inputs: [a, b] };
    },
  };
}

/** Linear layer forward + backward on 2-D activations: y = x W; dx = dy W^T; dW = x^T dy. */
function linearCase(tokens: number, inDim: number, outDim: number): Case {
  return {
    name: `linear fwd+bwd [${tokens},${inDim}] x [${inDim},${outDim}]`,
    flops: 3 * 2 * tokens * inDim * outDim,
    setup() {
      const x = tf.randomNormal([tokens, inDim]);
      const w = tf.randomNormal([inDim, outDim]);
      const dy = tf.randomNormal([tokens, outDim]);
      const grads = tf.grads((xx: tf.Tensor, ww: tf.Tensor) => tf.sum(tf.mul(tf.matMul(xx, ww), dy)));
      return { run: () => tf.tidy(() => grads([x, w]).forEach((g) => void g.dataSync())), inputs: [x, w, dy] };
    },
  };
}

/** Attention scores and their gradient: s = q k^T over [B, H, T, D]. */
function attentionCase(b: number, h: number, t: number, d: number): Case {
  return {
    name: `attention q k^T fwd+bwd [${b},${h},${t},${d}]`,
    flops: 3 * 2 * b * h * t * t * d,
    setup() {
      const q = tf.randomNormal([b, h, t, d]);
      const k = tf.randomNormal([b, h, t, d]);
      const ds = tf.randomNormal([b, h, t, t]);
      const grads = tf.grads((qq: tf.Tensor, kk: tf.Tensor) => tf.sum(tf.mul(tf.matMul(qq, kk, false, true), ds)));
      return { run: () => tf.tidy(() => grads([q, k]).forEach((g) => void g.dataSync())), inputs: [q, k, ds] };
    },
  };
}

function gflops(c: Case, reps: number): number {
  const { run, inputs } = c.setup();
  const seconds = secondsPerCall(run, reps);
  tf.dispose(inputs);
  return Math.round((c.flops / seconds / 1e9) * 10) / 10;
}

async function main(): Promise<void> {
  const square = matmulCase(1024, 1024, 1024, false, false);
  const kernelCases = [
    matmulCase(1024, 1024, 1024, false, true),
    matmulCase(1024, 1024, 1024, true, false),
    linearCase(1024, 512, 2048),
    attentionCase(8, 4, 128, 32),
  ];
  const result: Record<string, unknown> = { unit: 'GFLOP/s' };

  // Threads: the plain 1024^3 matmul (XNNPACK path in both kernels).
  const byThreads: Record<string, number> = {};
  for (const threads of [1, 2]) {
    await initBackend({ backend: 'wasm', threads, quiet: true });
    byThreads[`${threads} thread${threads === 1 ? '' : 's'}`] = gflops(square, 5);
    await shutdownBackend();
  }
  result[square.name] = byThreads;

  // Kernel: stock vs fast at 2 threads (the stock slow path is single-threaded and ~2 GFLOP/s).
  const info = await initBackend({ backend: 'wasm', threads: 2 });
  result.backend = info;
  for (const c of kernelCases) {
    useBatchMatMul('stock');
    const stock = gflops(c, 2);
    useBatchMatMul('fast');
    const fast = gflops(c, 5);
    result[c.name] = { stock, fast, speedup: Math.round((fast / stock) * 10) / 10 };
  }
  await shutdownBackend();
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

main().catch((err) => {
  process.stderr.write(`bench-matmul: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
