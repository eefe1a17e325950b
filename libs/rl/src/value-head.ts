// The critic. A full second model (TRL's PPOv2 default: a copy of the reward model) doubles memory and
// compute, which a 2-core CPU cannot afford, so the value function is a scalar head `v_head` (Linear(D, 1)
// with bias) on the policy's own final hidden states, as TRL's AutoModelForCausalLMWithValueHead does.
// The policy and the value head share the backbone and train together (loss = policy + vfCoef * value).
// It starts from the reward model's `score` head when the shapes match: both read hidden states of models
// fine-tuned from the same SFT checkpoint, so the first value estimates are close to the final score
// instead of random.
import * as tf from '@tensorflow/tfjs';
import { HostTensor, ScalarHead } from '@rlhf-code/model';

export const VALUE_HEAD_NAME = 'v_head';

export type ValueHeadSource = 'reward-model' | 'random' | 'checkpoint';

/** A new v_head for a policy of width `hiddenSize`, copied from `rewardHead` when it is [1, hiddenSize]. */
export function createValueHead(hiddenSize: number, rewardHead?: ScalarHead | null, seed = 0): { head: ScalarHead; source: ValueHeadSource } {
  if (rewardHead && tf.util.arraysEqual(rewardHead.weight.shape, [1, hiddenSize])) {
    const w = tf.clone(rewardHead.weight); // a copy: the reward model stays frozen
    const b = rewardHead.bias ? tf.clone(rewardHead.bias) : tf.zeros([1]);
    const head = new ScalarHead(VALUE_HEAD_NAME, w, b);
    tf.dispose([w, b]);
    return { head, source: 'reward-model' };
  }
  return { head: ScalarHead.init(hiddenSize, { name: VALUE_HEAD_NAME, bias: true, seed }), source: 'random' };
}

/** The v_head saved beside a policy's weights (as saveCheckpoint writes it), or null if the checkpoint has none. */
export function valueHeadFromWeights(weights: Map<string, HostTensor>, hiddenSize: number): ScalarHead | null {
  return weights.has(`${VALUE_HEAD_NAME}.weight`) ? ScalarHead.fromWeights(VALUE_HEAD_NAME, weights, hiddenSize) : null;
}
