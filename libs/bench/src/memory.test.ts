// The memory planner: its counts against real models, its stage arithmetic, and its peaks against tf.profile's
// measured peaks of real steps on small configs (none of them among the configs the coefficients were fitted on).
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { LORA_TARGETS, makeConfig, parameterCount, Qwen2Model } from '@rlhf-code/model';
import { measureStepPeak, parameterCounts, planMemory, type MemoryPlanInput } from './memory';

beforeAll(() => initBackend({ quiet: true }));

const small = (o: Partial<{ D: number; L: number; H: number; KV: number; I: number; V: number; tie: boolean }> = {}) =>
  makeConfig({
    hidden_size: o.D ?? 80,
    num_hidden_layers: o.L ?? 3,
    num_attention_heads: o.H ?? 5,
    num_key_value_heads: o.KV ?? 1,
    intermediate_size: o.I ?? 200,
    vocab_size: o.V ?? 1000,
    tie_word_embeddings: o.tie ?? true,
    max_position_embeddings: 512,
  });

test('parameter counts match real models, with and without an adapter', () => {
  const config = small({ tie: false });
  const m = Qwen2Model.init(config);
  const targets = ['q_proj', 'v_proj', 'down_proj'] as const;
  m.addLora({ r: 3, alpha: 6, dropout: 0, targets: [...targets] }, { seed: 1 });
  const counts = parameterCounts(config, 3, targets);
  expect(counts.params).toBe(m.numParams);
  expect(counts.adapter).toBe(parameterCount(m.trainableParams()));
  expect(counts.adaptedOut).toBe(80 + 16 + 80); // q, v (one kv head of 16), down
  m.dispose();
});

test('stage arithmetic: the roles each stage holds, full and LoRA', () => {
  const config = small();
  const base = { config, loraTargets: [...LORA_TARGETS], batchSize: 2, seqLen: 32 };
  const { params, adapter } = parameterCounts(config, 4, LORA_TARGETS);
  const rmParams = params + 80; // tied: no lm_head to drop; + the score head
  const sft = planMemory({ ...base, stage: 'sft', loraRank: 0 });
  expect(sft.components.weights).toBe(4 * params);
  expect(sft.components.optimizer).toBe(8 * params);
  expect(sft.components.kv_cache).toBe(0);
  const ppoFull = planMemory({ ...base, stage: 'ppo', loraRank: 0 });
  expect(ppoFull.reward_model).toBe('separate');
  expect(ppoFull.components.weights).toBe(4 * (2 * params + rmParams + 81)); // policy, reference, reward model, v_head
  const ppoLora = planMemory({ ...base, stage: 'ppo', loraRank: 4 });
  expect(ppoLora.reward_model).toBe('shared');
  expect(ppoLora.components.weights).toBe(4 * (params + adapter + adapter + 80 + 81)); // one base, two adapters, two heads
  expect(ppoLora.trainable).toBe(adapter + 81);
  expect(planMemory({ ...base, stage: 'online', loraRank: 0 }).components.weights).toBe(4 * 3 * params);
  expect(planMemory({ ...base, stage: 'online', loraRank: 4 }).components.weights).toBe(4 * (params + 2 * adapter));
  // Recomputation keeps less per layer; the defaults come from the stage's settings.
  expect(planMemory({ ...base, stage: 'sft', loraRank: 0, recomputeLayers: true }).components.activations).toBeLessThan(sft.components.activations);
  expect(planMemory({ config, stage: 'sft', loraRank: 0, loraTargets: [...LORA_TARGETS] })).toMatchObject({ batch_size: 8, seq_len: 512 });
  expect(planMemory({ config, stage: 'ppo', loraRank: 0, loraTargets: [...LORA_TARGETS] })).toMatchObject({ batch_size: 4, seq_len: 384, response_len: 128 });
});

test('Qwen2.5-Coder-0.5B: 494,032,768 parameters', () => {
  const config = makeConfig({
    hidden_size: 896, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, intermediate_size: 4864, vocab_size: 151936,
    tie_word_embeddings: true, max_position_embeddings: 32768,
  });
  expect(planMemory({ config, stage: 'sft', loraRank: 0, loraTargets: [...LORA_TARGETS] }).params).toBe(494032768);
  // A low-precision base: its 493,961,216 matrix values (all but 43,904 norm and 27,648 bias values) in 456,064 rows
  // (151,936 embedding + 24 x 12,672) at 2 bytes (bf16) or 1 byte plus a 4-byte scale per row (int8) instead of 4.
  const lora = { config, stage: 'sft' as const, loraRank: 8, loraTargets: [...LORA_TARGETS] };
  const fp32 = planMemory(lora).components.weights;
  expect(fp32 - planMemory({ ...lora, baseDtype: 'bf16' }).components.weights).toBe(2 * 493961216);
  expect(fp32 - planMemory({ ...lora, baseDtype: 'int8' }).components.weights).toBe(3 * 493961216 - 4 * 456064);
  expect(planMemory({ ...lora, baseDtype: 'int8' }).base_dtype).toBe('int8');
  expect(() => planMemory({ ...lora, loraRank: 0, baseDtype: 'int8' })).toThrow(/trains only through LoRA/);
});

// Measured against planned: within 20% (the bar), on shapes and settings the fit never saw.
const cases: [string, Omit<MemoryPlanInput, 'loraTargets'> & { loraTargets?: MemoryPlanInput['loraTargets'] }][] = [
  ['sft, full', { config: small(), stage: 'sft', loraRank: 0, batchSize: 3, seqLen: 40 }],
  ['sft, LoRA r=6 on q, k, v, o', { config: small({ I: 160, V: 1500 }), stage: 'sft', loraRank: 6, loraTargets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], batchSize: 2, seqLen: 56 }],
  ['sft, full, recomputation', { config: small({ L: 5 }), stage: 'sft', loraRank: 0, batchSize: 2, seqLen: 40, recomputeLayers: true }],
  ['rm, full', { config: small({ D: 48, H: 4, KV: 2 }), stage: 'rm', loraRank: 0, batchSize: 4, seqLen: 30 }],
  ['rm, LoRA r=4, recomputation', { config: small(), stage: 'rm', loraRank: 4, batchSize: 2, seqLen: 40, recomputeLayers: true }],
  ['ppo, LoRA r=4 (reference = the base)', { config: small(), stage: 'ppo', loraRank: 4, batchSize: 2, seqLen: 40, responseLen: 12, rewardModel: 'none' }],
  ['ppo, full', { config: small({ V: 2000 }), stage: 'ppo', loraRank: 0, batchSize: 2, seqLen: 36, responseLen: 10, rewardModel: 'none' }],
];

test.each(cases)('%s: the planned peak is within 20%% of the measured one, and nothing leaks', async (_name, c) => {
  const input: MemoryPlanInput = { loraTargets: [...LORA_TARGETS], ...c };
  const before = tf.memory().numTensors;
  const measured = await measureStepPeak(input);
  expect(tf.memory().numTensors).toBe(before);
  const planned = planMemory(input).total;
  expect(Math.abs(planned / measured - 1)).toBeLessThan(0.2);
});
