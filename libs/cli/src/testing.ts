// Test support for the apps' end-to-end CLI tests (imported as @rlhf-code/cli/testing, never by app code):
// run an app as a child process, write a tiny random checkpoint that loads in milliseconds, and read the settings an
// app command resolves (--print-config).
import { spawnSync } from 'child_process';
import * as path from 'path';
import { dataRandom } from '@rlhf-code/data';
import { saveTinyModel } from '@rlhf-code/model/testing';
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
export function runApp(app: string, args: string[], timeoutMs = 120_000, env: NodeJS.ProcessEnv = process.env): AppRun {
  const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
  const r = spawnSync(tsx, [`apps/${app}/src/main.ts`, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...env, RLHF_THREADS: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A random Qwen2 (1 layer, width 16) with the base tokenizer's vocabulary, saved in Hugging Face layout: a causal LM,
 * or with kind 'rm' a one-label sequence classifier (score.weight); the shared tiny-model factory, from `seed`.
 */
export async function writeTinyModel(dir: string, seed: string, kind: 'lm' | 'rm' = 'lm'): Promise<void> {
  const tok = loadTokenizer(BASE_MODEL);
  const config = {
    vocab_size: tok.vocabSize,
    hidden_size: 16,
    intermediate_size: 32,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    max_position_embeddings: 256,
    tie_word_embeddings: true,
    initializer_range: 0.05,
    pad_token_id: tok.padId,
  };
  await saveTinyModel(dir, { seed: Math.floor(dataRandom(seed)() * 2 ** 31), kind, config, tokenizerDir: BASE_MODEL });
}

/**
 * The settings an app command would run with (its --print-config), with no MODEL_PATH / RLHF_BACKEND from the test's
 * own environment: the check that an app wires the schema its lib declares.
 */
export function printedConfig(app: string, args: string[]): unknown {
  const { MODEL_PATH: _m, RLHF_BACKEND: _b, ...env } = process.env;
  const r = runApp(app, [...args, '--print-config'], 120_000, env);
  if (r.code !== 0) throw new Error(`${app} ${args.join(' ')} --print-config: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
