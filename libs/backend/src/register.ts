// Registers our kernels and gradients with tfjs.
import * as tf from '@tensorflow/tfjs';
import type { KernelConfig } from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm'; // registers the stock wasm kernels we replace
import { fastBatchMatMulConfig } from './batch-mat-mul';
import { registerCumulativeFixes } from './cumsum-fixes';
import { gatherBatchDimsConfig } from './gather-batch-dims';
import { batchMatMulGradConfig } from './mat-mul-grad';
import { unsortedSegmentSumConfig } from './unsorted-segment-sum';

// Stock wasm kernels, captured before our first replacement: setFastBatchMatMul(false) restores
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

/** Switches the wasm BatchMatMul between our fast kernel (default) and tfjs's stock one. */
export function setFastBatchMatMul(enabled: boolean): void {
  const stockConfig = stockKernel(tf.BatchMatMul); // captured before the first replacement
  replaceKernel(enabled ? fastBatchMatMulConfig : stockConfig);
}

/**
 * wasm kernels that are missing, slow or wrong in tfjs 4.22: UnsortedSegmentSum (missing; the
 * gradient of gather), BatchMatMul (slow, and wrong under broadcasting), GatherV2 (wrong with
 * batchDims > 0).
 */
export function registerWasmKernels(): void {
  replaceKernel(unsortedSegmentSumConfig);
  setFastBatchMatMul(true);
  replaceKernel(gatherBatchDimsConfig(stockKernel(tf.GatherV2)));
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
