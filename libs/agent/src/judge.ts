// Whether an episode solved its task: the reward of tool GRPO and the measure of the evaluation.
//   answer tasks  the final reply states the answer (answerMatches)
//   tests tasks   the final reply's Python (its fenced block, else the whole reply) passes every test in the sandbox
import type { ToolTaskRecord } from '@rlhf-code/data';
import { responseProgram } from '@rlhf-code/rl';
import type { SandboxPool } from '@rlhf-code/sandbox';
import type { Episode } from './episode';

/**
 * Whether a final reply states the answer: the answer appears in it as a whole token (numbers not inside a longer
 * number, e.g. "43" does not match "143" or "43.5"), case and surrounding punctuation aside.
 */
export function answerMatches(reply: string, answer: string): boolean {
  const esc = answer.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.-])${esc}(?!\\w|\\.\\d)`).test(reply.toLowerCase());
}

/** Success of each episode on its task (`tasks[i]` is episode i's); tests run through the pool. */
export async function judgeEpisodes(episodes: readonly Episode[], tasks: readonly ToolTaskRecord[], pool: SandboxPool): Promise<boolean[]> {
  return Promise.all(
    episodes.map(async (e, i) => {
      const t = tasks[i];
      if (t.tests) {
        const r = await pool.run(responseProgram('', e.finalText, 'chat'), t.tests, t.setup);
        return r.total > 0 && r.passed === r.total;
      }
      return answerMatches(e.finalText, t.answer!);
    }),
  );
}
