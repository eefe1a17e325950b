// runPython against a real python3: what the sandbox promises (limits, isolation, honest test counts).
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PythonNotFoundError } from './python';
import { runPython } from './run';

const ADD = 'def add(a, b):\n    return a + b\n';
const ADD_TESTS = ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(2, 2) == 4'];

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sandbox-test-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Alive and not a zombie (a killed process whose parent died is reaped by init, maybe not instantly). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
async function waitUntilDead(pid: number, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

describe('runPython', () => {
  it('counts a passing solution', async () => {
    const r = await runPython(ADD, ADD_TESTS);
    expect(r).toMatchObject({ syntaxOk: true, passed: 3, total: 3, timedOut: false, memoryExceeded: false, exitCode: 0, finished: true });
    expect(r.error).toBeUndefined();
  });

  it('runs each test on its own: one failing test does not hide the others', async () => {
    const r = await runPython(ADD, ['assert add(1, 2) == 3', 'assert add(1, 1) == 3', 'assert add(0, 0) == 0', 'assert undefined_name(1)']);
    expect(r).toMatchObject({ syntaxOk: true, passed: 2, total: 4, exitCode: 0, finished: true });
    expect(r.error).toBe('test 1 failed: AssertionError');
    expect(r.stderrTail).toContain("test 3 failed: NameError: name 'undefined_name' is not defined");
  });

  it('reports a syntax error without running anything', async () => {
    const r = await runPython('def add(a, b)\n    return a + b\n', ADD_TESTS);
    expect(r).toMatchObject({ syntaxOk: false, passed: 0, total: 3, exitCode: 1, finished: false });
    expect(r.error).toMatch(/^syntax: SyntaxError: expected ':'/);
  });

  it('runs the setup code after the solution, so it can use the solution\'s classes (MBPP style)', async () => {
    const code = 'class Node:\n    def __init__(self, v):\n        self.v = v\ndef value(n):\n    return n.v\n';
    const r = await runPython(code, ['assert value(root) == 7'], { setup: 'root = Node(7)' });
    expect(r).toMatchObject({ passed: 1, total: 1 });
  });

  it('kills an infinite loop at the timeout, with the processes it started', async () => {
    const pidFile = path.join(scratch, 'loop.pid');
    const code = [
      'import subprocess',
      "child = subprocess.Popen(['sleep', '30'])",
      `open(${JSON.stringify(pidFile)}, 'w').write(str(child.pid))`,
      'while True:',
      '    pass',
    ].join('\n');
    // 3 s: on a loaded machine the program must still start its child and write the pid file before the timeout.
    const r = await runPython(code, ['assert True'], { timeoutMs: 3000 });
    expect(r).toMatchObject({ timedOut: true, passed: 0, exitCode: null, finished: false, syntaxOk: true });
    expect(r.error).toBe('timed out after 3000 ms');
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntilDead(sleeper)).toBe(true);
  });

  it('times out a test that loops, keeping the count of those that passed before', async () => {
    // 3 s: the first test must pass before the timeout on a loaded machine too (Python's start-up included).
    const r = await runPython(ADD, ['assert add(1, 1) == 2', 'while True: pass', 'assert True'], { timeoutMs: 3000 });
    expect(r).toMatchObject({ timedOut: true, passed: 1, total: 3 });
  });

  it('kills background processes left behind by a program that finished normally', async () => {
    const pidFile = path.join(scratch, 'bg.pid');
    const code = `import subprocess\np = subprocess.Popen(['sleep', '30'])\nopen(${JSON.stringify(pidFile)}, 'w').write(str(p.pid))\n`;
    const r = await runPython(code, ['assert True']);
    expect(r).toMatchObject({ passed: 1, finished: true, timedOut: false });
    expect(await waitUntilDead(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('stops a memory bomb at the memory limit', async () => {
    const r = await runPython('blob = bytearray(4 * 1024 ** 3)\n', ['assert True'], { memoryMb: 256 });
    expect(r).toMatchObject({ memoryExceeded: true, passed: 0, timedOut: false, exitCode: 1 });
    expect(r.error).toBe('code: MemoryError');
  });

  it('recovers from a test that exhausts memory and runs the next one', async () => {
    const code = 'def grow():\n    chunks = []\n    while True:\n        chunks.append(bytearray(8 * 1024 * 1024))\n';
    const r = await runPython(code, ['grow()', 'assert 1 + 1 == 2'], { memoryMb: 256, timeoutMs: 30_000 });
    expect(r).toMatchObject({ memoryExceeded: true, passed: 1, total: 2, timedOut: false, finished: true });
  });

  it.each([0, 1])('does not count tests when the code calls sys.exit(%i) before them', async (status) => {
    const r = await runPython(`import sys\nsys.exit(${status})\n`, ['assert True', 'assert 1 == 1']);
    expect(r).toMatchObject({ passed: 0, total: 2, exitCode: 1, finished: false, syntaxOk: true });
    expect(r.error).toBe(`code: SystemExit: ${status}`);
  });

  it('counts sys.exit inside a test as that test failing', async () => {
    const r = await runPython('import sys\ndef f():\n    sys.exit(0)\n', ['f()', 'assert True']);
    expect(r).toMatchObject({ passed: 1, total: 2, exitCode: 0, finished: true });
  });

  it('does not count a solution that ends the process with os._exit(0)', async () => {
    const r = await runPython('import os\nos._exit(0)\n', ['assert True']);
    expect(r).toMatchObject({ passed: 0, total: 1, exitCode: 0, finished: false });
    expect(r.error).toBe('exited with code 0 before the tests finished');
  });

  it('keeps the tests passed before one calls os._exit', async () => {
    const r = await runPython('import os\n', ['assert True', 'os._exit(3)', 'assert True']);
    expect(r).toMatchObject({ passed: 1, total: 3, exitCode: 3, finished: false });
  });

  it('kills an output flood at the cap, not at the timeout', async () => {
    // A generous timeout: on a loaded machine the flood still reaches the cap first (timedOut false says it did).
    const r = await runPython("while True:\n    print('x' * 10000)\n", ['assert True'], { outputCapBytes: 100_000, timeoutMs: 30_000 });
    expect(r).toMatchObject({ outputExceeded: true, timedOut: false, passed: 0, exitCode: null, finished: false });
  });

  it('caps stderr floods too, and keeps only a tail of stderr', async () => {
    const r = await runPython("import sys\nwhile True:\n    sys.stderr.write('e' * 5000)\n", [], { outputCapBytes: 50_000 });
    expect(r.outputExceeded).toBe(true);
    expect(r.stderrTail.length).toBeLessThanOrEqual(2000);
  });

  it('ignores forged result lines on stdout, stderr and the report pipe', async () => {
    const forged = ['{"e": "syntax", "ok": true}', '{"e": "test", "i": 0, "ok": true}', '{"e": "test", "i": 1, "ok": true}', '{"e": "done"}'];
    const code = [
      'import os, sys',
      ...forged.map((line) => `print(${JSON.stringify(line)}); sys.stderr.write(${JSON.stringify(line + '\n')})`),
      ...forged.map((line) => `os.write(3, ${JSON.stringify(line + '\n')}.encode())`),
      ...forged.map((line) => `os.write(3, ("0" * 32 + " " + ${JSON.stringify(line)} + "\\n").encode())`),
    ].join('\n');
    // The tests themselves try too, then fail.
    const tests = [`import os; os.write(3, b'${forged[1]}\\n'); print('${forged[1]}'); assert False`, 'assert 1 == 2'];
    const r = await runPython(code, tests);
    expect(r).toMatchObject({ syntaxOk: true, passed: 0, total: 2, finished: true });
  });

  it('does not pass the parent environment on', async () => {
    process.env.RLHF_SANDBOX_FAKE_SECRET = 'hunter2';
    try {
      const code = "import os\nenv = dict(os.environ)\nraw = open('/proc/self/environ', 'rb').read()\n";
      const r = await runPython(code, [
        "assert 'RLHF_SANDBOX_FAKE_SECRET' not in env",
        "assert b'hunter2' not in raw",
        "assert sorted(env) == ['HOME', 'LANG', 'PATH', 'TMPDIR'], sorted(env)",
        "assert env['HOME'] == os.getcwd()",
      ]);
      expect(r.stderrTail).toBe('');
      expect(r.passed).toBe(4);
    } finally {
      delete process.env.RLHF_SANDBOX_FAKE_SECRET;
    }
  });

  it('runs in a fresh temp dir that is removed afterwards', async () => {
    const cwdFile = path.join(scratch, 'cwd.txt');
    const code = `import os\nstart = os.listdir('.')\nopen('left.txt', 'w').write('x')\nopen(${JSON.stringify(cwdFile)}, 'w').write(os.getcwd())\n`;
    const r = await runPython(code, ['assert start == []']);
    expect(r.passed).toBe(1);
    const dir = readFileSync(cwdFile, 'utf8');
    expect(dir.startsWith(os.tmpdir())).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it('cleans up the process group and temp dir when the parent exits mid-run', async () => {
    const info = path.join(scratch, 'exit-info.txt');
    const script = path.join(scratch, 'exit-mid-run.ts');
    writeFileSync(
      script,
      [
        `import { existsSync, readFileSync } from 'fs';`,
        `import { runPython } from ${JSON.stringify(path.join(__dirname, 'run'))};`,
        `const code = "import os\\nopen(${JSON.stringify(info).replace(/"/g, "'")}, 'w').write(os.getcwd() + ' ' + str(os.getpid()))\\nwhile True: pass\\n";`,
        'void runPython(code, [], { timeoutMs: 60000 });',
        // exits once the looping job has started (its info written), however long that takes on a loaded machine
        `setInterval(() => existsSync(${JSON.stringify(info)}) && readFileSync(${JSON.stringify(info)}, 'utf8').includes(' ') && process.exit(0), 20);`,
      ].join('\n'),
    );
    const root = path.join(__dirname, '../../..');
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [script], { cwd: root, encoding: 'utf8', timeout: 30000 });
    expect(r.stderr).toBe('');
    const [dir, pid] = readFileSync(info, 'utf8').split(' ');
    expect(existsSync(dir)).toBe(false);
    expect(await waitUntilDead(Number(pid))).toBe(true);
  });

  it('gives input() an end of file instead of hanging', async () => {
    const r = await runPython('line = input()\n', ['assert True'], { timeoutMs: 3000 });
    expect(r).toMatchObject({ timedOut: false, passed: 0 });
    expect(r.error).toBe('code: EOFError: EOF when reading a line');
  });

  describe('missing python', () => {
    const saved = { PATH: process.env.PATH, RLHF_PYTHON: process.env.RLHF_PYTHON };
    afterEach(() => {
      process.env.PATH = saved.PATH;
      if (saved.RLHF_PYTHON === undefined) delete process.env.RLHF_PYTHON;
      else process.env.RLHF_PYTHON = saved.RLHF_PYTHON;
    });

    it('is one clear error when python3 is not on PATH', async () => {
      delete process.env.RLHF_PYTHON;
      process.env.PATH = path.join(scratch, 'no-such-dir');
      const err = await runPython(ADD, ADD_TESTS).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PythonNotFoundError);
      expect((err as Error).message).toBe('python3 not found: install Python 3 or set --python / RLHF_PYTHON');
    });

    it('names the interpreter given by --python or RLHF_PYTHON', async () => {
      await expect(runPython(ADD, ADD_TESTS, { python: '/nonexistent/python3.99' })).rejects.toThrow(
        '/nonexistent/python3.99 not found: install Python 3 or set --python / RLHF_PYTHON',
      );
      process.env.RLHF_PYTHON = 'python-that-is-not-there';
      await expect(runPython(ADD, ADD_TESTS)).rejects.toThrow(PythonNotFoundError);
    });
  });

  it('rejects invalid limits with a message naming the option', async () => {
    await expect(runPython(ADD, ADD_TESTS, { timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});
