// The interpreter tool: stateless calls forget, stateful ones remember until close(); limits on time, memory and
// output; no network; no inherited environment; the pool's concurrency limit. Every test runs for both start modes
// (a process forked from the fork server, a python process of its own).
import { spawn } from 'child_process';
import { once } from 'events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createInterface } from 'readline';
import { closeForkServers, forkServer } from './forkserver';
import { resolvePython } from './python';
import { SandboxPool } from './pool';
import { networkIsolated, PythonInterpreter } from './interpreter';

jest.setTimeout(30_000);
afterAll(closeForkServers);

describe.each(['fork', 'spawn'] as const)('%s', (startMode) => {

  test('stateless: every call is a fresh process; a last expression is shown, an exception is its traceback', async () => {
    const py = new PythonInterpreter({ startMode, stateful: false });
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
    const py = new PythonInterpreter({ startMode, stateful: true });
    await py.run('import math\ndef area(r):\n    return math.pi * r * r\nxs = [1, 2, 3]');
    expect((await py.run('round(area(2), 3), sum(xs)')).output).toBe('(12.566, 6)\n');
    await py.close();
    expect((await py.run('xs')).output).toMatch(/NameError/);
    await py.close();
  });

  test('a call past the time limit is killed; a stateful interpreter says its state is gone and goes on', async () => {
    const py = new PythonInterpreter({ startMode, stateful: true, timeoutMs: 1500 });
    await py.run('y = 5');
    const slow = await py.run('while True:\n    pass');
    expect(slow).toMatchObject({ timedOut: true, output: 'interpreter: timed out after 1.5 s' });
    const next = await py.run('print("alive")\ny');
    expect(next.output).toMatch(/^interpreter: restarted after the previous call failed; earlier variables are gone\nalive\n.*NameError/s);
    await py.close();
  });

  test('a process that dies is a crash; a stateful interpreter then starts afresh', async () => {
    const py = new PythonInterpreter({ startMode, stateful: true });
    await py.run('y = 5');
    expect(await py.run('import os\nos._exit(3)')).toMatchObject({ crashed: true, timedOut: false, output: 'interpreter: the interpreter process died (out of memory?)' });
    expect((await py.run('y')).output).toMatch(/^interpreter: restarted after the previous call failed; earlier variables are gone\n.*NameError/s);
    await py.close();
  });

  test('memory and output limits', async () => {
    const py = new PythonInterpreter({ startMode, stateful: true, memoryMb: 256, outputChars: 100 });
    expect((await py.run('b = bytearray(1024 ** 3)')).output).toMatch(/MemoryError/);
    const loud = await py.run('for i in range(10000):\n    print("spam")');
    expect(loud.truncated).toBe(true);
    expect(loud.output).toHaveLength(100);
    expect((await py.run('print("still here")')).output).toBe('still here\n');
    await py.close();
  });

  test('no inherited environment, no network', async () => {
    process.env.RLHF_TEST_SECRET = 'hunter2';
    const py = new PythonInterpreter({ startMode });
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
    const a = new PythonInterpreter({ startMode, stateful: true }, pool);
    const b = new PythonInterpreter({ startMode, stateful: true }, pool);
    const both = Promise.all([a.run('import time\ntime.sleep(0.5)\n"a"'), b.run('"b"')]);
    await new Promise((r) => setTimeout(r, 100));
    expect([pool.running, pool.queued]).toEqual([1, 1]); // b waits for a's slot
    expect((await both).map((r) => r.output)).toEqual(["'a'\n", "'b'\n"]);
    expect([pool.running, pool.queued]).toEqual([0, 0]);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('fork server', () => {
  /** Running: /proc has it and it is not a zombie (an exited child nobody has reaped yet). */
  const running = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  /** Waits up to 3 s for none of `pids` to be running. */
  const allGone = async (pids: number[]) => {
    for (let i = 0; i < 60 && pids.some(running); i++) await new Promise((r) => setTimeout(r, 50));
    return pids.filter(running);
  };
  const pids = async (py: PythonInterpreter) => JSON.parse((await py.run('import os\nprint(f"[{os.getpid()}, {os.getppid()}]")')).output) as [number, number];

  test("each interpreter is a fresh child of one server: a child's variables, imports and files are not the next one's", async () => {
    const a = new PythonInterpreter({ stateful: true });
    const b = new PythonInterpreter({ stateful: true });
    await a.run('import json\nsecret = 42\nopen("mine.txt", "w").write("a")');
    const [pa, server] = await pids(a);
    const [pb, serverB] = await pids(b);
    expect(serverB).toBe(server);
    expect(pb).not.toBe(pa);
    const seen = await b.run('import os, sys\nprint("secret" in globals(), "json" in dir(), os.listdir("."))');
    expect(seen.output).toBe('False False []\n');
    await a.close();
    expect((await a.run('secret')).output).toMatch(/NameError/); // a new episode: a new child
    await Promise.all([a.close(), b.close()]);
  });

  test('a timed-out child is killed with what it started', async () => {
    // 3 s: the first call starts the child and its grandchild before the timeout on a loaded machine too.
    const py = new PythonInterpreter({ stateful: true, timeoutMs: 3000 });
    const started = await py.run('import os, subprocess\np = subprocess.Popen(["sleep", "60"])\nprint(f"[{os.getpid()}, {p.pid}]")');
    const [child, grandchild] = JSON.parse(started.output) as [number, number];
    expect([running(child), running(grandchild)]).toEqual([true, true]);
    expect(await py.run('while True:\n    pass')).toMatchObject({ timedOut: true });
    expect(await allGone([child, grandchild])).toEqual([]);
    expect((await py.run('p')).output).toMatch(/^interpreter: restarted after the previous call failed; earlier variables are gone\n.*NameError/s);
    await py.close();
  });

  test('a killed server is started again by the next call; its children died with it', async () => {
    const stateless = new PythonInterpreter();
    const stateful = new PythonInterpreter({ stateful: true });
    await stateful.run('x = 1');
    const [child, server] = await pids(stateful);
    process.kill(server, 'SIGKILL');
    expect(await allGone([server, child])).toEqual([]);
    const [, newServer] = await pids(stateless);
    expect(newServer).not.toBe(server);
    expect(await stateful.run('x')).toMatchObject({ crashed: true, output: 'interpreter: the interpreter process died (out of memory?)' });
    const next = await stateful.run('x = 2\nx');
    expect(next.output).toBe('interpreter: restarted after the previous call failed; earlier variables are gone\n2\n');
    await Promise.all([stateless.close(), stateful.close()]);
  });

  test('close() leaves no process and no temp dir behind', async () => {
    const stateful = new PythonInterpreter({ stateful: true });
    const stateless = new PythonInterpreter();
    const where = 'import os\nprint(f"[{os.getpid()}, {os.getppid()}, \\"{os.getcwd()}\\"]")';
    const [child, server, dir] = JSON.parse((await stateful.run(where)).output) as [number, number, string];
    const [once, , onceDir] = JSON.parse((await stateless.run(where)).output) as [number, number, string];
    const serverDir = (await forkServer(resolvePython())).dir;
    expect(await allGone([once])).toEqual([]);
    expect(existsSync(onceDir)).toBe(false);
    expect(existsSync(dir)).toBe(true);
    await stateful.close();
    expect(await allGone([child])).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await closeForkServers();
    expect(await allGone([server])).toEqual([]);
    expect(existsSync(serverDir)).toBe(false);
  });

  test.each(['exits', 'is killed'])('no process or temp dir is left when the Node process %s', async (how) => {
    const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'interpreter-test-')), 'exit.ts');
    writeFileSync(
      script,
      `import { PythonInterpreter } from ${JSON.stringify(path.join(__dirname, 'interpreter'))};\n` +
        `import { forkServer } from ${JSON.stringify(path.join(__dirname, 'forkserver'))};\n` +
        `import { resolvePython } from ${JSON.stringify(path.join(__dirname, 'python'))};\n` +
        `void (async () => {\n` +
        `  const py = new PythonInterpreter({ stateful: true });\n` +
        `  const r = await py.run('import os, subprocess\\np = subprocess.Popen(["sleep", "60"])\\nprint(f"[{os.getpid()}, {os.getppid()}, {p.pid}, \\\\"{os.getcwd()}\\\\"]")');\n` +
        `  process.stdout.write(r.output + JSON.stringify((await forkServer(resolvePython())).dir) + '\\n');\n` +
        `  ${how === 'exits' ? 'process.exit(0);' : 'setInterval(() => undefined, 1000);'}\n` +
        `})();\n`,
    );
    const node = spawn(process.execPath, ['--import', 'tsx', script], { cwd: path.join(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: node.stdout! })[Symbol.asyncIterator]();
    const [child, server, grandchild, dir] = JSON.parse((await lines.next()).value as string) as [number, number, number, string];
    const serverDir = JSON.parse((await lines.next()).value as string) as string;
    if (how === 'is killed') node.kill('SIGKILL'); // no exit handler runs: the server sees its stdin end
    await once(node, 'exit');
    expect(await allGone([child, server, grandchild])).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(serverDir)).toBe(false);
    rmSync(path.dirname(script), { recursive: true, force: true });
  });

  test('a fork server that does not start: a warning naming why, and every interpreter spawns', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'interpreter-test-'));
    const fake = path.join(dir, 'python3'); // a python whose fork server fails at once
    const script = `#!/bin/sh\nif [ "$2" = -c ]; then echo 3; echo "$0"; exit 0; fi\nfor a; do [ "$a" = --server ] && { echo boom >&2; exit 1; }; done\nexec ${resolvePython()} "$@"\n`;
    writeFileSync(fake, script, { mode: 0o755 });
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await jest.isolateModulesAsync(async () => {
        const fresh = await import('./interpreter'); // its own "fork server broken" flag
        const py = new fresh.PythonInterpreter({ python: fake, stateful: true });
        expect((await py.run('x = 1 + 1\nx')).output).toBe('2\n');
        expect((await py.run('x')).output).toBe('2\n');
        await py.close();
      });
      expect(warn.mock.calls).toEqual([['sandbox: fork server: exited (code 1) before it took requests: boom; every interpreter process is spawned from now on']]);
    } finally {
      warn.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
