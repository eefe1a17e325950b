// The memory planner: the expected peak of a training stage, per component, for any Qwen2 config, before loading it.
//
//   weights      every model the stage holds (fp32): policy, reference, reward model, served copy; with LoRA one
//                frozen base and small adapters (the reference is the base without the adapter, a reward-model
//                adapter sits on the same base when both were made for it), the base's matrices at 2 bytes a value
//                with baseDtype bf16, 1 (+ a scale per row) with int8; the activation terms are kept as measured in fp32
//   optimizer    AdamW's two moments of every trainable value
//   gradients    the step's gradients: the accumulator, the micro-batch's gradients, the clipped copy (about 4x)
//   activations  what the backward pass keeps of one micro-batch's forward pass
//   kv_cache     keys and values of generation (PPO's rollout, the online server's request)
//
// Activations are an empirical model of this implementation (tfjs's gradient tape with the native fused attention):
// c_head x V per position through the LM head + (c_vocab + c_headWeight) x V x D once (copies of the embedding /
// head matrix; c_vocab alone without an LM head) + per token
// c_embed x D + per token per layer (c_D x D + c_I x I + c_KV x kv width + c_lora x the adapted output widths). The coefficients were fitted to tf.profile peaks of
// real steps on small configs (EXPERIMENTS.md, 2026-11-25) and the tests check other configs against measured peaks.
// With layer recomputation a layer keeps only its input, and one layer's intermediates live at a time.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import type { WeightDtype } from '@rlhf-code/backend';
import { expectedParameterShapes, headDim, isFrozenMatrix, LORA_TARGETS, Qwen2Model, RewardModel, saveCheckpoint, type LoraConfig, type Qwen2Config } from '@rlhf-code/model';
import { createValueHead, policyGradientSettings, RlTrainer } from '@rlhf-code/rl';
import { padLmBatch, rmLoss, SftSettings, RmSettings, lmMicroBatch } from '@rlhf-code/train';
import { Trainer } from '@rlhf-code/trainer-core';
import { parseOnlineConfig } from '@rlhf-code/online-core';

export const MEMORY_STAGES = ['sft', 'rm', 'ppo', 'online'] as const;
export type MemoryStage = (typeof MEMORY_STAGES)[number];
export type LoraTarget = (typeof LORA_TARGETS)[number];

export interface MemoryPlanInput {
  config: Qwen2Config;
  stage: MemoryStage;
  /** 0 = full fine-tuning. */
  loraRank: number;
  loraTargets: readonly LoraTarget[];
  /** Rows per micro-batch (default: the stage's). */
  batchSize?: number;
  /** Tokens per row: prompt + response (default: the stage's longest). */
  seqLen?: number;
  /** ppo / online: response tokens per row (through the LM head; default: the stage's). */
  responseLen?: number;
  recomputeLayers?: boolean;
  /** ppo: where the reward model lives (default: an adapter on the policy's base with LoRA, else its own copy). */
  rewardModel?: 'shared' | 'separate' | 'none';
  /** How the frozen base's matrices are held (default fp32; bf16 / int8 need LoRA). */
  baseDtype?: WeightDtype;
}

export const COMPONENTS = ['weights', 'optimizer', 'gradients', 'activations', 'kv_cache'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface MemoryPlan {
  stage: MemoryStage;
  lora_rank: number;
  batch_size: number;
  seq_len: number;
  response_len: number;
  recompute_layers: boolean;
  reward_model: string | null;
  base_dtype: WeightDtype;
  /** Parameters of the base model, and trainable ones. */
  params: number;
  trainable: number;
  /** Bytes. */
  components: Record<Component, number>;
  total: number;
}

/** Floats per token of the activation model (see the top of this file). */
const ACT = {
  head: 1.6, // per vocabulary entry, per position through the LM head (logits, the fused softmax cross-entropy, its gradient)
  vocabWeight: 1, // per embedding value, once, every stage (a copy of the [V, D] matrix; measured at 0.5B's shape)
  headWeight: 1.25, // per LM-head weight value, once more: the transposed copies of the [V, D] matrix its products make
  embed: 17.9, // per hidden unit, once (embedding, final norm, the head's input and their gradients)
  layerD: 23.6, // per hidden unit per layer (norms, q and o projections, residuals, the attention's output)
  layerI: 4.7, // per MLP unit per layer (gate, up, SiLU, product)
  layerKV: 12.7, // per key/value unit per layer
  lora: 7.2, // per output unit of each adapted projection per layer (its low-rank path and the sum)
  // With layer recomputation: what a layer keeps, and one layer's intermediates during its rerun.
  ckptKeep: 2.8, // per hidden unit per layer: the kept input, the output and the gradient that flows through it
  ckptLayers: 1, // one layer's intermediates (the rerun)
};

const GRAD_COPIES = 3.6; // accumulator + micro-batch gradients + clipped copy (+ part of a transient of the update), fitted

/** The stage's own defaults for the shapes (from its settings schema: one place). */
function stageDefaults(stage: MemoryStage): { batchSize: number; seqLen: number; responseLen: number } {
  switch (stage) {
    case 'sft': {
      const s = SftSettings.parse({});
      return { batchSize: s.batchSize, seqLen: s.maxLen, responseLen: 0 };
    }
    case 'rm': {
      const s = RmSettings.parse({});
      return { batchSize: s.batchSize, seqLen: s.maxLen, responseLen: 0 };
    }
    case 'ppo': {
      const s = policyGradientSettings({});
      return { batchSize: s.microBatchSize, seqLen: s.maxPromptLen + s.maxNewTokens, responseLen: s.maxNewTokens };
    }
    case 'online': {
      const s = parseOnlineConfig({});
      return { batchSize: 1, seqLen: s.completion.maxPromptTokens + s.completion.maxTokensCap, responseLen: s.completion.maxTokensCap };
    }
  }
}

/** Parameter counts of a config: the whole model, one LoRA adapter of rank r, and the sum of its output widths per layer. */
export function parameterCounts(config: Qwen2Config, r: number, targets: readonly string[]): { params: number; adapter: number; adaptedOut: number } {
  let params = 0;
  let adapter = 0;
  let adaptedOut = 0;
  for (const [name, shape] of expectedParameterShapes(config)) {
    params += shape.reduce((a, b) => a * b, 1);
    const m = /^model\.layers\.(\d+)\.\w+\.(\w+)\.weight$/.exec(name);
    if (r > 0 && m && targets.includes(m[2])) {
      adapter += r * (shape[0] + shape[1]);
      if (m[1] === '0') adaptedOut += shape[0];
    }
  }
  return { params, adapter, adaptedOut };
}

/** Shapes [rows, cols] of the matrices a low-precision base holds frozen (without the LM head: a reward model's). */
function frozenMatrices(config: Qwen2Config, noLmHead: boolean): number[][] {
  return [...expectedParameterShapes(config)].filter(([name]) => isFrozenMatrix(name) && !(noLmHead && name === 'lm_head.weight')).map(([, shape]) => shape);
}

/** The planner (see the top of this file). */
export function planMemory(i: MemoryPlanInput): MemoryPlan {
  const c = i.config;
  const d = stageDefaults(i.stage);
  const B = i.batchSize ?? d.batchSize;
  const T = i.seqLen ?? d.seqLen;
  const R = i.stage === 'ppo' || i.stage === 'online' ? Math.min(i.responseLen ?? d.responseLen, T - 1) : T - 1;
  const lora = i.loraRank > 0;
  const gc = i.recomputeLayers ?? false;
  const D = c.hidden_size;
  const L = c.num_hidden_layers;
  const kvWidth = (c.num_key_value_heads ?? c.num_attention_heads) * headDim(c);
  const { params, adapter, adaptedOut } = parameterCounts(c, i.loraRank, i.loraTargets);
  const rmParams = params - (c.tie_word_embeddings ? 0 : c.vocab_size * D) + D; // no lm_head, a score head
  const rewardModel = i.stage === 'ppo' ? (i.rewardModel ?? (lora ? 'shared' : 'separate')) : null;
  const baseDtype = i.baseDtype ?? 'fp32';
  if (baseDtype !== 'fp32' && !lora) throw new Error(`a base in ${baseDtype} trains only through LoRA: set --lora-rank`);

  // Weights (values).
  let weights: number;
  switch (i.stage) {
    case 'sft':
      weights = params + adapter;
      break;
    case 'rm':
      weights = rmParams + adapter;
      break;
    case 'ppo': {
      const reward = rewardModel === 'none' ? 0 : rewardModel === 'shared' ? adapter + D : rmParams + adapter;
      weights = (lora ? params + adapter : 2 * params) + reward + D + 1; // + the value head
      break;
    }
    case 'online':
      weights = lora ? params + 2 * adapter : 3 * params; // start, policy, served copy
      break;
  }
  const head = i.stage === 'rm' ? D : i.stage === 'ppo' ? D + 1 : 0;
  const trainable = (lora ? adapter : i.stage === 'rm' ? rmParams : params) + (lora ? head : 0);

  // Activations of one micro-batch (values).
  const N = B * T;
  const headRows = i.stage === 'rm' ? 0 : B * R;
  const perLayer = ACT.layerD * D + ACT.layerI * c.intermediate_size + ACT.layerKV * kvWidth + (lora ? ACT.lora * adaptedOut : 0);
  const layers = gc ? N * (ACT.ckptKeep * D * L + ACT.ckptLayers * perLayer) : N * L * perLayer;
  const lmHead = i.stage === 'rm' ? 0 : ACT.head * headRows * c.vocab_size + ACT.headWeight * c.vocab_size * D;
  const activations = lmHead + ACT.vocabWeight * c.vocab_size * D + N * ACT.embed * D + layers;
  const kvCache = i.stage === 'ppo' || i.stage === 'online' ? 2 * L * B * kvWidth * T : 0;

  const bytes = (values: number) => Math.round(values * 4);
  // The one frozen base of a LoRA stage with its matrices in low precision: 4 bytes less 2 (bf16) or 3 (int8, plus a
  // 4-byte scale per row) per value of those matrices (a reward model's base has no LM head of its own).
  const saved = baseDtype === 'fp32' ? 0 : frozenMatrices(c, i.stage === 'rm').reduce((n, [rows, cols]) => n + (baseDtype === 'bf16' ? 2 * rows * cols : 3 * rows * cols - 4 * rows), 0);
  const components: Record<Component, number> = {
    weights: bytes(weights) - saved,
    optimizer: bytes(2 * trainable),
    gradients: bytes(GRAD_COPIES * trainable),
    activations: bytes(activations),
    kv_cache: bytes(kvCache),
  };
  // PPO's rollout (KV cache) and update (gradients, activations) come one after the other; the online server
  // decodes between the update's steps, so there they add up.
  const working =
    i.stage === 'ppo' ? Math.max(components.gradients + components.activations, components.kv_cache) : components.gradients + components.activations + components.kv_cache;
  return {
    stage: i.stage,
    lora_rank: i.loraRank,
    batch_size: B,
    seq_len: T,
    response_len: i.stage === 'ppo' || i.stage === 'online' ? R : 0,
    recompute_layers: gc,
    reward_model: rewardModel,
    base_dtype: baseDtype,
    params,
    trainable,
    components,
    total: components.weights + components.optimizer + working,
  };
}

/** The plan as a table (MB = 10^6 bytes; GiB beside totals above 1 GiB). */
export function formatPlan(p: MemoryPlan): string {
  const mb = (b: number) => (b / 1e6).toFixed(1).padStart(10);
  const lines = [
    `stage ${p.stage}${p.lora_rank > 0 ? `, LoRA r=${p.lora_rank}` : ', full fine-tuning'}${p.base_dtype !== 'fp32' ? `, ${p.base_dtype} base` : ''}, batch ${p.batch_size} x ${p.seq_len} tokens` +
      (p.response_len ? ` (${p.response_len} response)` : '') +
      (p.recompute_layers ? ', layer recomputation' : '') +
      (p.reward_model ? `, reward model ${p.reward_model}` : ''),
    `parameters ${p.params.toLocaleString('en-US')}, trainable ${p.trainable.toLocaleString('en-US')}`,
    `${'component'.padEnd(12)}${'MB'.padStart(10)}`,
    ...COMPONENTS.map((k) => `${k.padEnd(12)}${mb(p.components[k])}`),
    `${'peak'.padEnd(12)}${mb(p.total)}  (${(p.total / 2 ** 30).toFixed(2)} GiB)`,
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Measurement: one real step of the stage on a randomly initialised model of the config, its peak by tf.profile.

const randomRows = (B: number, T: number, V: number, seed: number) => Array.from({ length: B }, (_, b) => Array.from({ length: T }, (_, t) => (seed + b * 7919 + t * 104729) % V));

/**
 * Peak bytes of tf's memory during the second step of the stage (the first creates the optimizer state), counting
 * every tensor alive (the models too); sft, rm and ppo (PPO with the reward model left out: scores are random).
 */
export async function measureStepPeak(i: MemoryPlanInput): Promise<number> {
  const plan = planMemory(i);
  const B = plan.batch_size;
  const T = plan.seq_len;
  const V = i.config.vocab_size;
  const lora: LoraConfig | null = i.loraRank > 0 ? { r: i.loraRank, alpha: 2 * i.loraRank, dropout: 0, targets: [...i.loraTargets] } : null;
  const before = tf.memory().numBytes;
  const disposers: (() => void)[] = [];
  try {
    let step: () => Promise<void>;
    if (i.stage === 'sft') {
      const m = Qwen2Model.init(i.config, { seed: 1 });
      disposers.push(() => m.dispose());
      if (lora) m.addLora(lora, { seed: 1 });
      m.recomputeLayers = plan.recompute_layers;
      const trainer = new Trainer(m.trainableParams(), { optimizer: { lr: 1e-5 }, schedule: { totalSteps: 10, kind: 'constant' }, maxGradNorm: 1 });
      disposers.push(() => trainer.dispose());
      const batch = padLmBatch(randomRows(B, T, V, 1).map((ids) => ({ ids, lossMask: ids.map(() => 1) })), 0);
      step = async () => void trainer.step([lmMicroBatch(m, batch)]);
    } else if (i.stage === 'rm') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-rm-'));
      const lm = Qwen2Model.init(i.config, { seed: 1 });
      await saveCheckpoint(dir, { config: i.config, weights: lm.hostWeights() });
      lm.dispose();
      const rm = await RewardModel.fromCausalLM(dir, { padTokenId: 0 });
      fs.rmSync(dir, { recursive: true, force: true });
      disposers.push(() => rm.dispose());
      if (lora) rm.addLora(lora, 1);
      rm.backbone.recomputeLayers = plan.recompute_layers;
      const trainer = new Trainer(rm.trainableParams(), { optimizer: { lr: 1e-5 }, schedule: { totalSteps: 10, kind: 'constant' }, maxGradNorm: 1 });
      disposers.push(() => trainer.dispose());
      const examples = randomRows(B, T, V, 2).map((ids, k) => ({ ids, score: k % 2, group: String(k) }));
      step = async () => void trainer.step([{ loss: () => ({ loss: rmLoss(rm, examples, 0) }) }]);
    } else if (i.stage === 'ppo') {
      const policy = Qwen2Model.init(i.config, { seed: 1 });
      disposers.push(() => policy.dispose());
      if (lora) policy.addLora(lora, { seed: 1 });
      policy.recomputeLayers = plan.recompute_layers;
      const reference = lora ? policy.view(null) : Qwen2Model.init(i.config, { seed: 1, trainable: false });
      disposers.push(() => reference.dispose());
      const valueHead = createValueHead(i.config.hidden_size, null, 1).head;
      disposers.push(() => valueHead.dispose());
      const settings = policyGradientSettings({ microBatchSize: B, batchSize: B, maxNewTokens: plan.response_len, ppoEpochs: 1, miniBatches: 1, lr: 1e-5, heldoutData: 'none' });
      let n = 0;
      const scorer = async (s: readonly unknown[]) => ({ scores: s.map(() => Math.sin(++n)), parts: {} });
      const ppo = new RlTrainer({ policy, reference, valueHead }, scorer, settings, { padId: 0, stopTokenIds: [] });
      disposers.push(() => ppo.dispose());
      const prompts = randomRows(B, T - plan.response_len, V, 3).map((ids, index) => ({ index, ids }));
      step = async () => void (await ppo.step(prompts));
    } else {
      throw new Error('measureStepPeak: the online stage is measured by the service itself (its peak includes serving)');
    }
    await step();
    const profile = await tf.profile(step);
    return profile.peakBytes - before;
  } finally {
    for (const d of disposers.reverse()) d();
  }
}
