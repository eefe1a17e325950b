// @rlhf-code/bench: speed benchmarks of the Qwen2 model on this machine, and the comparison with the PyTorch
// yardstick on the same preset. apps/bench is its command line.
export { benchGenerate, benchTrain } from './speed';
export { compare, TORCH_INSTALL, type BenchMode } from './compare';
export { BenchCompareSettings, BenchSettings, MemorySettings, PRESET_KEYS } from './settings';
export { formatPlan, measureStepPeak, planMemory } from './memory';
