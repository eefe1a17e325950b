// `prep rm`: the reward model's data. For every MBPP training prompt (tasks 511-974, validation + PPO prompts): the
// reference solution, mutated variants of it (sandbox mutants, `mutantsPerKind` per kind) and optionally samples of
// an SFT checkpoint, each scored by running it against the task's tests in the sandbox. The leak guard refuses a
// row that repeats a test task.
import { MbppLeakGuard, mbppDatasets, normalizeCode, readMbpp } from '@rlhf-code/data';
import { mutants, resolvePython, SandboxPool, scoreAll } from '@rlhf-code/sandbox';
import { sampleResponses } from './sample';
import type { PrepRmSettings } from './settings';

export interface RmRow {
  prompt: string;
  response: string;
  score: number;
  task_id: number;
  /** "reference", "mutant:<kind>" or "sft". */
  source: string;
}

export interface RmDataResult {
  rows: RmRow[];
  prompts: number;
  timeouts: number;
}

export interface RmDataProgress {
  /** Sampling from --sft-model: prompts done of total. */
  sampling?: (done: number, total: number) => void;
  /** Sandbox runs done of total. */
  scoring?: (done: number, total: number) => void;
}

interface Candidate {
  prompt: string;
  response: string;
  source: string;
  task_id: number;
  tests: string[];
  setup?: string;
}

export async function buildRmData(s: PrepRmSettings, progress: RmDataProgress = {}): Promise<RmDataResult> {
  resolvePython(s.python); // fail before any work when there is no interpreter
  const tasks = await readMbpp(s.mbpp);
  const d = mbppDatasets(tasks);
  const training = [...d.validation, ...d.ppo].slice(0, s.limit); // 511-974 in task order
  const reference = new Map(tasks.map((t) => [t.task_id, normalizeCode(t.code)]));

  let samples: string[][] | undefined;
  if (s.sftModel) {
    samples = await sampleResponses({ ...s, modelDir: s.sftModel, prompts: training.map((t) => t.prompt) }, (done) => progress.sampling?.(done, training.length));
  }

  const candidates: Candidate[] = [];
  training.forEach((t, i) => {
    const ref = reference.get(t.task_id)!;
    const row = (response: string, source: string): Candidate => ({ prompt: t.prompt, response, source, task_id: t.task_id, tests: t.tests, setup: t.setup });
    const ms = mutants(ref, `${s.seed}:${t.task_id}`, { perKind: s.mutantsPerKind });
    candidates.push(row(ref, 'reference'), ...ms.map((m) => row(m.code, `mutant:${m.kind}`)));
    const seen = new Set([ref, ...ms.map((m) => m.code)]); // a sample equal to one of these adds nothing
    for (const x of samples?.[i] ?? []) {
      if (seen.has(x)) continue;
      seen.add(x);
      candidates.push(row(x, 'sft'));
    }
  });

  const pool = new SandboxPool({ timeoutMs: s.timeoutMs, memoryMb: s.memoryMb, concurrency: s.concurrency, python: s.python });
  const scored = await scoreAll(
    pool,
    candidates.map((c) => ({ code: c.response, tests: c.tests, setup: c.setup })),
    (done) => progress.scoring?.(done, candidates.length),
  );
  const rows = candidates.map((c, i) => ({
    prompt: c.prompt,
    response: c.response,
    score: Math.round(scored[i].score * 1e4) / 1e4,
    task_id: c.task_id,
    source: c.source,
  }));
  new MbppLeakGuard(tasks).check(rows, s.out);
  return { rows, prompts: training.length, timeouts: scored.filter((x) => x.result.timedOut).length };
}
