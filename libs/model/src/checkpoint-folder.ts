// Hugging Face checkpoint folders: load Qwen2 weights, save a complete checkpoint, replace the training state beside
// the weights (its files: trainer-state.ts).
//
// A checkpoint folder holds
//   config.json                         the model config (config.ts)
//   model.safetensors                   all weights, or shards listed by model.safetensors.index.json
//   tokenizer.json, tokenizer_config.json, ...   copied from the tokenizer's folder
//   optimizer.safetensors               optional: optimizer moments etc. for resuming training (trainer-state.ts)
//   trainer_state.json                  optional: step, RNG state, run config for resuming
// and loads in transformers as is (weights carry metadata {format: "pt"}).
//
// Loading checks every parameter the config implies against the stored names and shapes, and
// returns them as host tensors keyed by their Hugging Face names. Tied embeddings: the map has no
// lm_head.weight (the model reuses model.embed_tokens.weight); a stored copy is accepted only if it
// equals the embedding. Heads we know (score.weight of Qwen2ForSequenceClassification, a value head
// v_head.weight [1, D] / v_head.bias [1]) are returned too; other tensors are ignored with a
// warning on stderr, as transformers does.
//
// Saving is atomic at the folder level: everything is written into a hidden temp sibling folder,
// fsynced, then swapped in by renames, so a crash never leaves a half-written checkpoint in place.
import { existsSync, readFileSync, statSync, promises as fs } from 'fs';
import * as path from 'path';
import { Qwen2Config, expectedParameterShapes, numLabels, readConfig, readConfigFile, writeConfig } from './config';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, foldAdapter, isAdapterFolder, readAdapter, writeAdapterFiles, type AdapterFiles } from './lora';
import {
  HostTensor,
  fsyncDir,
  readSafetensors,
  readSafetensorsHeader,
  tempSibling,
  writeFileAtomic,
  writeSafetensors,
} from './safetensors';
import { checkTrainingState, OPTIMIZER_FILE, TRAINER_STATE_FILE, writeTrainingState, type TrainingState } from './trainer-state';

export const MODEL_FILE = 'model.safetensors';
export const MODEL_INDEX_FILE = 'model.safetensors.index.json';
/** Files of a Hugging Face tokenizer folder that saveCheckpoint copies when present. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'vocab.json',
  'merges.txt',
  'special_tokens_map.json',
  'added_tokens.json',
  'chat_template.jinja',
];

export type SaveCheckpointOptions = {
  config: Qwen2Config;
  weights: Map<string, HostTensor>; // Hugging Face names, as returned by loadCheckpointWeights (ignored with adapter)
  adapter?: AdapterFiles; // a LoRA run: PEFT's adapter files instead of config.json + model.safetensors
  dtype?: 'F32' | 'BF16'; // storage dtype of the weights; default F32 (bit-exact)
  tokenizerDir?: string; // folder to copy the tokenizer files from
  tokenizerConfig?: Record<string, unknown>; // fields set in the copied tokenizer_config.json (e.g. fim_mode)
  extraFiles?: Record<string, string | object>; // more files: text as is, objects as JSON
  trainingState?: TrainingState; // written in the same atomic swap
  keepFiles?: string[]; // files of the folder being replaced to carry over as they are (e.g. a run's metrics.jsonl)
  extraTensors?: Record<string, Map<string, HostTensor>>; // more safetensors files, e.g. a LoRA run's value head
  extraTensorsDtype?: 'F32' | 'BF16'; // their storage dtype; default F32 (BF16: an export's compact optimizer moments)
};

/** What a checkpoint folder holds: full weights, or (a LoRA run) the adapter files and the base they were made for. */
export type CheckpointContent = Pick<SaveCheckpointOptions, 'config' | 'weights' | 'adapter'>;

const fmtShape = (shape: (number | null)[]): string => `[${shape.map((d) => d ?? 'N').join(', ')}]`;
const sameShape = (a: number[], b: number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);

// Extra heads we load and save. `null` matches any size (the number of labels when the config has
// no id2label to tell it).
function knownExtraShapes(cfg: Qwen2Config): Map<string, (number | null)[]> {
  const D = cfg.hidden_size;
  return new Map<string, (number | null)[]>([
    ['score.weight', [cfg.id2label ? numLabels(cfg) : null, D]],
    ['v_head.weight', [1, D]],
    ['v_head.bias', [1]],
  ]);
}

const matches = (pattern: (number | null)[], shape: number[]): boolean =>
  pattern.length === shape.length && pattern.every((d, i) => d === null || d === shape[i]);

type Classified = { load: string[]; unknown: string[]; tiedHead: boolean };

/**
 * Sort `shapes` (name -> stored shape) into tensors to load and unknown ones, after checking that
 * every expected parameter is there with its expected shape. `where(name)` names the file.
 */
function classifyTensors(cfg: Qwen2Config, shapes: Map<string, number[]>, where: (name: string) => string): Classified {
  const expected = expectedParameterShapes(cfg);
  for (const [name, shape] of expected) {
    const actual = shapes.get(name);
    if (!actual) throw new Error(`${where(name)}: missing tensor ${name} (expected shape ${fmtShape(shape)})`);
    if (!sameShape(actual, shape)) {
      throw new Error(`${where(name)}: tensor ${name} has shape ${fmtShape(actual)}, expected ${fmtShape(shape)} from the config`);
    }
  }
  const extras = knownExtraShapes(cfg);
  const out: Classified = { load: [...expected.keys()], unknown: [], tiedHead: false };
  for (const [name, shape] of shapes) {
    if (expected.has(name)) continue;
    const pattern = extras.get(name);
    if (pattern) {
      if (!matches(pattern, shape)) {
        throw new Error(`${where(name)}: tensor ${name} has shape ${fmtShape(shape)}, expected ${fmtShape(pattern)}`);
      }
      out.load.push(name);
    } else if (name === 'lm_head.weight' && cfg.tie_word_embeddings) {
      out.tiedHead = true;
    } else {
      out.unknown.push(name);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Loading

const isDirectory = (p: string) => statSync(p).isDirectory();

/** base_model_name_or_path of the adapter in `dir` (read without its tensors), or null. */
function readAdapterBaseName(dir: string): string | null {
  const file = path.join(dir, ADAPTER_CONFIG_FILE);
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
    return typeof v === 'string' ? v : null;
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

/** The base model folder of the adapter in `dir` (base_model_name_or_path, as given or relative to the adapter's folder). */
export function adapterBase(dir: string, a: { baseModel: string | null }): string {
  const where = path.join(dir, ADAPTER_CONFIG_FILE);
  if (!a.baseModel) throw new Error(`${where}: no base_model_name_or_path: which base model is this adapter for?`);
  for (const candidate of [a.baseModel, path.resolve(dir, a.baseModel)]) if (existsSync(path.join(candidate, 'config.json')) || isAdapterFolder(candidate)) return candidate;
  throw new Error(`${where}: base_model_name_or_path ${JSON.stringify(a.baseModel)} is not a checkpoint folder here (no config.json or adapter_config.json)`);
}

/** The model config of a checkpoint folder, of a LoRA adapter folder's base, or of a config.json file given by its path. */
export function modelConfigOf(where: string): Qwen2Config {
  if (existsSync(where) && !isDirectory(where)) return readConfigFile(where);
  if (!isAdapterFolder(where)) return readConfig(where);
  const base = readAdapterBaseName(where);
  return modelConfigOf(adapterBase(where, { baseModel: base }));
}

/**
 * The config and weights of a checkpoint folder; for a LoRA adapter folder, its base's (recursively) with the adapter
 * folded in. The reward model's score head of a SEQ_CLS adapter is not part of this (RewardModel.load reads it).
 */
export async function loadMergedWeights(dir: string): Promise<{ config: Qwen2Config; weights: Map<string, HostTensor> }> {
  if (!isAdapterFolder(dir)) {
    const config = readConfig(dir);
    return { config, weights: await loadCheckpointWeights(dir, config) };
  }
  const a = await readAdapter(dir);
  const base = await loadMergedWeights(adapterBase(dir, a));
  return { config: base.config, weights: foldAdapter(base.weights, a.config, a.tensors) };
}

/** Load and check the weights of the checkpoint in `dir` for `cfg` (see the top of this file). */
export async function loadCheckpointWeights(dir: string, cfg: Qwen2Config): Promise<Map<string, HostTensor>> {
  const { fileOf, source } = await locateTensors(dir);
  const shapes = new Map<string, number[]>();
  for (const file of new Set(fileOf.values())) {
    const header = await readSafetensorsHeader(file);
    for (const [name, f] of fileOf) {
      if (f !== file) continue;
      const entry = header.tensors.get(name);
      if (!entry) throw new Error(`${file}: no tensor named ${name} (listed in ${source})`);
      shapes.set(name, entry.shape);
    }
  }
  const { load, unknown, tiedHead } = classifyTensors(cfg, shapes, (name) => fileOf.get(name) ?? source);
  if (unknown.length > 0) {
    console.warn(`${dir}: ignoring ${unknown.length} tensor(s) a Qwen2 model does not use: ${unknown.join(', ')}`);
  }
  const weights = await readGrouped(fileOf, load);
  if (tiedHead) {
    // tie_word_embeddings: a stored head must be a copy of the embedding, else the config is wrong.
    const head = await readGrouped(fileOf, ['lm_head.weight']);
    const a = new Uint32Array(head.get('lm_head.weight')!.data.buffer);
    const b = new Uint32Array(weights.get('model.embed_tokens.weight')!.data.buffer);
    if (a.length !== b.length || a.some((x, i) => x !== b[i])) {
      throw new Error(
        `${fileOf.get('lm_head.weight')}: lm_head.weight differs from model.embed_tokens.weight ` +
          `but the config sets tie_word_embeddings`,
      );
    }
  }
  return new Map(load.map((name) => [name, weights.get(name)!])); // model order
}

/** Which file holds each tensor: model.safetensors first (as transformers does), else the index. */
async function locateTensors(dir: string): Promise<{ fileOf: Map<string, string>; source: string }> {
  const single = path.join(dir, MODEL_FILE);
  if (await exists(single)) {
    const header = await readSafetensorsHeader(single);
    return { fileOf: new Map([...header.tensors.keys()].map((n) => [n, single])), source: single };
  }
  const index = path.join(dir, MODEL_INDEX_FILE);
  if (await exists(index)) {
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(index, 'utf8'));
    } catch (e) {
      throw new Error(`${index}: not valid JSON (${(e as Error).message})`);
    }
    const map = (json as { weight_map?: unknown } | null)?.weight_map;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      throw new Error(`${index}: missing weight_map object`);
    }
    const fileOf = new Map<string, string>();
    for (const [name, file] of Object.entries(map)) {
      // Shards live beside the index; anything else (paths, non-strings) is a corrupt index.
      if (typeof file !== 'string' || file !== path.basename(file) || file === '') {
        throw new Error(`${index}: weight_map.${name} must be a file name in the same folder, got ${JSON.stringify(file)}`);
      }
      fileOf.set(name, path.join(dir, file));
    }
    return { fileOf, source: index };
  }
  const hasBin = await exists(path.join(dir, 'pytorch_model.bin'));
  throw new Error(
    `${dir}: no ${MODEL_FILE} or ${MODEL_INDEX_FILE}` +
      (hasBin ? ' (pytorch_model.bin is not supported: convert it to safetensors)' : ''),
  );
}

/** Read `names` with one pass over each file that holds some of them. */
async function readGrouped(fileOf: Map<string, string>, names: string[]): Promise<Map<string, HostTensor>> {
  const byFile = new Map<string, string[]>();
  for (const name of names) {
    const file = fileOf.get(name)!;
    const group = byFile.get(file) ?? [];
    group.push(name);
    byFile.set(file, group);
  }
  const out = new Map<string, HostTensor>();
  for (const [file, group] of byFile) for (const [n, t] of await readSafetensors(file, group)) out.set(n, t);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Saving

/** Write a complete checkpoint folder `dir`, replacing any checkpoint already there in one swap. */
export async function saveCheckpoint(dir: string, opts: SaveCheckpointOptions): Promise<void> {
  const { config, weights, adapter, dtype = 'F32', tokenizerDir, tokenizerConfig, extraFiles = {}, trainingState, keepFiles = [], extraTensors = {}, extraTensorsDtype = 'F32' } = opts;
  const where = `saveCheckpoint(${dir})`;
  // Everything is checked before the disk is touched.
  if (!adapter) {
    const shapes = new Map([...weights].map(([n, t]) => [n, t.shape]));
    const { unknown, tiedHead } = classifyTensors(config, shapes, () => where);
    if (tiedHead) throw new Error(`${where}: lm_head.weight given but the config ties it to model.embed_tokens.weight`);
    if (unknown.length > 0) throw new Error(`${where}: tensors a Qwen2 model does not have: ${unknown.join(', ')}`);
  }
  const tokenizerFiles = tokenizerDir ? await listTokenizerFiles(tokenizerDir) : [];
  if (tokenizerConfig && !tokenizerDir) throw new Error(`${where}: tokenizerConfig needs a tokenizerDir to copy the tokenizer from`);
  const tokenizerConfigText = tokenizerConfig ? await patchedTokenizerConfig(tokenizerDir!, tokenizerConfig) : null;
  if (tokenizerConfigText !== null && !tokenizerFiles.includes(TOKENIZER_CONFIG_FILE)) tokenizerFiles.push(TOKENIZER_CONFIG_FILE);
  const reserved = new Set([
    'config.json', MODEL_FILE, MODEL_INDEX_FILE, OPTIMIZER_FILE, TRAINER_STATE_FILE, ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, ...tokenizerFiles,
  ]);
  for (const name of [...Object.keys(extraFiles), ...Object.keys(extraTensors)]) {
    if (name !== path.basename(name) || name === '' || name === '.' || name === '..') {
      throw new Error(`${where}: extraFiles key ${JSON.stringify(name)} must be a plain file name`);
    }
    if (reserved.has(name)) throw new Error(`${where}: extraFiles.${name} would overwrite a file the checkpoint writes`);
  }
  if (trainingState) checkTrainingState(trainingState, where);
  for (const name of keepFiles) {
    if (name !== path.basename(name) || reserved.has(name) || name in extraFiles || name in extraTensors) {
      throw new Error(`${where}: keepFiles entry ${JSON.stringify(name)} must be a plain file name the checkpoint does not write`);
    }
  }
  await assertReplaceable(dir, keepFiles);

  await replaceDir(dir, async (tmp) => {
    // Record the stored dtype (newer transformers versions name the field `dtype`).
    const stored = dtype === 'BF16' ? 'bfloat16' : 'float32';
    if (adapter) await writeAdapterFiles(tmp, adapter);
    else {
      await writeConfig(tmp, { ...config, torch_dtype: stored, ...('dtype' in config ? { dtype: stored } : {}) });
      await writeSafetensors(path.join(tmp, MODEL_FILE), weights, { dtype, metadata: { format: 'pt' } });
    }
    for (const name of tokenizerFiles) {
      const patched = name === TOKENIZER_CONFIG_FILE ? tokenizerConfigText : null;
      await writeFileAtomic(path.join(tmp, name), patched ?? (await fs.readFile(path.join(tokenizerDir!, name))));
    }
    for (const [name, content] of Object.entries(extraFiles)) {
      const text = typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n';
      await writeFileAtomic(path.join(tmp, name), text);
    }
    for (const [name, tensors] of Object.entries(extraTensors)) await writeSafetensors(path.join(tmp, name), tensors, { dtype: extraTensorsDtype, metadata: { format: 'pt' } });
    if (trainingState) await writeTrainingState(tmp, trainingState);
    for (const name of keepFiles) {
      if (await exists(path.join(dir, name))) await fs.copyFile(path.join(dir, name), path.join(tmp, name));
    }
  });
}

/**
 * Replace the training state of the checkpoint in `dir` (created if absent), keeping its other
 * files: they are hard-linked (copied where links are impossible) into the new folder, so this is
 * cheap even beside a multi-GB model, and the swap is as atomic as saveCheckpoint's.
 */
export async function saveTrainingState(dir: string, ts: TrainingState): Promise<void> {
  checkTrainingState(ts, `saveTrainingState(${dir})`);
  const kept = (await exists(dir)) ? await fs.readdir(dir) : [];
  await replaceDir(dir, async (tmp) => {
    for (const name of kept) {
      if (name !== OPTIMIZER_FILE && name !== TRAINER_STATE_FILE) await linkOrCopy(path.join(dir, name), path.join(tmp, name));
    }
    await writeTrainingState(tmp, ts);
  });
}

const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';

/** `dir`'s tokenizer_config.json (or {} when it has none) with `fields` set, as indented JSON. */
async function patchedTokenizerConfig(dir: string, fields: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, TOKENIZER_CONFIG_FILE);
  let current: unknown = {};
  if (await exists(file)) {
    try {
      current = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
    }
  }
  if (typeof current !== 'object' || current === null || Array.isArray(current)) throw new Error(`${file}: expected a JSON object`);
  return JSON.stringify({ ...current, ...fields }, null, 2) + '\n';
}

async function listTokenizerFiles(dir: string): Promise<string[]> {
  const present = [];
  for (const name of TOKENIZER_FILES) if (await exists(path.join(dir, name))) present.push(name);
  if (present.length === 0) throw new Error(`${dir}: no tokenizer files (looked for ${TOKENIZER_FILES.join(', ')})`);
  return present;
}

/** Refuse to replace a folder that is not a checkpoint: saving must never delete unrelated files. */
async function assertReplaceable(dir: string, keepFiles: string[] = []): Promise<void> {
  if (!(await exists(dir))) return;
  if (!(await fs.stat(dir)).isDirectory()) throw new Error(`${dir}: exists and is not a folder`);
  const entries = (await fs.readdir(dir)).filter((e) => !keepFiles.includes(e));
  if (entries.length > 0 && !entries.includes('config.json') && !entries.includes(ADAPTER_CONFIG_FILE)) {
    throw new Error(`refusing to replace ${dir}: it is not empty and has no config.json (or ${ADAPTER_CONFIG_FILE}), so it is not a checkpoint`);
  }
}

/**
 * Build the new content of `dir` in a temp sibling via `fill`, then swap it in: move the old folder
 * aside, move the new one in, delete the old one. Between the two renames `dir` is briefly absent,
 * but both complete versions exist as hidden siblings (.<name>.old-* and .<name>.tmp-*).
 */
async function replaceDir(dir: string, fill: (tmp: string) => Promise<void>): Promise<void> {
  const target = path.resolve(dir);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const tmp = tempSibling(target, 'tmp');
  await fs.mkdir(tmp);
  try {
    await fill(tmp);
    await fsyncDir(tmp);
  } catch (e) {
    await fs.rm(tmp, { recursive: true, force: true });
    throw e;
  }
  const old = tempSibling(target, 'old');
  let hadOld = true;
  try {
    await fs.rename(target, old);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      await fs.rm(tmp, { recursive: true, force: true });
      throw e;
    }
    hadOld = false;
  }
  try {
    await fs.rename(tmp, target);
  } catch (e) {
    if (hadOld) await fs.rename(old, target);
    await fs.rm(tmp, { recursive: true, force: true });
    throw e;
  }
  await fsyncDir(path.dirname(target));
  if (hadOld) await fs.rm(old, { recursive: true, force: true });
}

async function linkOrCopy(src: string, dst: string): Promise<void> {
  if ((await fs.lstat(src)).isDirectory()) {
    await fs.cp(src, dst, { recursive: true });
    return;
  }
  try {
    await fs.link(src, dst);
  } catch {
    await fs.copyFile(src, dst); // file systems without hard links
    const fh = await fs.open(dst, 'r+');
    await fh.sync();
    await fh.close();
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}
