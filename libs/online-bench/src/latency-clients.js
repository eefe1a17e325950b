// The clients of `online latency`, in a worker thread: Continue runs in another process, so the requests are timed
// from an event loop of their own (in the service's thread, each send and each read of a reply would wait for the
// decoding step in progress, and the figures would count that wait on top of the service's).
//   workerData  { url, statusUrl, headers, bodies, requests, concurrency, statusEveryMs (0: no status calls) }
//   posts       { results: [{ first, total, chunks, failed, pieces: [{ text, ms }], usage }], status: [ms] } or { error }
//               (results in the order of `bodies` when concurrency is 1)
// Plain JavaScript: a worker thread does not get the TypeScript loader of its parent under every runner.
'use strict';
const { parentPort, workerData } = require('worker_threads');
const { dataChunks, isErrorChunk } = require('./sse-chunks');

/**
 * One streaming request: times to the first chunk and to the end, the number of SSE data chunks, whether the server
 * reported an error in the stream (a failed generation answers fast and must not count as a fast answer), each piece
 * of text with the ms at which it arrived (what Continue's clock sees), and the usage of the last chunk that has one.
 */
async function timedRequest(url, headers, body) {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  let first = -1;
  let buffer = '';
  const chunks = []; // { chunk, ms }: each data chunk with the time its last byte arrived
  const take = (events, ms) => dataChunks(events).forEach((chunk) => chunks.push({ chunk, ms }));
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    const ms = performance.now() - t0;
    if (first < 0) first = ms;
    buffer += decoder.decode(bytes, { stream: true });
    const end = buffer.lastIndexOf('\n\n'); // whole events only
    if (end >= 0) {
      take(buffer.slice(0, end + 2), ms);
      buffer = buffer.slice(end + 2);
    }
  }
  const total = performance.now() - t0;
  take(buffer + decoder.decode(), total);
  const pieces = chunks.filter(({ chunk }) => chunk.choices?.[0]?.text).map(({ chunk, ms }) => ({ text: chunk.choices[0].text, ms }));
  const usage = chunks.map(({ chunk }) => chunk.usage).filter((u) => u !== undefined).pop() ?? null;
  return { first, total, chunks: chunks.length, failed: chunks.some(({ chunk }) => isErrorChunk(chunk)), pieces, usage };
}

async function main(o) {
  const results = [];
  const status = [];
  let next = 0;
  let inFlight = 0;
  const client = async () => {
    for (let i = next++; i < o.requests; i = next++) {
      inFlight++;
      try {
        results.push(await timedRequest(o.url, o.headers, o.bodies[i % o.bodies.length]));
      } finally {
        inFlight--;
      }
    }
  };
  let polling = o.statusEveryMs > 0;
  const poller = (async () => {
    while (polling) {
      await new Promise((r) => setTimeout(r, o.statusEveryMs));
      if (inFlight === 0) continue;
      const t0 = performance.now();
      await (await fetch(o.statusUrl)).json();
      status.push(performance.now() - t0);
    }
  })();
  await Promise.all(Array.from({ length: o.concurrency }, client));
  polling = false;
  await poller;
  return { results, status };
}

main(workerData).then(
  (r) => parentPort.postMessage(r),
  (e) => parentPort.postMessage({ error: String(e && e.message ? e.message : e) }),
);
