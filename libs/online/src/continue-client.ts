// What Continue (v1.3.9+, provider "openai", a "qwen...coder" model, completion tracking on) does around one
// autocomplete request, reproduced for the simulated user (see ../shared/notes/continue-and-rlinf.md):
//   prompt    <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>; the prefix starts with the file path as
//             a "# " comment; prefix <= 30% and suffix <= 20% of maxPromptTokens; an empty suffix becomes "\n"
//   request   POST {apiBase}/completions {model, prompt, max_tokens, temperature: 0.01, stop: [12], stream: true}
//             with Content-Type, Authorization: Bearer <apiKey> and api-key headers; reads SSE `data:` lines,
//             choices[0].text, until `data: [DONE]`
//   shown     what Continue would display (an approximation of its filters, documented in showCompletion)
//   outcome   the AutocompleteOutcome it posts to completionTrackingUrl with the tracking headers
import { randomUUID } from 'crypto';
import { formatFim } from '@rlhf-code/tokenizer';
import type { AutocompleteOutcome } from './outcome';

/** The 12 stop strings Continue sends for Qwen coder models. */
export const CONTINUE_STOP_STRINGS: readonly string[] = [
  '<|endoftext|>',
  '<|fim_prefix|>',
  '<|fim_middle|>',
  '<|fim_suffix|>',
  '<|fim_pad|>',
  '<|repo_name|>',
  '<|file_sep|>',
  '<|im_start|>',
  '<|im_end|>',
  '/src/',
  '#- coding: utf-8',
  '```',
];

export interface ContinuePrompt {
  /** Prefix as Continue builds it (file path comment + the pruned code before the cursor). */
  prefix: string;
  suffix: string;
  prompt: string;
}

/**
 * Build Continue's FIM prompt for a cursor position. `countTokens` measures pruning budgets (Continue uses its
 * own tokenizer; any close count will do): prefix lines are dropped from the top, suffix lines from the bottom.
 */
export function continuePrompt(
  filepath: string,
  prefix: string,
  suffix: string,
  countTokens: (text: string) => number,
  maxPromptTokens = 1024,
): ContinuePrompt {
  const prefixBudget = Math.floor(0.3 * maxPromptTokens);
  const suffixBudget = Math.floor(0.2 * maxPromptTokens);
  const header = `# ${filepath}\n`;
  const pre = prefix.split('\n'); // the last element is the cursor line's text before the cursor
  while (pre.length > 1 && countTokens(header + pre.join('\n')) > prefixBudget) pre.shift();
  const suf = suffix.split('\n');
  while (suf.length > 1 && countTokens(suf.join('\n')) > suffixBudget) suf.pop();
  const p = header + pre.join('\n');
  const s = suf.join('\n') === '' ? '\n' : suf.join('\n');
  return { prefix: p, suffix: s, prompt: formatFim(p, s) };
}

export function continueRequestBody(prompt: string, model: string, maxTokens = 4096) {
  return { model, prompt, max_tokens: maxTokens, temperature: 0.01, stop: [...CONTINUE_STOP_STRINGS], stream: true };
}

export function continueHeaders(apiKey: string): Record<string, string> {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}`, 'api-key': apiKey };
}

export interface StreamedCompletion {
  text: string;
  id: string | null;
  /** policy_version of every chunk received (the server's extension). */
  versions: number[];
  arm: string | null;
  finishReason: string | null;
  chunks: number;
  ms: number;
}

/** POST a streaming completion request and read the SSE answer the way Continue does. */
export async function streamCompletion(url: string, body: object, headers: Record<string, string>): Promise<StreamedCompletion> {
  const t0 = Date.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text().catch(() => '')}`);
  const out: StreamedCompletion = { text: '', id: null, versions: [], arm: null, finishReason: null, chunks: 0, ms: 0 };
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let nl: number;
    while (!done && (nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        done = true;
        break;
      }
      const chunk = JSON.parse(data);
      if (chunk.error) throw new Error(`${url}: ${chunk.error.message}`);
      out.chunks += 1;
      out.id ??= chunk.id ?? null;
      out.arm ??= chunk.arm ?? null;
      if (typeof chunk.policy_version === 'number') out.versions.push(chunk.policy_version);
      const choice = chunk.choices?.[0];
      if (choice?.text) out.text += choice.text;
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
    }
    if (done) break;
  }
  out.ms = Date.now() - t0;
  return out;
}

/**
 * What Continue would show for a generated completion, or null when it shows nothing. Approximates its filters:
 *   1. cut at the first stop string;
 *   2. multilineCompletions "auto": when the cursor line already has code before the cursor, one line only;
 *   3. stop before a line that repeats the first non-blank line of the suffix (the code below the cursor);
 *   4. trailing whitespace trimmed; nothing left (blank output) -> not shown.
 */
export function showCompletion(completion: string, prefix: string, suffix: string): string | null {
  let text = completion;
  for (const s of CONTINUE_STOP_STRINGS) {
    const at = text.indexOf(s);
    if (at >= 0) text = text.slice(0, at);
  }
  const cursorLine = prefix.slice(prefix.lastIndexOf('\n') + 1);
  if (cursorLine.trim() !== '') text = text.split('\n')[0];
  const below = suffix.split('\n').find((l) => l.trim() !== '')?.trim();
  if (below) {
    const lines = text.split('\n');
    const at = lines.findIndex((l, i) => i > 0 && l.trim() === below);
    if (at > 0) text = lines.slice(0, at).join('\n');
  }
  text = text.trimEnd();
  return text.trim() === '' ? null : text;
}

/**
 * The simulated user's acceptance rule: accept when the first line of the shown completion, trimmed, equals the
 * first line of the true middle, trimmed (and is not empty). A real user accepts a suggestion whose first line is
 * what they were about to type; later lines are judged by the next request.
 */
export function acceptsCompletion(shown: string, middle: string): boolean {
  const first = (s: string) => s.split('\n')[0].trim();
  return first(shown) !== '' && first(shown) === first(middle);
}

export function continueOutcome(p: {
  prompt: ContinuePrompt;
  filepath: string;
  completion: string;
  accepted: boolean;
  modelName: string;
  timeMs: number;
  uniqueId: string;
}): AutocompleteOutcome {
  return {
    completionId: randomUUID(),
    filepath: `file:///workspace/${p.filepath}`,
    prefix: p.prompt.prefix,
    suffix: p.prompt.suffix,
    prompt: p.prompt.prompt,
    completion: p.completion,
    modelProvider: 'openai',
    modelName: p.modelName,
    accepted: p.accepted,
    timestamp: new Date().toISOString(),
    time: p.timeMs,
    uniqueId: p.uniqueId,
    numLines: p.completion.split('\n').length,
    cacheHit: false,
    completionOptions: { temperature: 0.01, stop: [...CONTINUE_STOP_STRINGS] },
    debounceDelay: 350,
    maxPromptTokens: 1024,
    multilineCompletions: 'auto',
  };
}
