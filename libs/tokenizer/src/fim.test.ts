import { encodeFim, formatFim, parseFim } from './fim';
import { loadTokenizer } from './tokenizer';

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
