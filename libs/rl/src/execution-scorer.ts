// Execution reward: run each response against its prompt's tests in the sandbox and score the outcome with
// the sandbox's executionScore (in [0, 1]: syntax, share of tests passed, quality). Prompts without tests
// score 0 here (nothing was shown to work), so use this only when the prompts carry tests.
import { SandboxPool, scoreAll } from '@rlhf-code/sandbox';
import type { Scorer } from './scorers';

export interface ExecPrompt {
  prompt: string;
  tests?: readonly string[];
  setup?: string;
}

/** A prompt record's tests and setup: `setup`, or MBPP's own `test_setup_code` (problems read from MBPP's schema). */
export function execPromptOf(r: { prompt: string; tests?: readonly string[]; setup?: unknown; test_setup_code?: unknown }): ExecPrompt {
  const setup = typeof r.setup === 'string' ? r.setup : typeof r.test_setup_code === 'string' ? r.test_setup_code : '';
  return { prompt: r.prompt, tests: r.tests, setup: setup || undefined };
}

/**
 * The program that is run: with the raw template the prompt is code / comments the response continues, so
 * both together; with the chat template the response alone, without a Markdown code fence around it.
 */
export function responseProgram(prompt: string, response: string, template: 'raw' | 'chat'): string {
  if (template === 'raw') return prompt + response;
  const fenced = /```[\w+-]*[ \t]*\r?\n([\s\S]*?)(?:```|$)/.exec(response);
  return fenced ? fenced[1] : response;
}

export function executionScorer(opts: {
  pool: SandboxPool;
  prompts: readonly ExecPrompt[];
  /** Response ids -> text, without the stop token. */
  decode: (ids: number[]) => string;
  stopTokenIds: readonly number[];
  template: 'raw' | 'chat';
}): Scorer {
  const stops = new Set(opts.stopTokenIds);
  return async (samples) => {
    const jobs = samples.map((s) => {
      const p = opts.prompts[s.promptIndex];
      if (!p) throw new Error(`executionScorer: no prompt ${s.promptIndex}`);
      const ids = s.endedWithEos && stops.has(s.responseIds[s.responseIds.length - 1]) ? s.responseIds.slice(0, -1) : s.responseIds;
      return { code: responseProgram(p.prompt, opts.decode(ids), opts.template), tests: p.tests ?? [], setup: p.setup };
    });
    const withTests = jobs.map((j, i) => ({ j, i })).filter(({ j }) => j.tests.length > 0);
    const scores = new Array<number>(samples.length).fill(0);
    const runs = await scoreAll(opts.pool, withTests.map(({ j }) => j));
    runs.forEach((r, k) => (scores[withTests[k].i] = r.score));
    return scores;
  };
}
