// SandboxPool: never more than `concurrency` python processes at once. Each job records, in a shared file,
// when it started and ended (CLOCK_MONOTONIC is system-wide), and we count the overlap afterwards.
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
    const results = await Promise.all(Array.from({ length: n }, () => pool.run(code, ['assert job()'])));
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

  it('rejects a bad concurrency', () => {
    expect(() => new SandboxPool({ concurrency: 0 })).toThrow('SandboxPool: concurrency must be a positive integer, got 0');
  });
});

describe('scoreAll', () => {
  it('scores every job in input order', async () => {
    const { scoreAll } = await import('./index');
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
    expect(runs[0].score).toBe(1);
    expect(runs[1].score).toBeCloseTo(0.4 / 3, 12);
    expect(runs[2].score).toBeCloseTo(0.3 + 0.25 + 0.2, 12);
    expect(done).toEqual([1, 2, 3]);
  });
});
