// @rlhf-code/online: the online service behind Continue, wired from its parts: the completion server and the served
// models (@rlhf-code/online-serving), the feedback server and its durable log (@rlhf-code/online-feedback), the trainer
// in its thread (@rlhf-code/online-learning), the show gate (@rlhf-code/online-gate) and the live page
// (@rlhf-code/online-page), over their shared settings and types (@rlhf-code/online-core). `online serve` is runServe.
// The latency bench, the load command and the learning experiment, which drive it from outside, are
// @rlhf-code/online-bench.
export { startMeasuringService, startOnlineService } from './service';
export { runServe } from './serve';
