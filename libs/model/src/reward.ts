// A reward model: the Qwen2 backbone plus a bias-free Linear(D, 1) called `score`, read at each row's last
// real token. This is Hugging Face's Qwen2ForSequenceClassification with num_labels = 1, so a checkpoint
// saved here loads in transformers (and back) one to one: config.architectures names the class, the
// head is `score.weight` [1, D] and there is no lm_head. With LoRA, the backbone is frozen and an adapter plus the
// score head train; saved in PEFT's layout (task SEQ_CLS, the head as modules_to_save), it can also sit on a base
// that is already in memory (PPO's policy) as a second adapter set.
import * as tf from '@tensorflow/tfjs';
import { adapterBase, loadCheckpointWeights, loadMergedWeights, saveCheckpoint, type CheckpointContent, type SaveCheckpointOptions } from './checkpoint-folder';
import { isSequenceClassifier, numLabels, parseConfig, Qwen2Config, readConfig } from './config';
import { isAdapterFolder, readAdapter, SCORE_TENSOR, type LoraConfig } from './lora';
import { ScalarHead } from './heads';
import { Qwen2Model, type LoadOptions } from './model';
import { tfSeed } from './tf-seed';

/** A causal-LM config as the reward model's: Qwen2ForSequenceClassification with one label. */
function classifierConfig(lm: Qwen2Config, padTokenId: number, where: string): Qwen2Config {
  return parseConfig(
    { ...lm, architectures: ['Qwen2ForSequenceClassification'], id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 }, pad_token_id: padTokenId },
    `${where} (as a reward model)`,
  );
}

export class RewardModel {
  /** Reads the backbone's final hidden states; its weight is the `score.weight` variable. */
  readonly head: ScalarHead;

  /**
   * backbone: the Qwen2 trunk, with LoRA its adapter active; `baseModel`: the folder of the base the adapter was made
   * for. `shared`: the backbone is a view of someone else's model (PPO's policy): only the head is this model's own.
   */
  private constructor(
    readonly backbone: Qwen2Model,
    readonly config: Qwen2Config,
    score: tf.Variable,
    private readonly baseModel: string | null,
    private readonly shared = false,
  ) {
    this.head = new ScalarHead('score', score, null);
  }

  /** A full reward-model backbone: a Qwen2ForSequenceClassification model whose own parameters include score.weight. */
  private static ofClassifier(backbone: Qwen2Model, baseModel: string | null): RewardModel {
    if (!isSequenceClassifier(backbone.config) || numLabels(backbone.config) !== 1) {
      throw new Error('RewardModel: expected a Qwen2ForSequenceClassification config with one label');
    }
    return new RewardModel(backbone, backbone.config, backbone.params['score.weight'], baseModel);
  }

  /** The parameters a trainer updates: every one, or with LoRA the adapter and the score head. */
  trainableParams(): Record<string, tf.Variable> {
    return this.backbone.lora ? { ...this.backbone.adapters, 'score.weight': this.head.weight } : this.backbone.params;
  }

  /** Train LoRA adapters (and the score head) instead of every weight: the backbone is frozen. */
  addLora(cfg: LoraConfig, seed: number): void {
    if (this.shared) throw new Error('RewardModel.addLora: this reward model shares a base it does not own');
    this.backbone.addLora(cfg, { seed });
    this.head.weight.trainable = true; // a fully trained head next to the adapter (PEFT's modules_to_save)
  }

  /**
   * Load a reward model: a Qwen2ForSequenceClassification checkpoint (one label), or a LoRA adapter folder whose
   * adapter_model.safetensors also holds the score head (task_type SEQ_CLS), on its causal-LM base.
   */
  static async load(dir: string, opts: Pick<LoadOptions, 'trainable' | 'baseDtype'> = {}): Promise<RewardModel> {
    if (isAdapterFolder(dir)) {
      const a = await readRewardAdapter(dir);
      const baseDir = adapterBase(dir, a);
      const base = await loadMergedWeights(baseDir);
      const config = classifierConfig(base.config, rewardPadId(base.config), `${baseDir}/config.json`);
      base.weights.delete('lm_head.weight');
      base.weights.set('score.weight', a.tensors.get(SCORE_TENSOR)!);
      const backbone = Qwen2Model.fromWeights(config, base.weights, opts);
      backbone.addLora(a.config, { weights: a.tensors, where: dir });
      const rm = new RewardModel(backbone, config, backbone.params['score.weight'], baseDir);
      rm.head.weight.trainable = opts.trainable ?? true;
      return rm;
    }
    const config = readConfig(dir);
    if (!isSequenceClassifier(config)) {
      throw new Error(
        `${dir}: not a reward model (config.json architectures is ${JSON.stringify(config.architectures ?? null)}, ` +
          'expected ["Qwen2ForSequenceClassification"]); train one with the rm app',
      );
    }
    if (numLabels(config) !== 1) throw new Error(`${dir}: a reward model has one label, config.json has ${numLabels(config)}`);
    const weights = await loadCheckpointWeights(dir, config);
    return RewardModel.ofClassifier(Qwen2Model.fromWeights(config, weights, opts), null);
  }

  /**
   * The reward-model adapter in `dir` on `base`, a model that is already in memory (PPO's policy, when both were made
   * for the same base): its adapter becomes the base's set "reward", which this model's backbone (a view of the base)
   * runs with; no second copy of the base. The base stays the caller's (dispose() frees only the head).
   */
  static async onSharedBase(base: Qwen2Model, dir: string): Promise<RewardModel> {
    const a = await readRewardAdapter(dir);
    const s = a.tensors.get(SCORE_TENSOR)!;
    if (s.shape.join(',') !== `1,${base.config.hidden_size}`) throw new Error(`${dir}: ${SCORE_TENSOR} has shape [${s.shape}], expected [1,${base.config.hidden_size}]`);
    const before = base.activeAdapter;
    base.addLora(a.config, { name: 'reward', weights: a.tensors, where: dir });
    base.setAdapter(before);
    const t = tf.tensor(s.data, s.shape);
    const score = tf.variable(t, false, `shared_rm_${sharedInstances++}/score.weight`);
    t.dispose();
    return new RewardModel(base.view('reward'), classifierConfig(base.config, rewardPadId(base.config), dir), score, adapterBase(dir, a), true);
  }

  /** The base folder of the reward-model adapter in `dir`, or null when `dir` holds a full reward model. */
  static async adapterBaseOf(dir: string): Promise<string | null> {
    return isAdapterFolder(dir) ? adapterBase(dir, await readRewardAdapter(dir)) : null;
  }

  /**
   * A new reward model from a causal-LM checkpoint (e.g. the SFT model; a LoRA adapter folder counts as its merged
   * model): the same backbone, lm_head dropped, and a fresh score head ~ N(0, initializer_range), as transformers
   * initialises a new `score` layer. (The 1/sqrt(D+1) of TRL's value head is too large here: a trained model's final
   * hidden states have per-dimension RMS of a few units, so the first predictions were off by ~2.5 for scores in
   * [0, 1].) `padTokenId` goes into the config because transformers finds the last real token by looking for the pad id.
   */
  static async fromCausalLM(dir: string, opts: { padTokenId: number; seed?: number; baseDtype?: LoadOptions['baseDtype'] }): Promise<RewardModel> {
    const { config: lm, weights } = await loadMergedWeights(dir);
    if (isSequenceClassifier(lm)) throw new Error(`${dir}: already a sequence classifier; load it with RewardModel.load`);
    const config = classifierConfig(lm, opts.padTokenId, `${dir}/config.json`);
    weights.delete('lm_head.weight');
    const D = config.hidden_size;
    const w = tf.tidy(() => tf.randomNormal([1, D], 0, config.initializer_range, 'float32', tfSeed(opts.seed ?? 0)));
    weights.set('score.weight', { shape: [1, D], data: w.dataSync() as Float32Array });
    w.dispose();
    return RewardModel.ofClassifier(Qwen2Model.fromWeights(config, weights, { baseDtype: opts.baseDtype }), dir);
  }

  /** ids, mask: [B, T] (left or right padding) -> reward at each row's last real token [B] */
  forward(ids: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor1D {
    return tf.tidy(() => this.head.atLastToken(this.backbone.forward(ids, { mask }), mask));
  }

  /** Rewards of token rows (each ending with the EOS the score is read at), `batchSize` rows per forward pass. */
  score(rows: number[][], padId: number, batchSize = 8): number[] {
    const out: number[] = [];
    for (let i = 0; i < rows.length; i += batchSize) {
      const chunk = rows.slice(i, i + batchSize);
      const T = Math.max(...chunk.map((r) => r.length));
      const ids = chunk.map((r) => [...new Array<number>(T - r.length).fill(padId), ...r]);
      const mask = chunk.map((r) => [...new Array<number>(T - r.length).fill(0), ...new Array<number>(r.length).fill(1)]);
      const r = tf.tidy(() => this.forward(tf.tensor2d(ids, undefined, 'int32'), tf.tensor2d(mask, undefined, 'int32')));
      out.push(...(r.dataSync() as Float32Array));
      r.dispose();
    }
    return out;
  }

  /** What save() writes: the full classifier, or with LoRA PEFT's files (adapter + score head, task SEQ_CLS). */
  checkpointContent(): CheckpointContent {
    const lora = this.backbone.lora;
    if (!lora) return { config: this.config, weights: this.backbone.hostWeights() };
    const tensors = this.backbone.adapterWeights();
    tensors.set(SCORE_TENSOR, { shape: [...this.head.weight.shape], data: this.head.weight.dataSync() as Float32Array });
    return { config: this.config, weights: new Map(), adapter: { config: lora, tensors, baseModel: this.baseModel ?? '' } };
  }

  /** Save in HF layout (config with the classifier architecture, score.weight, no lm_head), or as a LoRA adapter folder. */
  async save(dir: string, opts: Omit<SaveCheckpointOptions, 'config' | 'weights' | 'adapter'> = {}): Promise<void> {
    await saveCheckpoint(dir, { ...opts, ...this.checkpointContent() });
  }

  dispose(): void {
    if (this.shared) this.head.weight.dispose(); // the base (and its "reward" adapter) belong to the policy
    else this.backbone.dispose(); // score.weight is one of the backbone's parameters
  }
}

let sharedInstances = 0;

/** A reward model's pad id when the config is derived from its base (only transformers reads it). */
const rewardPadId = (c: Qwen2Config): number => (typeof c.pad_token_id === 'number' ? c.pad_token_id : typeof c.eos_token_id === 'number' ? c.eos_token_id : 0);

/** A LoRA adapter folder that is a reward model (its safetensors hold the score head). */
async function readRewardAdapter(dir: string): Promise<Awaited<ReturnType<typeof readAdapter>>> {
  const a = await readAdapter(dir);
  if (!a.tensors.has(SCORE_TENSOR)) {
    throw new Error(`${dir}: a LoRA adapter without a score head (${SCORE_TENSOR}; task_type ${a.taskType ?? 'unset'}): not a reward model; train one with the rm app`);
  }
  return a;
}
