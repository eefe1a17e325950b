// `tokenizer derive` (apps/tokenizer): derive a tokenizer from a source one on a corpus (derive.ts), write it, and print
// what it does on the corpus's held-out files beside the source.
import * as fs from 'fs';
import * as path from 'path';
import { readCorpus } from '@rlhf-code/data';
import { deriveTokenizer } from './derive';
import { measureTokenizer } from './measure';
import { DeriveTokenizerSettings } from './settings';
import { defaultTokenizerDir, loadTokenizer, saveTokenizer } from './tokenizer';

/**
 * `tokenizer derive`: derive a tokenizer of --vocab-size from --source on --corpus's training files, write it to --out,
 * load it back, measure it and the source on the corpus's held-out files, and print the summary as JSON.
 */
export function runDeriveTokenizer(opts: DeriveTokenizerSettings): void {
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
