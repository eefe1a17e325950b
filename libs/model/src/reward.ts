// A reward model: the Qwen2 backbone plus a bias-free Linear(D, 1) called `score`, read at each row's last
// real token. This is Hugging Face's Qwen2ForSequenceClassification with num_labels = 1, so a checkpoint
// saved here loads in transformers (and back) one to one: config.architectures names the class, the
// head is `score.weight` [1, D] and there is no lm_head.
import * as tf from '@tensorflow/tfjs';
import { loadCheckpointWeights, saveCheckpoint, SaveCheckpointOptions } from './checkpoint';
import { isSequenceClassifier, numLabels, parseConfig, Qwen2Config, readConfig } from './config';
import { ScalarHead } from './heads';
import { Qwen2Model } from './model';
import { HostTensor } from './safetensors';

export class RewardModel {
  /** `head.weight` is the backbone's own `score.weight` variable: one set of parameters. */
  readonly head: ScalarHead;

  private constructor(readonly backbone: Qwen2Model) {
    if (!isSequenceClassifier(backbone.config) || numLabels(backbone.config) !== 1) {
      throw new Error('RewardModel: expected a Qwen2ForSequenceClassification config with one label');
    }
    this.head = new ScalarHead('score', backbone.params['score.weight'], null);
  }

  get config(): Qwen2Config {
    return this.backbone.config;
  }

  /** Every trainable parameter, keyed by HF name (backbone + score.weight). */
  get params(): Record<string, tf.Variable> {
    return this.backbone.params;
  }

  /** Load a reward-model checkpoint (Qwen2ForSequenceClassification, one label). */
  static async load(dir: string, opts: { trainable?: boolean } = {}): Promise<RewardModel> {
    const config = readConfig(dir);
    if (!isSequenceClassifier(config)) {
      throw new Error(
        `${dir}: not a reward model (config.json architectures is ${JSON.stringify(config.architectures ?? null)}, ` +
          'expected ["Qwen2ForSequenceClassification"]); train one with the rm app',
      );
    }
    if (numLabels(config) !== 1) throw new Error(`${dir}: a reward model has one label, config.json has ${numLabels(config)}`);
    const weights = await loadCheckpointWeights(dir, config);
    return new RewardModel(Qwen2Model.fromWeights(config, weights, opts));
  }

  /**
   * A new reward model from a causal-LM checkpoint (e.g. the SFT model): the same backbone, lm_head dropped,
   * and a fresh score head ~ N(0, initializer_range), as transformers initialises a new `score` layer. (The
   * 1/sqrt(D+1) of TRL's value head is too large here: a trained model's final hidden states have per-dimension RMS
   * of a few units, so the first predictions were off by ~2.5 for scores in [0, 1].) `padTokenId` goes into the config
   * because transformers finds the last real token by looking for the pad id.
   */
  static async fromCausalLM(dir: string, opts: { padTokenId: number; seed?: number }): Promise<RewardModel> {
    const lm = readConfig(dir);
    if (isSequenceClassifier(lm)) throw new Error(`${dir}: already a sequence classifier; load it with RewardModel.load`);
    const config = parseConfig(
      {
        ...lm,
        architectures: ['Qwen2ForSequenceClassification'],
        id2label: { '0': 'LABEL_0' },
        label2id: { LABEL_0: 0 },
        pad_token_id: opts.padTokenId,
      },
      `${dir}/config.json (as a reward model)`,
    );
    const weights = await loadCheckpointWeights(dir, lm);
    weights.delete('lm_head.weight');
    const D = config.hidden_size;
    const w = tf.tidy(() => tf.randomNormal([1, D], 0, config.initializer_range, 'float32', opts.seed ?? 0));
    weights.set('score.weight', { shape: [1, D], data: w.dataSync() as Float32Array });
    w.dispose();
    return new RewardModel(Qwen2Model.fromWeights(config, weights));
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

  hostWeights(): Map<string, HostTensor> {
    return this.backbone.hostWeights();
  }

  /** Save in HF layout (config with the classifier architecture, score.weight, no lm_head). */
  async save(dir: string, opts: Omit<SaveCheckpointOptions, 'config' | 'weights'> = {}): Promise<void> {
    await saveCheckpoint(dir, { ...opts, config: this.config, weights: this.hostWeights() });
  }

  dispose(): void {
    this.backbone.dispose(); // score.weight is one of the backbone's parameters
  }
}
