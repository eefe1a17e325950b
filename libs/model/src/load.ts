// A checkpoint folder's model and tokenizer together, checked to fit each other: every token id the tokenizer can
// produce must have a row in the model's embedding (the model may have more rows: Qwen pads its vocabulary).
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { Qwen2Model, type LoadOptions } from './model';

/** Throws, naming `where`, when the tokenizer has more tokens than the model has embedding rows. */
export function checkVocabulary(tokenizer: Tokenizer, vocabSize: number, where: string, whose = "the model's"): void {
  if (tokenizer.vocabSize > vocabSize) throw new Error(`${where}: its tokenizer has ${tokenizer.vocabSize} tokens, more than ${whose} ${vocabSize}`);
}

/** The model in `weightsDir` (default `dir`) with the tokenizer of `dir`. */
export async function loadModelAndTokenizer(dir: string, opts: LoadOptions & { weightsDir?: string } = {}): Promise<{ model: Qwen2Model; tokenizer: Tokenizer }> {
  const tokenizer = loadTokenizer(dir);
  const model = await Qwen2Model.load(opts.weightsDir ?? dir, opts);
  try {
    checkVocabulary(tokenizer, model.config.vocab_size, dir);
  } catch (e) {
    model.dispose();
    throw e;
  }
  return { model, tokenizer };
}
