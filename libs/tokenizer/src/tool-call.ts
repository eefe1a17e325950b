// Tool calls in a generated assistant turn, as Qwen2.5's template asks for them:
//   <tool_call>\n{"name": "python_interpreter", "arguments": {"code": "..."}}\n</tool_call>
// or, for a code tool (`codeTool`: one tool whose one argument is source code), the code as a fenced block, as
// Qwen-Agent's code interpreter also takes it:
//   <tool_call>\n```python\nprint(2 ** 10)\n```\n</tool_call>
// so a small model writes the code it runs exactly as it writes code anywhere else, never escaped inside JSON.
// Each block is parsed on its own: a malformed one becomes an error message (returned to the model as the tool's
// answer, and counted) instead of ending the episode.
import type { ToolCall } from './chat-template';

export type ParsedCall = { ok: true; call: ToolCall } | { ok: false; error: string };

const BLOCK = /<tool_call>([\s\S]*?)(<\/tool_call>|$)/g;

/** `text` without its tool-call blocks (what the turn says besides the calls). */
export const withoutToolCalls = (text: string): string => text.replace(BLOCK, '').trim();

/** A block that is one fenced code block (```python, ```py or bare): its code; otherwise null. */
const FENCED = /^```(?:python|py)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * The tool-call blocks of `text`, in order, each parsed or with the reason it could not be. With `codeTool`, a block
 * whose body is a fenced code block calls that tool with the code as its argument `arg`.
 */
export function parseToolCalls(text: string, tools: Readonly<Record<string, readonly string[]>>, codeTool?: { name: string; arg: string }): ParsedCall[] {
  const out: ParsedCall[] = [];
  for (const m of text.matchAll(BLOCK)) {
    if (m[2] === '') {
      out.push({ ok: false, error: 'tool call not closed with </tool_call>' });
      continue;
    }
    const fenced = codeTool ? FENCED.exec(m[1].trim()) : null;
    if (fenced && codeTool) {
      out.push({ ok: true, call: { type: 'function', function: { name: codeTool.name, arguments: { [codeTool.arg]: fenced[1] } } } });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(m[1].trim());
    } catch (e) {
      out.push({ ok: false, error: `tool call is not valid JSON (${(e as Error).message})` });
      continue;
    }
    const { name, arguments: args } = (json ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string' || !(name in tools)) {
      out.push({ ok: false, error: `unknown tool ${JSON.stringify(name)} (available: ${Object.keys(tools).join(', ')})` });
      continue;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      out.push({ ok: false, error: `${name}: "arguments" must be an object` });
      continue;
    }
    const missing = tools[name].find((k) => typeof (args as Record<string, unknown>)[k] !== 'string');
    if (missing !== undefined) {
      out.push({ ok: false, error: `${name}: argument "${missing}" must be a string` });
      continue;
    }
    out.push({ ok: true, call: { type: 'function', function: { name, arguments: args as Record<string, unknown> } } });
  }
  return out;
}
