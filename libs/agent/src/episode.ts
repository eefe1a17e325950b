// Multi-turn episodes with a Python interpreter tool: the policy writes an assistant turn in the checkpoint's own chat
// template; every <tool_call> in it is run (a malformed one gets an error message instead) and the answers come back
// as the next turn, in the template's own tool-response form; until a turn without a tool call (the final answer),
// or the turn or token limits.
//
// The episode is kept as the token sequence that was actually sampled: the prompt, each assistant turn's ids exactly
// as generated (with its end token), and the tool turns' ids (the template's text between the end of one assistant
// turn and the start of the next). `trainMask` is 1 on the model's own tokens only: the policy loss and the KL are
// taken over those, never over prompt or tool tokens (as verl does), and log-probs are recomputed over this very
// sequence, so no re-tokenization can shift them.
import { renderChatTemplate, parseToolCalls, withoutToolCalls, type TemplateMessage, type ToolCall, type ToolSpec, type Tokenizer } from '@rlhf-code/tokenizer';
import { PythonInterpreter, type InterpreterOptions, type SandboxPool, type ToolResult } from '@rlhf-code/sandbox';

export const PYTHON_TOOL: ToolSpec = {
  type: 'function',
  function: {
    name: 'python_interpreter',
    description: 'Run Python code and return what it printed (and the value of a last bare expression).',
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'Python source to run' } }, required: ['code'] },
  },
};
/** The string arguments each tool needs, for the parser. */
const TOOL_ARGS = { python_interpreter: ['code'] } as const;
/** The interpreter also takes its code as a fenced block in the <tool_call> (parseToolCalls' code form). */
const CODE_TOOL = { name: 'python_interpreter', arg: 'code' };

/** One assistant turn as the generator returns it. */
export interface TurnSample {
  /** Ids the model chose, without the end token. */
  ids: number[];
  /** The id that ended the turn (e.g. <|im_end|>), or null when cut at the token limit. */
  stopId: number | null;
  /** The sampler's log-probs of `ids`, then of the stop id. */
  logprobs: number[];
  /** The policy version that sampled it (a rollout engine's; absent: a scripted turn). */
  policyVersion?: number;
}

/**
 * Continue each of these token sequences by one assistant turn (at most maxNewTokens[i] tokens); `episodes[i]` is
 * sequence i's episode (its index in runEpisodes' prompts).
 */
export type TurnGenerator = (sequences: readonly number[][], maxNewTokens: readonly number[], episodes: readonly number[]) => Promise<TurnSample[]>;

/** Runs code for one episode; stateful interpreters keep variables until close(). */
export interface EpisodeTool {
  run(code: string): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface EpisodeOptions {
  tokenizer: Tokenizer;
  /** The checkpoint's chat template (tokenizer_config.json chat_template). */
  template: string;
  /** Assistant turns at most. */
  maxTurns: number;
  /** Tokens per assistant turn at most. */
  maxTurnTokens: number;
  /** Tokens of the whole sequence at most (prompt, turns and tool answers). */
  maxTotalTokens: number;
  /** A tool for each episode (a fresh stateful interpreter, or one shared stateless one). */
  toolFor: (episode: number) => EpisodeTool;
  /** Tool output beyond this many characters is cut (the model's context is short). */
  maxToolChars?: number;
  /** No tool: the prompt offers none and a turn's tool calls are not run (the turn is the final answer). */
  noTool?: boolean;
}

export type EpisodeEnd = 'answer' | 'turns' | 'tokens';

export interface Episode {
  /** The whole sequence as sampled. */
  ids: number[];
  /** 1 where the model chose the token (trained), 0 for prompt and tool tokens. */
  trainMask: number[];
  /** The sampler's log-prob at each position the mask marks, 0 elsewhere. */
  samplerLogprobs: number[];
  promptLength: number;
  messages: TemplateMessage[];
  /**
   * The final answer turn's text: the last turn when it ended the episode itself (no tool call, its end token
   * reached); null when the episode ended otherwise (a tool call at the turn limit, a turn cut at the token limit, no
   * room for another turn), so the judge never reads a call or a cut turn as an answer.
   */
  answer: string | null;
  turns: number;
  /** The policy version of each sampled turn (as the engine reported it; empty for scripted turns). */
  turnVersions: number[];
  toolCalls: number;
  malformedCalls: number;
  end: EpisodeEnd;
}

/** The opening messages of a task: the optional system message, then the question. */
export function taskMessages(t: { question: string }, system?: string): TemplateMessage[] {
  return [...(system ? [{ role: 'system' as const, content: system }] : []), { role: 'user' as const, content: t.question }];
}

/** Episode tools backed by the Python interpreter: a fresh stateful process per episode, or stateless calls. */
export function interpreterTools(stateful: boolean, options: Omit<InterpreterOptions, 'stateful'> = {}, pool?: SandboxPool): (episode: number) => EpisodeTool {
  return () => new PythonInterpreter({ ...options, stateful }, pool);
}

/** The template's text between an assistant turn's end token and the next assistant turn, around these tool answers. */
function toolTurnText(o: EpisodeOptions, answers: readonly string[]): string {
  const head: TemplateMessage[] = [{ role: 'user', content: 'u' }, { role: 'assistant', content: 'a' }];
  const before = renderChatTemplate(o.template, head, { tools: [PYTHON_TOOL] });
  const after = renderChatTemplate(o.template, [...head, ...answers.map((content) => ({ role: 'tool' as const, content }))], { tools: [PYTHON_TOOL], addGenerationPrompt: true });
  const endText = o.tokenizer.decode([o.tokenizer.chat.imEnd], { skipSpecialTokens: false });
  const cut = before.lastIndexOf(endText);
  if (!after.startsWith(before) || cut < 0) throw new Error('chat template: cannot find where a tool turn starts (the assistant turn does not end with its end token)');
  // The model's turn ends at its end token; what the template puts after it (a newline) belongs to the tool turn.
  return before.slice(cut + endText.length) + after.slice(before.length);
}

/** Run `prompts` (their system/user messages) as episodes, one assistant turn of every live episode per step. */
export async function runEpisodes(generate: TurnGenerator, prompts: readonly TemplateMessage[][], o: EpisodeOptions): Promise<Episode[]> {
  const tok = o.tokenizer;
  const maxToolChars = o.maxToolChars ?? 2000;
  const episodes: Episode[] = prompts.map((messages) => {
    const text = renderChatTemplate(o.template, messages, { tools: o.noTool ? undefined : [PYTHON_TOOL], addGenerationPrompt: true });
    const ids = tok.encode(text);
    return { ids, trainMask: ids.map(() => 0), samplerLogprobs: ids.map(() => 0), promptLength: ids.length, messages: [...messages], answer: null, turns: 0, turnVersions: [], toolCalls: 0, malformedCalls: 0, end: 'turns' };
  });
  const tools = episodes.map((_, i) => o.toolFor(i));
  const live = new Set(episodes.map((_, i) => i));
  try {
    while (live.size > 0) {
      const now = [...live].filter((i) => {
        const room = o.maxTotalTokens - episodes[i].ids.length;
        if (room > 0) return true;
        episodes[i].end = 'tokens';
        live.delete(i);
        return false;
      });
      if (now.length === 0) break;
      const samples = await generate(
        now.map((i) => episodes[i].ids),
        now.map((i) => Math.min(o.maxTurnTokens, o.maxTotalTokens - episodes[i].ids.length)),
        now,
      );
      // The turns' bookkeeping first, then every episode's tool calls at once (the pool bounds how many run), then
      // the tool turns in episode order.
      const pending: { i: number; parsed: ReturnType<typeof parseToolCalls> }[] = [];
      for (const [k, i] of now.entries()) {
        const e = episodes[i];
        const s = samples[k];
        const chosen = s.stopId === null ? s.ids : [...s.ids, s.stopId];
        e.ids.push(...chosen);
        e.trainMask.push(...chosen.map(() => 1));
        e.samplerLogprobs.push(...s.logprobs.slice(0, chosen.length));
        e.turns++;
        if (s.policyVersion !== undefined) e.turnVersions.push(s.policyVersion);
        const text = tok.decode(s.ids);
        const parsed = o.noTool ? [] : parseToolCalls(text, TOOL_ARGS, CODE_TOOL);
        const calls = parsed.flatMap((p) => (p.ok ? [p.call] : []));
        e.messages.push({ role: 'assistant', content: withoutToolCalls(text), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        if (s.stopId === null) {
          e.end = 'tokens'; // cut mid-turn: no end token, no tool run
          live.delete(i);
        } else if (parsed.length === 0) {
          e.end = 'answer';
          e.answer = text;
          live.delete(i);
        } else if (e.turns >= o.maxTurns) {
          e.end = 'turns';
          live.delete(i);
        } else pending.push({ i, parsed });
      }
      const answered = await Promise.all(
        pending.map(async ({ i, parsed }) => {
          const answers: string[] = [];
          for (const p of parsed) {
            if (!p.ok) {
              episodes[i].malformedCalls++;
              answers.push(`error: ${p.error}`);
              continue;
            }
            episodes[i].toolCalls++;
            const r = await tools[i].run(String((p.call as ToolCall).function.arguments.code));
            answers.push(r.output.length > maxToolChars ? `${r.output.slice(0, maxToolChars)}\n[output cut at ${maxToolChars} characters]` : r.output);
          }
          return answers;
        }),
      );
      pending.forEach(({ i }, k) => {
        const e = episodes[i];
        for (const content of answered[k]) e.messages.push({ role: 'tool', content });
        const toolIds = tok.encode(toolTurnText(o, answered[k]));
        e.ids.push(...toolIds);
        e.trainMask.push(...toolIds.map(() => 0));
        e.samplerLogprobs.push(...toolIds.map(() => 0));
      });
    }
  } finally {
    await Promise.all(tools.map((t) => t.close()));
  }
  return episodes;
}
