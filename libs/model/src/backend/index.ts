export { initBackend, shutdownBackend, describe as describeBackend } from './select';
export type { BackendInfo, BackendKind, BackendChoice, InitBackendOptions } from './select';
export { setFastBatchMatMul } from './register';
export { WasmOutOfMemoryError } from './heap-guard';
