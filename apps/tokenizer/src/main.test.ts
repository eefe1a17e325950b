// The tokenizer CLI's wiring: the settings libs/tokenizer and libs/data declare; errors without stack traces.
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { CorpusSettings } from '@rlhf-code/data';
import { DeriveTokenizerSettings } from '@rlhf-code/tokenizer';

describe('tokenizer settings', () => {
  it('--print-config of derive and corpus', () => {
    expect(printedConfig('tokenizer', ['derive', '--corpus', 'c', '--vocab-size', '100', '--out', 'o', '--keep-token', 'Ġself', '--keep-token', 'Ġcls'])).toEqual(
      DeriveTokenizerSettings.parse({ corpus: 'c', vocabSize: 100, out: 'o', keepToken: ['Ġself', 'Ġcls'] }),
    );
    expect(printedConfig('tokenizer', ['corpus', '--stdlib', 's', '--out', 'o', '--selection', 'extra'])).toEqual(CorpusSettings.parse({ stdlib: 's', out: 'o', selection: 'extra' }));
  });

  it('a bad --vocab-size is one line naming it', () => {
    const r = runApp('tokenizer', ['derive', '--corpus', 'c', '--vocab-size', '1.5', '--out', 'o']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tokenizer: error: --vocab-size: Invalid input: expected int, received number\n');
  });
});
