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

  it("stop set 'fim': every control token that ends a FIM completion, by name", () => {
    const names = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>', '<|im_start|>', '<|im_end|>'];
    const ids = stopTokenIds(tok, 'fim');
    expect(ids).toEqual(names.map((n) => tok.tokenToId(n)));
    expect(ids).toEqual(expect.arrayContaining([tok.eosId, tok.fim.prefix, tok.fim.middle, tok.fim.suffix, tok.chat.imEnd]));
    expect(new Set(ids).size).toBe(names.length);
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

  describe('an over-long pair keeps its end token (the reward model reads its score there)', () => {
    const plain = (t: string) => tok.encode(t, { parseSpecialTokens: false });
    const longPrompt = '# ' + 'word '.repeat(200) + '\n';
    const longResponse = 'x = 1\n'.repeat(50);
    const p = plain(longPrompt);
    const r = plain(longResponse);

    it('ends with the end token at exactly maxLen, the response body cut from the right', () => {
      for (const maxLen of [2, 3, 10, 11, 40]) {
        const { ids, promptLen } = encodePair(tok, longPrompt, longResponse, { maxLen });
        expect(ids.length).toBe(maxLen);
        expect(ids[ids.length - 1]).toBe(tok.eosId);
        expect(ids.filter((t) => t === tok.eosId)).toHaveLength(1);
        // At least one prompt token, at least half the window (end token included) for the response.
        expect(promptLen).toBe(Math.max(1, maxLen - Math.ceil(maxLen / 2)));
        expect(ids.slice(0, promptLen)).toEqual(p.slice(p.length - promptLen)); // the prompt's end
        expect(ids.slice(promptLen, -1)).toEqual(r.slice(0, maxLen - promptLen - 1)); // the response's start
      }
      const chat = encodePair(tok, longPrompt, longResponse, { template: 'chat', maxLen: 30 });
      expect(chat.ids.length).toBe(30);
      expect(chat.ids[29]).toBe(tok.chat.imEnd);
      expect(chat.promptLen).toBe(15);
    });

    it('a short prompt is kept whole and the response gets the rest of the window', () => {
      const short = plain(prompt);
      const { ids, promptLen } = encodePair(tok, prompt, longResponse, { maxLen: 20 });
      expect(promptLen).toBe(short.length);
      expect(ids).toEqual([...short, ...r.slice(0, 20 - short.length - 1), tok.eosId]);
      // A long prompt with a short response: the prompt gives way, the response and its end token stay whole.
      const cut = encodePair(tok, longPrompt, response, { maxLen: 40 });
      expect(cut.ids.slice(cut.promptLen)).toEqual([...plain(response), tok.eosId]);
    });

    it('addEos false truncates as before: prompt end + response start, no end token', () => {
      const { ids, promptLen } = encodePair(tok, longPrompt, longResponse, { maxLen: 10, addEos: false });
      expect(promptLen).toBe(5);
      expect(ids).toEqual([...p.slice(p.length - 5), ...r.slice(0, 5)]);
      expect(ids).not.toContain(tok.eosId);
    });

    it('a pair that fits (even exactly) is unchanged', () => {
      const full = encodePair(tok, prompt, response);
      expect(encodePair(tok, prompt, response, { maxLen: full.ids.length })).toEqual(full);
      expect(encodePair(tok, prompt, response, { maxLen: full.ids.length + 100 })).toEqual(full);
      const noEos = encodePair(tok, prompt, response, { addEos: false });
      expect(encodePair(tok, prompt, response, { maxLen: noEos.ids.length, addEos: false })).toEqual(noEos);
      // One token too many: the last response token gives way, not the end token.
      const oneShort = encodePair(tok, prompt, response, { maxLen: full.ids.length - 1 });
      expect(oneShort.ids).toEqual([...full.ids.slice(0, -2), tok.eosId]);
    });
  });

  it('pads left or right with a mask', () => {
    expect(padBatch([[1, 2, 3], [4]], 0, 'left')).toEqual({ ids: [[1, 2, 3], [0, 0, 4]], mask: [[1, 1, 1], [0, 0, 1]] });
    expect(padBatch([[1, 2, 3], [4]], 9, 'right')).toEqual({ ids: [[1, 2, 3], [4, 9, 9]], mask: [[1, 1, 1], [1, 0, 0]] });
    expect(() => padBatch([], 0, 'left')).toThrow('no rows');
  });
});
