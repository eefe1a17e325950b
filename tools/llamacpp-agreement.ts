// Agreement of the llamacpp engine with the project's own model (the agreement tables of guide.md's "Rollout engines"): for a checkpoint, with and
// without a LoRA adapter, the logits llama.cpp computes on the GGUF exports (gguf.ts) against the project's forward
// pass (Qwen2Model, fp32) at every position of a few code prompts (max abs diff, next-token log-prob max diff, argmax
// agreement), and the log-probs of tokens LlamaCppEngine samples against the trainer's teacher-forced recompute
// (libs/rl responseLogProbs) under the adapter.
//
//   node --import tsx tools/llamacpp-agreement.ts                      markdown tables: models/base and a random
//                                                                      checkpoint of another shape, each with a seeded
//                                                                      adapter (saveTinyAdapter), built in a temp folder
//   node --import tsx tools/llamacpp-agreement.ts --model DIR --adapter DIR [--json] [--threads N]
//   --kv-cache F16      llama.cpp's usual KV cache type instead of the engine's default F32
//   --weights Q8_0      the checkpoint exported with Q8_0 matrices (--engine-weights Q8_0) instead of F32
//
// libs/engine's llamacpp.test.ts runs it on a tiny model with --json and checks the numbers.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { LlamaCppEngine } from '../libs/engine/src/llamacpp'; // its logits(), which no stage needs, so not in the lib's index
import { modelConfigOf, Qwen2Model, sampledIds } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel } from '@rlhf-code/model/testing';
import { responseLogProbs } from '@rlhf-code/rl';
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';

const ROOT = path.join(__dirname, '..');
const PROMPTS = [
  'def fibonacci(n):\n    if n < 2:\n        return n\n    return',
  'import os\n\nfor name in sorted(os.listdir(".")):\n    print(',
  '<|fim_prefix|>def add(a, b):\n    <|fim_suffix|>\n\nprint(add(1, 2))<|fim_middle|>',
];
const POSITIONS = 7; // per prompt: 3 x 7 = 21 positions
const SAMPLE = { temperature: 0.8, maxNewTokens: 12, seed: 1 };

interface LogitRow {
  positions: number;
  /** The largest |logit| of the project's, for scale. */
  scale: number;
  maxAbs: number;
  maxLogprob: number;
  argmaxAgree: number;
}

interface Report {
  model: string;
  shape: string;
  base: LogitRow;
  adapter: LogitRow;
  sampled: { tokens: number; maxAbs: number; meanAbs: number };
}

/** log softmax(row)[id], in float64. */
function logSoftmaxAt(row: Float32Array, id: number): number {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  return row[id] - max - Math.log(sum);
}

const argmax = (row: Float32Array) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);

/** The project's logits after each position of `ids`: [T] rows of [V]. */
function projectLogits(model: Qwen2Model, ids: number[]): Float32Array[] {
  const logits = tf.tidy(() => model.logits(tf.tensor2d([ids], undefined, 'int32'))); // [1, T, V]
  const flat = logits.dataSync() as Float32Array;
  logits.dispose();
  const V = flat.length / ids.length;
  return ids.map((_, t) => flat.slice(t * V, (t + 1) * V));
}

async function compareLogits(model: Qwen2Model, engine: LlamaCppEngine, prompts: number[][]): Promise<LogitRow> {
  const row: LogitRow = { positions: 0, scale: 0, maxAbs: 0, maxLogprob: 0, argmaxAgree: 0 };
  for (const ids of prompts) {
    const ours = projectLogits(model, ids);
    const theirs = await engine.logits(ids);
    ids.forEach((_, t) => {
      const a = ours[t];
      const b = theirs[t];
      for (let v = 0; v < a.length; v++) {
        row.maxAbs = Math.max(row.maxAbs, Math.abs(a[v] - b[v]));
        row.scale = Math.max(row.scale, Math.abs(a[v]));
      }
      if (t + 1 < ids.length) row.maxLogprob = Math.max(row.maxLogprob, Math.abs(logSoftmaxAt(a, ids[t + 1]) - logSoftmaxAt(b, ids[t + 1])));
      row.positions++;
      if (argmax(a) === argmax(b)) row.argmaxAgree++;
    });
  }
  return row;
}

async function measure(modelDir: string, adapterDir: string, opts: { threads: number; kvCache: 'F32' | 'F16'; weights: 'F32' | 'Q8_0'; cacheDir: string }): Promise<Report> {
  const tok: Tokenizer = loadTokenizer(modelDir);
  const prompts = PROMPTS.map((p) => tok.encode(p).slice(0, POSITIONS));
  const config = modelConfigOf(modelDir);
  const engine = await LlamaCppEngine.open(modelDir, { ...opts, sequences: 2 });
  try {
    const base = await Qwen2Model.load(modelDir, { trainable: false });
    const baseRow = await compareLogits(base, engine, prompts);
    base.dispose();

    await engine.publish({ kind: 'adapter', dir: adapterDir }, 1);
    const tuned = await Qwen2Model.load(adapterDir, { trainable: false });
    const adapterRow = await compareLogits(tuned, engine, prompts);

    // Every row may be sampled (vocabSize: the model's), as the recompute's softmax runs over every row.
    const samples = await engine.sample(prompts, { ...SAMPLE, stopIds: [tok.eosId], vocabSize: config.vocab_size });
    const responses = samples.map(sampledIds);
    const recomputed = responseLogProbs(tuned, prompts, responses, { temperature: SAMPLE.temperature, padId: tok.padId });
    tuned.dispose();
    const diffs = samples.flatMap((c, i) => c.logprobs.map((lp, t) => Math.abs(lp - recomputed[i][t])));
    return {
      model: modelDir,
      shape: `hidden ${config.hidden_size}, ${config.num_hidden_layers} layers, ${config.num_attention_heads}/${config.num_key_value_heads} heads, vocab ${config.vocab_size}${config.tie_word_embeddings ? ', tied' : ', untied'}`,
      base: baseRow,
      adapter: adapterRow,
      sampled: { tokens: diffs.length, maxAbs: Math.max(...diffs), meanAbs: diffs.reduce((a, b) => a + b, 0) / diffs.length },
    };
  } finally {
    await engine.close();
  }
}

const e = (x: number) => x.toExponential(1);

function markdown(reports: Report[]): string {
  const lines = [
    '| checkpoint | shape | adapter | positions | max abs logit | max abs logit diff | next-token log-prob max diff | argmax agree |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of reports) {
    for (const [name, row] of [['none', r.base], ['LoRA', r.adapter]] as const) {
      lines.push(`| ${r.model} | ${r.shape} | ${name} | ${row.positions} | ${row.scale.toFixed(1)} | ${e(row.maxAbs)} | ${e(row.maxLogprob)} | ${row.argmaxAgree} / ${row.positions} |`);
    }
  }
  lines.push('', `| checkpoint + LoRA | sampled tokens (T = ${SAMPLE.temperature}) | log-prob max abs diff | mean abs diff |`, '| --- | --- | --- | --- |');
  for (const r of reports) lines.push(`| ${r.model} | ${r.sampled.tokens} | ${e(r.sampled.maxAbs)} | ${e(r.sampled.meanAbs)} |`);
  return lines.join('\n') + '\n';
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name}: expected a value`);
  return v;
}

async function main(): Promise<void> {
  await initBackend({ quiet: true });
  const threads = Number(flag('--threads') ?? os.availableParallelism());
  const kvCache = flag('--kv-cache') ?? 'F32';
  if (kvCache !== 'F32' && kvCache !== 'F16') throw new Error(`--kv-cache: expected F32 or F16, got ${kvCache}`);
  const weights = flag('--weights') ?? 'F32';
  if (weights !== 'F32' && weights !== 'Q8_0') throw new Error(`--weights: expected F32 or Q8_0, got ${weights}`);
  const model = flag('--model');
  const adapter = flag('--adapter');
  if ((model === undefined) !== (adapter === undefined)) throw new Error('--model and --adapter go together (or neither: the default tables)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'llamacpp-agreement-')); // the GGUF exports, the default models
  try {
    let pairs: [string, string][];
    if (model && adapter) pairs = [[model, adapter]];
    else {
      const base = path.join(ROOT, 'models/base');
      const other = path.join(tmp, 'other-shape');
      // Another shape: wider, 3 layers, GQA 8:2, untied head, a vocab_size padded past the tokenizer's 16,384 tokens.
      await saveTinyModel(other, {
        seed: 5,
        config: { hidden_size: 128, intermediate_size: 352, num_hidden_layers: 3, num_attention_heads: 8, num_key_value_heads: 2, tie_word_embeddings: false, vocab_size: 16448, initializer_range: 0.1 },
      });
      await saveTinyAdapter(path.join(tmp, 'base-lora'), base, { seed: 7, r: 4 });
      await saveTinyAdapter(path.join(tmp, 'other-lora'), other, { seed: 8, r: 4 });
      pairs = [
        [base, path.join(tmp, 'base-lora')],
        [other, path.join(tmp, 'other-lora')],
      ];
    }
    const reports: Report[] = [];
    for (const [m, a] of pairs) reports.push(await measure(m, a, { threads, kvCache, weights, cacheDir: path.join(tmp, 'gguf') }));
    const named = reports.map((r) => ({ ...r, model: path.relative(ROOT, r.model).startsWith('..') ? path.basename(r.model) : path.relative(ROOT, r.model) }));
    process.stdout.write(process.argv.includes('--json') ? JSON.stringify(reports) + '\n' : markdown(named));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`llamacpp-agreement: ${(err as Error).message}\n`);
  process.exit(1);
});
