export { DataError, formatProblem, type DataProblem } from './data-error';
export {
  FimRecordSchema,
  PpoRecordSchema,
  RmRecordSchema,
  SftRecordSchema,
  type FimRecord,
  type PpoRecord,
  type RmRecord,
  type SftRecord,
} from './schemas';
export { readJsonl, readJsonlRecords, writeJsonl, type JsonlRecord, type ReadJsonlOptions } from './jsonl';
export { readFimData, readPpoData, readRmData, readSftData } from './datasets';
export { seededRandom, shuffle, type Seed } from './random';
export { batches, groupByLength, splitHeldOut, type BatchOptions, type SplitOptions } from './split';
export { mbppReadme, MbppTaskSchema, MbppLeakGuard, isMbppTrainingTask, mbppDatasets, mbppPrompt, mbppSplit, normalizeCode, readMbpp, type MbppDatasets, type MbppSplit, type MbppTask, type SftRow, type TestRow } from './mbpp';
