// The tfjs wasm backend with real threads under Node.
//
// Stock @tensorflow/tfjs-backend-wasm runs single-threaded in Node: it disables threads when
// IS_NODE, hands the pthread worker a `blob:` URL Node cannot load, and its C++ side caps the
// thread pool at `logical cores / 2` (1 on a 2-core machine). Here we load the threaded SIMD
// build ourselves, give its workers a real file to load, lift the cap while the module
// initialises, and register the result under the name 'wasm' so every stock kernel applies.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { BackendWasm, setThreadsCount, getThreadsCount } from '@tensorflow/tfjs-backend-wasm';

const THREADED_SIMD = 'tfjs-backend-wasm-threaded-simd';
// Same priority as the stock registration, so 'wasm' keeps its place in tfjs's backend order.
const WASM_PRIORITY = 2;

/** The parts of the Emscripten module we use beyond what BackendWasm needs. */
interface NodeWorker {
  unref(): void;
}
interface ThreadedModule {
  cwrap(name: string, ret: string | null, args: string[]): (...args: unknown[]) => unknown;
  PThread: { runningWorkers: NodeWorker[]; terminateAllThreads(): void };
  tfjs?: unknown;
}
type ModuleFactory = (config: {
  locateFile(file: string, prefix: string): string;
  onAbort(msg: string): void;
}) => Promise<ThreadedModule>;

/** Directory holding the Emscripten builds (wasm-out/) of the installed tfjs-backend-wasm. */
function wasmOutDir(): string {
  const pkg = require.resolve('@tensorflow/tfjs-backend-wasm/package.json');
  return path.join(path.dirname(pkg), 'wasm-out');
}

/**
 * Writes the pthread worker script to a temp .cjs file and returns its path.
 * The package ships it as a JS string (meant for a Blob); Node's Worker needs a file. tfjs
 * escapes newlines before making the Blob because the string holds "\n" escapes that the
 * template literal turned into real newlines inside string literals; we do the same.
 * The file name carries a content hash so concurrent processes write identical files.
 */
function writeWorkerFile(outDir: string): string {
  const { wasmWorkerContents } = require(path.join(outDir, `${THREADED_SIMD}.worker.js`)) as {
    wasmWorkerContents: string;
  };
  const source = wasmWorkerContents.replace(/\n/g, '\\n');
  const hash = crypto.createHash('sha256').update(source).digest('hex').slice(0, 16);
  const file = path.join(os.tmpdir(), `rlhf-code-tfjs-wasm-worker-${hash}.cjs`);
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== source) {
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, source);
    fs.renameSync(partial, file); // atomic: a reader never sees half a file
  }
  return file;
}

/**
 * Instantiates the threaded SIMD module with a pool of `threads` workers.
 * The C++ side sizes its pool from emscripten_num_logical_cores() / 2 while the module's static
 * constructors run, and Emscripten answers that with require('os').cpus().length under Node, so
 * os.cpus is made to report 2 * threads cores for the duration of the instantiation only.
 */
async function instantiate(threads: number): Promise<ThreadedModule> {
  const outDir = wasmOutDir();
  const workerFile = writeWorkerFile(outDir);
  const factory = require(path.join(outDir, `${THREADED_SIMD}.js`)) as ModuleFactory;
  // The real module object (not an import namespace copy), the one Emscripten's require('os') sees.
  const nodeOs = require('os') as { cpus: typeof os.cpus };
  const realCpus = nodeOs.cpus;
  nodeOs.cpus = () => {
    const cpus = realCpus();
    return Array.from({ length: 2 * threads }, (_, i) => cpus[i % cpus.length]);
  };
  try {
    return await new Promise<ThreadedModule>((resolve, reject) => {
      factory({
        locateFile: (file, prefix) => {
          if (file.endsWith('.worker.js')) return workerFile;
          if (file.endsWith('.wasm')) return path.join(outDir, `${THREADED_SIMD}.wasm`);
          return prefix + file;
        },
        onAbort: (msg) => reject(new Error(`${THREADED_SIMD}.wasm aborted while loading: ${msg}`)),
      }).then(resolve, reject);
    });
  } finally {
    nodeOs.cpus = realCpus;
  }
}

// The stock registration (single-threaded), made by importing the package above; kept to fall
// back to and to restore after removeWasm().
const stockFactory = tf.findBackendFactory('wasm');

/** Makes the factory registered as 'wasm' the given one, disposing any live 'wasm' backend. */
function registerWasm(factory: NonNullable<ReturnType<typeof tf.findBackendFactory>>): void {
  if (tf.findBackendFactory('wasm') != null) tf.removeBackend('wasm');
  tf.registerBackend('wasm', factory, WASM_PRIORITY);
}

/**
 * Loads the threaded wasm backend with `threads` threads, registers it as 'wasm' (replacing the
 * stock single-threaded registration) and makes it the active backend.
 * Returns the number of threads XNNPACK actually runs with. Throws if any step fails, leaving the
 * stock registration in place so the caller can fall back to useStockWasm().
 */
export async function initThreadedWasm(threads: number): Promise<number> {
  if (!Number.isInteger(threads) || threads < 1) {
    throw new Error(`initThreadedWasm: threads must be a positive integer, got ${threads}`);
  }
  const module = await instantiate(threads);
  // The same C entry points tfjs's own init() wraps; BackendWasm calls them through `tfjs`.
  module.tfjs = {
    init: module.cwrap('init', null, []),
    initWithThreadsCount: module.cwrap('init_with_threads_count', null, ['number']),
    getThreadsCount: module.cwrap('get_threads_count', 'number', []),
    registerTensor: module.cwrap('register_tensor', null, ['number', 'number', 'number']),
    disposeData: module.cwrap('dispose_data', null, ['number']),
    dispose: module.cwrap('dispose', null, []),
  };
  setThreadsCount(threads);
  let backend: BackendWasm;
  try {
    backend = new BackendWasm(module as unknown as ConstructorParameters<typeof BackendWasm>[0]);
  } catch (err) {
    module.PThread.terminateAllThreads(); // nobody else holds the module: free its workers
    throw err;
  }
  // Idle pool workers are unref'd by Emscripten, running ones are not: without this a CLI would
  // hang at exit. The workers are still torn down with the process.
  for (const worker of module.PThread.runningWorkers) worker.unref();

  registerWasm(() => backend);
  if (!(await tf.setBackend('wasm'))) {
    removeWasm();
    throw new Error('tf.setBackend("wasm") failed for the threaded module');
  }
  return getThreadsCount();
}

/** Activates tfjs's own single-threaded wasm backend (SIMD when the runtime has it). */
export async function useStockWasm(): Promise<void> {
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed for the stock module');
}

/**
 * Disposes the live 'wasm' backend, which terminates its pthread workers (BackendWasm.dispose),
 * and puts the stock registration back so the backend can be initialised again.
 */
export function removeWasm(): void {
  if (tf.findBackendFactory('wasm') != null) tf.removeBackend('wasm');
  if (stockFactory != null) tf.registerBackend('wasm', stockFactory, WASM_PRIORITY);
}
