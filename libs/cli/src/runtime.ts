// The process's runtime settings, the one place an environment variable of the code is declared: the compute backend
// and its threads, the native CPU kernels, the Python interpreter the sandbox runs, stack traces on errors. Every
// command built by settingsCommand has them as its `runtime` group: --print-config shows them, --help lists their
// flags, a --config file's `runtime:` section sets them, and each is also read from its environment variable
// (defaults < --config < environment < flags, as every setting).
//
// The readers (libs/backend, libs/sandbox, runCli) take their values from runtimeSettings(), which reads the
// environment through this schema; settingsCommand exports the values a --config file or a flag gave to the
// environment first (exportRuntime), so that the readers, worker threads, child processes and the native addon (which
// reads RLHF_AVX512 itself as it loads) all see one setting.
//
// Read only by tests and tools, and so not here: RL_TEST_VERBOSE (a test's log), RLHF_TEST_COUNTS (the jest reporter
// and tools/check-boundaries.cjs), RLHF_NATIVE_REQUIRED and CXX (tools/build-native.cjs, at install), RLHF_LLAMACPP_GPU's GPU build
// (tools/engine-llamacpp/install.cjs, at install; the engine reads the same variable through this schema).
import * as os from 'os';
import { z } from 'zod';
import { BACKENDS } from './flags';
import { settingFields, settingsFromEnv } from './settings';

const int = () => z.number().int();
const auto = (count: z.ZodNumber, what: string) => z.union([count, z.literal('auto')]).default('auto').describe(what);

/** The environment variable of each runtime setting. */
export const RUNTIME_ENV = {
  backend: 'RLHF_BACKEND',
  threads: 'RLHF_THREADS',
  native: 'RLHF_NATIVE',
  nativeThreads: 'RLHF_NATIVE_THREADS',
  nativeGemm: 'RLHF_NATIVE_GEMM',
  avx512: 'RLHF_AVX512',
  bf16Gemm: 'RLHF_BF16_GEMM',
  llamacppGpu: 'RLHF_LLAMACPP_GPU',
  python: 'RLHF_PYTHON',
  debug: 'RLHF_DEBUG',
} as const;

export const NATIVE_GEMMS = ['auto', 'own', 'openblas'] as const;
export const BF16_GEMMS = ['auto', 'vdpbf16ps', 'emulated'] as const;
export const LLAMACPP_GPUS = ['cpu', 'cuda', 'vulkan', 'metal', 'auto'] as const;
/** llama.cpp's device unless told: the CPU, but Metal on Apple silicon (its one build). */
const LLAMACPP_GPU_DEFAULT = process.platform === 'darwin' && process.arch === 'arm64' ? 'metal' : 'cpu';

export const RuntimeSettings = z.strictObject({
  backend: z
    .enum(BACKENDS)
    .default('auto')
    .describe('compute backend; auto tries tfjs-node-gpu, tfjs-node, wasm, cpu in that order')
    .meta({ env: RUNTIME_ENV.backend, flag: 'backend' }),
  threads: auto(int().positive(), 'threads of the wasm backend (its element-wise kernels); auto: 1 when the native kernels run, else min(2, cores)').meta({ env: RUNTIME_ENV.threads }),
  native: z
    .boolean()
    .default(true)
    .describe("the native CPU kernels (libs/backend/native) under the wasm backend when they are built and fit this CPU; false: the wasm kernels alone")
    .meta({ env: RUNTIME_ENV.native }),
  nativeThreads: auto(int().min(1).max(256), `threads of the native kernels (1-256); auto: the cores (${os.cpus().length} here)`).meta({ env: RUNTIME_ENV.nativeThreads }),
  nativeGemm: z
    .enum(NATIVE_GEMMS)
    .default('own')
    .describe("the native GEMM: own (the project's: AVX-512 or AVX2, chosen at run time), openblas (needs libopenblas.so.0), auto (OpenBLAS when present)")
    .meta({ env: RUNTIME_ENV.nativeGemm }),
  avx512: z
    .boolean()
    .default(true)
    .describe("false: the native GEMMs keep their AVX2 (and AVX-VNNI) micro-kernels, as on a CPU without AVX-512 (the addon reads it as it loads)")
    .meta({ env: RUNTIME_ENV.avx512 }),
  bf16Gemm: z
    .enum(BF16_GEMMS)
    .default('auto')
    .describe(
      "how a bf16 product runs on a CPU with AVX-512 BF16: on vdpbf16ps, or emulated (operands rounded to bf16, then the fp32 FMA kernel: the same rounding, another order of the fp32 additions); auto: vdpbf16ps on AMD CPUs (on Zen 5 it gives 1.8x the FMA's FLOPs), emulated on others (on some Xeons it gives half); decided by the vendor, never by a timing, so the same command gives the same numbers",
    )
    .meta({ env: RUNTIME_ENV.bf16Gemm }),
  llamacppGpu: z
    .enum(LLAMACPP_GPUS)
    .default(LLAMACPP_GPU_DEFAULT)
    .describe(
      "where the llamacpp engine runs llama.cpp: cpu, or a GPU build installed with `npm run install:llamacpp` under the same variable (cuda, vulkan; metal is Apple silicon's one build), or auto (node-llama-cpp picks the best it finds)",
    )
    .meta({ env: RUNTIME_ENV.llamacppGpu }),
  python: z.string().min(1).default('python3').describe("the Python interpreter the sandbox runs (a name on PATH or a path); a stage's own --python wins").meta({ env: RUNTIME_ENV.python }),
  debug: z.boolean().default(false).describe('print the stack trace of an error too').meta({ env: RUNTIME_ENV.debug }),
});
export type RuntimeSettings = z.output<typeof RuntimeSettings>;

/** The `runtime` group settingsCommand adds to every command's schema. */
export const RuntimeGroup = z.strictObject({ runtime: RuntimeSettings.prefault({}).describe('the process: backend, threads, native kernels, Python, errors') });

const FIELDS = settingFields(RuntimeSettings);

/** The runtime settings the environment gives (the schema's defaults for the rest); a bad value is a UsageError naming its variable. */
export function runtimeSettings(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  return settingsFromEnv(RuntimeSettings, env, FIELDS);
}

/**
 * Writes `given` (the runtime settings a --config file, the environment or a flag gave, by key) to the environment,
 * each under its variable in the form runtimeSettings reads back (booleans as 1 / 0): what the process and its
 * workers and children then read.
 */
export function exportRuntime(runtime: RuntimeSettings, given: Iterable<string>): void {
  for (const key of given) {
    const k = key as keyof RuntimeSettings;
    const v = runtime[k];
    process.env[RUNTIME_ENV[k]] = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  }
}
