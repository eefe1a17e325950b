import * as fs from 'fs';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { continueHeaders, continueRequestBody, streamCompletion } from '@rlhf-code/continue';
import { tempDir } from '@rlhf-code/model/testing';
import { formatFim } from '@rlhf-code/tokenizer';
import { parseOnlineConfig } from '@rlhf-code/online-core';
import { startOnlineService, type OnlineService } from './service';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';

beforeAll(() => initBackend({ quiet: true }));

const auth = { 'Content-Type': 'application/json', Authorization: 'Bearer test-token', 'X-Project-ID': 'test-project' };

async function serveAndReport(s: OnlineService, prefix: string, accepted: boolean): Promise<void> {
  const prompt = formatFim(prefix, '\n');
  const r = await streamCompletion(`${s.completionUrl}/v1/completions`, continueRequestBody(prompt, 'Qwen2.5-Coder-1.5B'), continueHeaders('xxx'));
  const res = await fetch(`${s.feedbackUrl}/api/training/submit`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ prompt, completion: r.text.trim() ? r.text : 'x', accepted, cacheHit: false }),
  });
  expect(res.status).toBe(200);
}

test('objective user-rm: outcomes fit the reward model in the training thread, then RL steps on the recent prompts publish new weights', async () => {
  const stateDir = tempDir();
  const config = parseOnlineConfig({
    model: await makeTinyModelDir(5),
    stateDir,
    abFraction: 0,
    completion: { port: 0, maxTokensCap: 8 },
    feedback: { port: 0 },
    gate: { enabled: false },
    training: {
      objective: 'user-rm',
      batchSize: 4,
      minibatches: 1,
      maxUpdateKl: 100,
      maxSeqLen: 128,
      userRm: { model: 'features', minOutcomes: 6, minEach: 2, validate: false, positions: 2, samples: 2, steps: 1, maxNewTokens: 6, lr: 1e-3 },
    },
  });
  const s = await startOnlineService(config, { log: () => undefined });
  try {
    const prefixes = ['x = ', 'y = ', 'def f():\n    return ', 'import ', 'a = [', 'b = (', 'for i in ', 'while '];
    for (let i = 0; i < 4; i++) await serveAndReport(s, prefixes[i], i % 2 === 0);
    await s.idle();
    // 4 outcomes: fewer than minOutcomes, no reward model yet, nothing to optimise against.
    expect(s.status()).toMatchObject({ policy_version: 0, updates: 0, discarded_updates: 1 });
    for (let i = 4; i < 8; i++) await serveAndReport(s, prefixes[i], i % 2 === 0);
    await s.idle();
    expect(s.status()).toMatchObject({ policy_version: 1, updates: 1, discarded_updates: 1, events_received: 8 });
    const metrics = fs.readFileSync(path.join(stateDir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(metrics[0]).toMatchObject({ discarded: 'no-rm', rm: { fitted: false, outcomes: 4 }, rl: [] });
    expect(metrics[1]).toMatchObject({ discarded: null, rm: { fitted: true, outcomes: 8, kind: 'features' } });
    expect(metrics[1].rl).toHaveLength(1);
    expect(metrics[1].rl[0]).toMatchObject({ positions: 2, rollouts: 4 });
    // No prompt text (the user's code) reaches the metrics.
    expect(JSON.stringify(metrics)).not.toContain('while ');
  } finally {
    await s.close();
  }
}, 120_000);
