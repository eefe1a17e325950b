// SandboxPool: never more than `concurrency` python processes at once. Each job records, in a shared file,
// when it started and ended (CLOCK_MONOTONIC is system-wide), and we count the overlap afterwards. Queued runs are
// batched: fewer python processes than runs (counted with a spy on spawn), results in input order.
import childProcess = require('child_process'); // the module object itself, so that a spy sees child.ts's calls
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SandboxPool } from './index';

function maxOverlap(intervals: [number, number][]): number {
  return Math.max(...intervals.map(([s]) => intervals.filter(([a, b]) => a <= s && s < b).length));
}

describe('SandboxPool', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sandbox-pool-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function runJobs(pool: SandboxPool, n: number, file: string): Promise<[number, number][]> {
    const code = `import time\ndef job():\n    t0 = time.monotonic()\n    time.sleep(0.3)\n    open(${JSON.stringify(file)}, 'a').write('%f %f\\n' % (t0, time.monotonic()))\n    return True\n`;
    // Each job's code differs by a comment: the same code would be run once and its result shared (the memo).
    const results = await Promise.all(Array.from({ length: n }, (_, i) => pool.run(`${code}# job ${i}\n`, ['assert job()'])));
    expect(results.every((r) => r.passed === 1)).toBe(true);
    return readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number) as [number, number]);
  }

  it('runs at most `concurrency` jobs at a time (default 2)', async () => {
    const pool = new SandboxPool();
    expect(pool.concurrency).toBe(2);
    const intervals = await runJobs(pool, 5, path.join(dir, 'two.txt'));
    expect(intervals).toHaveLength(5);
    expect(maxOverlap(intervals)).toBe(2);
    expect(pool.running).toBe(0);
    expect(pool.queued).toBe(0);
  });

  it('runs jobs one by one with concurrency 1', async () => {
    const intervals = await runJobs(new SandboxPool({ concurrency: 1 }), 3, path.join(dir, 'one.txt'));
    expect(maxOverlap(intervals)).toBe(1);
  });

  it('passes its limits on to every run', async () => {
    const pool = new SandboxPool({ timeoutMs: 800 });
    const r = await pool.run('while True: pass', ['assert True']);
    expect(r.timedOut).toBe(true);
    expect(r.error).toBe('timed out after 800 ms');
  });

  it('rejects a bad concurrency or batch size', () => {
    expect(() => new SandboxPool({ concurrency: 0 })).toThrow('SandboxPool: concurrency must be a positive integer, got 0');
    expect(() => new SandboxPool({ batchSize: 1.5 })).toThrow('SandboxPool: batchSize must be a positive integer, got 1.5');
    expect(() => new SandboxPool({ memoSize: -1 })).toThrow('SandboxPool: memoSize must be a non-negative integer, got -1');
  });
});

describe('SandboxPool memo', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sandbox-memo-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Code that appends a line to `file` each time it runs, so the file counts the python runs. */
  const counting = (file: string, body = 'return 1') => `open(${JSON.stringify(file)}, 'a').write('x\\n')\ndef f():\n    ${body}\n`;
  const runsIn = (file: string) => readFileSync(file, 'utf8').trim().split('\n').length;

  it('runs the same code, tests and setup once, in flight or done, and shares the result', async () => {
    const file = path.join(dir, 'same.txt');
    const pool = new SandboxPool();
    const first = await Promise.all([1, 2, 3].map(() => pool.run(counting(file), ['assert f() == 1'])));
    const later = await pool.run(counting(file), ['assert f() == 1']);
    expect([...first, later].map((r) => r.passed)).toEqual([1, 1, 1, 1]);
    expect(runsIn(file)).toBe(1);
    expect([pool.executed, pool.reused]).toEqual([1, 3]);
    // Other tests or another setup are another run.
    await pool.run(counting(file), ['assert f() == 2']);
    await pool.run(counting(file), ['assert f() == 1'], 'y = 1');
    expect(runsIn(file)).toBe(3);
  });

  it('runs again what hit a limit (a timeout depends on the machine), and everything with memoSize 0', async () => {
    const slow = path.join(dir, 'slow.txt');
    // 2 s: each run must write its line before the timeout, on a loaded machine too.
    const pool = new SandboxPool({ timeoutMs: 2000 });
    for (let i = 0; i < 2; i++) expect((await pool.run(counting(slow, 'while True: pass'), ['f()'])).timedOut).toBe(true);
    expect(runsIn(slow)).toBe(2);
    const off = path.join(dir, 'off.txt');
    const noMemo = new SandboxPool({ memoSize: 0 });
    for (let i = 0; i < 2; i++) await noMemo.run(counting(off), ['assert f() == 1']);
    expect(runsIn(off)).toBe(2);
  });

  it('keeps the memoSize most recently used runs', async () => {
    const file = path.join(dir, 'lru.txt');
    const pool = new SandboxPool({ memoSize: 2 });
    const run = (t: number) => pool.run(counting(file), [`assert f() == 1 or ${t}`]);
    await run(1);
    await run(2);
    await run(1); // reused: 1 is now the most recent
    await run(3); // evicts 2
    await run(1); // still kept
    expect(runsIn(file)).toBe(3);
    await run(2); // run again
    expect(runsIn(file)).toBe(4);
  });
});

describe('SandboxPool batching', () => {
  let spawn: jest.SpyInstance;
  beforeEach(() => {
    spawn = jest.spyOn(childProcess, 'spawn');
  });
  afterEach(() => spawn.mockRestore());

  /** Job i has i % 4 + 1 tests, and its last one fails when i is a multiple of 3: a result shows which job it is. */
  const job = (i: number) => {
    const tests = Array.from({ length: (i % 4) + 1 }, (_, k) => `assert f() == ${i} + ${k} - ${k}`);
    if (i % 3 === 0) tests[tests.length - 1] = `assert f() == ${i + 1}`;
    return { code: `def f():\n    return ${i}\n`, tests };
  };
  /** results[k] is job ids[k]'s (by default job k's). */
  const check = (results: { passed: number; total: number }[], ids = results.map((_, k) => k)) =>
    results.forEach((r, k) => {
      const i = ids[k];
      expect({ i, passed: r.passed, total: r.total }).toEqual({ i, total: (i % 4) + 1, passed: (i % 4) + 1 - (i % 3 === 0 ? 1 : 0) });
    });

  it('runs queued runs in batches (default 16): fewer python processes than runs, results in input order', async () => {
    const pool = new SandboxPool();
    expect(pool.batchSize).toBe(16);
    const n = 40;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => pool.run(job(i).code, job(i).tests)));
    check(results);
    // Two lone runs start at once (a slot each), the 38 queued behind them go 16 at a time: 2 + 3 batches.
    expect(spawn.mock.calls.length).toBe(5);
    expect(pool.running).toBe(0);
    expect(pool.queued).toBe(0);
  });

  it('with batchSize 1, one python process per run', async () => {
    const pool = new SandboxPool({ batchSize: 1 });
    check(await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run(job(i).code, job(i).tests))));
    expect(spawn.mock.calls.length).toBe(6);
  });

  it('starts a run at once when a slot is free, and queues the rest', async () => {
    const pool = new SandboxPool({ concurrency: 1 });
    const first = pool.run(job(1).code, job(1).tests);
    expect([pool.running, pool.queued]).toEqual([1, 0]);
    const rest = [2, 3, 4].map((i) => pool.run(job(i).code, job(i).tests));
    expect([pool.running, pool.queued]).toEqual([1, 3]);
    check([await first, ...(await Promise.all(rest))], [1, 2, 3, 4]);
    expect(spawn.mock.calls.length).toBe(2);
  });

  it('keeps first come, first served between runs and withSlot callers', async () => {
    const pool = new SandboxPool({ concurrency: 1 });
    const order: string[] = [];
    const run = (i: number) => pool.run(job(i).code, job(i).tests).then(() => order.push(`run ${i}`));
    const slot = (name: string) => pool.withSlot(async () => order.push(name));
    await Promise.all([run(1), run(2), run(3), slot('slot a'), run(4), slot('slot b')]);
    // run 1 starts alone; runs 2 and 3 are one batch; then slot a, run 4, slot b in their turn.
    expect(order).toEqual(['run 1', 'run 2', 'run 3', 'slot a', 'run 4', 'slot b']);
    expect(spawn.mock.calls.length).toBe(3);
  });
});

describe('scoreAll', () => {
  it('scores every job in input order', async () => {
    const { scoreAll } = await import('./index');
    const { SYNTAX_PENALTY } = await import('./score');
    const done: number[] = [];
    const runs = await scoreAll(
      new SandboxPool({ timeoutMs: 2000 }),
      [
        { code: 'def f(x):\n    return x\n', tests: ['assert f(1) == 1', 'assert f(2) == 2'] },
        { code: 'def f(x)\n    return x\n', tests: ['assert f(1) == 1'] },
        { code: 'def f(x):\n    return -x\n', tests: ['assert f(0) == 0', 'assert f(2) == 2'] },
      ],
      (n) => done.push(n),
    );
    expect(runs.map((r) => r.result.passed)).toEqual([2, 0, 1]);
    expect(runs.map((r) => r.score)).toEqual([1, -SYNTAX_PENALTY, 0]); // pass/fail, a penalty for not compiling
    expect(done).toEqual([1, 2, 3]);
  });
});

describe('SandboxPool background runs', () => {
  /** A run that sleeps a little and says which job it is. */
  const job = (i: number) => ({ code: `import time\ntime.sleep(0.05)\ndef f():\n    return ${i}\n`, tests: [`assert f() == ${i}`] });

  it('take a slot only when nothing else waits, and a foreground ask moves a queued one forward', async () => {
    const pool = new SandboxPool({ concurrency: 1, batchSize: 1 });
    const order: string[] = [];
    const track = (name: string, p: Promise<{ passed: number }>) => p.then((r) => order.push(`${name}:${r.passed}`));
    const first = track('fg0', pool.run(job(0).code, job(0).tests)); // takes the slot at once
    const bg = [1, 2, 3].map((i) => track(`bg${i}`, pool.run(job(i).code, job(i).tests, undefined, { background: true })));
    const fg = track('fg4', pool.run(job(4).code, job(4).tests)); // queued behind fg0, ahead of every background run
    const again = track('fg3', pool.run(job(3).code, job(3).tests)); // bg3's run, asked in the foreground: promoted
    expect(pool.queued).toBe(4);
    await Promise.all([first, ...bg, fg, again]);
    expect(order.slice(0, 4)).toEqual(['fg0:1', 'fg4:1', 'bg3:1', 'fg3:1']);
    expect(order.slice(4).sort()).toEqual(['bg1:1', 'bg2:1']);
    expect([pool.executed, pool.reused]).toEqual([5, 1]);
  });
});
