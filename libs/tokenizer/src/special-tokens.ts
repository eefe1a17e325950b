// Names of the control tokens this project relies on. They are Qwen2.5/Qwen3's names, so the Qwen tokenizer and
// every tokenizer derived from it (derive.ts) share them; the ids differ between tokenizers and are always looked
// up by name.

export const SPECIAL_TOKENS = {
  /** End of a document or completion: base/FIM models (Qwen2.5-Coder base) stop here. */
  endOfText: '<|endoftext|>',
  /** ChatML turn markers for instruction prompts. */
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
  /** Fill-in-the-middle markers: <|fim_prefix|>P<|fim_suffix|>S<|fim_middle|> then the model writes the middle. */
  fimPrefix: '<|fim_prefix|>',
  fimSuffix: '<|fim_suffix|>',
  fimMiddle: '<|fim_middle|>',
  /** Qwen2.5-Coder's repository-level context: <|repo_name|>repo\n<|file_sep|>path\ncontent ... before <|fim_prefix|>. */
  repoName: '<|repo_name|>',
  fileSep: '<|file_sep|>',
  /** Preferred padding token: distinct from EOS, never produced by text, never a training target. */
  fimPad: '<|fim_pad|>',
  /** Fallback padding token for tokenizers without <|fim_pad|> (derive.ts adds it when needed). */
  pad: '<|pad|>',
} as const;

/** The orders of the FIM markers a checkpoint was trained on (tokenizer_config.json's fim_mode): prefix-suffix-middle or suffix-prefix-middle. */
export const FIM_MODES = ['psm', 'spm'] as const;
export type FimMode = (typeof FIM_MODES)[number];

/** Tokens every tokenizer loaded by loadTokenizer must have (the pad token is checked separately). */
export const REQUIRED_TOKENS: readonly string[] = [
  SPECIAL_TOKENS.endOfText,
  SPECIAL_TOKENS.imStart,
  SPECIAL_TOKENS.imEnd,
  SPECIAL_TOKENS.fimPrefix,
  SPECIAL_TOKENS.fimSuffix,
  SPECIAL_TOKENS.fimMiddle,
];

/** Padding candidates in order of preference. */
export const PAD_CANDIDATES: readonly string[] = [SPECIAL_TOKENS.fimPad, SPECIAL_TOKENS.pad];

/**
 * Control tokens that end a fill-in-the-middle completion (the stop set 'fim' of stopTokenIds): end of text, the FIM
 * and repository markers, the ChatML markers. They are the token forms of Continue's stop strings, in its order.
 */
export const FIM_STOP_TOKENS: readonly string[] = [
  SPECIAL_TOKENS.endOfText,
  SPECIAL_TOKENS.fimPrefix,
  SPECIAL_TOKENS.fimMiddle,
  SPECIAL_TOKENS.fimSuffix,
  SPECIAL_TOKENS.fimPad,
  SPECIAL_TOKENS.repoName,
  SPECIAL_TOKENS.fileSep,
  SPECIAL_TOKENS.imStart,
  SPECIAL_TOKENS.imEnd,
];
