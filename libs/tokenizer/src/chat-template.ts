// A checkpoint's own chat template (tokenizer_config.json "chat_template", Jinja), rendered as transformers'
// apply_chat_template renders it, tools included: @huggingface/jinja, Hugging Face's port of the template engine.
// Messages follow the OpenAI / transformers form: {role, content} plus, for an assistant turn that calls tools,
// tool_calls: [{type: "function", function: {name, arguments}}]; a tool's answer is {role: "tool", content}.
import { Template } from '@huggingface/jinja';
import type { Tokenizer } from './tokenizer';

export interface ToolCall {
  type: 'function';
  function: { name: string; arguments: Record<string, unknown> };
}

export interface TemplateMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
}

/** A function the model may call, in OpenAI's JSON-schema form (what templates print into the system turn). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * Qwen2.5's chat template (tools in the system turn, calls as <tool_call> JSON, answers as <tool_response> in a user
 * turn) without its default system message: this project's models are trained without one, so with neither tools nor
 * a system message it renders plain ChatML, as encodeChat does. Written into the shipped model's tokenizer_config.json.
 */
export const QWEN25_STYLE_TEMPLATE = [
  "{%- if tools %}",
  "{{- '<|im_start|>system\\n' }}",
  "{%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] + '\\n\\n' }}{%- endif %}",
  "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}",
  "{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}",
  "{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}",
  "{%- elif messages[0]['role'] == 'system' %}",
  "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}",
  "{%- endif %}",
  "{%- for message in messages %}",
  "{%- if (message.role == 'user') or (message.role == 'system' and not loop.first) or (message.role == 'assistant' and not message.tool_calls) %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- elif message.role == 'assistant' %}",
  "{{- '<|im_start|>' + message.role }}",
  "{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}",
  "{%- for tool_call in message.tool_calls %}",
  "{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}",
  "{{- '\\n<tool_call>\\n{\"name\": \"' }}{{- tool_call.name }}{{- '\", \"arguments\": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}",
  "{%- endfor %}",
  "{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}",
  "{%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' }}{{- message.content }}{{- '\\n</tool_response>' }}",
  "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}",
  "{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join('');

const compiled = new Map<string, Template>();

/** Render `template` for these messages, as apply_chat_template(messages, tools=tools, add_generation_prompt=...). */
export function renderChatTemplate(
  template: string,
  messages: readonly TemplateMessage[],
  opts: { tools?: readonly ToolSpec[]; addGenerationPrompt?: boolean; where?: string } = {},
): string {
  let t = compiled.get(template);
  if (!t) {
    try {
      t = new Template(template);
    } catch (e) {
      throw new Error(`${opts.where ?? 'chat_template'}: not a valid Jinja template (${(e as Error).message})`);
    }
    compiled.set(template, t);
  }
  return t.render({ messages, tools: opts.tools && opts.tools.length > 0 ? opts.tools : undefined, add_generation_prompt: opts.addGenerationPrompt ?? false, bos_token: '', eos_token: '' });
}

/** The tokenizer folder's chat_template; an error naming the file when it has none. */
export function chatTemplateOf(tok: Tokenizer): string {
  const t = tok.chatTemplate;
  if (typeof t !== 'string' || t.length === 0) throw new Error(`${tok.source.replace(/tokenizer\.json$/, 'tokenizer_config.json')}: no "chat_template"; tool use needs the checkpoint's own chat template`);
  return t;
}
