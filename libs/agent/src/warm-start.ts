// The SFT warm-start's examples: synthetic tool-use traces that teach the format before GRPO. For each task the
// "model" calls the interpreter with the task's reference solution, reads the printed value and states it:
//   user question -> <tool_call>{python_interpreter, solution}</tool_call> -> <tool_response>value</tool_response>
//   -> "The answer is value."
// The traces are built by the episode loop itself with those two turns scripted, so the sequence, the tool turn and
// the mask are exactly what GRPO samples; the loss mask is the episode's train mask (the model's own tokens).
import type { TemplateMessage, Tokenizer } from '@rlhf-code/tokenizer';
import type { LmExample } from '@rlhf-code/train';
import { runEpisodes, type EpisodeTool, type TurnGenerator } from './episode';

export interface SolvedTask {
  question: string;
  answer: string;
  /** Python that prints the answer. */
  solution: string;
}

/** The assistant's tool call for `code`, as Qwen2.5-style templates write one (Python's JSON spacing). */
export const toolCallText = (code: string) => `<tool_call>\n{"name": "python_interpreter", "arguments": {"code": ${JSON.stringify(code)}}}\n</tool_call>`;

export async function warmStartExamples(
  tasks: readonly SolvedTask[],
  o: { tokenizer: Tokenizer; template: string; toolFor: (episode: number) => EpisodeTool; system?: string },
): Promise<{ examples: LmExample[]; toolOutputs: string[] }> {
  const tok = o.tokenizer;
  const turns = tasks.map((t) => [toolCallText(t.solution), `The answer is ${t.answer}.`]);
  // Every episode lives for both turns (the first always calls the tool), so they run in lockstep: at step `turn`
  // sequence k is task k's.
  let turn = 0;
  const generate: TurnGenerator = async (sequences) => {
    const out = sequences.map((_, k) => {
      const ids = tok.encode(turns[k][turn], { parseSpecialTokens: false });
      return { ids, stopId: tok.chat.imEnd, logprobs: [...ids, 0].map(() => 0) };
    });
    turn++;
    return out;
  };
  const prompts: TemplateMessage[][] = tasks.map((t) => [...(o.system ? [{ role: 'system' as const, content: o.system }] : []), { role: 'user' as const, content: t.question }]);
  const episodes = await runEpisodes(generate, prompts, { tokenizer: tok, template: o.template, maxTurns: 2, maxTurnTokens: 4096, maxTotalTokens: 1 << 20, toolFor: o.toolFor });
  return {
    examples: episodes.map((e) => ({ ids: e.ids, lossMask: e.trainMask })),
    toolOutputs: episodes.map((e) => e.messages.find((m) => m.role === 'tool')?.content ?? ''),
  };
}
