// The few BackendWasm internals our JS kernels need, typed in one place.
// (BackendWasm's .d.ts hides the id counter and the Emscripten heap/tensor registry.)
import type { DataId, TensorInfo } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

export interface WasmBackendInternals {
  wasm: {
    cwrap(name: string, ret: string | null, args: string[]): (...args: unknown[]) => unknown;
    tfjs: {
      registerTensor(id: number, size: number, memoryOffset: number): void;
      disposeData(id: number): void;
    };
  };
  dataIdMap: { get(dataId: DataId): { id: number; memoryOffset: number } };
  dataIdNextNumber: number;
  makeOutput(shape: number[], dtype: TensorInfo['dtype']): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: DataId): boolean;
}

export function internals(backend: BackendWasm | unknown): WasmBackendInternals {
  return backend as WasmBackendInternals;
}

/** The C++ side's id of a tensor (what the wasm kernels take), not tfjs's DataId object. */
export function tensorId(backend: WasmBackendInternals, t: TensorInfo): number {
  return backend.dataIdMap.get(t.dataId).id;
}

/** Byte offset of a tensor's data in the wasm heap. */
export function heapOffset(backend: WasmBackendInternals, t: TensorInfo): number {
  return backend.dataIdMap.get(t.dataId).memoryOffset;
}

/**
 * Registers `size` elements at `byteOffset` under a fresh C++ tensor id without giving the
 * memory to tfjs: a view into another tensor, for calling C++ kernels on slices without copies.
 * Release it with disposeView (never tfjs's disposeData, which would free the memory).
 */
export function registerView(backend: WasmBackendInternals, byteOffset: number, size: number): number {
  const id = backend.dataIdNextNumber++;
  backend.wasm.tfjs.registerTensor(id, size, byteOffset);
  return id;
}

export function disposeView(backend: WasmBackendInternals, id: number): void {
  // Also runs the C++ disposal callbacks, e.g. dropping XNNPACK operators cached under this id.
  backend.wasm.tfjs.disposeData(id);
}
