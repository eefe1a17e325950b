// The requests the benches send: Continue's prompt for a FIM case, in either of its forms, with another file's code as
// its context snippet (as Continue adds the code of recently edited files).
import { contextSnippet, continuePrompt, type PromptForm } from '@rlhf-code/continue';

export interface FimCase {
  prefix: string;
  suffix: string;
  path: string;
}

/** The prompt Continue would send for `c` in `form`, with the code of `other` (another file) as its context snippet. */
export function continueShapedPrompt(c: FimCase, other: FimCase, form: PromptForm, countTokens: (t: string) => number, maxPromptTokens: number): string {
  return continuePrompt(c.path, c.prefix, c.suffix, countTokens, maxPromptTokens, { form, snippets: [contextSnippet(other, 40)] }).prompt;
}
