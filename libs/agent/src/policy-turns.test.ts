// A real (tiny, random) policy through the episode loop: every episode ends by a rule, and the log-probs recomputed
// over the whole multi-turn sequence at its marked positions are the sampler's: the sequence is kept as sampled.
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { createRng } from '@rlhf-code/model';
import { saveTinyModel, tempDir, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { loadModelAndTokenizer } from '@rlhf-code/model';
import { forwardResponses } from '@rlhf-code/rl';
import { chatTemplateOf } from '@rlhf-code/tokenizer';
import { interpreterTools, runEpisodes } from './episode';
import { episodeBatch, policyTurns } from './policy-turns';

jest.setTimeout(60_000);
beforeAll(() => initBackend({ quiet: true }));

test('sampled episodes: ended by a rule; recomputed log-probs at the marked tokens equal the sampler\'s', async () => {
  const dir = tempDir('agent-');
  await saveTinyModel(dir, { seed: 3, tokenizerDir: TOKENIZER_DIR });
  const { model, tokenizer } = await loadModelAndTokenizer(dir);
  const template = chatTemplateOf(tokenizer);
  const prompts = [[{ role: 'user' as const, content: 'Compute 2**10.' }], [{ role: 'user' as const, content: 'Reverse "abc".' }]];
  const episodes = await runEpisodes(policyTurns(model, { tokenizer, temperature: 1, rng: createRng('agent-test') }), prompts, {
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
