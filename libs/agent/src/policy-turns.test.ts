// A real (tiny, random) policy through the episode loop: every episode ends by a rule, and the log-probs recomputed
// over the whole multi-turn sequence at its marked positions are the sampler's: the sequence is kept as sampled.
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { LocalEngine } from '@rlhf-code/engine';
import { resumableRng } from '@rlhf-code/model';
import { saveTinyModel, tempDir, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { openCheckpoint } from '@rlhf-code/model';
import { forwardResponses } from '@rlhf-code/rl';
import { chatTemplateOf } from '@rlhf-code/tokenizer';
import { interpreterTools, runEpisodes } from './episode';
import { episodeBatch, policyTurns } from './policy-turns';

jest.setTimeout(60_000);
beforeAll(() => initBackend({ quiet: true }));

test('sampled episodes: ended by a rule; recomputed log-probs at the marked tokens equal the sampler\'s', async () => {
  const dir = tempDir('agent-');
  await saveTinyModel(dir, { seed: 3, tokenizerDir: TOKENIZER_DIR });
  const { model, tokenizer } = await openCheckpoint(dir);
  const template = chatTemplateOf(tokenizer);
  const prompts = [[{ role: 'user' as const, content: 'Compute 2**10.' }], [{ role: 'user' as const, content: 'Reverse "abc".' }]];
  const episodes = await runEpisodes(policyTurns(new LocalEngine(model, tokenizer), { tokenizer, temperature: 1, rng: resumableRng('agent-test') }), prompts, {
    tokenizer, template, maxTurns: 3, maxTurnTokens: 12, maxTotalTokens: 400, toolFor: interpreterTools(true),
  });
  for (const e of episodes) {
    expect(['answer', 'turns', 'tokens']).toContain(e.end);
    expect(e.ids).toHaveLength(e.trainMask.length);
    expect(e.trainMask.filter((m) => m === 1).length).toBeGreaterThan(0);
  }
  const batch = episodeBatch(episodes, tokenizer.padId);
  const lp = tf.tidy(() => forwardResponses(model, batch, { temperature: 1 }).logprobs.arraySync() as number[][]);
  episodes.forEach((e, b) => {
    const marked = e.trainMask.slice(e.promptLength).flatMap((m, t) => (m ? [t] : []));
    for (const t of marked) expect(lp[b][t]).toBeCloseTo(e.samplerLogprobs[e.promptLength + t], 3);
    expect(batch.responseMask[b].reduce((s, m) => s + m, 0)).toBe(marked.length);
  });
  model.dispose();
});

test('common random numbers: an episode\'s turn k is drawn from its own stream (root seed, episode, turn), whatever else is sampled', async () => {
  const dir = tempDir('agent-');
  await saveTinyModel(dir, { seed: 5, tokenizerDir: TOKENIZER_DIR });
  const { model, tokenizer } = await openCheckpoint(dir);
  const seqs = ['Compute 2**10.', 'Reverse "abc".', 'Sum 1..9.'].map((q) => tokenizer.encode(`<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`));
  const make = (seed: string) => policyTurns(new LocalEngine(model, tokenizer), { tokenizer, temperature: 1, rng: resumableRng(seed) });
  const a = make('crn');
  const b = make('crn');
  // Turn 0 of all three; then turn 1 of episode 2 alone (a) or beside episode 0 with another budget (b).
  const a0 = await a(seqs, [10, 10, 10], [0, 1, 2]);
  const b0 = await b(seqs, [10, 10, 10], [0, 1, 2]);
  expect(b0.map((s) => s.ids)).toEqual(a0.map((s) => s.ids));
  const a1 = await a([seqs[2]], [10], [2]);
  const b1 = await b([seqs[0], seqs[2]], [4, 10], [0, 2]);
  expect(b1[1].ids).toEqual(a1[0].ids);
  // Turn 1 of the same sequence is not turn 0 again (its own stream), and another root seed samples other tokens.
  expect(a1[0].ids).not.toEqual(a0[2].ids);
  const other = await make('other')(seqs, [10, 10, 10], [0, 1, 2]);
  expect(other.map((s) => s.ids)).not.toEqual(a0.map((s) => s.ids));
  model.dispose();
});
