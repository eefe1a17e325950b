import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { encodeFim, fimIds, formatFim, formatRepoHeader, parseFim, repoAsComments } from './fim';
import { loadTokenizer, readFimMode } from './tokenizer';

const qwen = loadTokenizer();

describe('FIM prompts', () => {
  it('formats the Qwen PSM form', () => {
    expect(formatFim('def f(x):\n    ', '\n    return y\n')).toBe(
      '<|fim_prefix|>def f(x):\n    <|fim_suffix|>\n    return y\n<|fim_middle|>',
    );
  });

  it('parses what it formats, including empty and odd parts', () => {
    for (const [prefix, suffix] of [
      ['a', 'b'],
      ['', ''],
      ['x <| fim |>', '\n'],
      ['unicode é 😀\r\n', '\t<|endoftext|>'],
    ]) {
      expect(parseFim(formatFim(prefix, suffix))).toEqual({ prefix, suffix });
    }
  });

  it('returns null for plain text and throws on malformed FIM prompts', () => {
    expect(parseFim('def f(): pass')).toBeNull();
    expect(parseFim('<|im_start|>user\nhi<|im_end|>\n')).toBeNull();
    expect(() => parseFim('<|fim_prefix|>a<|fim_middle|>')).toThrow(
      'parseFim: expected each of <|fim_prefix|>, <|fim_suffix|>, <|fim_middle|> exactly once, found 1, 0, 1',
    );
    expect(() => parseFim(formatFim('a<|fim_suffix|>', 'b'))).toThrow('found 1, 2, 1');
    expect(() => parseFim('x<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>')).toThrow('parseFim: prompt must start with <|fim_prefix|>');
    expect(() => parseFim('<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>c')).toThrow('parseFim: prompt must end with <|fim_middle|>');
  });

  // Upstream Continue's prompt with context snippets (qwenMultifileFimTemplate): the header, then the FIM part.
  const HEAD_PROMPT =
    '<|repo_name|>shop\n<|file_sep|>shop/util.py\ndef price(x):\n    return x * 2\n<|file_sep|>shop/db.py\nROWS = []\n' +
    '<|file_sep|>shop/main.py\n<|fim_prefix|>from util import price\n\ntotal = <|fim_suffix|>\n<|fim_middle|>';

  it("parses upstream Continue's repository header before <|fim_prefix|> and formats it back", () => {
    const parts = parseFim(HEAD_PROMPT)!;
    expect(parts).toEqual({
      prefix: 'from util import price\n\ntotal = ',
      suffix: '\n',
      repo: {
        name: 'shop',
        files: [
          { path: 'shop/util.py', content: 'def price(x):\n    return x * 2' },
          { path: 'shop/db.py', content: 'ROWS = []' },
        ],
        path: 'shop/main.py',
      },
    });
    expect(formatRepoHeader(parts.repo!) + formatFim(parts.prefix, parts.suffix)).toBe(HEAD_PROMPT);
    // Only a <|repo_name|> / <|file_sep|> header may come first; the header without a repository name parses too.
    expect(parseFim('<|file_sep|>a.py\n<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>')!.repo).toEqual({ name: '', files: [], path: 'a.py' });
    expect(() => parseFim('# a.py\n<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>')).toThrow('parseFim: prompt must start with <|fim_prefix|>');
  });

  it("rewrites the header as Continue 1.3.9's commented prefix", () => {
    const parts = parseFim(HEAD_PROMPT)!;
    expect(repoAsComments(parts.repo!, parts.prefix)).toBe(
      '# Path: shop/util.py\n# def price(x):\n#     return x * 2\n# Path: shop/db.py\n# ROWS = []\n# shop/main.py\nfrom util import price\n\ntotal = ',
    );
    // Without other files, 1.3.9's prefix starts with a newline and the commented path.
    expect(repoAsComments({ name: 'r', files: [], path: 'app/x.py' }, 'a = ')).toBe('\n# app/x.py\na = ');
  });

  it('builds ids equal to encoding the formatted string when the parts are plain code', () => {
    const prefix = 'import os\n\ndef main():\n    path = ';
    const suffix = '\n    print(path)\n';
    const ids = encodeFim(qwen, prefix, suffix);
    expect(ids).toEqual(qwen.encode(formatFim(prefix, suffix)));
    expect(ids[0]).toBe(151659);
    expect(ids[ids.length - 1]).toBe(151660);
    expect(qwen.decode(ids)).toBe(formatFim(prefix, suffix));
  });

  it('keeps special strings inside the parts as text (no token injection)', () => {
    const prefix = 'x = "<|fim_middle|><|endoftext|>"';
    const ids = encodeFim(qwen, prefix, '');
    expect(ids.filter((id) => qwen.isSpecial(id))).toEqual([qwen.fim.prefix, qwen.fim.suffix, qwen.fim.middle]);
    expect(qwen.decode(ids)).toBe(formatFim(prefix, ''));
    // The string path would have parsed them:
    expect(qwen.encode(formatFim(prefix, '')).filter((id) => id === qwen.fim.middle)).toHaveLength(2);
  });
});

describe('FIM order (fim_mode)', () => {
  const plain = (t: string) => qwen.encode(t, { parseSpecialTokens: false });
  const prefix = 'def f(x):\n    return ';
  const suffix = '\n\nprint(f(1))\n';

  it('is PSM for Qwen\'s tokenizer, whose config does not say', () => {
    expect(qwen.fimMode).toBe('psm');
    expect(fimIds(qwen, [1, 2], [3])).toEqual([qwen.fim.prefix, 1, 2, qwen.fim.suffix, 3, qwen.fim.middle]);
  });

  it('SPM puts the suffix first and ends with the prefix, so the middle continues it', () => {
    const spm = qwen.withFimMode('spm');
    expect(spm.fimMode).toBe('spm');
    expect(qwen.fimMode).toBe('psm'); // the original is unchanged
    expect(fimIds(spm, [1, 2], [3])).toEqual([qwen.fim.prefix, qwen.fim.suffix, 3, qwen.fim.middle, 1, 2]);
    expect(fimIds(qwen, [1, 2], [3], 'spm')).toEqual(fimIds(spm, [1, 2], [3]));
    const ids = encodeFim(spm, prefix, suffix);
    expect(ids).toEqual([qwen.fim.prefix, qwen.fim.suffix, ...plain(suffix), qwen.fim.middle, ...plain(prefix)]);
    expect(spm.decode(ids)).toBe(`<|fim_prefix|><|fim_suffix|>${suffix}<|fim_middle|>${prefix}`);
    expect(spm.withFimMode('psm').fimMode).toBe('psm');
    expect(encodeFim(spm.withFimMode('psm'), prefix, suffix)).toEqual(encodeFim(qwen, prefix, suffix));
  });

  it('is read from tokenizer_config.json, and a bad value names the file and the field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fim-mode-'));
    const { tokenizer, config } = qwen.toJson();
    fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ ...config, fim_mode: 'spm' }));
    expect(loadTokenizer(dir).fimMode).toBe('spm');
    expect(readFimMode(dir)).toBe('spm');
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ ...config, fim_mode: 'SPM' }));
    expect(() => readFimMode(dir)).toThrow(`Invalid tokenizer file ${path.join(dir, 'tokenizer_config.json')}: "fim_mode" must be one of "psm", "spm", got "SPM"`);
    expect(() => loadTokenizer(dir)).toThrow(`Invalid tokenizer file ${path.join(dir, 'tokenizer_config.json')}: "fim_mode" must be one of "psm", "spm", got "SPM"`);
    fs.rmSync(path.join(dir, 'tokenizer_config.json'));
    expect(readFimMode(dir)).toBe('psm');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
