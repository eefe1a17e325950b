// @rlhf-code/online-bench: measurements of the online service from outside it. The latency bench (Continue-shaped
// requests timed against a served model), the load command (Continue's mixed load of completions, outcomes and status
// calls against `online serve`, with a kill -9 and a restart) and the online learning experiment (does learning from a
// simulated user raise its acceptance on held-out files); commands.ts runs each from its settings.
export { runExperiment, runLatencyBench, runLoadBench } from './commands';
export { ExperimentSettings, LatencySettings, LoadSettings } from './settings';
