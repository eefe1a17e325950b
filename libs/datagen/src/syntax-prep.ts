// `prep syntax`: a model writes function bodies (or FIM middles) for the corpus's training files; the ones that
// compile are kept as SFT examples (rejection sampling on the compiler's verdict; the rounds are in syntax-data.ts).
import { corpusDirs, isHeldOut, readCorpora, readFimData } from '@rlhf-code/data';
import { compilingCases, cursorInCode, functionCases, selectFimCases, selectFunctionCases, syntaxChecker, withFileContext, type FimCase } from '@rlhf-code/eval';
import { fimSyntaxTrainingData, syntaxTrainingData, type FimSyntaxOptions, type FimSyntaxStats, type SyntaxDataOptions, type SyntaxDataStats, type SyntaxExample } from './syntax-data';
import { checkpointAt, openCheckpoint } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';

/** The flags of `prep syntax`: where the functions and the model come from, plus the sampling options. */
export type SyntaxRunFlags = Omit<SyntaxDataOptions, 'onProgress'> & {
  model: string;
  corpus: string;
  /** Functions sampled; 0 = all. */
  functions: number;
  python?: string;
};

export async function runSyntaxData(
  f: SyntaxRunFlags,
  onProgress: (done: number, total: number) => void,
): Promise<{ examples: SyntaxExample[]; stats: SyntaxDataStats; trainFiles: number }> {
  const checkpoint = checkpointAt(f.model, '--model'); // before the corpus is read
  const corpus = readCorpora(corpusDirs(f.corpus));
  const check = syntaxChecker(f.python); // thousands of functions in one python process, with eval:base's limits
  const candidates = functionCases(corpus.train); // training files only: the held-out files are eval:base's
  const compiling = await compilingCases(candidates, check);
  const cases = selectFunctionCases(compiling, f.functions === 0 ? compiling.length : f.functions, f.seed);
  if (cases.length === 0) throw new Error(`no documented function with a compiling body in the ${corpus.train.length} training files of ${f.corpus}`);
  await initBackend({ quiet: true });
  const { model, tokenizer: tok } = await openCheckpoint(checkpoint, { trainable: false });
  try {
    const r = await syntaxTrainingData(model, tok, cases, { ...f, onProgress }, check);
    return { examples: r.examples, stats: r.stats, trainFiles: corpus.train.length };
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}

/** `prep syntax --source fim`: the flags above plus the FIM examples to sample (their train split only). */
export type FimSyntaxRunFlags = Omit<FimSyntaxOptions, 'onProgress'> & {
  model: string;
  corpus: string;
  fimData: string;
  /** FIM examples sampled; 0 = all of the train split. */
  fimCases: number;
  python?: string;
};

/**
 * The train-split records of the FIM file whose cursor is in code (cursorInCode: inside a docstring or comment nearly
 * any text compiles, so the compiler's verdict would keep junk there), each with the rest of its source file from the
 * corpus's training files. Refuses a record whose file is held out or missing from the corpus, or whose text is not
 * in that file.
 */
export async function fimTrainingCases(fimData: string, corpus: { path: string; text: string }[], limit: number, seed: number): Promise<FimCase[]> {
  const records = await readFimData(fimData);
  const train = records.map((r, i) => ({ r, line: i + 1 })).filter(({ r }) => r.split === 'train');
  if (train.length === 0) throw new Error(`${fimData}: no records with split "train" (${records.length} records)`);
  const files = new Map(corpus.map((f) => [f.path, f.text.replace(/\r\n/g, '\n')]));
  const cases = train.map(({ r, line }) => {
    const where = `${fimData}:${line}`;
    if (!r.path) throw new Error(`${where}: the record has no "path", so its source file cannot be found`);
    if (isHeldOut(r.path)) throw new Error(`${where}: ${r.path} is a held-out corpus file, it must not be trained on (its split should be "test")`);
    const c = withFileContext([r], files)[0];
    if (!c.file) throw new Error(`${where}: prefix + middle + suffix not found in a training file of the corpus named ${r.path}`);
    return c;
  });
  const inCode = cases.filter((c) => cursorInCode(c));
  if (inCode.length === 0) throw new Error(`${fimData}: no train record has its cursor in code (all ${cases.length} are inside strings or comments)`);
  return selectFimCases(inCode, { split: 'all', limit: limit === 0 ? undefined : limit, seed });
}

export async function runFimSyntaxData(
  f: FimSyntaxRunFlags,
  onProgress: (done: number, total: number) => void,
): Promise<{ examples: SyntaxExample[]; stats: FimSyntaxStats }> {
  const checkpoint = checkpointAt(f.model, '--model'); // before the corpus is read
  const corpus = readCorpora(corpusDirs(f.corpus));
  const cases = await fimTrainingCases(f.fimData, corpus.train, f.fimCases, f.seed);
  const check = syntaxChecker(f.python);
  await initBackend({ quiet: true });
  const { model, tokenizer: tok } = await openCheckpoint(checkpoint, { trainable: false });
  try {
    const r = await fimSyntaxTrainingData(model, tok, cases, { ...f, onProgress }, check);
    return { examples: r.examples, stats: r.stats };
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}
