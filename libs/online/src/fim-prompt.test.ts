import * as path from 'path';
import { formatFim, loadTokenizer } from '@rlhf-code/tokenizer';
import { encodeServedPrompt, PromptError } from './fim-prompt';
import { TOKENIZER_DIR } from './testing/tiny-model';

const tok = loadTokenizer(path.resolve(TOKENIZER_DIR));

test('a FIM prompt that fits is encoded as is', () => {
  const p = formatFim('def f(x):\n    return ', '\n');
  const r = encodeServedPrompt(tok, p, 100);
  expect(r).toEqual({ ids: tok.encode(p), fim: true, truncated: 0 });
});

test('too long: the prefix loses its left end, the markers and the text next to the cursor survive', () => {
  const prefix = Array.from({ length: 200 }, (_, i) => `x${i} = ${i}\n`).join('') + 'y = ';
  const suffix = '\nprint(y)\n';
  const r = encodeServedPrompt(tok, formatFim(prefix, suffix), 64);
  expect(r.ids).toHaveLength(64);
  expect(r.truncated).toBeGreaterThan(0);
  const text = tok.decode(r.ids);
  expect(text.startsWith('<|fim_prefix|>')).toBe(true);
  expect(text.endsWith(`y = <|fim_suffix|>${suffix}<|fim_middle|>`)).toBe(true);
  expect(text).not.toContain('x0 = 0');
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
  expect(fits).toEqual({ ids: [tok.fim.prefix, tok.fim.suffix, ...plain('\n'), tok.fim.middle, ...plain('def f(x):\n    return ')], fim: true, truncated: 0 });
  const prefix = Array.from({ length: 200 }, (_, i) => `x${i} = ${i}\n`).join('') + 'y = ';
  const suffix = '\n' + Array.from({ length: 100 }, (_, i) => `z${i} = ${i}\n`).join('');
  const psm = encodeServedPrompt(tok, formatFim(prefix, suffix), 64);
  const r = encodeServedPrompt(spm, formatFim(prefix, suffix), 64);
  expect(r.ids).toHaveLength(64);
  expect(r.truncated).toBe(psm.truncated);
  const [s, m] = [psm.ids.indexOf(tok.fim.suffix), psm.ids.indexOf(tok.fim.middle)];
  expect(r.ids).toEqual([tok.fim.prefix, tok.fim.suffix, ...psm.ids.slice(s + 1, m), tok.fim.middle, ...psm.ids.slice(1, s)]);
  expect(tok.decode(r.ids).endsWith('y = ')).toBe(true);
});
