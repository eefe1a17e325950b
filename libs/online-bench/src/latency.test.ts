// online latency's clients: a stream that carries an error (a generation that failed in the server) is a failed
// request, not a fast answer; answered requests are timed and their SSE data chunks counted.
import * as http from 'http';
import type { AddressInfo } from 'net';
import { runClients } from './latency';

test('a streamed error marks the request failed; answered ones are timed with their chunks', async () => {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      if (n++ % 2 === 0) res.write('data: {"error":{"message":"generation failed: out of memory","type":"server_error"}}\n\n');
      else res.write('data: {"choices":[{"text":"x"}]}\n\ndata: {"choices":[{"text":"","finish_reason":"stop"}]}\n\n');
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/completions`;
  try {
    const { results } = await runClients({ url, statusUrl: url, headers: {}, bodies: [{}], requests: 4, concurrency: 1, statusEveryMs: 0 });
    expect(results.map((r) => r.failed)).toEqual([true, false, true, false]);
    expect(results.map((r) => r.chunks)).toEqual([1, 2, 1, 2]);
    expect(results.every((r) => r.total >= r.first && r.first >= 0)).toBe(true);
  } finally {
    server.close();
  }
});
