// GRPO over tool episodes on a tiny LoRA policy with scripted turns (one success and one failure per task): the
// update raises the log-probability of the successful episode's own tokens and lowers the failed one's, trains only
// the adapter, reports the episode metrics and the lag of each turn's policy version, and leaks nothing.
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { openCheckpoint } from '@rlhf-code/model';
import { saveTinyModel, tempDir, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { forwardResponses, layoutSequences } from '@rlhf-code/rl';
import { chatTemplateOf } from '@rlhf-code/tokenizer';
import { interpreterTools, type Episode, type TurnGenerator } from './episode';
import { episodeBatch } from './policy-turns';
import { ToolGrpoTrainer } from './tool-grpo';
import { toolCallText } from './warm-start';

jest.setTimeout(60_000);
beforeAll(() => initBackend({ quiet: true }));

test.each(['token-mean', 'seq-mean'] as const)('%s: the successful episode gains probability, the failed one loses it; only the adapter moves', async (lossAggregation) => {
  const dir = tempDir('tool-grpo-');
  await saveTinyModel(dir, { seed: 4, tokenizerDir: TOKENIZER_DIR });
  const { model: policy, tokenizer } = await openCheckpoint(dir);
  policy.addLora({ r: 4, alpha: 8, dropout: 0, targets: ['q_proj', 'v_proj', 'down_proj'] }, { seed: 1 });
  const reference = policy.view(null);
  const call = toolCallText('print(2 ** 10)');
  // Even rows call the tool, then answer 1024; odd rows guess.
  const script = (row: number, turn: number) => (row % 2 === 0 ? [call, 'The answer is 1024.'][turn] : 'It is 1000.');
  const turnsSeen = new Map<number, number>();
  const judged: Episode[] = [];
  const generate: TurnGenerator = async (sequences) =>
    sequences.map((_, i) => {
      // runEpisodes passes the live episodes in order; with these scripts row i is live until its last turn.
      const turn = turnsSeen.get(i) ?? 0;
      turnsSeen.set(i, turn + 1);
      const ids = tokenizer.encode(script(i, turn), { parseSpecialTokens: false });
      // The policy's own log-probs of the scripted turn (the trainer takes them as the sampling policy's).
      const logprobs = tf.tidy(() => forwardResponses(policy, layoutSequences([[...sequences[i]]], [[...ids, tokenizer.chat.imEnd]], tokenizer.padId), { temperature: 1 }).logprobs.arraySync() as number[][])[0];
      // An engine that lags: the first turns from version 0, later ones from version 1.
      return { ids, stopId: tokenizer.chat.imEnd, logprobs, policyVersion: Math.min(turn, 1) };
    });
  const grpo = new ToolGrpoTrainer(
    {
      policy, reference, tokenizer, template: chatTemplateOf(tokenizer), toolFor: interpreterTools(true), generate: () => generate,
      judge: async (es: Episode[]) => {
        judged.push(...es);
        return es.map((e) => {
          const success = e.answer === 'The answer is 1024.';
          return { success, score: Number(success), testsPassed: null };
        });
      },
      trainer: { optimizer: { lr: 2e-2 }, schedule: { totalSteps: 10, kind: 'constant' }, maxGradNorm: 1 },
    },
    { groupSize: 2, klCoef: 0.001, entropyCoef: 0.01, cliprange: 0.2, ppoEpochs: 1, miniBatches: 1, microBatchSize: 2, temperature: 1, maxTurns: 3, maxTurnTokens: 64, maxTotalTokens: 600, malformedPenalty: 0.1, lossAggregation },
  );
  const base = policy.hostWeights();
  const task = [{ role: 'user' as const, content: 'What is 2 to the power 10?' }];
  // The summed log-probability of each episode's own tokens under `model`.
  const scoreOf = (model: typeof policy, episodes: Episode[]) =>
    tf.tidy(() => {
      const b = episodeBatch(episodes, tokenizer.padId);
      const lp = forwardResponses(model, b, { temperature: 1 }).logprobs.arraySync() as number[][];
      return lp.map((row, i) => row.reduce((s, x, t) => s + x * b.responseMask[i][t], 0));
    });
  const m = await grpo.step([task], 1); // the trainer at version 1: two turns of version 0 (lag 1), one of version 1 (lag 0)
  expect(m['env/success_mean']).toBe(0.5);
  expect(m['env/tool_calls_mean']).toBe(0.5);
  expect(m['env/malformed_rate']).toBe(0);
  expect(m['tokens/masked_share']).toBeGreaterThan(0);
  expect(m['tokens/masked_share']).toBeLessThan(1);
  expect(Number.isFinite(m['ppo/loss/total'])).toBe(true);
  expect(m['engine/policy_version_lag_mean']).toBeCloseTo(2 / 3, 10);
  expect(m['engine/policy_version_lag_max']).toBe(1);
  const [won, lost] = judged;
  expect(won.toolCalls).toBe(1);
  judged.length = 0;
  turnsSeen.clear();
  const before = tf.memory().numTensors;
  const m2 = await grpo.step([task], 2); // the trainer at version 2: two turns of version 0 (lag 2), one of version 1 (lag 1)
  expect(m2['engine/policy_version_lag_mean']).toBeCloseTo((2 + 1 + 2) / 3, 10);
  expect(m2['engine/policy_version_lag_max']).toBe(2);
  expect(tf.memory().numTensors).toBe(before);
  // The step just taken saw the same two episodes: compare their scores under the policy now and before any update.
  const now = scoreOf(policy, [won, lost]);
  const start = scoreOf(reference, [won, lost]); // the base without the adapter: the policy before any update
  expect(now[0]).toBeGreaterThan(start[0]);
  expect(now[1]).toBeLessThan(start[1]);
  for (const [name, t] of policy.hostWeights()) expect(Array.from(t.data)).toEqual(Array.from(base.get(name)!.data));
  grpo.dispose();
  policy.dispose();
});

test('--rollout-is token-truncate: each model token weighted by min(cap, exp(recomputed - sampler log-prob))', async () => {
  const dir = tempDir('tool-grpo-is-');
  await saveTinyModel(dir, { seed: 4, tokenizerDir: TOKENIZER_DIR });
  const { model: policy, tokenizer } = await openCheckpoint(dir);
  policy.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['q_proj'] }, { seed: 1 });
  const answers = ['The answer is 1024.', 'It is 1000.'];
  // The sampler reports its tokens as `shift` nats less likely than the policy finds them (an engine that disagrees).
  let shift = 0;
  const generate: TurnGenerator = async (sequences) =>
    sequences.map((_, i) => {
      const ids = tokenizer.encode(answers[i % 2], { parseSpecialTokens: false });
      const own = tf.tidy(() => forwardResponses(policy, layoutSequences([[...sequences[i]]], [[...ids, tokenizer.chat.imEnd]], tokenizer.padId), { temperature: 1 }).logprobs.arraySync() as number[][])[0];
      return { ids, stopId: tokenizer.chat.imEnd, logprobs: own.map((lp) => lp - shift) };
    });
  const grpo = new ToolGrpoTrainer(
    {
      policy, reference: policy.view(null), tokenizer, template: chatTemplateOf(tokenizer), toolFor: interpreterTools(false), generate: () => generate,
      judge: async (es: Episode[]) => es.map((e) => ({ success: e.answer === answers[0], score: Number(e.answer === answers[0]), testsPassed: null })),
      trainer: { optimizer: { lr: 1e-3 }, schedule: { totalSteps: 10, kind: 'constant' }, maxGradNorm: 1 },
    },
    { groupSize: 2, klCoef: 0, entropyCoef: 0, cliprange: 0.2, ppoEpochs: 1, miniBatches: 1, microBatchSize: 2, temperature: 1, maxTurns: 1, maxTurnTokens: 32, maxTotalTokens: 400, malformedPenalty: 0, lossAggregation: 'token-mean', rolloutIs: 'token-truncate', rolloutIsCap: 2 },
  );
  const task = [{ role: 'user' as const, content: 'What is 2 to the power 10?' }];
  const same = await grpo.step([task]);
  expect(same['engine/is_weight_mean']).toBeCloseTo(1, 4); // the sampler agrees with the recompute (fp32 both)
  shift = 5;
  const off = await grpo.step([task]);
  expect(off['engine/is_weight_mean']).toBe(2); // exp(5) truncated at the cap
  expect(off['tokens/logprob_mismatch']).toBeGreaterThan(4.9);
  grpo.dispose();
  policy.dispose();
});
