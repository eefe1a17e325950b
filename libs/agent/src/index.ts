// @rlhf-code/agent: multi-turn episodes in which the policy calls a Python interpreter tool: the rollout
// over the checkpoint's own chat template with the model's own tokens marked for training (episode.ts), GRPO over
// those episodes (tool-grpo.ts), the SFT warm-start's traces (warm-start.ts), judging (judge.ts), and the three
// stages of apps/tool-rl with their settings (stages.ts, settings.ts).
export { runToolEval, runToolGrpo, runToolWarmStart } from './stages';
export { ToolEvalSettings, ToolGrpoSettings, ToolWarmStartSettings } from './settings';
