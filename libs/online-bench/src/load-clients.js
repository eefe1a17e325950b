// The clients of `online load`, in a worker thread (Continue and its users run in processes of their own, so the
// answers are timed from an event loop that nothing else blocks):
//   completion clients  one Continue-shaped streaming request after another (each client its own prompt form); after
//                       an answer the server shed (header x-shed: it had no time for it) the next comes `debounceMs`
//                       later, at the user's next pause, as Continue would ask (not at once: it does not retry)
//   feedback clients    a new outcome every `feedbackEveryMs` (the fork's bare outcome and upstream's dev-data event
//                       in turn), about a completion the server answered (its prompt and text), each with a new id
//   status poller       GET /api/training/status every `statusEveryMs`
// A request that finds no server (the kill -9 and restart of `--kill`), or whose stream reports a failed generation,
// counts as failed, never as answered or acked.
//   workerData  { completionUrl, feedbackUrl, statusUrl, headers, feedbackHeaders, bodies: [[body]] per form,
//                 seeds: [{prompt, completion}], completionClients, feedbackClients, feedbackEveryMs, statusEveryMs,
//                 durationMs, debounceMs, modelName }
//   posts       { completions: [{ ms, empty, shed, status }], feedback: [{ ms, id, status }], status: [ms],
//                 failed: { completions, feedback, status } }
// Plain JavaScript: a worker thread does not get the TypeScript loader of its parent under every runner.
'use strict';
const { parentPort, workerData } = require('worker_threads');
const { randomUUID } = require('crypto');
const { dataChunks, isErrorChunk } = require('./sse-chunks');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One streaming request: the time to the end of the stream, the text of its first choice, whether it was shed, and
 * whether the stream reported a failed generation (an error chunk: a failure, not an empty answer).
 */
async function completion(url, headers, body) {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  let text = '';
  let error = false;
  if (res.ok && res.body) {
    for (const c of dataChunks(await res.text())) {
      if (isErrorChunk(c)) error = true;
      else if (c.choices && c.choices[0] && typeof c.choices[0].text === 'string') text += c.choices[0].text;
    }
  } else await res.text();
  return { ms: performance.now() - t0, status: res.status, text, shed: res.headers.get('x-shed') !== null, error };
}

async function main(o) {
  const end = performance.now() + o.durationMs;
  const completions = [];
  const feedback = [];
  const status = [];
  const failed = { completions: 0, feedback: 0, status: 0 };
  // Completions the server answered with text: what the feedback clients report on (the first ones: o.seeds).
  const answered = o.seeds.slice();

  const completionClient = async (c) => {
    const bodies = o.bodies[c % o.bodies.length];
    for (let i = c; performance.now() < end; i += o.completionClients) {
      const body = bodies[i % bodies.length];
      try {
        const r = await completion(o.completionUrl, o.headers, body);
        if (r.error) {
          failed.completions++; // answered with an error chunk: a failed generation, not an empty suggestion
          continue;
        }
        completions.push({ ms: r.ms, status: r.status, empty: r.text.trim() === '', shed: r.shed });
        if (r.status === 200 && r.text.trim() !== '') {
          answered.push({ prompt: body.prompt, completion: r.text });
          if (answered.length > 500) answered.splice(o.seeds.length, 1);
        }
        if (r.shed) await sleep(o.debounceMs);
      } catch {
        failed.completions++;
        await sleep(100);
      }
    }
  };

  const feedbackClient = async (c) => {
    for (let k = 0; performance.now() < end; k++) {
      const due = performance.now() + o.feedbackEveryMs;
      const about = answered[Math.floor(Math.random() * answered.length)];
      const outcome = {
        completionId: randomUUID(),
        prompt: about.prompt,
        completion: about.completion,
        accepted: Math.random() < 0.3,
        modelProvider: 'openai',
        modelName: o.modelName,
        cacheHit: false,
        timestamp: new Date().toISOString(),
        time: 200,
        numLines: about.completion.split('\n').length,
      };
      const body = c % 2 === 0 ? outcome : { name: 'autocomplete', schema: '0.2.0', level: 'all', data: outcome };
      const t0 = performance.now();
      try {
        const res = await fetch(o.feedbackUrl, { method: 'POST', headers: o.feedbackHeaders, body: JSON.stringify(body) });
        await res.text();
        feedback.push({ ms: performance.now() - t0, id: outcome.completionId, status: res.status });
      } catch {
        failed.feedback++;
      }
      await sleep(Math.max(0, due - performance.now()));
    }
  };

  const poller = async () => {
    while (performance.now() < end) {
      await sleep(o.statusEveryMs);
      const t0 = performance.now();
      try {
        const res = await fetch(o.statusUrl);
        await res.json();
        status.push(performance.now() - t0);
      } catch {
        failed.status++;
      }
    }
  };

  await Promise.all([
    ...Array.from({ length: o.completionClients }, (_, c) => completionClient(c)),
    ...Array.from({ length: o.feedbackClients }, (_, c) => feedbackClient(c)),
    poller(),
  ]);
  return { completions, feedback, status, failed };
}

main(workerData).then(
  (r) => parentPort.postMessage(r),
  (e) => parentPort.postMessage({ error: String(e && e.message ? e.message : e) }),
);
