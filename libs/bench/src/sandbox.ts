// bench sandbox: test runs scored per second by the sandbox pool, one python process per run (batchSize 1) against
// the pool's batching (its default batch size), on small scoring jobs shaped like eval's: a short function and three
// asserts, most passing, some failing a test, a few not compiling. The two pools alternate (the order swaps every
// pair) so that a machine busy with something else slows both alike; both must score every job the same.
//
// bench interpreter: interpreter tool calls per second, each interpreter process spawned (a python start) against
// forked from the fork server, for stateless calls and for stateful episodes of two calls (a variable defined, then
// used), alternated the same way; every answer is checked.
import { closeForkServers, PythonInterpreter, SandboxPool, scoreAll } from '@rlhf-code/sandbox';
import { stats } from './compare';
import type { InterpreterBenchSettings, SandboxBenchSettings } from './settings';

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
  const single = new SandboxPool({ concurrency: f.concurrency, batchSize: 1, python: f.python, memoSize: 0 });
  const batched = new SandboxPool({ concurrency: f.concurrency, batchSize: f.batchSize, python: f.python, memoSize: 0 });
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

const START_MODES = ['spawn', 'fork'] as const;
type StartMode = (typeof START_MODES)[number];

/** Interpreter calls per second per start mode, stateless and stateful, and the ratios fork / spawn per pair. */
export async function benchInterpreter(f: InterpreterBenchSettings, log: (msg: string) => void = () => undefined): Promise<Record<string, unknown>> {
  const pool = new SandboxPool({ concurrency: f.concurrency });
  const expect = (what: string, got: string, want: string) => {
    if (got !== want) throw new Error(`bench interpreter: ${what} answered ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
  };
  /** Stateless calls per second: `calls` calls of one interpreter, through the pool. */
  const stateless = async (startMode: StartMode): Promise<number> => {
    const py = new PythonInterpreter({ startMode, python: f.python }, pool);
    const t0 = performance.now();
    const outputs = await Promise.all(Array.from({ length: f.calls }, (_, i) => py.run(`x = ${i} * 7\nx`)));
    const perSecond = f.calls / ((performance.now() - t0) / 1000);
    outputs.forEach((r, i) => expect(`stateless call ${i} (${startMode})`, r.output, `${i * 7}\n`));
    return perSecond;
  };
  /** Stateful calls per second: `episodes` episodes at once, each an interpreter of its own with two calls, then closed. */
  const stateful = async (startMode: StartMode): Promise<number> => {
    const t0 = performance.now();
    const outputs = await Promise.all(
      Array.from({ length: f.episodes }, async (_, i) => {
        const py = new PythonInterpreter({ startMode, python: f.python, stateful: true }, pool);
        try {
          await py.run(`x = ${i}`);
          return (await py.run('x * 7')).output;
        } finally {
          await py.close();
        }
      }),
    );
    const perSecond = (2 * f.episodes) / ((performance.now() - t0) / 1000);
    outputs.forEach((out, i) => expect(`stateful episode ${i} (${startMode})`, out, `${i * 7}\n`));
    return perSecond;
  };
  try {
    for (const startMode of START_MODES) await stateless(startMode); // warm-up: the interpreter found, the server started
    const rates = { stateless: { spawn: [] as number[], fork: [] as number[] }, stateful: { spawn: [] as number[], fork: [] as number[] } };
    for (let i = 0; i < f.repetitions; i++) {
      for (const startMode of i % 2 === 0 ? START_MODES : [...START_MODES].reverse()) {
        for (const [kind, measure] of [['stateless', stateless], ['stateful', stateful]] as const) {
          const rate = await measure(startMode);
          rates[kind][startMode].push(rate);
          log(`pair ${i + 1}/${f.repetitions}: ${startMode} ${kind}: ${rate.toFixed(1)} calls/s`);
        }
      }
    }
    const ratio = (r: { spawn: number[]; fork: number[] }) => stats(r.fork.map((x, i) => x / r.spawn[i]));
    return {
      calls: f.calls,
      episodes: f.episodes,
      repetitions: f.repetitions,
      concurrency: f.concurrency,
      spawn_stateless_calls_per_s: stats(rates.stateless.spawn),
      fork_stateless_calls_per_s: stats(rates.stateless.fork),
      spawn_stateful_calls_per_s: stats(rates.stateful.spawn),
      fork_stateful_calls_per_s: stats(rates.stateful.fork),
      stateless_ratio: ratio(rates.stateless),
      stateful_ratio: ratio(rates.stateful),
    };
  } finally {
    await closeForkServers();
  }
}
