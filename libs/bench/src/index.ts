// @rlhf-code/bench: speed benchmarks of the Qwen2 model on this machine, the comparison with the PyTorch
// yardstick on the same preset, the sandbox's test runs per second, the interpreter tool's calls per second and the native GEMM
// against the machine's peak. apps/bench is its command line.
export { benchGenerate, benchTrain } from './speed';
export { compare, TORCH_INSTALL, type BenchMode } from './compare';
export { BenchCompareSettings, BenchSettings, GemmBenchSettings, InterpreterBenchSettings, MemorySettings, PRESET_KEYS, SandboxBenchSettings } from './settings';
export { benchGemm, formatGemmTable } from './gemm';
export { benchInterpreter, benchSandbox } from './sandbox';
export { formatPlan, measureStepPeak, planMemory } from './memory';
