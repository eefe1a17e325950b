// @rlhf-code/bench: speed benchmarks of the Qwen2 model on this machine, the comparison with the PyTorch
// yardstick on the same preset, and the sandbox's test runs per second. apps/bench is its command line.
export { benchGenerate, benchTrain } from './speed';
export { compare, TORCH_INSTALL, type BenchMode } from './compare';
export { BenchCompareSettings, BenchSettings, MemorySettings, PRESET_KEYS, SandboxBenchSettings } from './settings';
export { benchSandbox } from './sandbox';
export { formatPlan, measureStepPeak, planMemory } from './memory';
