// @rlhf-code/backend: picks and initialises the tfjs backend for the process and registers the project's own kernels (wasm fixes, and native kernels when built).
export { initBackend, shutdownBackend, describe as describeBackend } from './select';
export type { BackendChoice } from './select';
export { fusedAdamW, fusedTargetLogProbs, fusedTargetLogProbsGrad, hasNativeKernels, fusedAttention, fusedCachedAttention, fusedDecodeLayer, fusedRmsNorm, fusedSwiGLU, fusedSwiGLUPacked, GEMM_PRECISIONS, gemmPrecision, inGemmPrecision, nativeExpTerms, nativeSumOfSquares } from './native-kernels';
export type { DecodeLayerWeights, DecodeLoraProjection } from './native-kernels';
export { f32BitsToBf16Bits, LOW_PRECISION_ACTIVATIONS, LowPrecisionMatrix, lowPrecisionMatMul, lowPrecisionRows, setLowPrecisionActivations, withLowPrecisionActivations, matMulWeight, stackRows, weightShape, WEIGHT_DTYPES } from './low-precision';
export type { LowPrecision, LowPrecisionActivations, Weight, WeightDtype } from './low-precision';
export { loadNative, nativeAddon } from './native';
export { readFloats } from './read-floats';
export type { GemmKernel, GemmPrecision } from './native';
