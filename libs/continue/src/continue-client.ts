// What Continue (v1.3.9+, provider "openai", a "qwen...coder" model, completion tracking on) does around one
// autocomplete request, reproduced for the simulated user (see apps/online/README.md):
//   prompt    1.3.9: <|fim_prefix|>{snippets as `# ` lines}\n# {path}\n{prefix}<|fim_suffix|>{suffix}<|fim_middle|>
//             upstream: <|repo_name|>...<|file_sep|>{path}\n<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>
//             (the header only when there are snippets); prefix <= 30% and suffix <= 20% of maxPromptTokens, the
//             snippets fill the rest; an empty suffix becomes "\n"
//   request   POST {apiBase}/completions {model, prompt, max_tokens, temperature: 0.01, stop: [12], stream: true}
//             with Content-Type, Authorization: Bearer <apiKey> and api-key headers; reads SSE `data:` lines,
//             choices[0].text, until `data: [DONE]`, noting when each piece arrived
//   shown     what Continue displays (continueDisplay: its stop strings, its 10-chunk / 375 ms cut, its line rules
//             with the 150 ms clock, its post-processing)
//   outcome   the AutocompleteOutcome it posts to completionTrackingUrl with the tracking headers
import { randomUUID } from 'crypto';
import { formatFim, formatRepoHeader, repoAsComments, type RepoFile } from '@rlhf-code/tokenizer';
import { LineRule, lineRuleFor, type MultilineMode } from './line-rule';
import type { AutocompleteOutcome } from './outcome';

export const PROMPT_FORMS = ['v139', 'head'] as const;
/** v139: Continue 1.3.9 (RLinf's fork), context as commented lines; head: upstream since March 2026, a repository header. */
export type PromptForm = (typeof PROMPT_FORMS)[number];

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
  /** The FIM prefix in the prompt (1.3.9: with the commented context and path lines in front of the code). */
  prefix: string;
  /** The code before the cursor that made it into the prompt (what Continue's filters compare against). */
  code: string;
  suffix: string;
  prompt: string;
}

/** The last two parts of a path, as Continue 1.3.9 writes the current file's path. */
const lastTwoParts = (filepath: string) => filepath.split('/').slice(-2).join('/');

/**
 * Build Continue's FIM prompt for a cursor position. `countTokens` measures pruning budgets (Continue uses its own
 * tokenizer; any close count will do): prefix lines are dropped from the top, suffix lines from the bottom, snippet
 * lines from the bottom, and a snippet that does not fit at all is left out.
 */
export function continuePrompt(
  filepath: string,
  prefix: string,
  suffix: string,
  countTokens: (text: string) => number,
  maxPromptTokens = 1024,
  opts: { form?: PromptForm; snippets?: readonly RepoFile[] } = {},
): ContinuePrompt {
  const prefixBudget = Math.floor(0.3 * maxPromptTokens);
  const suffixBudget = Math.floor(0.2 * maxPromptTokens);
  const pre = prefix.split('\n'); // the last element is the cursor line's text before the cursor
  while (pre.length > 1 && countTokens(pre.join('\n')) > prefixBudget) pre.shift();
  const suf = suffix.split('\n');
  while (suf.length > 1 && countTokens(suf.join('\n')) > suffixBudget) suf.pop();
  const code = pre.join('\n');
  const s = suf.join('\n') === '' ? '\n' : suf.join('\n');
  let room = maxPromptTokens - countTokens(code) - countTokens(s);
  const snippets: RepoFile[] = [];
  for (const f of opts.snippets ?? []) {
    const lines = f.content.split('\n');
    while (lines.length > 0 && countTokens(`${f.path}\n${lines.join('\n')}`) > room) lines.pop();
    if (lines.length === 0) break;
    snippets.push({ path: f.path, content: lines.join('\n') });
    room -= countTokens(`${f.path}\n${lines.join('\n')}`);
  }
  if ((opts.form ?? 'v139') === 'head') {
    const header = snippets.length > 0 ? formatRepoHeader({ name: 'workspace', files: snippets, path: filepath }) : '';
    return { prefix: code, code, suffix: s, prompt: header + formatFim(code, s) };
  }
  const p = repoAsComments({ name: '', files: snippets, path: lastTwoParts(filepath) }, code);
  return { prefix: p, code, suffix: s, prompt: formatFim(p, s) };
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
  /**
   * Each piece of text with the milliseconds since the request was sent, in order (what Continue's clock sees), and
   * the server's simulated arrival time (`sim_ms` of its chunk; null when the server sent none).
   */
  pieces: { text: string; ms: number; simMs: number | null }[];
  ms: number;
}

/** POST a streaming completion request and read the SSE answer the way Continue does. */
export async function streamCompletion(url: string, body: object, headers: Record<string, string>): Promise<StreamedCompletion> {
  const t0 = Date.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text().catch(() => '')}`);
  const out: StreamedCompletion = { text: '', id: null, versions: [], arm: null, finishReason: null, chunks: 0, pieces: [], ms: 0 };
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
      if (choice?.text) {
        out.text += choice.text;
        out.pieces.push({ text: choice.text, ms: Date.now() - t0, simMs: typeof chunk.sim_ms === 'number' ? chunk.sim_ms : null });
      }
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
    }
    if (done) break;
  }
  out.ms = Date.now() - t0;
  return out;
}

/** Continue's own stop patterns on top of the request's stop strings. */
const DISPLAY_STOPS = [...CONTINUE_STOP_STRINGS, 'diff --git'];

export interface DisplayOptions {
  multiline?: MultilineMode;
  /** Continue's modelTimeout (showWhateverWeHaveAtXMs); default 150. */
  modelTimeoutMs?: number;
}

/**
 * What Continue displays of a streamed completion, or null when it shows nothing. `prefix` and `suffix` are the ones
 * in its prompt (the code around the cursor). In order:
 *   1. stop strings cut the text;
 *   2. every 10th piece, past 2.5 x modelTimeout (375 ms) since the request, it stops and keeps what it has;
 *   3. the line rules of line-rule.ts (one line or several; blank line, line below, repeats; the 150 ms rule, with the
 *      clock of the piece that finished each line);
 *   4. post-processing: blank -> nothing; a repeat of the line above the cursor -> nothing; a leading space dropped
 *      when the prefix ends with one; trailing whitespace trimmed.
 */
export function continueDisplay(pieces: readonly { text: string; ms: number }[], prefix: string, suffix: string, opts: DisplayOptions = {}): string | null {
  return continueDisplayTimed(pieces, pieces[pieces.length - 1]?.ms ?? 0, prefix, suffix, opts).shown;
}

/**
 * continueDisplay, and when Continue has it to show: the ms of the piece at which it stops reading (a stop string, a
 * line rule's end, the 375 ms cut), else `endMs`, when the stream ended (it shows a suggestion only once complete).
 */
export function continueDisplayTimed(
  pieces: readonly { text: string; ms: number }[],
  endMs: number,
  prefix: string,
  suffix: string,
  opts: DisplayOptions = {},
): { shown: string | null; ms: number } {
  const timeout = opts.modelTimeoutMs ?? 150;
  const rule = new LineRule(lineRuleFor({ prefix, suffix }, opts.multiline ?? 'auto', timeout));
  let text = '';
  let cut: number | null = null;
  let ms = endMs;
  const stopAt = (t: string) => Math.min(...DISPLAY_STOPS.map((s) => t.indexOf(s)).filter((i) => i >= 0), Infinity);
  for (let i = 0; i < pieces.length; i++) {
    text += pieces[i].text;
    const stop = stopAt(text);
    if (stop < Infinity) text = text.slice(0, stop);
    cut = rule.cut(text, pieces[i].ms);
    if (cut !== null || stop < Infinity || ((i + 1) % 10 === 0 && pieces[i].ms > 2.5 * timeout)) {
      ms = pieces[i].ms;
      break;
    }
  }
  let shown = cut === null ? text : text.slice(0, cut);
  if (prefix.endsWith(' ') && shown.startsWith(' ')) shown = shown.slice(1);
  shown = shown.trimEnd();
  if (shown.trim() === '') return { shown: null, ms };
  const above = prefix.split('\n').slice(0, -1).reverse().find((l) => l.trim() !== '');
  if (above !== undefined && shown.split('\n')[0].trim() === above.trim() && prefix.slice(prefix.lastIndexOf('\n') + 1).trim() === '') return { shown: null, ms };
  return { shown, ms };
}

/** What Continue would show for a completion that arrived all at once (no clock): continueDisplay of one piece. */
export function showCompletion(completion: string, prefix: string, suffix: string): string | null {
  return continueDisplay([{ text: completion, ms: 0 }], prefix, suffix);
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
