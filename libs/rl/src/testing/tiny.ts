// The RL tests' models: the shared tiny model (libs/model/testing) over a 24-token vocabulary, 1 layer of width 16,
// so a rollout and its updates take milliseconds.
import type { Qwen2Config } from '@rlhf-code/model';
import { tinyConfig as sharedTinyConfig } from '@rlhf-code/model/testing';

export const TINY_VOCAB = 24;
export const TINY_EOS = 1;
export const TINY_PAD = 0;

export function tinyConfig(extra: Partial<Qwen2Config> = {}): Qwen2Config {
  return sharedTinyConfig({
    vocab_size: TINY_VOCAB,
    hidden_size: 16,
    intermediate_size: 32,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    max_position_embeddings: 64,
    tie_word_embeddings: true,
    bos_token_id: TINY_EOS,
    eos_token_id: TINY_EOS,
    pad_token_id: TINY_PAD,
    initializer_range: 0.5, // a random model with a peaked, varied next-token distribution
    ...extra,
  });
}
