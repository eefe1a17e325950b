// The PPO stage's models on disk: load policy + frozen reference (+ value head), save the policy in
// Hugging Face layout with its v_head beside the weights (transformers ignores it; --resume reads it back).
import {
  isSequenceClassifier,
  loadCheckpointWeights,
  Qwen2Model,
  readConfig,
  ScalarHead,
  TrainingState,
} from '@rlhf-code/model';
import { RunDir } from '@rlhf-code/train';
import { HELDOUT_FILE, HELDOUT_SVG } from './heldout';
import type { PpoModels } from './ppo-trainer';
import type { PpoAlgo } from './settings';
import { createValueHead, valueHeadFromWeights, ValueHeadSource } from './value-head';

export interface LoadPpoModelsOptions {
  /** The starting policy (SFT checkpoint): also the frozen reference. */
  modelDir: string;
  /** Continue training the policy (and v_head) saved here instead; the reference still comes from modelDir. */
  resumeDir?: string;
  algo: PpoAlgo;
  /** The reward model's head, to initialise a new v_head from (PPO). */
  rewardHead?: ScalarHead | null;
  seed?: number;
}

export async function loadPpoModels(o: LoadPpoModelsOptions): Promise<PpoModels & { valueHeadSource: ValueHeadSource | null }> {
  const policyDir = o.resumeDir ?? o.modelDir;
  const config = readConfig(policyDir);
  if (isSequenceClassifier(config)) throw new Error(`${policyDir}: is a reward model (Qwen2ForSequenceClassification); PPO needs a causal LM policy`);
  const weights = await loadCheckpointWeights(policyDir, config);
  const policy = Qwen2Model.fromWeights(config, weights);
  const reference = await Qwen2Model.load(o.modelDir, { trainable: false });
  if (reference.config.vocab_size !== config.vocab_size || reference.config.hidden_size !== config.hidden_size) {
    throw new Error(`${policyDir}: the policy's shape differs from the reference in ${o.modelDir}; resume with the same --model`);
  }
  if (o.algo === 'grpo') return { policy, reference, valueHead: null, valueHeadSource: null };
  const saved = o.resumeDir ? valueHeadFromWeights(weights, config.hidden_size) : null;
  if (saved) return { policy, reference, valueHead: saved, valueHeadSource: 'checkpoint' };
  const { head, source } = createValueHead(config.hidden_size, o.rewardHead, o.seed ?? 0);
  return { policy, reference, valueHead: head, valueHeadSource: source };
}

/** Write the policy (+ v_head) as a checkpoint folder; metrics.jsonl already there is kept. */
export async function savePpoCheckpoint(
  dir: string,
  models: Pick<PpoModels, 'policy' | 'valueHead'>,
  opts: { tokenizerDir?: string; trainingState?: TrainingState; extraFiles?: Record<string, string | object> } = {},
): Promise<void> {
  const weights = models.policy.hostWeights();
  if (models.valueHead) for (const [name, t] of models.valueHead.hostWeights()) weights.set(name, t);
  await new RunDir(dir).save({
    config: models.policy.config,
    weights,
    tokenizerDir: opts.tokenizerDir,
    state: opts.trainingState,
    extraFiles: opts.extraFiles,
    keepFiles: ['metrics.jsonl', HELDOUT_FILE, HELDOUT_SVG], // the run's logs, carried over from the previous save
  });
}
