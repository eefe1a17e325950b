// Test support for the apps' end-to-end CLI tests (imported as @rlhf-code/cli/testing, never by app code):
// run an app as a child process, write a tiny random checkpoint that loads in milliseconds, and check that
// `--help` documents every key of an app's zod flags schema.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { seededRandom } from '@rlhf-code/data';
import { expectedParameterShapes, HostTensor, makeConfig, saveCheckpoint } from '@rlhf-code/model';
import { loadTokenizer } from '@rlhf-code/tokenizer';

export const REPO_ROOT = path.join(__dirname, '../../..');
/** The shipped base model; the tiny models borrow its 16k tokenizer. */
export const BASE_MODEL = path.join(REPO_ROOT, 'models/base');

export interface AppRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `tsx apps/<app>/src/main.ts ...args` from the repo root, one wasm thread (several test files may run at once). */
export function runApp(app: string, args: string[], timeoutMs = 120_000): AppRun {
  const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
  const r = spawnSync(tsx, [`apps/${app}/src/main.ts`, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, RLHF_THREADS: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A random Qwen2 (1 layer, width 16) with the base tokenizer's vocabulary, saved in Hugging Face layout: a causal LM,
 * or with kind 'rm' a one-label sequence classifier (score.weight). Weights ~ U(-0.05, 0.05), norms 1, from `seed`.
 */
export async function writeTinyModel(dir: string, seed: string, kind: 'lm' | 'rm' = 'lm'): Promise<void> {
  const tok = loadTokenizer(BASE_MODEL);
  const config = makeConfig({
    vocab_size: tok.vocabSize,
    hidden_size: 16,
    intermediate_size: 32,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    max_position_embeddings: 256,
    tie_word_embeddings: true,
    bos_token_id: tok.eosId,
    eos_token_id: tok.eosId,
    pad_token_id: tok.padId,
    ...(kind === 'rm' ? { architectures: ['Qwen2ForSequenceClassification'], id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
  });
  const random = seededRandom(seed);
  const weights = new Map<string, HostTensor>();
  for (const [name, shape] of expectedParameterShapes(config)) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = name.endsWith('norm.weight') ? 1 : (random() - 0.5) * 0.1;
    weights.set(name, { shape, data });
  }
  await saveCheckpoint(dir, { config, weights, tokenizerDir: BASE_MODEL });
}

/**
 * The keys of `const <name> = ... { ... }` in an app's source, following `...Spread` of other such objects: the flags
 * a zod schema declares, read from the text because importing an app's main.ts would run it.
 */
export function schemaKeys(src: string, name: string): string[] {
  const at = src.indexOf(`const ${name} =`);
  if (at < 0) throw new Error(`no const ${name}`);
  const open = src.indexOf('{', at);
  let depth = 0;
  let end = open;
  for (; end < src.length; end++) {
    if (src[end] === '{') depth++;
    else if (src[end] === '}' && --depth === 0) break;
  }
  const lines = src
    .slice(open + 1, end)
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('//'));
  const indent = Math.min(...lines.map((l) => l.length - l.trimStart().length));
  const keys: string[] = [];
  for (const line of lines.filter((l) => l.length - l.trimStart().length === indent)) {
    const spread = /^\s*\.\.\.(\w+)/.exec(line);
    const key = /^\s*(\w+):/.exec(line);
    if (spread) keys.push(...schemaKeys(src, spread[1]));
    else if (key) keys.push(key[1]);
  }
  return keys;
}

/** Whether `--help` output documents the flag of a camelCase key (`--max-len`, or `--no-x` for a negatable one). */
export function helpHasFlag(help: string, key: string): boolean {
  const flag = key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  return new RegExp(`(^|\\s)--(no-)?${flag}[ ,\\n]`).test(help);
}
