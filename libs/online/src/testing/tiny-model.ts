// Test fixtures: a tiny random Qwen2 checkpoint with the project's 16k code tokenizer (it has the FIM tokens),
// saved like a real model folder so the code under test loads it the way it loads models/base.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { makeConfig, Qwen2Model, saveCheckpoint } from '@rlhf-code/model';

export const TOKENIZER_DIR = path.join(__dirname, '../../../../models/tokenizer-code16k');

/** A fresh temp dir (removed by the caller with fs.rmSync when it matters). */
export function tempDir(prefix = 'online-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Save a tiny random model (hidden 32, 2 layers, window 256) with the 16k tokenizer into a new temp folder. */
export async function makeTinyModelDir(seed = 1): Promise<string> {
  const dir = path.join(tempDir('online-model-'), 'model');
  const config = makeConfig({
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: 16384,
    max_position_embeddings: 256,
    bos_token_id: 16358,
    eos_token_id: 16358,
    tie_word_embeddings: false, // a tied random model just repeats its last input token
    initializer_range: 0.2,
  });
  const model = Qwen2Model.init(config, { seed });
  await saveCheckpoint(dir, { config, weights: model.hostWeights(), tokenizerDir: TOKENIZER_DIR });
  model.dispose();
  return dir;
}
