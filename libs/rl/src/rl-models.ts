// The RL stage's models on disk: load policy + frozen reference (+ value head, + reward model), save the policy in
// Hugging Face layout with its v_head beside the weights (transformers ignores it; --resume reads it back).
// With LoRA there is one frozen base in memory: the policy is its "default" adapter, the reference is the base with the
// adapter off, the value head reads the policy's hidden states, and a reward-model adapter made for the same base is a
// second adapter set on it. The checkpoint is then PEFT's adapter folder plus value_head.safetensors.
import * as fs from 'fs';
import * as path from 'path';
import {
  checkResumedRank,
  isAdapterFolder,
  isSequenceClassifier,
  loadMergedWeights,
  modelConfigOf,
  Qwen2Model,
  readSafetensors,
  RewardModel,
  TrainingState,
  type LoraConfig,
} from '@rlhf-code/model';
import type { WeightDtype } from '@rlhf-code/backend';
import { RunDir } from '@rlhf-code/trainer-core';
import { HELDOUT_FILE, HELDOUT_SVG } from './heldout';
import type { RlModels } from './rl-trainer';
import { hasCritic, type RlAlgo } from './algorithms';
import { createValueHead, valueHeadFromWeights, ValueHeadSource } from './value-head';

export interface LoadRlModelsOptions {
  /** The starting policy (SFT checkpoint; an adapter folder counts as its merged model): also the frozen reference. */
  modelDir: string;
  /** Continue training the policy (and v_head) saved here instead; the reference still comes from modelDir. */
  resumeDir?: string;
  algo: RlAlgo;
  /** The reward model's folder (null: none). With LoRA, an RM adapter made for modelDir sits on the policy's base. */
  rewardModelDir?: string | null;
  /** Train a LoRA adapter on the frozen modelDir: the reference is then that base with the adapter off. */
  lora?: LoraConfig | null;
  /** How the frozen weights are held: the reference (full fine-tuning), or the base under the adapter (LoRA). */
  baseDtype?: WeightDtype;
  seed?: number;
}

export interface LoadedRlModels extends RlModels {
  rm: RewardModel | null;
  valueHeadSource: ValueHeadSource | null;
  /** The reward model is an adapter on the policy's own base (no second copy of the weights). */
  rmSharesBase: boolean;
}

/** Value-head tensors of a LoRA run's checkpoint (the adapter files hold only what PEFT knows). */
export const VALUE_HEAD_FILE = 'value_head.safetensors';

export async function loadRlModels(o: LoadRlModelsOptions): Promise<LoadedRlModels> {
  const policyDir = o.resumeDir ?? o.modelDir;
  // Checked on the config alone (an adapter folder's base), before any weights are read.
  if (isSequenceClassifier(modelConfigOf(policyDir))) throw new Error(`${policyDir}: is a reward model (Qwen2ForSequenceClassification); RL needs a causal LM policy`);
  const { policy, reference, savedHead } = o.lora ? await loraPolicy(o, policyDir) : await fullPolicy(o, policyDir);
  let rm: RewardModel | null = null;
  let rmSharesBase = false;
  try {
    if (o.rewardModelDir) {
      // A reward-model adapter made for the same base shares it when that base stays frozen (LoRA); otherwise its own copy.
      const rmBase = await RewardModel.adapterBaseOf(o.rewardModelDir);
      rmSharesBase = o.lora !== null && o.lora !== undefined && rmBase !== null && samePath(rmBase, o.modelDir);
      rm = rmSharesBase ? await RewardModel.onSharedBase(policy, o.rewardModelDir) : await RewardModel.load(o.rewardModelDir, { trainable: false, baseDtype: o.baseDtype });
    }
  } catch (e) {
    policy.dispose();
    reference.dispose();
    throw e;
  }
  const common = { policy, reference, rm, rmSharesBase };
  if (!hasCritic(o.algo)) return { ...common, valueHead: null, valueHeadSource: null };
  if (savedHead) return { ...common, valueHead: savedHead, valueHeadSource: 'checkpoint' };
  const { head, source } = createValueHead(policy.config.hidden_size, rm?.head, o.seed ?? 0);
  return { ...common, valueHead: head, valueHeadSource: source };
}

/** Full fine-tuning: the policy (and its saved v_head) from policyDir, a second, frozen copy of modelDir as reference. */
async function fullPolicy(o: LoadRlModelsOptions, policyDir: string) {
  if (isAdapterFolder(policyDir) && o.resumeDir) throw new Error(`${policyDir}: holds a LoRA adapter; resume with the same --lora-rank`);
  const { config, weights } = await loadMergedWeights(policyDir);
  const policy = Qwen2Model.fromWeights(config, weights);
  const reference = await Qwen2Model.load(o.modelDir, { trainable: false, merge: true, baseDtype: o.baseDtype });
  if (reference.config.vocab_size !== config.vocab_size || reference.config.hidden_size !== config.hidden_size) {
    policy.dispose();
    reference.dispose();
    throw new Error(`${policyDir}: the policy's shape differs from the reference in ${o.modelDir}; resume with the same --model`);
  }
  const savedHead = o.resumeDir && hasCritic(o.algo) ? valueHeadFromWeights(weights, config.hidden_size) : null;
  return { policy, reference, savedHead };
}

/** LoRA: modelDir frozen (merged when it is an adapter itself) with a new adapter, or the adapter saved in policyDir. */
async function loraPolicy(o: LoadRlModelsOptions, policyDir: string) {
  const lora = o.lora!;
  const policy = await Qwen2Model.load(policyDir, { merge: !o.resumeDir, baseDtype: o.baseDtype });
  try {
    if (o.resumeDir) checkResumedRank(policyDir, policy.lora, lora.r);
    else policy.addLora(lora, { seed: o.seed ?? 0 });
  } catch (e) {
    policy.dispose();
    throw e;
  }
  const headFile = path.join(policyDir, VALUE_HEAD_FILE);
  const savedHead = o.resumeDir && hasCritic(o.algo) && fs.existsSync(headFile) ? valueHeadFromWeights(await readSafetensors(headFile), policy.config.hidden_size) : null;
  return { policy, reference: policy.view(null), savedHead };
}

const samePath = (a: string, b: string) => fs.existsSync(a) && fs.existsSync(b) && fs.realpathSync(a) === fs.realpathSync(b);

/** Write the policy (+ v_head) as a checkpoint folder; metrics.jsonl already there is kept. With LoRA: the adapter
 * (base_model_name_or_path = `baseModel`) and value_head.safetensors. */
export async function saveRlCheckpoint(
  dir: string,
  models: Pick<RlModels, 'policy' | 'valueHead'>,
  opts: { tokenizerDir?: string; baseModel?: string; trainingState?: TrainingState; extraFiles?: Record<string, string | object> } = {},
): Promise<void> {
  const content = models.policy.checkpointContent(opts.baseModel ?? '');
  const head = models.valueHead?.hostWeights();
  if (head && !content.adapter) for (const [name, t] of head) content.weights.set(name, t);
  await new RunDir(dir).save({
    ...content,
    extraTensors: head && content.adapter ? { [VALUE_HEAD_FILE]: head } : undefined,
    tokenizerDir: opts.tokenizerDir,
    state: opts.trainingState,
    extraFiles: opts.extraFiles,
    keepFiles: ['metrics.jsonl', HELDOUT_FILE, HELDOUT_SVG], // the run's logs, carried over from the previous save
  });
}
