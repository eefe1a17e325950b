// The simulated user against a fake completion server (no model): which clock times Continue's rules, the
// per-request records, and each example sent several times in a row.
import * as http from 'http';
import type { AddressInfo } from 'net';
import { runSimulation } from './simulator';
import { simUser } from './sim-users';

/**
 * A server that answers every completion request with `chunks` (text and, when given, sim_ms) as SSE, each after its
 * `waitMs` of wall time; it keeps the prompts.
 */
async function fakeServer(chunks: { text: string; sim_ms?: number; waitMs?: number }[], arms: string[] = ['policy']) {
  const prompts: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      prompts.push(JSON.parse(body).prompt);
      const arm = arms[(prompts.length - 1) % arms.length];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of chunks) {
        if (c.waitMs) await new Promise((r) => setTimeout(r, c.waitMs));
        res.write(`data: ${JSON.stringify({ id: 'c', arm, policy_version: 0, choices: [{ text: c.text, index: 0, finish_reason: null }], ...(c.sim_ms === undefined ? {} : { sim_ms: c.sim_ms }) })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/completions`, prompts, close: () => new Promise((r) => server.close(r)) };
}

const examples = [
  { prefix: 'def f():\n    ', suffix: '\n    return x\n', middle: 'x = 1', path: 'a.py' },
  { prefix: 'def g():\n    ', suffix: '\n    return x\n', middle: 'x = 2', path: 'b.py' },
];
const base = { token: 't', project: 'p', countTokens: (t: string) => t.length, feedbackUrl: null, reportEvery: 0, user: simUser('exact'), log: () => undefined };

test("clock simulated: Continue's 150 ms rule times each line by the server's sim_ms, not by when it arrived", async () => {
  // Two lines; the first counts as complete when the second chunk arrives: at 120 ms simulated (within the rule),
  // after at least 400 ms on the wall (past it however loaded the machine is: a wait only makes it later).
  const s = await fakeServer([{ text: 'x = 1', sim_ms: 100 }, { text: '\nx = 3', sim_ms: 120, waitMs: 400 }]);
  try {
    // A user who accepts one-line suggestions only: on the wall clock Continue cut after the first line, simulated it
    // displayed both.
    const oneLine = { ...simUser('exact'), accepts: async (js: readonly { shown: string }[]) => js.map((j) => !j.shown.includes('\n')) };
    const wallOne = await runSimulation({ ...base, user: oneLine, examples: examples.slice(0, 1), events: 1, completionUrl: s.url });
    const simOne = await runSimulation({ ...base, user: oneLine, examples: examples.slice(0, 1), events: 1, completionUrl: s.url, clock: 'simulated' });
    expect(wallOne.records).toEqual([{ position: 0, file: 'a.py', arm: 'policy', shown: true, accepted: true }]);
    expect(simOne.records[0]).toMatchObject({ shown: true, accepted: false });
  } finally {
    await s.close();
  }
});

test('clock simulated against a server that sends no sim_ms: an error naming the field', async () => {
  const s = await fakeServer([{ text: 'x = 1' }]);
  try {
    await expect(runSimulation({ ...base, examples, events: 1, completionUrl: s.url, clock: 'simulated' })).rejects.toThrow(/needs sim_ms on every chunk.*completion\.clock "simulated"/);
  } finally {
    await s.close();
  }
});

test('perExample: each example sent that many times in a row with the same prompt; one record per request', async () => {
  const s = await fakeServer([{ text: 'x = 2', sim_ms: 120 }], ['start', 'rank', 'all']);
  try {
    const r = await runSimulation({ ...base, examples, events: 6, perExample: 3, completionUrl: s.url, clock: 'simulated' });
    expect(r.records.map((x) => x.arm)).toEqual(['start', 'rank', 'all', 'start', 'rank', 'all']);
    const [p, q] = [r.records[0].position, r.records[3].position];
    expect(r.records.map((x) => x.position)).toEqual([p, p, p, q, q, q]);
    expect(new Set([p, q])).toEqual(new Set([0, 1]));
    expect(r.records.map((x) => x.file)).toEqual([p, p, p, q, q, q].map((k) => examples[k].path));
    expect(s.prompts[0]).toBe(s.prompts[2]);
    expect(s.prompts[3]).toBe(s.prompts[5]);
    expect(s.prompts[0]).not.toBe(s.prompts[3]);
    // "x = 2" is what the user meant at g() only.
    expect(r.records.map((x) => x.accepted)).toEqual([p, p, p, q, q, q].map((k) => k === 1));
    expect(r.by_arm.rank).toMatchObject({ requests: 2, shown: 2 });
    await expect(runSimulation({ ...base, examples, events: 1, perExample: 0, completionUrl: s.url })).rejects.toThrow('simulate: perExample must be an integer >= 1, got 0');
  } finally {
    await s.close();
  }
});

test('beforeRequest: awaited before every request, and no request is sent until it resolves', async () => {
  const s = await fakeServer([{ text: 'x = 2' }]);
  try {
    const seenAtCall: number[] = [];
    const r = await runSimulation({
      ...base,
      examples,
      events: 3,
      completionUrl: s.url,
      beforeRequest: async () => {
        seenAtCall.push(s.prompts.length); // requests the server had received when the hook was called
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(s.prompts.length).toBe(seenAtCall[seenAtCall.length - 1]); // still none sent while it waits
      },
    });
    expect(r.requests).toBe(3);
    expect(seenAtCall).toEqual([0, 1, 2]);
  } finally {
    await s.close();
  }
});
