// LoRA (Hu et al. 2021) on the Qwen2 projections, in PEFT's layout so that `peft` and vLLM load the adapters:
//   y = x W^T + b + (alpha / r) * dropout(x) A^T B^T        A: [r, in] (Kaiming-uniform), B: [out, r] (zeros)
// The base weights stay frozen (no gradient, no optimizer state); only A and B train. B starts at zero, so a fresh
// adapter leaves the model's outputs unchanged. Files: adapter_config.json + adapter_model.safetensors with PEFT's
// tensor names (base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight, ...).
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { resumableRng } from './sampling';
import { readSafetensors, writeFileAtomic, writeSafetensors, type HostTensor } from './safetensors';

export const LORA_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';

export interface LoraConfig {
  r: number;
  alpha: number;
  dropout: number;
  targets: LoraTarget[];
}

/** The adapter of one projection, as the forward pass reads it. */
export interface LoraWeights {
  A: tf.Tensor2D; // [r, in]
  B: tf.Tensor2D; // [out, r]
  scale: number; // alpha / r
  dropout: number;
  /** Dropout applies only while training (set by Qwen2Model.train). */
  training: boolean;
}

/** A projection of the model: `model.layers.{i}.self_attn.q_proj`, with its [out, in] weight. */
export interface Projection {
  module: string;
  target: LoraTarget;
  out: number;
  in: number;
}

/** Check a LoRA configuration; every problem names the setting. */
export function checkLoraConfig(c: LoraConfig): void {
  if (!Number.isInteger(c.r) || c.r < 1) throw new Error(`LoRA rank must be a positive integer, got ${c.r}`);
  if (!(c.alpha > 0)) throw new Error(`LoRA alpha must be > 0, got ${c.alpha}`);
  if (!(c.dropout >= 0 && c.dropout < 1)) throw new Error(`LoRA dropout must be in [0, 1), got ${c.dropout}`);
  if (c.targets.length === 0) throw new Error('LoRA targets: at least one projection');
  const bad = c.targets.find((t) => !(LORA_TARGETS as readonly string[]).includes(t));
  if (bad !== undefined) throw new Error(`LoRA target "${bad}" is not a projection of a Qwen2 layer (${LORA_TARGETS.join(', ')})`);
}

/** Resuming needs the rank the run was saved with (0: a full checkpoint); `setting` names where the user sets it. */
export function checkResumedRank(where: string, saved: LoraConfig | null, rank: number, setting = '--lora-rank'): void {
  const have = saved?.r ?? 0;
  if (have !== rank) throw new Error(`${where}: cannot resume: its adapter has rank ${have}, ${setting} is ${rank} (resume with the same settings)`);
}

/** PEFT's name of an adapter tensor: base_model.model.<module>.lora_A.weight */
export const peftName = (module: string, which: 'A' | 'B') => `base_model.model.${module}.lora_${which}.weight`;

/** New adapter tensors for `projections`: A Kaiming-uniform as PEFT (bound 1 / sqrt(in)), B zeros. */
export function initLoraWeights(projections: readonly Projection[], r: number, seed: number): Map<string, HostTensor> {
  const rng = resumableRng(`lora:${seed}`);
  const out = new Map<string, HostTensor>();
  for (const p of projections) {
    const a = new Float32Array(r * p.in);
    const bound = 1 / Math.sqrt(p.in); // kaiming_uniform_(a = sqrt(5)): sqrt(6 / ((1 + 5) * fan_in))
    for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
    out.set(peftName(p.module, 'A'), { shape: [r, p.in], data: a });
    out.set(peftName(p.module, 'B'), { shape: [p.out, r], data: new Float32Array(p.out * r) });
  }
  return out;
}

/** The LoRA term of one projection: x [N, in] -> scale * dropout(x) A^T B^T [N, out]. */
export function loraDelta(x: tf.Tensor2D, l: LoraWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const xin = l.training && l.dropout > 0 ? (tf.dropout(x, l.dropout) as tf.Tensor2D) : x;
    const down = tf.matMul(xin, l.A, false, true); // [N, r]
    return tf.matMul(down, tf.mul(l.B, l.scale), false, true) as tf.Tensor2D; // [N, out]; the scale on B [out, r], not on [N, out]
  });
}

/**
 * `weights` (host tensors by HF name) with an adapter folded in: W + alpha/r B A for every adapted projection, the
 * other tensors shared. The merged model computes what base + adapter computes, with no LoRA left.
 */
export function foldAdapter(weights: Map<string, HostTensor>, cfg: LoraConfig, tensors: Map<string, HostTensor>): Map<string, HostTensor> {
  const out = new Map(weights);
  const scale = cfg.alpha / cfg.r;
  for (const name of tensors.keys()) {
    const m = /^base_model\.model\.(.+)\.lora_A\.weight$/.exec(name);
    if (!m) continue;
    const w = weights.get(`${m[1]}.weight`);
    const A = tensors.get(name)!;
    const B = tensors.get(peftName(m[1], 'B'));
    if (!w || !B) throw new Error(`foldAdapter: ${m[1]}: ${!w ? 'no such weight in the base' : 'lora_B missing'}`);
    const merged = tf.tidy(() => tf.add(tf.tensor(w.data, w.shape), tf.mul(tf.matMul(tf.tensor2d(B.data, B.shape as [number, number]), tf.tensor2d(A.data, A.shape as [number, number])), scale)));
    out.set(`${m[1]}.weight`, { shape: [...w.shape], data: merged.dataSync() as Float32Array });
    merged.dispose();
  }
  return out;
}

/** PEFT's name of a fully trained head saved with the adapter (modules_to_save): the reward model's `score`. */
export const SCORE_TENSOR = 'base_model.model.score.weight';

const AdapterConfigSchema = z.looseObject({
  peft_type: z.literal('LORA'),
  r: z.number().int().positive(),
  lora_alpha: z.number().positive(),
  lora_dropout: z.number().min(0).lt(1).default(0),
  target_modules: z.union([z.array(z.string()), z.string()]),
  base_model_name_or_path: z.string().nullish(),
  task_type: z.string().nullish(),
});

/** An adapter as a checkpoint folder holds it: its settings, its tensors by PEFT name, and the base it was made for. */
export interface AdapterFiles {
  config: LoraConfig;
  tensors: Map<string, HostTensor>;
  baseModel: string;
}

/** Write adapter_config.json + adapter_model.safetensors into `dir` (created). */
export async function saveAdapter(dir: string, cfg: LoraConfig, tensors: Map<string, HostTensor>, baseModel: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true });
  await writeAdapterFiles(dir, { config: cfg, tensors, baseModel });
}

/** The two PEFT files, into an existing folder. */
export async function writeAdapterFiles(dir: string, a: AdapterFiles): Promise<void> {
  const { config: cfg, tensors, baseModel } = a;
  const classifier = tensors.has(SCORE_TENSOR); // a reward model: the adapter plus its trained score head
  const config = {
    peft_type: 'LORA',
    task_type: classifier ? 'SEQ_CLS' : 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: cfg.r,
    lora_alpha: cfg.alpha,
    lora_dropout: cfg.dropout,
    target_modules: cfg.targets,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    modules_to_save: classifier ? ['score'] : null,
  };
  await writeSafetensors(path.join(dir, ADAPTER_WEIGHTS_FILE), tensors, { metadata: { format: 'pt' } });
  await writeFileAtomic(path.join(dir, ADAPTER_CONFIG_FILE), JSON.stringify(config, null, 2) + '\n');
}

/** Read an adapter folder; errors name the file and the field. */
export async function readAdapter(dir: string): Promise<{ config: LoraConfig; tensors: Map<string, HostTensor>; baseModel: string | null; taskType: string | null }> {
  const file = path.join(dir, ADAPTER_CONFIG_FILE);
  if (!fs.existsSync(file)) throw new Error(`${dir}: not a LoRA adapter folder (${ADAPTER_CONFIG_FILE} not found)`);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const r = AdapterConfigSchema.safeParse(json);
  if (!r.success) throw new Error(`${file}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const targets = (typeof r.data.target_modules === 'string' ? [r.data.target_modules] : r.data.target_modules) as LoraTarget[];
  const config = { r: r.data.r, alpha: r.data.lora_alpha, dropout: r.data.lora_dropout, targets };
  try {
    checkLoraConfig(config);
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  return { config, tensors: await readSafetensors(path.join(dir, ADAPTER_WEIGHTS_FILE)), baseModel: r.data.base_model_name_or_path ?? null, taskType: r.data.task_type ?? null };
}

/** A folder that holds a LoRA adapter and no full model (adapter_config.json without config.json). */
export function isAdapterFolder(dir: string): boolean {
  return fs.existsSync(path.join(dir, ADAPTER_CONFIG_FILE)) && !fs.existsSync(path.join(dir, 'config.json'));
}
