// @rlhf-code/agent: multi-turn episodes in which the policy calls a Python interpreter tool (issue 18): the rollout
// over the checkpoint's own chat template, with the model's own tokens marked for training (episode.ts). Its public
// exports arrive with their first user (the tool-use GRPO stage); until then the tests import episode.ts directly.
export {};
