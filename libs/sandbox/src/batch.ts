// Scoring many responses: each is run through the pool (so at most `concurrency` pythons at once, the runs that queue
// up batched into one python each) and scored with executionScore. Results keep the input order.
import type { SandboxPool } from './pool';
import type { ExecResult } from './run';
import { executionScore } from './score';

export interface ScoreJob {
  code: string;
  tests: readonly string[];
  setup?: string;
}

export interface ScoredRun {
  result: ExecResult;
  score: number;
}

export async function scoreAll(pool: SandboxPool, jobs: readonly ScoreJob[], onDone?: (finished: number) => void): Promise<ScoredRun[]> {
  let finished = 0;
  return Promise.all(
    jobs.map(async (job) => {
      const result = await pool.run(job.code, job.tests, job.setup);
      onDone?.(++finished);
      return { result, score: executionScore(result, job.code) };
    }),
  );
}
