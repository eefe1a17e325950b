// Registers our kernels and gradients with tfjs.
import * as tf from '@tensorflow/tfjs';
import type { KernelConfig } from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm'; // registers the stock wasm kernels we replace
import { fastBatchMatMulConfig } from './batch-mat-mul';
import { batchMatMulGradConfig } from './mat-mul-grad';
import { unsortedSegmentSumConfig } from './unsorted-segment-sum';

// Stock wasm BatchMatMul, captured before the first replacement so setFastBatchMatMul(false) can
// restore it (benchmarks, A/B checks).
let stockBatchMatMul: KernelConfig | undefined;

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
  stockBatchMatMul ??= tf.getKernel(tf.BatchMatMul, 'wasm');
  if (stockBatchMatMul == null) throw new Error('setFastBatchMatMul: no wasm BatchMatMul kernel is registered');
  replaceKernel(enabled ? fastBatchMatMulConfig : stockBatchMatMul);
}

/** Kernels the wasm backend lacks or runs slowly: UnsortedSegmentSum and a fast BatchMatMul. */
export function registerWasmKernels(): void {
  replaceKernel(unsortedSegmentSumConfig);
  setFastBatchMatMul(true);
}

/** Gradients tfjs gets wrong (all backends): BatchMatMul under batch broadcasting. */
export function registerGradientFixes(): void {
  tf.registerGradient(batchMatMulGradConfig);
}
