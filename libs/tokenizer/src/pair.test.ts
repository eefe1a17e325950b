import { encodeChat } from './chat';
import { encodePair, encodePrompt, padBatch, stopTokenIds } from './pair';
import { loadTokenizer } from './tokenizer';

const tok = loadTokenizer();

describe('prompt/response pairs', () => {
  const prompt = '# add two numbers\n';
  const response = 'def add(a, b):\n    return a + b\n';

  it('raw: prompt ids, then response ids, then <|endoftext|>; promptLen marks the boundary', () => {
    const { ids, promptLen } = encodePair(tok, prompt, response);
    expect(ids.slice(0, promptLen)).toEqual(tok.encode(prompt));
    expect(ids.slice(promptLen, -1)).toEqual(tok.encode(response));
    expect(ids[ids.length - 1]).toBe(tok.eosId);
    expect(tok.decode(ids.slice(promptLen, -1))).toBe(response);
  });

  it('chat: ChatML user turn, answer ends with <|im_end|>', () => {
    const { ids, promptLen } = encodePair(tok, prompt, response, { template: 'chat' });
    expect(ids.slice(0, promptLen)).toEqual(encodeChat(tok, prompt));
    expect(ids[ids.length - 1]).toBe(tok.chat.imEnd);
    expect(stopTokenIds(tok, 'chat')).toEqual([tok.chat.imEnd, tok.eosId]);
    expect(stopTokenIds(tok, 'raw')).toEqual([tok.eosId]);
  });

  it('control-token text in user data stays plain text', () => {
    const ids = encodePrompt(tok, 'x <|endoftext|> y');
    expect(ids).not.toContain(tok.eosId);
  });

  it('addEos false leaves the end token out', () => {
    const { ids } = encodePair(tok, prompt, response, { addEos: false });
    expect(ids[ids.length - 1]).not.toBe(tok.eosId);
  });

  it('truncates the prompt from the left first, then the response from the right', () => {
    const longPrompt = '# ' + 'word '.repeat(200) + '\n';
    const full = encodePair(tok, longPrompt, response);
    const cut = encodePair(tok, longPrompt, response, { maxLen: 40 });
    const r = full.ids.length - full.promptLen;
    expect(cut.ids.length).toBe(40);
    expect(cut.ids.slice(cut.promptLen)).toEqual(full.ids.slice(full.promptLen)); // response intact
    expect(cut.ids.slice(0, cut.promptLen)).toEqual(full.ids.slice(full.promptLen - (40 - r), full.promptLen)); // prompt's end kept
    const tiny = encodePair(tok, longPrompt, 'x = 1\n'.repeat(50), { maxLen: 10 });
    expect(tiny.ids.length).toBe(10);
    expect(tiny.promptLen).toBe(5); // half the window kept for the response
    expect(() => encodePair(tok, prompt, response, { maxLen: 1 })).toThrow('maxLen must be at least 2');
  });

  it('pads left or right with a mask', () => {
    expect(padBatch([[1, 2, 3], [4]], 0, 'left')).toEqual({ ids: [[1, 2, 3], [0, 0, 4]], mask: [[1, 1, 1], [0, 0, 1]] });
    expect(padBatch([[1, 2, 3], [4]], 9, 'right')).toEqual({ ids: [[1, 2, 3], [4, 9, 9]], mask: [[1, 1, 1], [1, 0, 0]] });
    expect(() => padBatch([], 0, 'left')).toThrow('no rows');
  });
});
