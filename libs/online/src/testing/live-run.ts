// A small online run for the live page's checks (live-page.test.ts, tools/check_live_page.sh): a service on the tiny
// test model with two arms (the policy and the frozen start, alternating: blocked routing), updates every 4 events,
// and a simulated user that accepts the policy's suggestions more often than the start model's.
import { continueHeaders, continueRequestBody, streamCompletion } from '@rlhf-code/continue';
import { formatFim } from '@rlhf-code/tokenizer';
import { parseOnlineConfig, type OnlineConfigInput } from '@rlhf-code/online-core';
import { startOnlineService, type OnlineService } from '../service';

/** The start arm's name: odd on purpose, so that the checks see it escaped in the page. */
export const ODD_ARM = 'start <&"\'>';

export async function startLiveRun(modelDir: string, stateDir: string, token: string, extra: OnlineConfigInput = {}, log: (line: string) => void = () => undefined): Promise<OnlineService> {
  const config = parseOnlineConfig({
    model: modelDir,
    stateDir,
    arms: [
      { name: 'policy', model: 'policy', holdCut: true, rank: true, hide: true },
      { name: ODD_ARM, model: 'start' },
    ],
    routing: 'blocked',
    completion: { port: 0, maxTokensCap: 6 },
    feedback: { port: 0, tokens: [token] },
    ...extra,
    training: { objective: 'outcome', batchSize: 4, minibatches: 1, lr: 1e-3, maxUpdateKl: 100, checkpointEvery: 100, maxSeqLen: 128, ...extra.training },
  });
  return startOnlineService(config, { log });
}

/**
 * Serve `requests` completions (distinct prompts) and post an outcome for each one that is not blank, as Continue
 * would: the policy's accepted 2 times in 3, the start model's 1 in 3. Waits for the updates that are due.
 */
export async function driveLiveRun(s: OnlineService, token: string, requests: number, from = 0): Promise<{ posted: number }> {
  let posted = 0;
  for (let i = from; i < from + requests; i++) {
    const prompt = formatFim(`value_${i} = compute(${i}, `, ')\n');
    const r = await streamCompletion(`${s.completionUrl}/v1/completions`, continueRequestBody(prompt, 'Qwen2.5-Coder-1.5B'), continueHeaders('xxx'));
    if (r.text.trim() === '') continue; // nothing shown: Continue posts nothing (the server records the silence)
    const accepted = r.arm === 'policy' ? i % 3 !== 0 : i % 3 === 0;
    const res = await fetch(`${s.feedbackUrl}/api/training/submit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ completionId: `live-${i}`, prompt, completion: r.text, accepted }),
    });
    if (res.status !== 200) throw new Error(`submit: HTTP ${res.status} ${await res.text()}`);
    posted += 1;
  }
  await s.idle();
  return { posted };
}
