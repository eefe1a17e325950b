// Prompt/response pairs as token ids, the one encoding every stage shares (SFT, reward model, PPO, eval):
//   ids = prompt ids + response ids + end token        (the loss / reward looks only at the response part)
// Too long for maxLen: the prompt is cut from the left, then the response body from the right; the end token stays last.
// The prompt and the response are encoded separately so the boundary is exact: promptLen tells where the
// response starts. Templates: 'raw' uses the text as is (code models continue code and comments) and ends
// with <|endoftext|>; 'chat' wraps the prompt in one ChatML user turn and ends the answer with <|im_end|>,
// the format of instruct checkpoints such as Qwen2.5-Coder-Instruct.
import { encodeChat } from './chat';
import { FIM_STOP_TOKENS } from './special-tokens';
import type { Tokenizer } from './tokenizer';

export type PromptTemplate = 'raw' | 'chat';
export const PROMPT_TEMPLATES: readonly PromptTemplate[] = ['raw', 'chat'];

export function encodePrompt(tok: Tokenizer, prompt: string, template: PromptTemplate = 'raw'): number[] {
  return template === 'chat' ? encodeChat(tok, prompt) : tok.encode(prompt, { parseSpecialTokens: false });
}

/** The token that ends a response: <|im_end|> in chat, <|endoftext|> otherwise. */
export function endTokenId(tok: Tokenizer, template: PromptTemplate = 'raw'): number {
  return template === 'chat' ? tok.chat.imEnd : tok.eosId;
}

/**
 * Named sets of ids that end generation: a template's ('raw': <|endoftext|>; 'chat': <|im_end|> and <|endoftext|>), or
 * 'fim': every control token that ends a fill-in-the-middle completion (FIM_STOP_TOKENS), as the online server serves.
 */
export type StopSet = PromptTemplate | 'fim';
export const STOP_SETS: readonly StopSet[] = [...PROMPT_TEMPLATES, 'fim'];

/** The ids of a stop set (always includes <|endoftext|>); 'fim' leaves out the tokens this tokenizer lacks. */
export function stopTokenIds(tok: Tokenizer, set: StopSet = 'raw'): number[] {
  if (set === 'fim') return FIM_STOP_TOKENS.map((t) => tok.tokenToId(t)).filter((id): id is number => id !== undefined);
  return [...new Set([endTokenId(tok, set), tok.eosId])];
}

export interface PairOptions {
  template?: PromptTemplate;
  /**
   * Longest allowed result: the prompt is cut from the left first (keeping its end, next to the response), then the
   * response from the right. With addEos the end token is always kept last: the response body is cut before it.
   */
  maxLen?: number;
  /** Append the end token (default true) so the model learns to stop and reward models read the score there. */
  addEos?: boolean;
}

export function encodePair(tok: Tokenizer, prompt: string, response: string, opts: PairOptions = {}): { ids: number[]; promptLen: number } {
  const template = opts.template ?? 'raw';
  let p = encodePrompt(tok, prompt, template);
  let r = tok.encode(response, { parseSpecialTokens: false });
  const end = (opts.addEos ?? true) ? [endTokenId(tok, template)] : [];
  const maxLen = opts.maxLen ?? Infinity;
  if (maxLen < 2) throw new Error(`encodePair: maxLen must be at least 2, got ${maxLen}`);
  const rLen = r.length + end.length;
  if (p.length + rLen > maxLen) {
    // Keep at least one prompt token and at least half of the window for the response (end token included).
    const keepPrompt = Math.max(1, Math.min(p.length, maxLen - Math.min(rLen, Math.ceil(maxLen / 2))));
    p = p.slice(p.length - keepPrompt);
    // Cut the response body, never the end token: the reward model reads its score there and SFT learns to stop there.
    // keepPrompt <= maxLen - 1, so there is always room for it.
    r = r.slice(0, maxLen - p.length - end.length);
  }
  return { ids: [...p, ...r, ...end], promptLen: p.length };
}

/** Rows of different lengths -> a rectangular batch padded on one side; mask is 1 on real tokens. */
export function padBatch(rows: readonly number[][], padId: number, side: 'left' | 'right'): { ids: number[][]; mask: number[][] } {
  if (rows.length === 0) throw new Error('padBatch: no rows');
  const T = Math.max(...rows.map((r) => r.length));
  const ids: number[][] = [];
  const mask: number[][] = [];
  for (const r of rows) {
    const pad = new Array<number>(T - r.length).fill(padId);
    const zeros = new Array<number>(T - r.length).fill(0);
    const ones = new Array<number>(r.length).fill(1);
    ids.push(side === 'left' ? [...pad, ...r] : [...r, ...pad]);
    mask.push(side === 'left' ? [...zeros, ...ones] : [...ones, ...zeros]);
  }
  return { ids, mask };
}
