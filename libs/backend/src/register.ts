// Registers our kernels and gradients with tfjs.
import * as tf from '@tensorflow/tfjs';
import type { KernelConfig } from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm'; // registers the stock wasm kernels we replace
import { fastBatchMatMulConfig } from './batch-mat-mul';
import { nativeAddon } from './native';
import { nativeAddConfig, nativeBatchMatMulConfig, nativeOwnKernelConfigs, nativeSegmentSumConfig, nativeSumConfig } from './native-kernels';
import { registerCumulativeFixes } from './cumsum-fixes';
import { gatherBatchDimsConfig } from './gather-batch-dims';
import { batchMatMulGradConfig } from './mat-mul-grad';
import { unsortedSegmentSumConfig } from './unsorted-segment-sum';
import { internals } from './wasm-internals';

/** `x` again, sharing its buffer (one more reference to it): the output of a kernel that would only copy. */
function sharedBuffer(backend: unknown, x: tf.TensorInfo): tf.TensorInfo {
  (internals(backend) as unknown as { incRef(dataId: object): void }).incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

/**
 * Identity (tf.clone, and every tensor tfjs saves for a backward pass) sharing its input's buffer, as the cpu
 * backend does, instead of the stock wasm kernel's copy: tensors are immutable, so the copy buys nothing, and a
 * training step made 245 of them (the [N, V] logits several times).
 */
const sharedIdentityConfig: KernelConfig = {
  kernelName: tf.Identity,
  backendName: 'wasm',
  kernelFunc: (({ inputs, backend }: { inputs: { x: tf.TensorInfo }; backend: unknown }) => sharedBuffer(backend, inputs.x)) as unknown as KernelConfig['kernelFunc'],
};

/**
 * Transpose with the identity permutation sharing its input's buffer, as Identity does; other permutations go to the
 * stock kernel. tfjs's gradient of gather (the embedding's) transposes by the identity twice a step, and the stock
 * kernel copied the [vocab, hidden] gradient on one thread (11.5 ms of a 500 ms step of the shipped shape).
 */
const identityTransposeConfig = (stock: KernelConfig): KernelConfig => ({
  ...stock,
  kernelFunc: ((args: { inputs: { x: tf.TensorInfo }; backend: unknown; attrs: { perm: number[] } }) => {
    if (!args.attrs.perm.every((p, i) => p === i)) return stock.kernelFunc(args as unknown as Parameters<KernelConfig['kernelFunc']>[0]);
    return sharedBuffer(args.backend, args.inputs.x);
  }) as unknown as KernelConfig['kernelFunc'],
});

// Stock wasm kernels, captured before our first replacement: useBatchMatMul('stock') restores
// BatchMatMul (benchmarks, A/B checks) and our GatherV2 delegates to the stock one.
const stock = new Map<string, KernelConfig>();

function stockKernel(kernelName: string): KernelConfig {
  if (!stock.has(kernelName)) {
    const config = tf.getKernel(kernelName, 'wasm');
    if (config == null) throw new Error(`no stock wasm ${kernelName} kernel is registered`);
    stock.set(kernelName, config);
  }
  return stock.get(kernelName) as KernelConfig;
}

/** Registers `config` for its backend, replacing any existing kernel of that name. */
function replaceKernel(config: KernelConfig): void {
  if (tf.getKernel(config.kernelName, config.backendName) != null) {
    tf.unregisterKernel(config.kernelName, config.backendName);
  }
  tf.registerKernel(config);
  // tfjs runs setup functions when a backend is set; a kernel swapped in later needs it now.
  if (tf.getBackend() === config.backendName) config.setupFunc?.(tf.backend());
}

export type BatchMatMulKind = 'native' | 'fast' | 'stock';

/**
 * Chooses the wasm BatchMatMul: the native addon's (default when it is loaded), our XNNPACK-based one
 * (default otherwise), or tfjs's stock one (benchmarks and A/B checks).
 */
export function useBatchMatMul(kind: BatchMatMulKind): void {
  const stockConfig = stockKernel(tf.BatchMatMul); // captured before the first replacement
  if (kind === 'native' && nativeAddon() == null) throw new Error('useBatchMatMul: the native addon is not loaded');
  replaceKernel(kind === 'native' ? nativeBatchMatMulConfig : kind === 'fast' ? fastBatchMatMulConfig : stockConfig);
}

/**
 * wasm kernels that are missing, slow or wrong in tfjs 4.22: UnsortedSegmentSum (missing; the
 * gradient of gather), BatchMatMul (slow, and wrong under broadcasting), GatherV2 (wrong with
 * batchDims > 0), Identity and identity Transposes (copies where a shared buffer does). With the
 * native addon loaded, BatchMatMul, Add, Sum and the project's fused kernels (AdamW, target
 * log-probs) compute natively; without it those fused kernels are not registered,
 * so their callers use composite tfjs ops.
 */
export function registerWasmKernels(): void {
  const native = nativeAddon() != null;
  replaceKernel(native ? nativeSegmentSumConfig(unsortedSegmentSumConfig) : unsortedSegmentSumConfig);
  replaceKernel(gatherBatchDimsConfig(stockKernel(tf.GatherV2)));
  replaceKernel(sharedIdentityConfig);
  replaceKernel(identityTransposeConfig(stockKernel(tf.Transpose)));
  replaceKernel(native ? nativeAddConfig(stockKernel(tf.Add)) : stockKernel(tf.Add));
  replaceKernel(native ? nativeSumConfig(stockKernel(tf.Sum)) : stockKernel(tf.Sum));
  useBatchMatMul(native ? 'native' : 'fast');
  for (const config of nativeOwnKernelConfigs) {
    if (native) replaceKernel(config);
    else if (tf.getKernel(config.kernelName, config.backendName) != null) tf.unregisterKernel(config.kernelName, config.backendName);
  }
}

/**
 * Fixes for tfjs 4.22 bugs that are not wasm-specific: the BatchMatMul gradient under batch
 * broadcasting, the cumsum gradient (all backends) and negative axes of cumsum/cumprod (cpu and
 * wasm kernels).
 */
export function registerTfjsFixes(): void {
  tf.registerGradient(batchMatMulGradConfig);
  registerCumulativeFixes();
}
