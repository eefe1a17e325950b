// The one tiny-model factory of the tests: a random Qwen2 small enough to load and run in milliseconds, as a config or
// saved like a real checkpoint folder (Hugging Face layout, the repo's 16k code tokenizer with its FIM tokens), as a
// causal LM or as a one-label sequence classifier (reward model), and LoRA adapter folders on such a model. Tests
// override what they need of the shape.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { dataRandom } from '@rlhf-code/data';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { makeConfig, type Qwen2Config } from '../config';
import { modelConfigOf, saveCheckpoint } from '../checkpoint-folder';
import { LORA_TARGETS } from '../lora';
import { Qwen2Model } from '../model';
import { RewardModel } from '../reward';

/** The repo's 16k code tokenizer (its end token is 16358, its pad token too). */
export const TOKENIZER_DIR = path.join(__dirname, '../../../../models/tokenizer-code16k');
const CODE16K = { vocab: 16384, eos: 16358 };

/**
 * A tiny config: 2 layers of width 32 over the 16k tokenizer's vocabulary. A large initializer_range makes the
 * next-token distributions peaked, so tests that compare log-probs notice a token off by one position.
 */
export function tinyConfig(over: Partial<Qwen2Config> = {}): Qwen2Config {
  return makeConfig({
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: CODE16K.vocab,
    max_position_embeddings: 512,
    initializer_range: 0.5,
    bos_token_id: CODE16K.eos,
    eos_token_id: CODE16K.eos,
    ...over,
  });
}

/** A fresh temp folder (removed by the caller with fs.rmSync when it matters). */
export function tempDir(prefix = 'rlhf-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TinyModelOptions {
  seed?: number;
  /** 'rm': the LM plus a random score head, saved as Qwen2ForSequenceClassification. */
  kind?: 'lm' | 'rm';
  config?: Partial<Qwen2Config>;
  tokenizerDir?: string;
}

/** Save a random tiny model to `dir` (created), with the tokenizer, as a checkpoint folder the apps load. */
export async function saveTinyModel(dir: string, o: TinyModelOptions = {}): Promise<void> {
  await initBackend({ quiet: true }); // the model is initialised with tensor ops (a no-op when a backend is up)
  const model = Qwen2Model.init(tinyConfig(o.config), { seed: o.seed ?? 1, trainable: false });
  const tokenizerDir = o.tokenizerDir ?? TOKENIZER_DIR;
  try {
    if ((o.kind ?? 'lm') === 'lm') {
      await saveCheckpoint(dir, { config: model.config, weights: model.hostWeights(), tokenizerDir });
      return;
    }
    const lmDir = path.join(tempDir('tiny-lm-'), 'lm');
    await saveCheckpoint(lmDir, { config: model.config, weights: model.hostWeights(), tokenizerDir });
    const rm = await RewardModel.fromCausalLM(lmDir, { padTokenId: typeof model.config.pad_token_id === 'number' ? model.config.pad_token_id : CODE16K.eos, seed: (o.seed ?? 1) + 1 });
    await rm.save(dir, { tokenizerDir });
    rm.dispose();
    fs.rmSync(path.dirname(lmDir), { recursive: true, force: true });
  } finally {
    model.dispose();
  }
}

/** The shipped base model; the apps' tiny models borrow its 16k tokenizer. */
const BASE_MODEL = path.join(__dirname, '../../../../models/base');

/**
 * The tiny checkpoint of the apps' end-to-end CLI tests: a random Qwen2 (1 layer, width 16) with the shipped base
 * model's tokenizer and vocabulary, saved in Hugging Face layout; a causal LM, or with kind 'rm' a one-label sequence
 * classifier (score.weight). Seeded by a string (the test's name for it).
 */
export async function saveTinyAppModel(dir: string, seed: string, kind: 'lm' | 'rm' = 'lm'): Promise<void> {
  const tok = loadTokenizer(BASE_MODEL);
  const config = {
    vocab_size: tok.vocabSize,
    hidden_size: 16,
    intermediate_size: 32,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    max_position_embeddings: 256,
    tie_word_embeddings: true,
    initializer_range: 0.05,
    pad_token_id: tok.padId,
  };
  await saveTinyModel(dir, { seed: Math.floor(dataRandom(seed)() * 2 ** 31), kind, config, tokenizerDir: BASE_MODEL });
}

/**
 * Save a LoRA adapter folder (PEFT's layout, the tokenizer copied) for the causal LM in `baseDir` (a checkpoint or
 * itself an adapter folder): kind 'lm' a CAUSAL_LM adapter, 'rm' a reward model's (SEQ_CLS, with a score head). Its B
 * matrices are random, so the adapter changes the model's outputs (a fresh one, B = 0, would hide a base loaded
 * without it). The adapter records `baseDir` as its base.
 */
export async function saveTinyAdapter(dir: string, baseDir: string, o: { kind?: 'lm' | 'rm'; seed?: number; r?: number } = {}): Promise<void> {
  await initBackend({ quiet: true });
  const seed = o.seed ?? 1;
  const lora = { r: o.r ?? 2, alpha: 2 * (o.r ?? 2), dropout: 0, targets: [...LORA_TARGETS] };
  const randomizeB = (m: Qwen2Model) => {
    let s = seed;
    for (const [name, v] of Object.entries(m.adapters)) if (name.includes('lora_B')) v.assign(tf.randomNormal(v.shape, 0, 0.5, 'float32', s++));
  };
  if ((o.kind ?? 'lm') === 'lm') {
    const model = await Qwen2Model.load(baseDir, { merge: true });
    try {
      model.addLora(lora, { seed });
      randomizeB(model);
      await saveCheckpoint(dir, { ...model.checkpointContent(baseDir), tokenizerDir: baseDir });
    } finally {
      model.dispose();
    }
    return;
  }
  const pad = modelConfigOf(baseDir).pad_token_id;
  const rm = await RewardModel.fromCausalLM(baseDir, { padTokenId: typeof pad === 'number' ? pad : CODE16K.eos, seed });
  try {
    rm.addLora(lora, seed);
    randomizeB(rm.backbone);
    await rm.save(dir, { tokenizerDir: baseDir });
  } finally {
    rm.dispose();
  }
}
