// Tokenizer tools: build the Python corpus from CPython's standard library, derive a small tokenizer from Qwen's.
// The commands live in libs/tokenizer and libs/data; this file turns flags into their settings.
import { Command } from 'commander';
import { CorpusSettings, copyStdlibCorpus } from '@rlhf-code/data';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import { DeriveTokenizerSettings, runDeriveTokenizer } from '@rlhf-code/tokenizer';

const program = new Command('tokenizer').description('Corpus and tokenizer tools for the rlhf-code models.');

settingsCommand(
  program
    .command('derive')
    .description(
      'Derive a byte-level BPE tokenizer of a given size from a source tokenizer, keeping the tokens the corpus ' +
        'uses most (closed under merge parents) and every added token; writes tokenizer.json + tokenizer_config.json ' +
        'and prints a JSON summary with chars/token on the held-out files.',
    ),
  DeriveTokenizerSettings,
  runDeriveTokenizer,
);
settingsCommand(
  program.command('corpus').description('Copy the Python corpus selection (see libs/data/src/corpus.ts) out of a CPython standard library.'),
  CorpusSettings,
  (opts) => console.log(JSON.stringify({ out: opts.out, selection: opts.selection, ...copyStdlibCorpus(opts.stdlib, opts.out, opts.selection) })),
);

void runCli(program);
