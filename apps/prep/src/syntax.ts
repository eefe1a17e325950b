// prep syntax: the model-dependent part (imported lazily by main.ts, since loading tfjs costs seconds).
import { compilingCases, functionCases, fimStopIds, selectFunctionCases, syntaxChecker, syntaxTrainingData, type SyntaxDataOptions, type SyntaxDataStats, type SyntaxExample } from '@rlhf-code/eval';
import { initBackend, Qwen2Model, shutdownBackend, type BackendChoice } from '@rlhf-code/model';
import { corpusDirs, loadTokenizer, readCorpora } from '@rlhf-code/tokenizer';

/** The flags of `prep syntax`: where the functions and the model come from, plus the sampling options. */
export type SyntaxRunFlags = Omit<SyntaxDataOptions, 'stopIds' | 'onProgress'> & {
  model: string;
  corpus: string;
  /** Functions sampled; 0 = all. */
  functions: number;
  python?: string;
  backend?: BackendChoice;
};

export async function runSyntaxData(
  f: SyntaxRunFlags,
  onProgress: (done: number, total: number) => void,
): Promise<{ examples: SyntaxExample[]; stats: SyntaxDataStats; trainFiles: number }> {
  const corpus = readCorpora(corpusDirs(f.corpus));
  const check = syntaxChecker(f.python); // thousands of functions in one python process, with eval:base's limits
  const candidates = functionCases(corpus.train); // training files only: the held-out files are eval:base's
  const compiling = await compilingCases(candidates, check);
  const cases = selectFunctionCases(compiling, f.functions === 0 ? compiling.length : f.functions, f.seed);
  if (cases.length === 0) throw new Error(`no documented function with a compiling body in the ${corpus.train.length} training files of ${f.corpus}`);
  await initBackend({ backend: f.backend, quiet: true });
  const model = await Qwen2Model.load(f.model, { trainable: false });
  try {
    const tok = loadTokenizer(f.model);
    const r = await syntaxTrainingData(model, tok, cases, { ...f, stopIds: fimStopIds(tok), onProgress }, check);
    return { examples: r.examples, stats: r.stats, trainFiles: corpus.train.length };
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}
