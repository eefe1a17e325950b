// @rlhf-code/data: the datasets on disk: JSONL reading with errors at file:line, the record schemas (sft, rm, ppo, FIM),
// MBPP and its split with the leak guard, the Python corpus (files, held-out rule, stdlib selection), seeded shuffles
// and splits; the pretraining corpus's Debian manifest (debian.ts), its filters (corpus-filters.ts: generated files,
// exact and MinHash near-duplicates, minhash.ts) and the token cache it is written to.
export { type FimRecord, type PpoRecord, type RmRecord, type ToolTaskRecord } from './schemas';
export { readJsonlRecords, writeJsonl } from './jsonl';
export { readFimData, readPpoData, readRmData, readSftData, readToolTasks } from './datasets';
export { dataRandom, shuffle, type Seed } from './random';
export { groupByLength, splitHeldOut } from './split';
export { copyStdlibCorpus, corpusDirs, corpusFiles, isHeldOut, listFiles, readCorpora, readCorpus, type CorpusFile } from './corpus';
export { codeQuestion, problemOr, readProblems, problemParts, ProblemRecordSchema } from './problems';
export { mbppReadme, MbppLeakGuard, mbppDatasets, mbppSplit, normalizeCode, readMbpp } from './mbpp';
export { CorpusSettings } from './settings';
export { openTokenCache, readTokenCacheDocs, TokenCacheWriter, tokenDtypeFor, tokenizerSha256, type TokenSplit } from './token-cache';
export { CORPUS_FILTERS, CorpusFilter, type CorpusFilterResult, type Tally } from './corpus-filters';
export { ensureDeb, extractDeb, fileSha256, readCorpusManifest, repinManifest, writeCorpusManifest, type CorpusManifest } from './debian';
