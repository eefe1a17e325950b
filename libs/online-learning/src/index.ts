// @rlhf-code/online-learning: how the policy learns from the outcomes, in a thread of its own (training-thread.ts,
// training-worker.ts). An update is the clipped update on the served suggestions' own outcomes (online-trainer.ts,
// rewards.ts) and / or RL against a reward model of the user fitted on them (user-reward-model.ts, user-rm-rl.ts,
// hindsight.ts); it reports update-metrics.ts; policy checkpoints are policy-checkpoints.ts.
export { TrainingThread, type TrainingWorker } from './training-thread';
export type { UpdateMetrics } from './update-metrics';
export { listCheckpoints, loadOnlineState } from './policy-checkpoints';
