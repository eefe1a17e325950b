// The Hugging Face Qwen2 `config.json` (model_type "qwen2": Qwen2, Qwen2.5 and Qwen2.5-Coder).
//
// parseConfig validates the fields the model needs and keeps every other field untouched
// (transformers_version, use_cache, max_window_layers, ...), so a config written back by
// writeConfig still loads in transformers. Missing optional fields get Hugging Face's Qwen2Config
// defaults; num_key_value_heads is filled in (as transformers does) and headDim(cfg) gives the
// per-head width, so model code never re-derives either. Newer transformers versions store the RoPE
// base inside `rope_parameters`; rope_theta is taken from there when the top level lacks it.
// Features this project's model does not implement (RoPE scaling, sliding-window attention,
// activations other than SiLU) are rejected rather than silently ignored.
//
// Parameter names and shapes follow the Hugging Face state dict: Linear weights are [out, in];
// q/k/v projections have biases, o_proj and the MLP do not.
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { writeFileAtomic } from './safetensors';

const count = z.int().positive();
const tokenId = z.int().nonnegative();

const Qwen2ConfigSchema = z.looseObject({
  model_type: z.literal('qwen2'),
  architectures: z.array(z.string()).optional(), // e.g. ["Qwen2ForCausalLM"]
  hidden_size: count, // D
  intermediate_size: count, // MLP width
  num_hidden_layers: count,
  num_attention_heads: count, // H
  num_key_value_heads: count.optional(), // KV heads for grouped-query attention; default H
  head_dim: count.optional(), // default D / H
  vocab_size: count, // V
  max_position_embeddings: count.default(32768),
  rms_norm_eps: z.number().positive().default(1e-6),
  rope_theta: z.number().positive().optional(), // RoPE base; default 10000 (transformers')
  tie_word_embeddings: z.boolean().default(false), // lm_head shares embed_tokens' weight
  hidden_act: z.literal('silu', { error: 'only "silu" is supported' }).default('silu'),
  bos_token_id: tokenId.nullish(),
  eos_token_id: z.union([tokenId, z.array(tokenId).min(1)]).nullish(),
  torch_dtype: z.string().optional(), // dtype of the stored weights, e.g. "bfloat16"
  rope_scaling: z.null({ error: 'RoPE scaling is not supported; remove it or set it to null' }).optional(),
  rope_parameters: z
    .looseObject({
      rope_type: z.literal('default', { error: 'only rope_type "default" is supported' }).optional(),
      rope_theta: z.number().positive().optional(),
    })
    .nullish(),
  use_sliding_window: z.literal(false, { error: 'sliding-window attention is not supported' }).optional(),
  layer_types: z.array(z.literal('full_attention', { error: 'only "full_attention" layers are supported' })).optional(),
  initializer_range: z.number().positive().default(0.02), // std of the normal init of new weights
  id2label: z.record(z.string(), z.string()).optional(), // sequence classification labels
});

export type Qwen2Config = z.output<typeof Qwen2ConfigSchema> & { num_key_value_heads: number; rope_theta: number };
/** What makeConfig accepts: any field of the config, each optional. */
export type Qwen2ConfigInput = Partial<z.input<typeof Qwen2ConfigSchema>>;

/** Validate a parsed config.json; `source` (usually its path) prefixes every error. */
export function parseConfig(json: unknown, source: string): Qwen2Config {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`${source}: config must be a JSON object`);
  }
  const modelType = (json as Record<string, unknown>).model_type;
  if (modelType !== 'qwen2') {
    throw new Error(
      modelType === undefined
        ? `${source}: missing model_type (expected "qwen2")`
        : `${source}: unsupported model_type ${JSON.stringify(modelType)} (only "qwen2" is supported)`,
    );
  }
  const result = Qwen2ConfigSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${source}: invalid Qwen2 config: ${problems.join('; ')}`);
  }
  const c = result.data;
  const kvHeads = c.num_key_value_heads ?? c.num_attention_heads;
  if (c.num_attention_heads % kvHeads !== 0) {
    throw new Error(
      `${source}: num_attention_heads (${c.num_attention_heads}) must be divisible by num_key_value_heads (${kvHeads})`,
    );
  }
  if (c.head_dim === undefined && c.hidden_size % c.num_attention_heads !== 0) {
    throw new Error(
      `${source}: hidden_size (${c.hidden_size}) must be divisible by num_attention_heads ` +
        `(${c.num_attention_heads}) when head_dim is not given`,
    );
  }
  const nestedTheta = c.rope_parameters?.rope_theta;
  if (c.rope_theta !== undefined && nestedTheta !== undefined && c.rope_theta !== nestedTheta) {
    throw new Error(`${source}: rope_theta (${c.rope_theta}) disagrees with rope_parameters.rope_theta (${nestedTheta})`);
  }
  return { ...c, num_key_value_heads: kvHeads, rope_theta: c.rope_theta ?? nestedTheta ?? 10000 };
}

/** Width of one attention head: head_dim when the config gives it, else hidden_size / heads. */
export function headDim(cfg: Qwen2Config): number {
  return cfg.head_dim ?? cfg.hidden_size / cfg.num_attention_heads;
}

/** Read and validate `<dir>/config.json` (synchronous: it is a few hundred bytes). */
export function readConfig(dir: string): Qwen2Config {
  const file = path.join(dir, 'config.json');
  if (!fs.existsSync(dir)) throw new Error(`model folder ${dir} does not exist`);
  if (!fs.existsSync(file)) throw new Error(`${dir} is not a model folder: ${file} not found (expected a Hugging Face checkpoint: config.json + model.safetensors)`);
  return readConfigFile(file);
}

/** Read and validate a config.json given by its path; errors name the file and the field. */
export function readConfigFile(file: string): Qwen2Config {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseConfig(json, file);
}

/** Write `<dir>/config.json` atomically, unknown fields included. */
export async function writeConfig(dir: string, cfg: Qwen2Config): Promise<void> {
  const file = path.join(dir, 'config.json');
  parseConfig(cfg, file); // never write a config we could not read back
  await writeFileAtomic(file, JSON.stringify(cfg, null, 2) + '\n');
}

/**
 * A config for a new model: a small Qwen2 (4 layers, D 256, GQA 4:2) sized for the Qwen2.5
 * tokenizer (vocab 151936, <|endoftext|> = 151643 as bos and eos), with Qwen2.5's RoPE theta and
 * norm epsilon and tied embeddings. Any field can be overridden.
 */
export function makeConfig(partial: Qwen2ConfigInput = {}): Qwen2Config {
  const defaults = {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: 256,
    intermediate_size: 1024,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: 151936,
    max_position_embeddings: 2048,
    rms_norm_eps: 1e-6,
    rope_theta: 1e6,
    tie_word_embeddings: true,
    hidden_act: 'silu',
    bos_token_id: 151643,
    eos_token_id: 151643,
    torch_dtype: 'float32',
    use_sliding_window: false,
    attention_dropout: 0.0,
    initializer_range: 0.02,
  };
  return parseConfig({ ...defaults, ...partial }, 'makeConfig');
}

/** True for a Qwen2ForSequenceClassification config (a `score` head instead of `lm_head`). */
export function isSequenceClassifier(cfg: Qwen2Config): boolean {
  return cfg.architectures?.[0] === 'Qwen2ForSequenceClassification';
}

/** Classifier outputs: the number of id2label entries, or 2 (transformers' default). */
export function numLabels(cfg: Qwen2Config): number {
  return cfg.id2label ? Object.keys(cfg.id2label).length : 2;
}

/**
 * Every parameter of the Hugging Face model with its shape, in model order. A causal LM ends with
 * lm_head.weight [V, D] unless tied to the embedding; a sequence classifier ends with
 * score.weight [num_labels, D] and has no lm_head.
 */
export function expectedParameterShapes(cfg: Qwen2Config): Map<string, number[]> {
  const D = cfg.hidden_size;
  const q = cfg.num_attention_heads * headDim(cfg); // query width H * hd
  const kv = cfg.num_key_value_heads * headDim(cfg); // key/value width KV * hd
  const I = cfg.intermediate_size;
  const shapes = new Map<string, number[]>([['model.embed_tokens.weight', [cfg.vocab_size, D]]]);
  for (let i = 0; i < cfg.num_hidden_layers; i++) {
    const p = `model.layers.${i}.`;
    shapes.set(p + 'input_layernorm.weight', [D]);
    shapes.set(p + 'self_attn.q_proj.weight', [q, D]);
    shapes.set(p + 'self_attn.q_proj.bias', [q]);
    shapes.set(p + 'self_attn.k_proj.weight', [kv, D]);
    shapes.set(p + 'self_attn.k_proj.bias', [kv]);
    shapes.set(p + 'self_attn.v_proj.weight', [kv, D]);
    shapes.set(p + 'self_attn.v_proj.bias', [kv]);
    shapes.set(p + 'self_attn.o_proj.weight', [D, q]);
    shapes.set(p + 'post_attention_layernorm.weight', [D]);
    shapes.set(p + 'mlp.gate_proj.weight', [I, D]);
    shapes.set(p + 'mlp.up_proj.weight', [I, D]);
    shapes.set(p + 'mlp.down_proj.weight', [D, I]);
  }
  shapes.set('model.norm.weight', [D]);
  if (isSequenceClassifier(cfg)) shapes.set('score.weight', [numLabels(cfg), D]);
  else if (!cfg.tie_word_embeddings) shapes.set('lm_head.weight', [cfg.vocab_size, D]);
  return shapes;
}
