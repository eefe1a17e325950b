export { type FimRecord, type PpoRecord, type RmRecord } from './schemas';
export { readJsonlRecords, writeJsonl } from './jsonl';
export { readFimData, readPpoData, readRmData, readSftData } from './datasets';
export { seededRandom, shuffle, type Seed } from './random';
export { groupByLength, splitHeldOut } from './split';
export { copyStdlibCorpus, corpusDirs, isHeldOut, listFiles, readCorpora, readCorpus, type CorpusFile } from './corpus';
export { mbppReadme, MbppLeakGuard, mbppDatasets, normalizeCode, readMbpp } from './mbpp';
export { CorpusSettings } from './settings';
