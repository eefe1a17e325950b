// Typed readers, one per dataset kind the pipeline trains on. Each validates every line against its schema
// (see schemas.ts for which fields are required and which may be empty) and throws a DataError otherwise.
import { readJsonl } from './jsonl';
import {
  FimRecordSchema,
  PpoRecordSchema,
  RmRecordSchema,
  SftRecordSchema,
  ToolTaskRecordSchema,
  type FimRecord,
  type PpoRecord,
  type RmRecord,
  type SftRecord,
  type ToolTaskRecord,
} from './schemas';

/** Supervised fine-tuning pairs: `{prompt, response}`. */
export const readSftData = (file: string): Promise<SftRecord[]> => readJsonl(file, SftRecordSchema, { kind: 'sft' });

/** Reward-model examples: `{prompt, response, score}` with a finite score. */
export const readRmData = (file: string): Promise<RmRecord[]> => readJsonl(file, RmRecordSchema, { kind: 'rm' });

/** PPO prompts, optionally with Python test lines: `{prompt, tests?, test_setup_code?, task_id?}`. */
export const readPpoData = (file: string): Promise<PpoRecord[]> => readJsonl(file, PpoRecordSchema, { kind: 'ppo' });

/** Fill-in-the-middle examples: `{prefix, suffix, middle, path?, split?}`. */
export const readFimData = (file: string): Promise<FimRecord[]> => readJsonl(file, FimRecordSchema, { kind: 'fim' });

/** Tool-use tasks: `{question, answer | tests, calls?, reference?, kind?, group?, id?, setup?}`, or problems in MBPP's schema. */
export const readToolTasks = (file: string): Promise<ToolTaskRecord[]> => readJsonl(file, ToolTaskRecordSchema, { kind: 'tool tasks' });
