// Episodes against a scripted policy (its turns are fixed text), so every rule can be checked exactly: the sequence
// is the template's rendering of the conversation, only the model's tokens are marked, tool answers come from the
// real interpreter (stateful or stateless), malformed calls are answered with an error, and the limits end episodes.
import * as path from 'path';
import { chatTemplateOf, loadTokenizer, renderChatTemplate, type TemplateMessage } from '@rlhf-code/tokenizer';
import { interpreterTools, PYTHON_TOOL, runEpisodes, type TurnGenerator } from './episode';
import { toolCallText } from './warm-start';

jest.setTimeout(30_000);

const tok = loadTokenizer(path.join(__dirname, '../../../models/base'));
const template = chatTemplateOf(tok);

/** A policy that says `turns[k]` at its k-th turn of each episode (ending it with <|im_end|>, or cut when too long). */
function scripted(turns: string[]): TurnGenerator {
  const at = new Map<number, number>();
  return async (sequences, maxNew) =>
    sequences.map((seq, i) => {
      const k = at.get(i) ?? 0;
      at.set(i, k + 1);
      const ids = tok.encode(turns[Math.min(k, turns.length - 1)], { parseSpecialTokens: false });
      const cut = ids.length >= maxNew[i];
      const kept = cut ? ids.slice(0, maxNew[i]) : ids;
      return { ids: kept, stopId: cut ? null : tok.chat.imEnd, logprobs: [...kept, 0].map((_, j) => -0.1 * (j + 1)) };
    });
}

const question: TemplateMessage[] = [{ role: 'user', content: 'What is 6 times 7, plus one?' }];
const base = { tokenizer: tok, template, maxTurns: 4, maxTurnTokens: 64, maxTotalTokens: 1024 };

test('stateful: the sequence is the template rendering of the conversation; only the model tokens are marked', async () => {
  const turns = [toolCallText('x = 6 * 7\nprint(x)'), toolCallText('x + 1'), 'The answer is 43.'];
  const [e] = await runEpisodes(scripted(turns), [question], { ...base, toolFor: interpreterTools(true) });
  expect(e).toMatchObject({ turns: 3, toolCalls: 2, malformedCalls: 0, end: 'answer', answer: 'The answer is 43.' });
  expect(e.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['42\n', '43\n']);
  // The sampled sequence decodes to the template's own rendering (which adds a newline after the last turn).
  expect(tok.decode(e.ids, { skipSpecialTokens: false }) + '\n').toBe(renderChatTemplate(template, e.messages, { tools: [PYTHON_TOOL] }));
  // The marked tokens are exactly the three turns, each with its end token; the prompt and the tool answers are not.
  const marked = e.ids.filter((_, i) => e.trainMask[i] === 1);
  expect(tok.decode(marked, { skipSpecialTokens: false })).toBe(turns.map((t) => `${t}<|im_end|>`).join(''));
  expect(e.trainMask.slice(0, e.promptLength).every((m) => m === 0)).toBe(true);
  expect(e.samplerLogprobs.filter((_, i) => e.trainMask[i] === 0).every((x) => x === 0)).toBe(true);
  expect(e.samplerLogprobs.filter((_, i) => e.trainMask[i] === 1).every((x) => x < 0)).toBe(true);
});

test('stateless: variables do not survive between calls; a malformed call is answered with an error and counted', async () => {
  const turns = [toolCallText('x = 6 * 7'), toolCallText('x + 1') + '\n<tool_call>{"name": "python_interpreter", "arguments": {"code": 1}}</tool_call>', 'I do not know.'];
  const [e] = await runEpisodes(scripted(turns), [question], { ...base, toolFor: interpreterTools(false) });
  expect(e).toMatchObject({ turns: 3, toolCalls: 2, malformedCalls: 1, end: 'answer' });
  const answers = e.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  expect(answers[0]).toBe('');
  expect(answers[1]).toMatch(/NameError: name 'x' is not defined/);
  expect(answers[2]).toBe('error: python_interpreter: argument "code" must be a string');
});

test('limits: turns, tokens per turn, tokens in all; several episodes at once', async () => {
  const loop = [toolCallText('print(1)')];
  const [a, b] = await runEpisodes(scripted(loop), [question, question], { ...base, maxTurns: 2, toolFor: interpreterTools(true) });
  for (const e of [a, b]) expect(e).toMatchObject({ turns: 2, toolCalls: 1, end: 'turns', answer: null }); // a final tool call is no answer
  const [c] = await runEpisodes(scripted(['x'.repeat(500)]), [question], { ...base, maxTurnTokens: 8, toolFor: interpreterTools(true) });
  expect(c).toMatchObject({ turns: 1, end: 'tokens', answer: null }); // nor is a turn cut at the token limit
  expect(c.trainMask.filter((m) => m === 1)).toHaveLength(8);
  const prompt = tok.encode(renderChatTemplate(template, question, { tools: [PYTHON_TOOL], addGenerationPrompt: true })).length;
  const [d] = await runEpisodes(scripted(loop), [question], { ...base, maxTotalTokens: prompt + 40, toolFor: interpreterTools(true) });
  expect(d).toMatchObject({ end: 'tokens', answer: null });
  expect(d.ids.length).toBeLessThanOrEqual(prompt + 40 + 60); // a tool answer may pass the budget; no turn starts after it
});
