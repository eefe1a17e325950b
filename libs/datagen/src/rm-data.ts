// `prep rm`: the reward model's data. For every training problem (MBPP's tasks 511-974, or the problems of
// `--problems` that have a reference, e.g. the task suite's sft split): the reference solution, mutated variants of
// it (mutate.ts, `mutantsPerKind` per kind), the trivial answers (stubs: `pass`, constant returns, ...) and
// optionally samples of an SFT checkpoint, each scored by running it against the problem's tests in the sandbox
// (executionScore: 1 passes every test, 0 does not, -0.1 does not compile). With MBPP, the leak guard refuses a row
// that repeats a test task.
import { MbppLeakGuard, mbppDatasets, normalizeCode, problemParts, readMbpp, readProblems, shuffle } from '@rlhf-code/data';
import { checkpointAt } from '@rlhf-code/model';
import { resolvePython, SandboxPool, scoreAll, stubPrograms } from '@rlhf-code/sandbox';
import { mutants } from './mutate';
import { sampleFromCheckpoint } from './sample';
import type { PrepRmSettings } from './settings';

export interface RmRow {
  prompt: string;
  response: string;
  score: number;
  task_id: number | string;
  /** "reference", "mutant:<kind>", "stub:<what>" or "sft". */
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
  task_id: number | string;
  tests: string[];
  setup?: string;
}

/** A training problem: its prompt, tests and reference. */
interface RmProblem {
  task_id: number | string;
  prompt: string;
  tests: string[];
  setup?: string;
  reference: string;
}

/** MBPP's training tasks (511-974, task order), or every problem of --problems that has a reference. */
async function rmProblems(s: PrepRmSettings): Promise<{ problems: RmProblem[]; guard: MbppLeakGuard | null }> {
  let all: RmProblem[];
  let guard: MbppLeakGuard | null = null;
  if (s.problems) {
    all = (await readProblems(s.problems)).flatMap((p) => {
      const parts = problemParts(p);
      return parts.reference ? [{ task_id: p.task_id, prompt: parts.prompt, tests: parts.tests, setup: parts.setup, reference: parts.reference }] : [];
    });
    if (all.length === 0) throw new Error(`--problems ${s.problems}: no problem has a reference (\`code\`), so there is nothing to mutate`);
  } else {
    const tasks = await readMbpp(s.mbpp);
    const d = mbppDatasets(tasks);
    const reference = new Map(tasks.map((t) => [t.task_id, normalizeCode(t.code)]));
    all = [...d.validation, ...d.ppo].map((t) => ({ ...t, reference: reference.get(t.task_id)! }));
    guard = new MbppLeakGuard(tasks);
  }
  // --limit: a seeded subset, kept in file order
  const keep = s.limit === undefined ? null : new Set(shuffle(all.map((_, i) => i), `${s.seed}:limit`).slice(0, s.limit));
  return { problems: keep ? all.filter((_, i) => keep.has(i)) : all, guard };
}

export async function buildRmData(s: PrepRmSettings, progress: RmDataProgress = {}): Promise<RmDataResult> {
  const sft = s.sftModel ? checkpointAt(s.sftModel, '--sft-model') : undefined;
  resolvePython(s.python); // fail before any work when there is no interpreter
  const { problems: training, guard } = await rmProblems(s);

  let samples: string[][] | undefined;
  if (sft) {
    samples = await sampleFromCheckpoint({ ...s, modelDir: sft, prompts: training.map((t) => t.prompt) }, (done) => progress.sampling?.(done, training.length));
  }

  const candidates: Candidate[] = [];
  training.forEach((t, i) => {
    const ref = t.reference;
    const row = (response: string, source: string): Candidate => ({ prompt: t.prompt, response, source, task_id: t.task_id, tests: t.tests, setup: t.setup });
    const ms = mutants(ref, `${s.seed}:${t.task_id}`, { perKind: s.mutantsPerKind });
    const known = new Set([ref, ...ms.map((m) => m.code)]);
    const stubs = s.stubs ? stubPrograms({ prompt: t.prompt, tests: t.tests, setup: t.setup, code: ref }).filter((x) => !known.has(x.response)) : [];
    candidates.push(row(ref, 'reference'), ...ms.map((m) => row(m.code, `mutant:${m.kind}`)), ...stubs.map((x) => row(x.response, x.name)));
    const seen = new Set([...known, ...stubs.map((x) => x.response)]); // a sample equal to one of these adds nothing
    for (const x of samples?.[i] ?? []) {
      if (seen.has(x)) continue;
      seen.add(x);
      candidates.push(row(x, 'sft'));
    }
  });

  const pool = new SandboxPool({ timeoutMs: s.timeoutMs, memoryMb: s.memoryMb, concurrency: s.concurrency, python: s.python });
  const scored = await scoreAll(
    pool,
    candidates.map((c) => ({ code: c.prompt + c.response, tests: c.tests, setup: c.setup })),
    (done) => progress.scoring?.(done, candidates.length),
  );
  const rows = candidates.map((c, i) => ({
    prompt: c.prompt,
    response: c.response,
    score: Math.round(scored[i].score * 1e4) / 1e4,
    task_id: c.task_id,
    source: c.source,
  }));
  guard?.check(rows, s.out);
  return { rows, prompts: training.length, timeouts: scored.filter((x) => x.result.timedOut).length };
}
