// runPythonBatch against a real python3: the adversarial cases of run.test.ts, run inside one batch among
// well-behaved jobs, give what runPython gives each of them alone; a job that kills the batch driver (its parent) or
// its own process group costs no other job its result; nothing is left behind.
import childProcess = require('child_process'); // the module object itself, so that a spy sees child.ts's calls
import { spawnSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import osModule = require('os'); // the module object itself, whose tmpdir child.ts calls
import * as path from 'path';
import { runPython, runPythonBatch, type ExecResult, type PythonJob } from './run';

const ADD = 'def add(a, b):\n    return a + b\n';
const GOOD: PythonJob = { code: ADD, tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0'] };
/** One set of limits for the whole batch (runPythonBatch's options are the batch's). */
// 4 s: a test that exhausts memory must reach the memory limit before the timeout on a loaded machine too.
const LIMITS = { timeoutMs: 4000, memoryMb: 256, outputCapBytes: 100_000 };
/** The fields of a result that do not depend on timing. */
const FIELDS = ['syntaxOk', 'passed', 'total', 'timedOut', 'memoryExceeded', 'finished', 'outputExceeded', 'exitCode', 'error'] as const;
const fields = (r: ExecResult) => Object.fromEntries(FIELDS.map((k) => [k, r[k]]));

/** Python processes `fn` starts. */
async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; processes: number }> {
  const spawn = jest.spyOn(childProcess, 'spawn');
  try {
    const value = await fn();
    return { value, processes: spawn.mock.calls.length };
  } finally {
    spawn.mockRestore();
  }
}

/** Alive and not a zombie. */
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

// Every sandbox dir (rlhf-sandbox-*) of these tests is made in a private os.tmpdir(), checked empty at the end (the
// machine's own may see other programs' sandboxes come and go). Jest's process.env is a copy that os.tmpdir() does
// not read, hence the spy.
let scratch: string;
let tmp: string;
let tmpdir: jest.SpyInstance;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'sandbox-batch-test-'));
  tmp = path.join(scratch, 'tmp');
  mkdirSync(tmp);
  tmpdir = jest.spyOn(osModule, 'tmpdir').mockReturnValue(tmp);
});
afterAll(() => {
  tmpdir.mockRestore();
  rmSync(scratch, { recursive: true, force: true });
});

/** The adversarial cases of run.test.ts (with LIMITS), by name. */
function adversarial(): Record<string, PythonJob> {
  const pidFile = (name: string) => JSON.stringify(path.join(scratch, name));
  const forged = ['{"e": "syntax", "ok": true}', '{"e": "test", "i": 0, "ok": true}', '{"e": "test", "i": 1, "ok": true}', '{"e": "done"}'];
  return {
    'failing test': { code: ADD, tests: ['assert add(1, 2) == 3', 'assert add(1, 1) == 3', 'assert undefined_name(1)'] },
    'syntax error': { code: 'def add(a, b)\n    return a + b\n', tests: ['assert add(1, 2) == 3'] },
    setup: { code: 'class Node:\n    def __init__(self, v):\n        self.v = v\n', tests: ['assert root.v == 7'], setup: 'root = Node(7)' },
    'infinite loop with a child process': {
      code: `import subprocess, sys\nchild = subprocess.Popen(['sleep', '30'])\nopen(${pidFile('loop-' + Math.random())}, 'w').write(str(child.pid))\nwhile True:\n    pass\n`,
      tests: ['assert True'],
    },
    'looping test': { code: ADD, tests: ['assert add(1, 1) == 2', 'while True: pass', 'assert True'] },
    'background process': { code: `import subprocess\np = subprocess.Popen(['sleep', '30'])\nopen(${pidFile('bg-' + Math.random())}, 'w').write(str(p.pid))\n`, tests: ['assert True'] },
    'memory bomb': { code: 'blob = bytearray(4 * 1024 ** 3)\n', tests: ['assert True'] },
    'test exhausting memory': { code: 'def grow():\n    chunks = []\n    while True:\n        chunks.append(bytearray(8 * 1024 * 1024))\n', tests: ['grow()', 'assert 1 + 1 == 2'] },
    'sys.exit(0) before the tests': { code: 'import sys\nsys.exit(0)\n', tests: ['assert True', 'assert 1 == 1'] },
    'sys.exit(1) before the tests': { code: 'import sys\nsys.exit(1)\n', tests: ['assert True'] },
    'sys.exit in a test': { code: 'import sys\ndef f():\n    sys.exit(0)\n', tests: ['f()', 'assert True'] },
    'os._exit(0) before the tests': { code: 'import os\nos._exit(0)\n', tests: ['assert True'] },
    'os._exit(3) in a test': { code: 'import os\n', tests: ['assert True', 'os._exit(3)', 'assert True'] },
    'os._exit monkeypatched': { code: 'import os, sys\nos._exit = lambda code: None\nsys.exit(0)\n', tests: ['assert True'] },
    'stdout flood': { code: "while True:\n    print('x' * 10000)\n", tests: ['assert True'] },
    'stderr flood': { code: "import sys\nwhile True:\n    sys.stderr.write('e' * 5000)\n", tests: [] },
    'forged report lines': {
      code: [
        'import os, sys',
        ...forged.map((line) => `print(${JSON.stringify(line)}); sys.stderr.write(${JSON.stringify(line + '\n')})`),
        ...forged.map((line) => `os.write(3, ${JSON.stringify(line + '\n')}.encode())`),
        ...forged.map((line) => `os.write(3, ("0" * 32 + " " + ${JSON.stringify(line)} + "\\n").encode())`),
      ].join('\n'),
      tests: [`import os; os.write(3, b'${forged[1]}\\n'); print('${forged[1]}'); assert False`, 'assert 1 == 2'],
    },
    'environment and cwd': {
      code: "import os\nenv = dict(os.environ)\nraw = open('/proc/self/environ', 'rb').read()\nstart = os.listdir('.')\n",
      tests: [
        "assert b'PATH=' in raw",
        "assert sorted(env) == ['HOME', 'LANG', 'PATH', 'TMPDIR'], sorted(env)",
        "assert env['HOME'] == os.getcwd() == env['TMPDIR']",
        'assert start == []',
      ],
    },
    'writing files': {
      code: "import os\nopen('left.txt', 'w').write('x')\nos.mkdir('sub')\nopen('sub/f.txt', 'w').write('x')\nos.chmod('sub', 0o500)\nopen('../planted.txt', 'w').write('x')\n",
      tests: ["assert open('left.txt').read() == 'x'"],
    },
    'input()': { code: 'line = input()\n', tests: ['assert True'] },
    'kills its own process group': { code: 'import os\nos.killpg(0, 9)\n', tests: ['assert True'] },
  };
}

function sleeperPids(): number[] {
  return readdirSync(scratch)
    .filter((f) => f.startsWith('loop-') || f.startsWith('bg-'))
    .map((f) => Number(readFileSync(path.join(scratch, f), 'utf8')));
}

describe('runPythonBatch', () => {
  it('gives every adversarial case, in one batch between well-behaved jobs, what runPython gives it alone', async () => {
    const cases = adversarial(); // a copy for each way, so that each writes its own pid files
    const names = Object.keys(cases);
    const alone: ExecResult[] = [];
    for (const name of names) alone.push(await runPython(cases[name].code, cases[name].tests, { ...LIMITS, setup: cases[name].setup }));
    const again = adversarial();
    const { value: batch, processes } = await counted(() => runPythonBatch([GOOD, ...names.flatMap((name) => [again[name], GOOD])], LIMITS));
    expect(processes).toBe(1); // one driver, no job run again
    expect(batch).toHaveLength(2 * names.length + 1);
    for (const [i, name] of names.entries()) {
      expect({ name, ...fields(batch[2 * i + 1]) }).toEqual({ name, ...fields(alone[i]) });
      expect({ name, ...fields(batch[2 * i + 2]) }).toEqual({ name, ...fields(batch[0]) });
    }
    expect(fields(batch[0])).toMatchObject({ passed: 2, total: 2, finished: true, exitCode: 0 });
    // A few that would also pass by accident if everything failed the same way:
    const byName = (name: string) => batch[2 * names.indexOf(name) + 1];
    expect(byName('environment and cwd')).toMatchObject({ passed: 4, finished: true, stderrTail: '' });
    expect(byName('failing test')).toMatchObject({ passed: 1, total: 3, error: 'test 1 failed: AssertionError' });
    expect(byName('failing test').stderrTail).toContain("test 2 failed: NameError: name 'undefined_name' is not defined");
    expect(byName('infinite loop with a child process')).toMatchObject({ timedOut: true, error: 'timed out after 4000 ms' });
    expect(byName('stdout flood')).toMatchObject({ outputExceeded: true, timedOut: false }); // killed at the cap, before the timeout
    expect(byName('stderr flood').stderrTail.length).toBeLessThanOrEqual(2000);
    expect(byName('os._exit monkeypatched')).toMatchObject({ passed: 0, finished: false, error: 'code: SystemExit: 0' });
    expect(sleeperPids()).toHaveLength(4);
    for (const pid of sleeperPids()) expect(await waitUntilDead(pid)).toBe(true);
  });

  it('a job that kills (or interrupts) the driver, or kills its own process group, costs no other job its result', async () => {
    const fails: PythonJob = { code: ADD, tests: ['assert add(1, 2) == 3', 'assert add(2, 2) == 5', 'assert add(0, 0) == 0'] };
    const killsDriver = (after: string) => ({ code: `import os\ndef kill():\n    os.kill(os.getppid(), 9)\n${after}`, tests: ['assert True', 'kill()', 'assert True'] });
    const jobs: PythonJob[] = [
      GOOD,
      killsDriver(''), // in a test
      fails,
      { code: 'import os\nos.killpg(0, 9)\n', tests: ['assert True'] },
      GOOD,
      killsDriver('kill()\n'), // at top level
      fails,
      { code: 'import os, signal\nos.kill(os.getppid(), signal.SIGINT)\n', tests: ['assert True'] },
      GOOD,
    ];
    const { value: results, processes } = await counted(() => runPythonBatch(jobs, LIMITS));
    expect(processes).toBe(1 + 8); // the batch, then each job from the first killer on alone
    for (const i of [0, 4, 8]) expect(fields(results[i])).toEqual(fields(await runPython(GOOD.code, GOOD.tests, LIMITS)));
    for (const i of [2, 6]) expect(results[i]).toMatchObject({ passed: 2, total: 3, finished: true, error: 'test 1 failed: AssertionError' });
    expect(fields(results[3])).toEqual(fields(await runPython(jobs[3].code, jobs[3].tests, LIMITS)));
    expect(results[3]).toMatchObject({ finished: false, passed: 0 });
    for (const i of [1, 5]) {
      expect(results[i]).toMatchObject({ passed: 0, total: 3, finished: false, timedOut: false, memoryExceeded: false, error: 'killed the sandbox process that ran it (SIGKILL)' });
    }
    expect(results[7]).toMatchObject({ passed: 0, total: 1, finished: false, error: 'killed the sandbox process that ran it (SIGINT)' });
  });

  it('a job that stops the driver costs time (the backstop timeout), not another job its result', async () => {
    const stops: PythonJob = { code: 'import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n', tests: ['assert True'] };
    const { value: results, processes } = await counted(() => runPythonBatch([GOOD, stops, GOOD], { timeoutMs: 1500 })); // the good jobs finish well inside it on a loaded machine
    expect(processes).toBe(1 + 2);
    for (const i of [0, 2]) expect(results[i]).toMatchObject({ passed: 2, total: 2, finished: true });
    expect(results[1]).toMatchObject({ passed: 0, finished: false, timedOut: true, error: 'timed out after 1500 ms' });
  });

  it("removes each job's dir after the job: a later job sees only its own", async () => {
    const writes: PythonJob = { code: "import os\nos.makedirs('a/b')\nopen('a/b/c.txt', 'w').write('x')\n", tests: ["assert os.listdir('a') == ['b']"] };
    const looks: PythonJob = { code: 'import os\n', tests: ["assert [d for d in os.listdir('..') if d.startswith('job-')] == [os.path.basename(os.getcwd())]"] };
    const results = await runPythonBatch([writes, writes, looks]);
    expect(results.map((r) => r.passed)).toEqual([1, 1, 1]);
  });

  it('is empty for no jobs, and runs a lone job as runPython does', async () => {
    expect(await runPythonBatch([])).toEqual([]);
    const [r] = await runPythonBatch([GOOD]);
    expect(fields(r)).toEqual(fields(await runPython(GOOD.code, GOOD.tests)));
  });

  it('kills the running job and removes the temp dirs when this process exits mid-batch', async () => {
    const info = path.join(scratch, 'batch-exit-info.txt');
    const script = path.join(scratch, 'batch-exit-mid-run.ts');
    writeFileSync(
      script,
      [
        `import { existsSync, readFileSync } from 'fs';`,
        `import { runPythonBatch } from ${JSON.stringify(path.join(__dirname, 'run'))};`,
        `const code = "import os\\nopen(${JSON.stringify(info).replace(/"/g, "'")}, 'w').write(os.getcwd() + ' ' + str(os.getpid()))\\nwhile True: pass\\n";`,
        "void runPythonBatch([{ code: 'x = 1', tests: [] }, { code, tests: [] }], { timeoutMs: 60000 });",
        // exits once the looping job has started (its info written), however long that takes on a loaded machine
        `setInterval(() => existsSync(${JSON.stringify(info)}) && readFileSync(${JSON.stringify(info)}, 'utf8').includes(' ') && process.exit(0), 20);`,
      ].join('\n'),
    );
    const root = path.join(__dirname, '../../..');
    const env = { ...process.env, TMPDIR: tmp };
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [script], { cwd: root, env, encoding: 'utf8', timeout: 30000 });
    expect(r.stderr).toBe('');
    const [dir, pid] = readFileSync(info, 'utf8').split(' ');
    expect(dir.startsWith(tmp + path.sep)).toBe(true); // the job's dir, under the driver's
    expect(existsSync(dir)).toBe(false);
    expect(await waitUntilDead(Number(pid))).toBe(true);
  });

  it('leaves no temp dir behind', () => {
    expect(tmpdir).toHaveBeenCalled();
    expect(readdirSync(tmp).filter((f) => f.startsWith('rlhf-sandbox-'))).toEqual([]);
  });
});
