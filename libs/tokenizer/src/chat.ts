// Instruction prompts in ChatML, the format of Qwen's instruct models:
//   <|im_start|>user\n{content}<|im_end|>\n<|im_start|>assistant\n   and the model answers, ending with <|im_end|>.
// No default system message is inserted (Qwen2.5's template adds one; this project's models are trained without it).
import { SPECIAL_TOKENS } from './special-tokens';
import type { Tokenizer } from './tokenizer';

const { imStart, imEnd } = SPECIAL_TOKENS;

export type ChatRole = 'system' | 'user' | 'assistant';
const ROLES: readonly string[] = ['system', 'user', 'assistant'];

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatOptions {
  /** Append "<|im_start|>assistant\n" so the model writes the next turn. Default: when the last turn is not the assistant's. */
  addGenerationPrompt?: boolean;
}

/** A bare prompt string is one user turn. */
function toMessages(input: string | readonly ChatMessage[]): readonly ChatMessage[] {
  const messages = typeof input === 'string' ? [{ role: 'user' as const, content: input }] : input;
  if (messages.length === 0) throw new Error('formatChat: no messages');
  messages.forEach((m, i) => {
    if (!ROLES.includes(m.role)) throw new Error(`formatChat: messages[${i}].role must be one of ${ROLES.join(', ')}, got ${JSON.stringify(m.role)}`);
    if (typeof m.content !== 'string') throw new Error(`formatChat: messages[${i}].content must be a string`);
  });
  return messages;
}

function wantsGenerationPrompt(messages: readonly ChatMessage[], options: ChatOptions): boolean {
  return options.addGenerationPrompt ?? messages[messages.length - 1].role !== 'assistant';
}

export function formatChat(input: string | readonly ChatMessage[], options: ChatOptions = {}): string {
  const messages = toMessages(input);
  const turns = messages.map((m) => `${imStart}${m.role}\n${m.content}${imEnd}\n`).join('');
  return wantsGenerationPrompt(messages, options) ? `${turns}${imStart}assistant\n` : turns;
}

/**
 * Token ids of formatChat(input, options), with every message content encoded as plain text: a user writing
 * "<|im_end|>" cannot close their turn early. Equals tok.encode(formatChat(...)) when no content contains such strings.
 */
export function encodeChat(tok: Tokenizer, input: string | readonly ChatMessage[], options: ChatOptions = {}): number[] {
  const messages = toMessages(input);
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  const turns = messages.map((m) => [tok.chat.imStart, ...plain(`${m.role}\n${m.content}`), tok.chat.imEnd, ...plain('\n')]);
  if (wantsGenerationPrompt(messages, options)) turns.push([tok.chat.imStart, ...plain('assistant\n')]);
  return turns.flat();
}
