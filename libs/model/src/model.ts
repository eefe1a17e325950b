// The Qwen2 decoder-only transformer (Hugging Face's Qwen2ForCausalLM) on TensorFlow.js.
//   ids -> embed_tokens -> N x decoder layer -> norm -> lm_head (tied to embed_tokens or not)
// Parameters live in `params`, keyed by Hugging Face's names, so checkpoints map one to one; a base loaded with
// `baseDtype` bf16 or int8 holds its frozen matrices in `frozen` instead (same names, frozen-weights.ts).
import * as tf from '@tensorflow/tfjs';
import { hasNativeKernels, LowPrecisionMatrix, weightShape, type Weight, type WeightDtype } from '@rlhf-code/backend';
import { attention, fusedSelfAttention, LayerKV } from './attention';
import { Attend, BlockWeights, decoderLayer } from './block';
import { expectedParameterShapes, headDim, Qwen2Config } from './config';
import { adapterBase, loadMergedWeights, type CheckpointContent } from './checkpoint-folder';
import { recomputedLayer } from './recompute';
import { decodeForward } from './decode';
import { embedTokens } from './embedding';
import { frozenWeights, isFrozenMatrix } from './frozen-weights';
import { KVCache } from './kv-cache';
import { linear } from './linear';
import { checkLoraConfig, foldAdapter, initLoraWeights, isAdapterFolder, peftName, readAdapter, type LoraConfig, type LoraWeights, type Projection } from './lora';
import { rmsNorm } from './norm';
import { ropeAngles } from './rope';
import { prefixLayout, sharedPrefixForward } from './shared-prefix';
import { HostTensor } from './safetensors';
import { tfSeed } from './tf-seed';

/** Added to the attention scores of masked keys (large and finite: a fully masked row stays NaN-free). */
const MASKED = -1e9;

/** The number of values in a set of parameters (e.g. trainableParams()). */
export const parameterCount = (params: Record<string, tf.Variable>): number => Object.values(params).reduce((n, v) => n + v.size, 0);

/** One LoRA adapter on the model: its settings, its variables by PEFT name, and what each projection reads. */
interface AdapterSet {
  config: LoraConfig;
  vars: Record<string, tf.Variable>;
  byModule: Map<string, LoraWeights>;
}

/** tfjs variable names are global: each model instance gets its own prefix. */
let instances = 0;

export interface ForwardOptions {
  /** [B, T]: 1 for real tokens, 0 for left padding. Default: all ones. */
  mask?: tf.Tensor2D;
  /** Holds keys/values of earlier calls; extended in place with this call's tokens. */
  cache?: KVCache;
  /**
   * Without a cache, on a backend with the native kernels, rows that begin with the same tokens (at least
   * MIN_SHARED_PREFIX: a system prompt, copies of one prompt) have those computed once (shared-prefix.ts): the same
   * result up to float rounding. Default true; false computes every row in full.
   */
  sharePrefix?: boolean;
}

export interface LoadOptions {
  /** false for frozen models (reference policy); default true. */
  trainable?: boolean;
  /** An adapter folder loads with its adapter folded into the weights (no LoRA left) instead of as an active adapter. */
  merge?: boolean;
  /**
   * How the frozen matrices (every layer's seven projections, the embedding and LM head) are held: fp32 (default), or
   * bf16 / int8 for a model that only runs or trains through LoRA (frozen-weights.ts). Norms, biases and adapters stay
   * fp32.
   */
  baseDtype?: WeightDtype;
}

export class Qwen2Model {
  readonly config: Qwen2Config;
  /** HF parameter name -> variable, e.g. "model.layers.0.self_attn.q_proj.weight". */
  readonly params: Record<string, tf.Variable>;
  /** HF parameter name -> frozen bf16 / int8 matrix (empty with an fp32 base): the base's matrices not in `params`. */
  readonly frozen: Record<string, LowPrecisionMatrix>;
  /**
   * Named LoRA adapter sets on this one base ("default": the one a stage trains; PPO may add the reward model's). At most
   * one is active: the forward pass adds its low-rank terms; none active = the base model. With any, the base is frozen.
   */
  private readonly adapterSets: Map<string, AdapterSet> = new Map();
  private active: string | null = null;
  private readonly layers: BlockWeights[];
  /** Recompute each layer in the backward pass instead of keeping its intermediates (recompute.ts). */
  recomputeLayers = false;

  /** A view shares another model's weights and adapters (see view()); disposing it frees nothing. */
  private readonly isView: boolean;

  constructor(config: Qwen2Config, params: Record<string, tf.Variable>, frozen: Record<string, LowPrecisionMatrix> = {}, sharedAdapters?: Map<string, AdapterSet>) {
    this.config = config;
    this.params = params;
    this.frozen = frozen;
    this.isView = sharedAdapters !== undefined;
    if (sharedAdapters) this.adapterSets = sharedAdapters;
    const p = (name: string) => {
      const v = params[name] ?? frozen[name];
      if (!v) throw new Error(`Qwen2Model: missing parameter "${name}"`);
      return v as unknown as tf.Tensor2D & tf.Tensor1D;
    };
    this.layers = [];
    for (let i = 0; i < config.num_hidden_layers; i++) {
      const l = `model.layers.${i}.`;
      this.layers.push({
        input_layernorm: { weight: p(l + 'input_layernorm.weight') },
        self_attn: {
          q_proj: { weight: p(l + 'self_attn.q_proj.weight'), bias: p(l + 'self_attn.q_proj.bias') },
          k_proj: { weight: p(l + 'self_attn.k_proj.weight'), bias: p(l + 'self_attn.k_proj.bias') },
          v_proj: { weight: p(l + 'self_attn.v_proj.weight'), bias: p(l + 'self_attn.v_proj.bias') },
          o_proj: { weight: p(l + 'self_attn.o_proj.weight') },
        },
        post_attention_layernorm: { weight: p(l + 'post_attention_layernorm.weight') },
        mlp: {
          gate_proj: { weight: p(l + 'mlp.gate_proj.weight') },
          up_proj: { weight: p(l + 'mlp.up_proj.weight') },
          down_proj: { weight: p(l + 'mlp.down_proj.weight') },
        },
      });
    }
  }

  /** The projections of every layer that LoRA can adapt, with their weight shapes [out, in]. */
  projections(targets: readonly string[] = []): Projection[] {
    const out: Projection[] = [];
    this.layers.forEach((w, i) => {
      const mods = { ...w.self_attn, ...w.mlp } as Record<string, { weight: Weight }>;
      for (const [target, m] of Object.entries(mods)) {
        if (targets.length > 0 && !targets.includes(target)) continue;
        const group = target in w.self_attn ? 'self_attn' : 'mlp';
        const [rows, cols] = weightShape(m.weight);
        out.push({ module: `model.layers.${i}.${group}.${target}`, target: target as Projection['target'], out: rows, in: cols });
      }
    });
    return out;
  }

  /** The active adapter's settings (null: none active, the base model runs). */
  get lora(): LoraConfig | null {
    return this.active ? this.adapterSets.get(this.active)!.config : null;
  }

  /** The active adapter's variables by PEFT name (empty without one). */
  get adapters(): Record<string, tf.Variable> {
    return this.active ? this.adapterSets.get(this.active)!.vars : {};
  }

  get activeAdapter(): string | null {
    return this.active;
  }

  /**
   * Add a LoRA adapter set `name` (default "default") to the projections of `cfg.targets` (new ones from `seed`, or
   * `weights` by PEFT name: a loaded adapter, checked against this base's shapes), make it the active one and freeze
   * the base weights.
   */
  addLora(cfg: LoraConfig, opts: { name?: string; seed?: number; weights?: Map<string, HostTensor>; where?: string } = {}): void {
    const name = opts.name ?? 'default';
    if (this.adapterSets.has(name)) throw new Error(`addLora: this model already has an adapter named "${name}"`);
    checkLoraConfig(cfg);
    const projections = this.projections(cfg.targets);
    const weights = opts.weights ?? initLoraWeights(projections, cfg.r, opts.seed ?? 0);
    const where = opts.where ?? 'LoRA adapter';
    for (const p of projections) {
      for (const [which, shape] of [['A', [cfg.r, p.in]], ['B', [p.out, cfg.r]]] as const) {
        const tensor = peftName(p.module, which);
        const w = weights.get(tensor);
        if (!w) throw new Error(`${where}: missing tensor ${tensor} (expected shape [${shape}])`);
        if (w.shape.join(',') !== shape.join(',')) {
          throw new Error(`${where}: ${tensor} has shape [${w.shape}], but this base model needs [${shape}] (the adapter was made for another base)`);
        }
      }
    }
    const prefix = `lora_${instances++}/`;
    for (const v of Object.values(this.params)) v.trainable = false;
    const vars: Record<string, tf.Variable> = {};
    const byModule = new Map<string, LoraWeights>();
    for (const p of projections) {
      const make = (which: 'A' | 'B') => {
        const tensor = peftName(p.module, which);
        const w = weights.get(tensor)!;
        const t = tf.tensor(w.data, w.shape);
        vars[tensor] = tf.variable(t, true, prefix + tensor);
        t.dispose();
        return vars[tensor] as unknown as tf.Tensor2D;
      };
      byModule.set(p.module, { A: make('A'), B: make('B'), scale: cfg.alpha / cfg.r, dropout: cfg.dropout, training: false });
    }
    this.adapterSets.set(name, { config: { ...cfg }, vars, byModule });
    this.setAdapter(name);
  }

  /** Make adapter set `name` the active one (null: none, the base model runs). Cheap: it only rewires the layers. */
  setAdapter(name: string | null): void {
    const set = name === null ? null : this.adapterSets.get(name);
    if (set === undefined) throw new Error(`setAdapter: no adapter named "${name}" (have: ${[...this.adapterSets.keys()].join(', ') || 'none'})`);
    this.layers.forEach((w, i) => {
      for (const [group, mods] of [['self_attn', w.self_attn], ['mlp', w.mlp]] as const) {
        for (const [target, m] of Object.entries(mods)) (m as { lora?: LoraWeights }).lora = set?.byModule.get(`model.layers.${i}.${group}.${target}`);
      }
    });
    this.active = name;
  }

  /**
   * Another handle on this model: the same weight and adapter variables (no copy), with its own active adapter (null:
   * the base alone). PPO's reference is the policy's view(null), the online server's served policy is view("served"), a
   * reward-model adapter on the policy's base is view("reward"). Views of one model can run interleaved. dispose() on a
   * view frees nothing: the model it came from owns the variables.
   */
  view(adapter: string | null): Qwen2Model {
    const v = new Qwen2Model(this.config, this.params, this.frozen, this.adapterSets);
    v.setAdapter(adapter);
    return v;
  }

  /** The variables an optimizer updates: the active adapter when there is one, else every parameter. */
  trainableParams(): Record<string, tf.Variable> {
    if (!this.active && this.baseDtype !== 'fp32') throw new Error(`a model with ${this.baseDtype} base weights trains only through a LoRA adapter (add one, or load the base in fp32)`);
    return this.active ? this.adapters : this.params;
  }

  /** How the frozen matrices are held (LoadOptions.baseDtype). */
  get baseDtype(): WeightDtype {
    return Object.values(this.frozen)[0]?.dtype ?? 'fp32';
  }

  /** Training mode turns LoRA dropout on; evaluation and generation run with it off. */
  train(on: boolean): void {
    for (const set of this.adapterSets.values()) for (const l of set.byModule.values()) l.training = on;
  }

  /** The active adapter on the host, by PEFT name (what saveAdapter writes). */
  adapterWeights(): Map<string, HostTensor> {
    return this.lora ? this.trainableWeights() : new Map();
  }

  /**
   * Every base weight with the active adapter folded in (W + alpha/r B A): a plain checkpoint that needs no LoRA. A
   * low-precision base's matrices are taken from `original` when given (the weights of the checkpoint it was loaded
   * from), so that the export carries no bf16 / int8 rounding; every other weight (norms, a reward model's score head)
   * is this model's own. Without `original`, the dequantised base.
   */
  mergedWeights(original?: Map<string, HostTensor>): Map<string, HostTensor> {
    const base = this.hostWeightsWith(original);
    return this.lora ? foldAdapter(base, this.lora, this.adapterWeights()) : base;
  }

  /** What a checkpoint of this model holds: every weight, or with an active adapter only PEFT's adapter files. */
  checkpointContent(baseModel: string): CheckpointContent {
    if (!this.lora) return { config: this.config, weights: this.hostWeights() };
    return { config: this.config, weights: new Map(), adapter: { config: this.lora, tensors: this.adapterWeights(), baseModel } };
  }

  /** Build from host tensors keyed by HF names (as returned by loadCheckpointWeights). */
  static fromWeights(config: Qwen2Config, weights: Map<string, HostTensor>, opts: LoadOptions = {}): Qwen2Model {
    const prefix = `qwen2_${instances++}/`;
    const params: Record<string, tf.Variable> = {};
    const frozen = frozenWeights(config, weights, opts.baseDtype ?? 'fp32');
    for (const [name, shape] of expectedParameterShapes(config)) {
      if (frozen[name]) continue;
      const w = weights.get(name);
      if (!w) throw new Error(`Qwen2Model: missing weight "${name}" (expected shape [${shape}])`);
      const t = tf.tensor(w.data, w.shape);
      params[name] = tf.variable(t, opts.trainable ?? true, prefix + name);
      t.dispose(); // the variable holds its own reference to the data; without this, dispose() frees nothing
    }
    return new Qwen2Model(config, params, frozen);
  }

  /** A freshly initialised model, as HF initialises Qwen2: N(0, initializer_range) weights, zero biases, unit norms. */
  static init(config: Qwen2Config, opts: LoadOptions & { seed?: number } = {}): Qwen2Model {
    const prefix = `qwen2_${instances++}/`;
    const std = config.initializer_range ?? 0.02;
    let seed = opts.seed ?? 0;
    const params: Record<string, tf.Variable> = {};
    const frozen: Record<string, LowPrecisionMatrix> = {};
    const baseDtype = opts.baseDtype ?? 'fp32';
    for (const [name, shape] of expectedParameterShapes(config)) {
      if (baseDtype !== 'fp32' && isFrozenMatrix(name)) {
        const t = tf.randomNormal(shape, 0, std, 'float32', tfSeed(seed++));
        frozen[name] = LowPrecisionMatrix.fromFloat32(t.dataSync() as Float32Array, shape as [number, number], baseDtype);
        t.dispose();
        continue;
      }
      const init = name.endsWith('norm.weight')
        ? tf.ones(shape)
        : name.endsWith('.bias')
          ? tf.zeros(shape)
          : tf.randomNormal(shape, 0, std, 'float32', tfSeed(seed++));
      params[name] = tf.variable(init, opts.trainable ?? true, prefix + name);
      init.dispose(); // see fromWeights
    }
    return new Qwen2Model(config, params, frozen);
  }

  /**
   * Load a Hugging Face checkpoint folder (config.json + model.safetensors or sharded index), or a LoRA adapter folder
   * (PEFT's adapter_config.json + adapter_model.safetensors): its base model (base_model_name_or_path, itself merged
   * when it is an adapter too) with the adapter as the active "default" set, or with `merge` folded into the weights.
   */
  static async load(dir: string, opts: LoadOptions = {}): Promise<Qwen2Model> {
    if (isAdapterFolder(dir) && !opts.merge) {
      const a = await readAdapter(dir);
      const base = await loadMergedWeights(adapterBase(dir, a));
      const model = Qwen2Model.fromWeights(base.config, base.weights, opts);
      try {
        model.addLora(a.config, { weights: a.tensors, where: dir });
      } catch (e) {
        model.dispose();
        throw e;
      }
      return model;
    }
    const { config, weights } = await loadMergedWeights(dir);
    return Qwen2Model.fromWeights(config, weights, opts);
  }

  /**
   * ids: [B, T] int32 -> final hidden states [B, T, D] (after model.norm).
   * Positions follow HF's left-padding convention: position = cumsum(mask) - 1.
   */
  forward(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor3D {
    const { cache } = opts;
    const cfg = this.config;
    const [B, T] = ids.shape;
    const H = cfg.num_attention_heads;
    const KV = cfg.num_key_value_heads ?? H;
    const hd = headDim(cfg);
    const eps = cfg.rms_norm_eps;
    // With a cache, on a backend with the native decode kernels: the decode path (same maths, LoRA terms included, no
    // gradients).
    if (cache && cache.layers.length === 0 && hasNativeKernels()) {
      const mask = opts.mask ? opts.mask.dataSync() : new Float32Array(B * T).fill(1);
      const embed = this.embedding;
      const norm = this.params['model.norm.weight'] as unknown as tf.Tensor1D;
      return decodeForward(ids, mask, cache, embed, norm, this.layers, {
        heads: H, kvHeads: KV, headDim: hd, eps, theta: cfg.rope_theta,
      });
    }
    if (!cache && opts.sharePrefix !== false && B > 1 && hasNativeKernels()) {
      const layout = prefixLayout(ids.dataSync(), opts.mask ? opts.mask.dataSync() : new Float32Array(B * T).fill(1), B, T);
      if (layout) {
        const m = {
          embed: this.embedding, layers: this.layers, finalNorm: this.params['model.norm.weight'] as unknown as tf.Tensor1D,
          heads: H, kvHeads: KV, headDim: hd, eps, theta: cfg.rope_theta, recomputeLayers: this.recomputeLayers,
        };
        return tf.tidy(() => tf.reshape(sharedPrefixForward(m, layout, B, T), [B, T, -1]) as tf.Tensor3D);
      }
    }
    const out = tf.tidy(() => {
      const newMask: tf.Tensor2D = opts.mask ? tf.cast(opts.mask, 'float32') : tf.ones([B, T]);
      const fullMask: tf.Tensor2D = cache?.mask ? tf.concat([cache.mask, newMask], 1) : newMask; // [B, S]
      const S = fullMask.shape[1];
      const P = S - T; // cached positions before this call
      const positions = tf.slice(tf.relu(tf.sub(tf.cumsum(fullMask, 1), 1)), [0, P], [B, T]) as tf.Tensor2D;
      const dims = { batch: B, seq: T, heads: H, kvHeads: KV, headDim: hd };
      // The attention of a layer, built from its context tensors `ctx` (masks, positions or RoPE angles): explicit so
      // that layer recomputation can keep them for the backward pass's rerun of the layer.
      let ctx: tf.Tensor[];
      let attendWith: (ctx: tf.Tensor[]) => Attend;
      if (!cache && hasNativeKernels()) {
        // Training and scoring on a backend with the native attention kernel: masks and RoPE happen inside it.
        ctx = [tf.cast(positions, 'int32'), fullMask];
        attendWith = ([pos, m]) => (h, w) => ({ out: fusedSelfAttention(h, w, dims, pos as tf.Tensor2D, m as tf.Tensor2D, cfg.rope_theta) });
      } else {
        const rope = ropeAngles(positions, hd, cfg.rope_theta);
        // Query t (absolute index P + t) may attend to key j when j <= P + t and key j is not padding.
        const causal = new Float32Array(T * S);
        for (let t = 0; t < T; t++) causal.fill(1, t * S, t * S + P + t + 1);
        const allowed = tf.mul(tf.tensor4d(causal, [1, 1, T, S]), tf.reshape(fullMask, [B, 1, 1, S]));
        ctx = [rope.cos, rope.sin, tf.mul(tf.sub(1, allowed), MASKED)]; // bias [B, 1, T, S]
        let layer = 0;
        attendWith = ([cos, sin, bias]) => (h, w) => attention(h, w, dims, { cos: cos as tf.Tensor4D, sin: sin as tf.Tensor4D }, bias as tf.Tensor4D, cache?.layers[layer++]);
      }
      const attend = attendWith(ctx);

      let x = embedTokens(this.embedding, tf.reshape(ids, [B * T]) as tf.Tensor1D); // [B*T, D]
      const kvs: LayerKV[] = [];
      for (const w of this.layers) {
        if (this.recomputeLayers && !cache) {
          x = recomputedLayer(x, w, eps, attendWith, ctx);
          continue;
        }
        const r = decoderLayer(x, w, eps, attend);
        x = r.out;
        if (r.kv) kvs.push(r.kv);
      }
      const hidden = tf.reshape(rmsNorm(x, this.params['model.norm.weight'] as tf.Variable<tf.Rank.R1>, eps), [B, T, -1]);
      return cache ? { hidden, kvs, fullMask } : { hidden };
    }) as unknown as { hidden: tf.Tensor3D; kvs?: LayerKV[]; fullMask?: tf.Tensor2D };
    if (cache) cache.update(out.kvs!, out.fullMask!);
    return out.hidden;
  }

  /** A matrix [rows, cols] by HF name, float32 or frozen low-precision. */
  private matrix(name: string): Weight {
    return this.frozen[name] ?? (this.params[name] as unknown as tf.Tensor2D);
  }

  /** The token embedding [V, D]. */
  get embedding(): Weight {
    return this.matrix('model.embed_tokens.weight');
  }

  /** The LM head matrix [V, D]: embed_tokens when tied, else lm_head. */
  get lmHeadWeight(): Weight {
    return this.matrix(this.config.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  }

  /** hidden: [N, D] -> logits [N, V] */
  lmHead(hidden: tf.Tensor2D): tf.Tensor2D {
    return linear(hidden, this.lmHeadWeight);
  }

  /** ids: [B, T] -> logits [B, T, V] */
  logits(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor3D {
    return tf.tidy(() => {
      const hidden = this.forward(ids, opts); // [B, T, D]
      const [B, T, D] = hidden.shape;
      return tf.reshape(this.lmHead(tf.reshape(hidden, [B * T, D])), [B, T, -1]) as tf.Tensor3D;
    });
  }

  /** Copy of every parameter to host memory, keyed by HF name (for saving); frozen bf16 / int8 matrices as fp32. */
  hostWeights(): Map<string, HostTensor> {
    return this.hostWeightsWith();
  }

  /** hostWeights, the frozen low-precision matrices taken from `original` where it has them (not dequantised). */
  private hostWeightsWith(original?: Map<string, HostTensor>): Map<string, HostTensor> {
    const out = new Map<string, HostTensor>();
    for (const [name, v] of Object.entries(this.params)) {
      out.set(name, { shape: [...v.shape], data: v.dataSync() as Float32Array });
    }
    for (const [name, m] of Object.entries(this.frozen)) out.set(name, original?.get(name) ?? { shape: [...m.shape], data: m.toFloat32() });
    return out;
  }

  /** The trainable variables on the host (every parameter, or the active adapter's by PEFT name). */
  trainableWeights(): Map<string, HostTensor> {
    return new Map(Object.entries(this.trainableParams()).map(([n, v]) => [n, { shape: [...v.shape], data: v.dataSync() as Float32Array }]));
  }

  /**
   * Load new values into the trainable variables (every parameter, or the active adapter's), keyed as
   * trainableWeights() gives them: e.g. to sync a served policy, where with LoRA only the adapter moves.
   */
  assignWeights(weights: Map<string, HostTensor> | Record<string, tf.Tensor>): void {
    for (const [name, v] of Object.entries(this.trainableParams())) {
      const src = weights instanceof Map ? weights.get(name) : weights[name];
      if (!src) throw new Error(`assignWeights: missing "${name}"`);
      const t = src instanceof tf.Tensor ? src : tf.tensor(src.data, src.shape);
      if (t.shape.join(',') !== v.shape.join(',')) {
        throw new Error(`assignWeights: "${name}" has shape [${t.shape}], expected [${v.shape}]`);
      }
      v.assign(t);
      if (t !== src) t.dispose();
    }
  }

  get numParams(): number {
    return parameterCount(this.params) + Object.values(this.frozen).reduce((n, m) => n + m.shape[0] * m.shape[1], 0);
  }

  dispose(): void {
    if (this.isView) return;
    for (const v of Object.values(this.params)) v.dispose();
    for (const m of Object.values(this.frozen)) m.dispose();
    for (const set of this.adapterSets.values()) for (const v of Object.values(set.vars)) v.dispose();
  }
}
