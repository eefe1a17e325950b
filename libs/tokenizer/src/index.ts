export { SPECIAL_TOKENS, REQUIRED_TOKENS, PAD_CANDIDATES, FIM_STOP_TOKENS } from './special-tokens';
export {
  Tokenizer,
  loadTokenizer,
  readFimMode,
  saveTokenizer,
  defaultTokenizerDir,
  validateTokenizerJson,
  type TokenizerJson,
  type TokenizerConfigJson,
  type AddedTokenJson,
  type BpeModelJson,
  type EncodeOptions,
  type DecodeOptions,
} from './tokenizer';
export { formatFim, parseFim, encodeFim, fimIds, formatRepoHeader, repoAsComments, FIM_MODES, type FimMode, type FimParts, type RepoContext, type RepoFile } from './fim';
export { formatChat, encodeChat, CHATML_TEMPLATE, type ChatMessage, type ChatRole, type ChatOptions } from './chat';
export {
  deriveTokenizer,
  byteLevelAlphabet,
  parseMerges,
  type DeriveOptions,
  type DeriveStats,
  type DerivedTokenizer,
} from './derive';
export {
  readCorpus,
  listFiles,
  isHeldOut,
  selectStdlibFiles,
  copyStdlibCorpus,
  readCorpora,
  corpusDirs,
  STDLIB_EXTRA_PACKAGES,
  STDLIB_PACKAGES,
  STDLIB_EXCLUDED_MODULES,
  STDLIB_MAX_FILE_BYTES,
  type CorpusFile,
  type StdlibSelection,
} from './corpus';
export { measureTokenizer, type TokenizerMeasure } from './measure';
export {
  encodePrompt,
  encodePair,
  padBatch,
  endTokenId,
  stopTokenIds,
  PROMPT_TEMPLATES,
  STOP_SETS,
  type PromptTemplate,
  type StopSet,
  type PairOptions,
} from './pair';
export { encodeServedPrompt, PromptError, REPO_CONTEXT_MODES, SERVED_MIN_TOKENS, type RepoContextMode, type ServedPrompt } from './served-prompt';
