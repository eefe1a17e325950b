// The models of the online service, by role. Serving (the HTTP thread): the frozen start model (A/B control) and the
// served copy of the policy, whose weights the trainer's updates replace. Training (libs/online-learning training-worker.ts, a thread of
// its own): the trainable policy and the start model as its KL reference.
//   full fine-tuning  each role its own copy: start + served where it serves, policy + start where it trains
//   LoRA              one frozen base per thread (in training.baseDtype: fp32, bf16 or int8) with adapter sets:
//                     "default" (trained) and "served" (published to); start and served are views of it
import { checkResumedRank, isAdapterFolder, openCheckpoint, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { loraConfigOf } from '@rlhf-code/trainer-core';
import type { OnlineConfig } from './config';

/** Where the models are used: `serve` loads start and served, `train` start and the trainable policy. */
export type ModelRole = 'serve' | 'train';

export interface OnlineModels {
  start: Qwen2Model;
  /** The served copy (serve) or the trainable policy (train). */
  policy: Qwen2Model;
  tokenizer: Tokenizer;
  /** What to dispose when done (with LoRA the base as well as its views). */
  owned: Qwen2Model[];
}

/** The models of one role, the policy from `checkpoint` when given (else the start model, or a new LoRA adapter). */
export async function loadOnlineModels(config: OnlineConfig, checkpoint: string | null, role: ModelRole): Promise<OnlineModels> {
  const t = config.training;
  const lora = loraConfigOf({ ...t, loraDropout: 0 });
  if (!lora) {
    // config.model may be a LoRA adapter folder: every copy is its base with the adapter folded in (every weight trains).
    const { model: start, tokenizer, checkpoint: opened } = await openCheckpoint(config.model, { trainable: false, merge: true });
    if (checkpoint && isAdapterFolder(checkpoint)) {
      start.dispose();
      throw new Error(`${checkpoint}: holds a LoRA adapter; set training.loraRank to resume it`);
    }
    const { model: policy } = await openCheckpoint(opened, { weightsDir: checkpoint ?? undefined, trainable: role === 'train', merge: true, tokenizer: false });
    if (role === 'train') policy.recomputeLayers = t.recomputeLayers;
    return { start, policy, tokenizer, owned: [start, policy] };
  }
  if (checkpoint && !isAdapterFolder(checkpoint)) throw new Error(`${checkpoint}: a full checkpoint; training.loraRank must be 0 to resume it`);
  const { model: base, tokenizer } = await openCheckpoint(config.model, { trainable: false, merge: !checkpoint, weightsDir: checkpoint ?? undefined, baseDtype: t.baseDtype });
  try {
    if (checkpoint) checkResumedRank(checkpoint, base.lora, lora.r, 'training.loraRank');
    else base.addLora(lora, { seed: config.seed }); // seeded: both threads start from the same adapter
  } catch (e) {
    base.dispose();
    throw e;
  }
  if (role === 'train') {
    base.setAdapter('default');
    base.recomputeLayers = t.recomputeLayers;
    const start = base.view(null);
    return { start, policy: base, tokenizer, owned: [start, base] };
  }
  base.addLora(base.lora!, { name: 'served', weights: base.trainableWeights() });
  base.setAdapter('default');
  const [start, policy] = [base.view(null), base.view('served')];
  return { start, policy, tokenizer, owned: [start, base, policy] };
}
