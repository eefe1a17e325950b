// The SFT warm-start's examples: synthetic tool-use traces that teach the format before GRPO. For each task the
// "model" makes the task's reference calls, one per turn, reading each response, then states the last one's value:
//   user question -> <tool_call>{python_interpreter, call 1}</tool_call> -> <tool_response>...</tool_response>
//   -> ... -> "The answer is value."
// The traces are built by the episode loop itself with the turns scripted, so the sequence, the tool turns and the
// mask are exactly what GRPO samples; the loss mask is the episode's train mask (the model's own tokens). Two-call
// traces run in the interpreter the caller gives (a stateful one keeps the first call's variables).
//
// `direct: true` marks a task whose trace answers at once, without the tool (the answer stated as if computed in the
// head): a warm-start that mixes both teaches a policy that sometimes trusts itself, as instruct models do before RL.
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { LmExample } from '@rlhf-code/train';
import { runEpisodes, taskMessages, type EpisodeTool, type TurnGenerator } from './episode';

export interface SolvedTask {
  question: string;
  answer: string;
  /** Python of each tool call; the last one prints the answer. */
  calls: string[];
  /** Answer without the tool. */
  direct?: boolean;
}

/** The assistant's tool call for `code`, as Qwen2.5-style templates write one (Python's JSON spacing). */
export const toolCallText = (code: string) => `<tool_call>\n{"name": "python_interpreter", "arguments": {"code": ${JSON.stringify(code)}}}\n</tool_call>`;

/** The final reply of a trace. */
export const answerText = (answer: string) => `The answer is ${answer}.`;

export async function warmStartExamples(
  tasks: readonly SolvedTask[],
  o: { tokenizer: Tokenizer; template: string; toolFor: (episode: number) => EpisodeTool; system?: string },
): Promise<{ examples: LmExample[]; toolOutputs: string[][] }> {
  const tok = o.tokenizer;
  const scripts = tasks.map((t) => [...(t.direct ? [] : t.calls.map(toolCallText)), answerText(t.answer)]);
  const examples: LmExample[] = new Array(tasks.length);
  const toolOutputs: string[][] = new Array(tasks.length);
  // Episodes with the same number of turns run together in lockstep: at step `turn`, sequence k is group member k's.
  const lengths = [...new Set(scripts.map((s) => s.length))];
  for (const n of lengths) {
    const members = scripts.flatMap((s, i) => (s.length === n ? [i] : []));
    let turn = 0;
    const generate: TurnGenerator = async (sequences) => {
      const out = sequences.map((_, k) => {
        const ids = tok.encode(scripts[members[k]][turn], { parseSpecialTokens: false });
        return { ids, stopId: tok.chat.imEnd, logprobs: [...ids, 0].map(() => 0) };
      });
      turn++;
      return out;
    };
    const prompts = members.map((i) => taskMessages(tasks[i], o.system));
    const episodes = await runEpisodes(generate, prompts, { tokenizer: tok, template: o.template, maxTurns: n, maxTurnTokens: 1 << 16, maxTotalTokens: 1 << 20, toolFor: o.toolFor });
    episodes.forEach((e, k) => {
      examples[members[k]] = { ids: e.ids, lossMask: e.trainMask };
      toolOutputs[members[k]] = e.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    });
  }
  return { examples, toolOutputs };
}
