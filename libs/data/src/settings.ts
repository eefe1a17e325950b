// The settings of `tokenizer corpus` (copy the Python corpus selection out of a CPython standard library), declared
// once: flags, --help and --config come from this schema.
import { z } from 'zod';

export const CorpusSettings = z.strictObject({
  stdlib: z.string().min(1).describe('CPython Lib folder: python3 -c "import sysconfig;print(sysconfig.get_paths()[\'stdlib\'])"'),
  out: z.string().min(1).describe('folder to copy into (must be absent or empty), e.g. data/vendor/cpython/python-stdlib'),
  selection: z
    .enum(['main', 'extra'])
    .default('main')
    .describe('main: the modules and packages the tokenizer was derived from (data/vendor/cpython/python-stdlib); extra: the further packages of data/vendor/cpython/python-stdlib-extra'),
});
export type CorpusSettings = z.output<typeof CorpusSettings>;
