// @rlhf-code/bench: speed benchmarks of the Qwen2 model on this machine, the comparison with the PyTorch
// yardstick on the same preset, the sandbox's test runs per second and the interpreter tool's calls per second. apps/bench is its command line.
export { benchGenerate, benchTrain } from './speed';
export { compare, TORCH_INSTALL, type BenchMode } from './compare';
export { BenchCompareSettings, BenchSettings, InterpreterBenchSettings, MemorySettings, PRESET_KEYS, SandboxBenchSettings } from './settings';
export { benchInterpreter, benchSandbox } from './sandbox';
export { formatPlan, measureStepPeak, planMemory } from './memory';
