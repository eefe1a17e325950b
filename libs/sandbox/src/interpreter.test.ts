// The interpreter tool: stateless calls forget, stateful ones remember until close(); limits on time, memory and
// output; no network; no inherited environment; the pool's concurrency limit.
import { SandboxPool } from './pool';
import { networkIsolated, PythonInterpreter } from './interpreter';

jest.setTimeout(30_000);

test('stateless: every call is a fresh process; a last expression is shown, an exception is its traceback', async () => {
  const py = new PythonInterpreter({ stateful: false });
  expect((await py.run('x = 6 * 7\nprint(x)')).output).toBe('42\n');
  expect((await py.run('x')).output).toMatch(/File "<tool>", line 1, in <module>\nNameError: name 'x' is not defined\n$/);
  expect((await py.run('sum(range(10**6))')).output).toBe('499999500000\n');
  const r = await py.run('def f(:\n  pass');
  expect(r.output).toMatch(/SyntaxError/);
  expect(r.output).not.toContain('interpreter.py'); // the worker's own frames are not shown
  expect(r.output).not.toContain('Traceback'); // nor the parser's: the line and the message
  expect(r.output).toMatch(/^  File "<tool>", line 1\n    def f\(:\n.*\nSyntaxError: /s);
  await py.close();
});

test('stateful: variables, imports and functions persist until close(); then a new episode starts empty', async () => {
  const py = new PythonInterpreter({ stateful: true });
  await py.run('import math\ndef area(r):\n    return math.pi * r * r\nxs = [1, 2, 3]');
  expect((await py.run('round(area(2), 3), sum(xs)')).output).toBe('(12.566, 6)\n');
  await py.close();
  expect((await py.run('xs')).output).toMatch(/NameError/);
  await py.close();
});

test('a call past the time limit is killed; a stateful interpreter says its state is gone and goes on', async () => {
  const py = new PythonInterpreter({ stateful: true, timeoutMs: 1500 });
  await py.run('y = 5');
  const slow = await py.run('while True:\n    pass');
  expect(slow).toMatchObject({ timedOut: true, output: 'interpreter: timed out after 1.5 s' });
  const next = await py.run('print("alive")\ny');
  expect(next.output).toMatch(/^interpreter: restarted after the previous call failed; earlier variables are gone\nalive\n.*NameError/s);
  await py.close();
});

test('memory and output limits', async () => {
  const py = new PythonInterpreter({ stateful: true, memoryMb: 256, outputChars: 100 });
  expect((await py.run('b = bytearray(1024 ** 3)')).output).toMatch(/MemoryError/);
  const loud = await py.run('for i in range(10000):\n    print("spam")');
  expect(loud.truncated).toBe(true);
  expect(loud.output).toHaveLength(100);
  expect((await py.run('print("still here")')).output).toBe('still here\n');
  await py.close();
});

test('no inherited environment, no network', async () => {
  process.env.RLHF_TEST_SECRET = 'hunter2';
  const py = new PythonInterpreter();
  expect((await py.run('import os\nsorted(os.environ)')).output).toBe("['HOME', 'LANG', 'PATH', 'TMPDIR']\n");
  if (networkIsolated()) {
    const r = await py.run('import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(("1.1.1.1", 53))');
    expect(r.output).toMatch(/OSError|Network is unreachable/);
  }
  delete process.env.RLHF_TEST_SECRET;
  await py.close();
});

test('calls of interpreters sharing a pool wait for its slots', async () => {
  const pool = new SandboxPool({ concurrency: 1 });
  const a = new PythonInterpreter({ stateful: true }, pool);
  const b = new PythonInterpreter({ stateful: true }, pool);
  const both = Promise.all([a.run('import time\ntime.sleep(0.5)\n"a"'), b.run('"b"')]);
  await new Promise((r) => setTimeout(r, 100));
  expect([pool.running, pool.queued]).toEqual([1, 1]); // b waits for a's slot
  expect((await both).map((r) => r.output)).toEqual(["'a'\n", "'b'\n"]);
  expect([pool.running, pool.queued]).toEqual([0, 0]);
  await Promise.all([a.close(), b.close()]);
});
