import * as path from 'path';
import { formatFim, formatRepoHeader, type RepoContext } from './fim';
import { loadTokenizer } from './tokenizer';
import { encodeServedPrompt, PromptError } from './served-prompt';

const tok = loadTokenizer(path.join(__dirname, '../../../models/tokenizer-code16k'));

test('a FIM prompt that fits is encoded as is', () => {
  const p = formatFim('def f(x):\n    return ', '\n');
  const r = encodeServedPrompt(tok, p, 100);
  expect(r).toEqual({ ids: tok.encode(p), fim: true, truncated: 0, prefix: 'def f(x):\n    return ', suffix: '\n' });
});

test('too long: the prefix loses its left end, the markers and the text next to the cursor survive', () => {
  const prefix = Array.from({ length: 200 }, (_, i) => `x${i} = ${i}\n`).join('') + 'y = ';
  const suffix = '\nprint(y)\n';
  const r = encodeServedPrompt(tok, formatFim(prefix, suffix), 64);
  expect(r.ids.length).toBeLessThanOrEqual(64);
  expect(r.ids.length).toBeGreaterThan(56); // at most the rest of one short line goes beyond the cap's cut
  expect(r.truncated + r.ids.length).toBe(tok.encode(formatFim(prefix, suffix)).length); // every id kept or counted
  const text = tok.decode(r.ids);
  expect(text).toMatch(/^<\|fim_prefix\|>x\d+ = \d+\n/); // the kept prefix starts at a line, not inside one
  expect(text.endsWith(`y = <|fim_suffix|>${suffix}<|fim_middle|>`)).toBe(true);
  expect(text).not.toContain('x0 = 0');
});

test('a prefix cut inside a very long line keeps the cut where it fell', () => {
  const prefix = 'data = [' + Array.from({ length: 300 }, (_, i) => `${i}`).join(', ') + ']\ny = ';
  const r = encodeServedPrompt(tok, formatFim(prefix, '\n'), 64);
  expect(r.ids).toHaveLength(64); // dropping the rest of the long line would drop half the prefix or more
  expect(tok.decode(r.ids)).toMatch(/\]\ny = <\|fim_suffix\|>\n<\|fim_middle\|>$/);
});

test('a suffix too long for half the window is cut from its far end', () => {
  const suffix = '\n' + Array.from({ length: 100 }, (_, i) => `z${i} = ${i}\n`).join('');
  const r = encodeServedPrompt(tok, formatFim('a = ', suffix), 40);
  expect(r.ids).toHaveLength(40);
  const text = tok.decode(r.ids);
  expect(text).toMatch(/^<\|fim_prefix\|>a = <\|fim_suffix\|>\nz0 = 0\n/);
  expect(text.endsWith('<|fim_middle|>')).toBe(true);
});

test('plain prompts are cut from the left; malformed FIM names the prompt field', () => {
  const r = encodeServedPrompt(tok, 'import os\n'.repeat(50), 10);
  expect(r.fim).toBe(false);
  expect(r.ids).toEqual(tok.encode('import os\n'.repeat(50)).slice(-10));
  expect(() => encodeServedPrompt(tok, '<|fim_prefix|>a<|fim_middle|>', 50)).toThrow(PromptError);
  const bad = () => encodeServedPrompt(tok, '<|fim_suffix|>a<|fim_prefix|>b<|fim_middle|>', 50);
  expect(bad).toThrow(/malformed FIM prompt: prompt must start with <\|fim_prefix\|>/);
  expect(bad).toThrow(expect.objectContaining({ field: 'prompt' }));
});

test('a checkpoint trained in SPM order gets the same kept text in its order: suffix first, the prefix last', () => {
  const spm = tok.withFimMode('spm');
  const plain = (t: string) => tok.encode(t, { parseSpecialTokens: false });
  const fits = encodeServedPrompt(spm, formatFim('def f(x):\n    return ', '\n'), 100);
  expect(fits).toMatchObject({ ids: [tok.fim.prefix, tok.fim.suffix, ...plain('\n'), tok.fim.middle, ...plain('def f(x):\n    return ')], fim: true, truncated: 0 });
  const prefix = Array.from({ length: 200 }, (_, i) => `x${i} = ${i}\n`).join('') + 'y = ';
  const suffix = '\n' + Array.from({ length: 100 }, (_, i) => `z${i} = ${i}\n`).join('');
  const psm = encodeServedPrompt(tok, formatFim(prefix, suffix), 64);
  const r = encodeServedPrompt(spm, formatFim(prefix, suffix), 64);
  expect(r.ids).toHaveLength(psm.ids.length);
  expect(r.truncated).toBe(psm.truncated);
  const [s, m] = [psm.ids.indexOf(tok.fim.suffix), psm.ids.indexOf(tok.fim.middle)];
  expect(r.ids).toEqual([tok.fim.prefix, tok.fim.suffix, ...psm.ids.slice(s + 1, m), tok.fim.middle, ...psm.ids.slice(1, s)]);
  expect(tok.decode(r.ids).endsWith('y = ')).toBe(true);
});

describe("upstream Continue's repository header (<|repo_name|> / <|file_sep|> before <|fim_prefix|>)", () => {
  const repo: RepoContext = {
    name: 'shop',
    files: [
      { path: 'shop/util.py', content: 'def price(x):\n    return x * 2' },
      { path: 'shop/db.py', content: Array.from({ length: 40 }, (_, i) => `ROW${i} = ${i}`).join('\n') },
    ],
    path: 'shop/main.py',
  };
  const prefix = 'from util import price\n\ntotal = ';
  const prompt = formatRepoHeader(repo) + formatFim(prefix, '\n');
  const plain = (t: string) => tok.encode(t, { parseSpecialTokens: false });

  test('comments (default): the files become 1.3.9-style commented lines at the top of the prefix', () => {
    const r = encodeServedPrompt(tok, prompt, 1000);
    expect(r.fim).toBe(true);
    expect(r.truncated).toBe(0);
    expect(r).toMatchObject({ prefix, suffix: '\n' });
    const text = tok.decode(r.ids);
    expect(text.startsWith('<|fim_prefix|># Path: shop/util.py\n# def price(x):\n#     return x * 2\n# Path: shop/db.py\n# ROW0 = 0\n')).toBe(true);
    expect(text.endsWith('# shop/main.py\nfrom util import price\n\ntotal = <|fim_suffix|>\n<|fim_middle|>')).toBe(true);
    expect(text).not.toContain('<|file_sep|>');
  });

  test('tokens: kept in Qwen2.5-Coder form with its control tokens, before the FIM part', () => {
    const r = encodeServedPrompt(tok, prompt, 1000, 'tokens');
    const fim = tok.encode(formatFim(prefix, '\n'));
    expect(r.ids.slice(-fim.length)).toEqual(fim);
    expect(r.ids[0]).toBe(tok.tokenToId('<|repo_name|>'));
    expect(r.ids.filter((id) => id === tok.tokenToId('<|file_sep|>'))).toHaveLength(3);
    expect(tok.decode(r.ids)).toBe(prompt);
  });

  test('too long: the header goes first (whole files, the farthest first), the cursor context stays; never refused', () => {
    const full = encodeServedPrompt(tok, prompt, 1000, 'tokens').ids.length;
    const fimOnly = tok.encode(formatFim(prefix, '\n')).length;
    const withoutFirst = encodeServedPrompt(tok, prompt, full - 1, 'tokens');
    expect(tok.decode(withoutFirst.ids)).not.toContain('shop/util.py');
    expect(tok.decode(withoutFirst.ids)).toContain('ROW39 = 39');
    expect(withoutFirst.truncated).toBe(1 + plain('shop/util.py\ndef price(x):\n    return x * 2\n').length);
    const bare = encodeServedPrompt(tok, prompt, fimOnly + 1, 'tokens'); // no room for any header
    expect(tok.decode(bare.ids)).toBe(formatFim(prefix, '\n'));
    expect(bare.truncated).toBe(full - fimOnly);
    const tight = encodeServedPrompt(tok, prompt, 12); // comments: the far-left header lines go before the prefix
    expect(tight.ids).toHaveLength(12);
    expect(tok.decode(tight.ids).endsWith('total = <|fim_suffix|>\n<|fim_middle|>')).toBe(true);
  });
});
