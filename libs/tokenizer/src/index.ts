// @rlhf-code/tokenizer: the byte-level BPE tokenizer of Qwen2 checkpoints (tokenizer.json), its special tokens, the
// fill-in-the-middle and chat formats, the served-prompt encoding, prompt/response pairs, and deriving a small
// tokenizer from Qwen's.
export { Tokenizer, loadTokenizer, readFimMode, defaultTokenizerDir } from './tokenizer';
export { FIM_MODES, type FimMode } from './special-tokens';
export { formatFim, parseFim, encodeFim, fimIds, formatRepoHeader, repoAsComments, type FimParts, type RepoFile } from './fim';
export { runDeriveTokenizer } from './derive-command';
export { encodePrompt, encodePair, endTokenId, stopTokenIds, PROMPT_TEMPLATES, type PromptTemplate, type StopSet } from './pair';
export { encodeServedPrompt, PromptError, REPO_CONTEXT_MODES, SERVED_MIN_TOKENS, type RepoContextMode } from './served-prompt';
export { DeriveTokenizerSettings } from './settings';
export { chatTemplateOf, renderChatTemplate, type TemplateMessage, type ToolCall, type ToolSpec } from './chat-template';
export { parseToolCalls, withoutToolCalls } from './tool-call';
