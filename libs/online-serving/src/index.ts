// @rlhf-code/online-serving: the completion server (port 8081, OpenAI's legacy completions API as Continue uses it)
// and where its suggestions are decoded. A request is read (completion-request.ts), admitted and generated
// (completion-scheduling.ts) on the served models in their own thread (generation-thread.ts, generation.ts; the policy's
// weights swapped between decoding steps, policy.ts), held and judged by the show gate when its arm has gate mechanisms
// (completion-gating.ts), then answered and recorded (completion-server.ts).
export { buildCompletionServer, type GateChoice } from './completion-server';
export { GenerationThread } from './generation-thread';
export type { Generator } from './generation';
