// Tokenizer tools: build the Python corpus from CPython's standard library, derive a small tokenizer from Qwen's.
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { CorpusSettings, copyStdlibCorpus, readCorpus } from '@rlhf-code/data';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import { defaultTokenizerDir, DeriveTokenizerSettings, deriveTokenizer, loadTokenizer, measureTokenizer, saveTokenizer } from '@rlhf-code/tokenizer';

const program = new Command('tokenizer').description('Corpus and tokenizer tools for the rlhf-code models.');

function derive(opts: DeriveTokenizerSettings): void {
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
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

settingsCommand(
  program
    .command('derive')
    .description(
      'Derive a byte-level BPE tokenizer of a given size from a source tokenizer, keeping the tokens the corpus ' +
        'uses most (closed under merge parents) and every added token; writes tokenizer.json + tokenizer_config.json ' +
        'and prints a JSON summary with chars/token on the held-out files.',
    ),
  DeriveTokenizerSettings,
  derive,
);
settingsCommand(
  program.command('corpus').description('Copy the Python corpus selection (see libs/data/src/corpus.ts) out of a CPython standard library.'),
  CorpusSettings,
  (opts) => console.log(JSON.stringify({ out: opts.out, selection: opts.selection, ...copyStdlibCorpus(opts.stdlib, opts.out, opts.selection) })),
);

void runCli(program);
