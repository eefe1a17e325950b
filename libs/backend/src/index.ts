// @rlhf-code/backend: picks and initialises the tfjs backend for the process and registers the project's own kernels (wasm fixes, and native kernels when built).
export { initBackend, shutdownBackend, describe as describeBackend } from './select';
export type { BackendInfo, BackendKind, BackendChoice, InitBackendOptions } from './select';
export { useBatchMatMul } from './register';
export type { BatchMatMulKind } from './register';
export {
  fusedAdamW,
  fusedTargetLogProbs,
  fusedTargetLogProbsGrad,
  hasNativeKernels,
  fusedAttention,
  fusedCachedAttention,
  fusedRmsNorm,
  fusedSwiGLU,
  fusedSwiGLUPacked,
} from './native-kernels';
export type { CachedAttentionAttrs, AttentionAttrs } from './native-kernels';
export type { NativeInfo } from './native';
export { WasmOutOfMemoryError } from './heap-guard';
