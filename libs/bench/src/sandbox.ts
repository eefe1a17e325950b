// bench sandbox: test runs scored per second by the sandbox pool, one python process per run (batchSize 1) against
// the pool's batching (its default batch size), on small scoring jobs shaped like eval's: a short function and three
// asserts, most passing, some failing a test, a few not compiling. The two pools alternate (the order swaps every
// pair) so that a machine busy with something else slows both alike; both must score every job the same.
import { SandboxPool, scoreAll } from '@rlhf-code/sandbox';
import { stats } from './compare';
import type { SandboxBenchSettings } from './settings';

/** `n` jobs: 8 in 10 pass, 1 in 10 fails its last assert, 1 in 10 is a syntax error. */
export function sandboxJobs(n: number): { code: string; tests: string[] }[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i % 7;
    const code = i % 10 === 9 ? `def f_${i}(x)\n    return x * ${k} + 1\n` : `def f_${i}(x):\n    return x * ${k} + 1\n`;
    const tests = [0, 1, 2].map((x) => `assert f_${i}(${x}) == ${x * k + 1}`);
    if (i % 10 === 8) tests[2] = `assert f_${i}(2) == ${2 * k + 2}`;
    return { code, tests };
  });
}

/** Runs per second of both pools, `repetitions` alternated pairs, and the ratio batched / one process per run per pair. */
export async function benchSandbox(f: SandboxBenchSettings, log: (msg: string) => void = () => undefined): Promise<Record<string, unknown>> {
  const jobs = sandboxJobs(f.runs);
  const single = new SandboxPool({ concurrency: f.concurrency, batchSize: 1, python: f.python });
  const batched = new SandboxPool({ concurrency: f.concurrency, batchSize: f.batchSize, python: f.python });
  let reference: number[] | undefined;
  const measure = async (pool: SandboxPool): Promise<number> => {
    const t0 = performance.now();
    const scores = (await scoreAll(pool, jobs)).map((r) => r.score);
    const perSecond = f.runs / ((performance.now() - t0) / 1000);
    reference ??= scores;
    const differs = scores.findIndex((s, i) => s !== reference![i]);
    if (differs >= 0) throw new Error(`bench sandbox: job ${differs} scored ${scores[differs]} with batch size ${pool.batchSize}, ${reference[differs]} before`);
    return perSecond;
  };
  await scoreAll(batched, jobs.slice(0, 2 * f.concurrency)); // warm-up: the interpreter found, files cached
  const rates = { single: [] as number[], batched: [] as number[] };
  for (let i = 0; i < f.repetitions; i++) {
    const order = i % 2 === 0 ? (['single', 'batched'] as const) : (['batched', 'single'] as const);
    for (const which of order) {
      const rate = await measure(which === 'single' ? single : batched);
      rates[which].push(rate);
      log(`pair ${i + 1}/${f.repetitions}: ${which === 'single' ? 'batch size 1' : `batch size ${batched.batchSize}`}: ${rate.toFixed(1)} runs/s`);
    }
  }
  return {
    runs: f.runs,
    repetitions: f.repetitions,
    concurrency: f.concurrency,
    batch_size: batched.batchSize,
    single_runs_per_s: stats(rates.single),
    batched_runs_per_s: stats(rates.batched),
    ratio: stats(rates.batched.map((b, i) => b / rates.single[i])),
  };
}
