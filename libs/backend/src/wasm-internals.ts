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

// The heap as floats, remade only when the wasm memory buffer changes (the single-threaded build replaces it
// when the heap grows, so it is read after every allocation).
let heapCache: { buffer: ArrayBufferLike; floats: Float32Array } | null = null;
export function heapF32(backend: WasmBackendInternals): Float32Array {
  const buffer = (backend.wasm as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer;
  if (heapCache?.buffer !== buffer) heapCache = { buffer, floats: new Float32Array(buffer) };
  return heapCache.floats;
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
