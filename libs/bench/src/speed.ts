// Training and generation speed of a randomly initialised Qwen2 of the preset's shape, on the current backend.
// One record each: what `bench train` and `bench generate` print as a JSON line.
import * as tf from '@tensorflow/tfjs';
import * as os from 'os';
import { markdownTable } from '@rlhf-code/cli';
import { nativeAddon, withLowPrecisionActivations, type GemmKernel } from '@rlhf-code/backend';
import { openEngine, type RolloutEngine } from '@rlhf-code/engine';
import { generateBatch, LORA_TARGETS, makeConfig, openCheckpoint, Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy, Trainer } from '@rlhf-code/trainer-core';
import { median } from './compare';
import type { BenchGenerateSettings, BenchSettings, BenchTrainSettings } from './settings';

function presetModel(f: BenchSettings): Qwen2Model {
  const config = makeConfig({
    hidden_size: f.hidden,
    num_hidden_layers: f.layers,
    num_attention_heads: f.heads,
    num_key_value_heads: f.kv,
    intermediate_size: f.ffn,
    vocab_size: f.vocab,
    tie_word_embeddings: true,
    max_position_embeddings: Math.max(2048, f.seq + f.new),
  });
  const model = Qwen2Model.init(config, { seed: 0, baseDtype: f.baseDtype });
  // An adapter on every projection, B random (a fresh B = 0 would let nothing flow through it).
  if (f.loraRank > 0) {
    model.addLora({ r: f.loraRank, alpha: 2 * f.loraRank, dropout: 0, targets: [...LORA_TARGETS] }, { seed: 1 });
    tf.tidy(() => Object.entries(model.adapters).forEach(([name, v], i) => name.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.02, 'float32', i))));
  }
  return model;
}

/** What a record says about the weights: how the base is held and the adapter's rank. */
const weightsOf = (f: BenchSettings) => ({ base_dtype: f.baseDtype, lora_rank: f.loraRank, ...(f.baseDtype === 'int8' ? { int8_activations: f.int8Activations } : {}) });

/** Random token rows [batch, seq + 1], as the torch reference uses; with sharedPrefix, every row begins as the first. */
function randomTokens(f: Pick<BenchSettings, 'batch' | 'seq' | 'vocab'> & { sharedPrefix?: number }): Int32Array {
  const width = f.seq + 1;
  const ids = new Int32Array(f.batch * width);
  for (let i = 0; i < ids.length; i++) ids[i] = Math.floor(Math.random() * f.vocab);
  for (let b = 1; b < f.batch; b++) ids.copyWithin(b * width, 0, f.sharedPrefix ?? 0);
  return ids;
}

/**
 * The matrix FLOPs of a training step of the preset: per token, the projections and the LM head (2 per weight forward)
 * and attention's scores and weighted sum (2 x 2 x seq x heads x head_dim per layer, the full square), times 3 for
 * forward + backward (the input and the weight gradients), or 2 with LoRA (the frozen weights get no gradient; the
 * adapters' own products are left out).
 */
export function trainStepFlops(f: Pick<BenchSettings, 'hidden' | 'layers' | 'heads' | 'kv' | 'ffn' | 'vocab' | 'seq' | 'batch' | 'loraRank'>): number {
  const hd = f.hidden / f.heads;
  const projections = f.layers * (f.hidden * (f.heads + 2 * f.kv) * hd + f.heads * hd * f.hidden + 3 * f.hidden * f.ffn) + f.vocab * f.hidden;
  const perToken = 2 * projections + f.layers * 4 * f.seq * f.heads * hd;
  return (f.loraRank > 0 ? 2 : 3) * perToken * f.batch * f.seq;
}

/** The register-only peak (GFLOP/s, all the addon's threads) of the instruction a step's products use; null without the addon. */
function stepPeak(precision: BenchSettings['precision']): { kernel: GemmKernel; gflops: number } | null {
  const addon = nativeAddon();
  if (!addon) return null;
  const active = addon.gemmKernels().active;
  const kernel: GemmKernel = active === 'avx2' ? 'avx2' : precision === 'bf16' && active === 'avx512bf16' ? 'avx512bf16' : 'avx512';
  return { kernel, gflops: addon.peakGflops(kernel, 0.5) };
}

/**
 * Median seconds of a training step (forward, loss, backward, AdamW) after one warm-up step, an int8 base's products
 * as --int8-activations says (as sft and rm train), for this benchmark only.
 */
export const benchTrain = (f: BenchTrainSettings): Promise<Record<string, unknown>> => withLowPrecisionActivations(f.int8Activations, async () => trainSpeed(f));

/** One kernel's share of a profiled step: milliseconds summed over its calls. */
export interface KernelTime {
  kernel: string;
  calls: number;
  ms: number;
}

/**
 * Where one step's time goes: `step` run under tf.profile, each kernel's wall milliseconds (the wasm backend times a
 * kernel as the wall time of its call) summed over its calls, largest first (the scopes of custom-gradient functions
 * left out: their kernels are listed themselves); `other_ms` is the step's wall time outside any kernel (the tape,
 * tfjs bookkeeping, JS between kernels).
 */
export async function profileStep(step: () => void): Promise<{ step_ms: number; kernels: KernelTime[]; other_ms: number }> {
  const t0 = performance.now();
  const info = await tf.profile(step);
  const stepMs = performance.now() - t0;
  const by = new Map<string, KernelTime>();
  const backend = tf.getBackend();
  for (const k of info.kernels) {
    // A custom-gradient function is recorded as a scope around kernels that are recorded too: kernels only.
    if (tf.getKernel(k.name, backend) == null) continue;
    const ms = Number(await k.kernelTimeMs) || 0; // {error: ...} when a backend cannot time it: counted as 0
    const row = by.get(k.name) ?? { kernel: k.name, calls: 0, ms: 0 };
    row.calls++;
    row.ms += ms;
    by.set(k.name, row);
  }
  const kernels = [...by.values()].sort((a, b) => b.ms - a.ms).map((r) => ({ ...r, ms: Math.round(r.ms * 100) / 100 }));
  const inKernels = kernels.reduce((s, r) => s + r.ms, 0);
  return { step_ms: Math.round(stepMs * 10) / 10, kernels, other_ms: Math.round((stepMs - inKernels) * 10) / 10 };
}

/** The profile as a (markdown) table: kernel, calls, ms, share of the step; then the step's time under the profiler. */
export function formatProfile(p: { step_ms: number; kernels: KernelTime[]; other_ms: number }): string {
  const pct = (ms: number) => `${((100 * ms) / p.step_ms).toFixed(1)}%`;
  const rows = [...p.kernels.map((k) => [k.kernel, String(k.calls), k.ms.toFixed(1), pct(k.ms)]), ['(outside kernels)', '', p.other_ms.toFixed(1), pct(p.other_ms)]];
  return markdownTable(['kernel', 'calls', 'ms', 'share'], rows) + `\nstep under the profiler: ${p.step_ms} ms`;
}

async function trainSpeed(f: BenchTrainSettings): Promise<Record<string, unknown>> {
  if (f.sharedPrefix >= f.seq) throw new Error(`--shared-prefix must be below --seq (${f.seq}), got ${f.sharedPrefix}`);
  const model = presetModel(f);
  const trainer = new Trainer(model.trainableParams(), { optimizer: { lr: 1e-4 }, schedule: { totalSteps: f.steps + 1, kind: 'constant' }, maxGradNorm: 0, precision: f.precision });
  try {
    const tokens = randomTokens(f);
    const loss = () =>
      tf.tidy(() => {
        const all = tf.tensor2d(tokens, [f.batch, f.seq + 1], 'int32');
        const ids = tf.slice(all, [0, 0], [f.batch, f.seq]) as tf.Tensor2D;
        const targets = tf.reshape(tf.slice(all, [0, 1], [f.batch, f.seq]), [-1]);
        const logits = model.logits(ids); // [B, T, V]
        return { loss: sparseCrossEntropy(tf.reshape(logits, [f.batch * f.seq, f.vocab]), targets) };
      });
    trainer.step([{ loss }]); // warm-up: kernels compiled, optimizer state created
    const times: number[] = [];
    for (let i = 0; i < f.steps; i++) {
      const t0 = performance.now();
      trainer.step([{ loss }]);
      times.push((performance.now() - t0) / 1000);
    }
    const step_s = median(times);
    // Profiled after the timed steps, so the profiler's own cost is in none of them.
    const profile = f.profile ? await profileStep(() => trainer.step([{ loss }])) : undefined;
    if (profile) process.stderr.write(formatProfile(profile) + '\n');
    // The whole step's matrix FLOPs over its time (the non-matrix ops count as time, not FLOPs), beside the peak.
    const achieved = trainStepFlops(f) / step_s / 1e9;
    const peak = stepPeak(f.precision);
    return {
      mode: 'train', params: model.numParams, ...weightsOf(f), precision: f.precision, shared_prefix: f.sharedPrefix, step_s, tokens_per_s: (f.batch * f.seq) / step_s,
      achieved_gflops: Math.round(achieved * 10) / 10,
      peak_gflops: peak ? Math.round(peak.gflops * 10) / 10 : null,
      peak_kernel: peak?.kernel ?? null,
      percent_of_peak: peak ? Math.round((1000 * achieved) / peak.gflops) / 10 : null,
      ...(profile ? { profile } : {}),
    };
  } finally {
    trainer.dispose();
    model.dispose();
  }
}

/**
 * Greedy generation, batch 1: time to first token and decode speed of the median run. The preset's random model on the
 * project's decoder (generateBatch with its KV cache); or, with --model, a checkpoint on the rollout engine --engine
 * names (the engine interface every sampling stage uses), each run on a fresh random prompt so that no engine reuses
 * an earlier run's prefix.
 */
export async function benchGenerate(f: BenchGenerateSettings): Promise<Record<string, unknown>> {
  const opened = f.model === undefined ? null : await openCheckpoint(f.model, { flag: '--model', baseDtype: f.baseDtype });
  const model = opened?.model ?? presetModel(f);
  const vocab = opened ? opened.tokenizer.vocabSize : f.vocab;
  let engine: RolloutEngine | null = null;
  try {
    if (opened) engine = await openEngine(f, { model, tokenizer: opened.tokenizer, checkpointDir: f.model! }); // in the try: a failed open still disposes the model
    const once = async () => {
      const prompt = Array.from(randomTokens({ seq: f.seq, vocab, batch: 1 }).subarray(0, f.seq));
      let steps = 0;
      let ttft = 0;
      const t0 = performance.now();
      const beforeStep = () => {
        if (steps++ === 1) ttft = performance.now() - t0; // the first token has been chosen
      };
      if (engine !== null) await engine.sample([prompt], { maxNewTokens: f.new, minNewTokens: f.new, temperature: 0, stopIds: [], vocabSize: vocab, beforeStep });
      else await generateBatch(model, [prompt], { maxNewTokens: f.new, greedy: true, beforeStep });
      return { ttft, total: performance.now() - t0 };
    };
    await once(); // warm-up
    const runs: { ttft: number; total: number }[] = [];
    for (let i = 0; i < f.steps; i++) runs.push(await once());
    runs.sort((a, b) => a.total - b.total);
    const { ttft, total } = runs[Math.floor(runs.length / 2)];
    return {
      mode: 'generate',
      ...(opened ? { model: f.model, engine: f.engine, ...(f.engine === 'llamacpp' ? { engine_weights: f.engineWeights, engine_threads: f.engineThreads ?? os.availableParallelism() } : {}) } : {}),
      params: model.numParams,
      ...weightsOf(f),
      prompt_tokens: f.seq,
      new_tokens: f.new,
      ttft_ms: ttft,
      total_ms: total,
      decode_tokens_per_s: ((f.new - 1) * 1000) / (total - ttft),
    };
  } finally {
    await engine?.close();
    model.dispose();
  }
}
