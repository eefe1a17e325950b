// The online tests' model: the shared tiny model (libs/model/testing) with a 256-token window and an untied LM head
// (a tied random model just repeats its last input token), saved in a new temp folder.
import * as path from 'path';
import { saveTinyModel, tempDir } from '@rlhf-code/model/testing';

export async function makeTinyModelDir(seed = 1): Promise<string> {
  const dir = path.join(tempDir('online-model-'), 'model');
  await saveTinyModel(dir, { seed, config: { max_position_embeddings: 256, tie_word_embeddings: false, initializer_range: 0.2 } });
  return dir;
}
