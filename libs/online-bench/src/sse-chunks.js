// The data chunks of a completion server's SSE body, shared by the bench clients (plain JavaScript: they run in worker
// threads without the TypeScript loader).
'use strict';

/** The JSON objects of the body's `data: {...}` lines, in order; `data: [DONE]` and data that is not JSON are skipped. */
function dataChunks(raw) {
  const out = [];
  for (const m of raw.matchAll(/^data: (\{.*\})$/gm)) {
    try {
      out.push(JSON.parse(m[1]));
    } catch {
      /* a chunk that is not JSON: no data */
    }
  }
  return out;
}

/** A chunk that reports a failed generation (the server's error body) rather than text. */
const isErrorChunk = (c) => c.error !== undefined;

module.exports = { dataChunks, isErrorChunk };
