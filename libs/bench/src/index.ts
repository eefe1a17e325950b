// @rlhf-code/bench: speed benchmarks of the Qwen2 model on this machine, the comparison with the PyTorch
// yardstick on the same preset, the sandbox's test runs per second, the interpreter tool's calls per second and the native GEMM
// against the machine's peak. commands.ts runs each from its settings; apps/bench is its command line.
export { runCompare, runGemmBench, runGenerateBench, runInterpreterBench, runMemoryBench, runSandboxBench, runTrainBench } from './commands';
export { TORCH_INSTALL } from './compare';
export { BenchCompareSettings, BenchGenerateSettings, BenchTrainSettings, GemmBenchSettings, InterpreterBenchSettings, MemorySettings, SandboxBenchSettings } from './settings';
