// Tiny random checkpoints for tests: a Qwen2 causal LM (and a reward model made from it) in HF layout, with the
// repo's 16k code tokenizer, saved to a folder. Big initializer_range makes the next-token distributions peaked,
// so tests that compare log-probs notice a token off by one position.
import * as path from 'path';
import { makeConfig, Qwen2Model, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { loadTokenizer } from '@rlhf-code/tokenizer';

export const TOKENIZER_DIR = path.join(__dirname, '../../../../models/tokenizer-code16k');

export function tinyConfig(seedRange = 0.5) {
  return makeConfig({
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: 16384,
    max_position_embeddings: 512,
    initializer_range: seedRange,
    bos_token_id: 16358,
    eos_token_id: 16358,
  });
}

/** Save a random tiny LM to `dir`; returns the (still loaded) model. */
export async function saveTinyModel(dir: string, seed: number): Promise<Qwen2Model> {
  const model = Qwen2Model.init(tinyConfig(), { seed, trainable: false });
  await saveCheckpoint(dir, { config: model.config, weights: model.hostWeights(), tokenizerDir: TOKENIZER_DIR });
  return model;
}

/** A reward model with a random head on top of the LM saved in `lmDir`. */
export async function saveTinyRewardModel(lmDir: string, dir: string): Promise<void> {
  const rm = await RewardModel.fromCausalLM(lmDir, { padTokenId: loadTokenizer(TOKENIZER_DIR).padId, seed: 1 });
  await rm.save(dir, { tokenizerDir: TOKENIZER_DIR });
  rm.dispose();
}
