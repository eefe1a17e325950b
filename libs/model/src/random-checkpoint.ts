// A randomly initialised checkpoint for any Qwen2 config.json, written in the layout of a real one (config.json,
// model.safetensors, the tokenizer files): to prove a model's exact shape runs here (memory, speed) before its weights
// exist on this machine (`sft init`: runInit). The weights are drawn on the host, tensor by tensor, as Hugging Face initialises Qwen2
// (N(0, initializer_range) matrices, zero biases, unit norms), so no backend and no wasm heap is needed to write them.
import { defaultTokenizerDir, loadTokenizer } from '@rlhf-code/tokenizer';
import { resumableRng } from './sampling';
import { saveCheckpoint } from './checkpoint-folder';
import { expectedParameterShapes, readConfigFile, type Qwen2Config } from './config';
import type { HostTensor } from './safetensors';
import type { InitSettings } from './settings';

export interface RandomCheckpointOptions {
  /** The Hugging Face config.json to take the shape from. */
  configFile: string;
  /** The tokenizer folder copied beside the weights (its vocabulary must fit the config's vocab_size). */
  tokenizerDir: string;
  seed?: number;
  dtype?: 'F32' | 'BF16';
}

/** Standard normal draws from a seeded uniform generator (Box-Muller, both values used). */
function normals(next: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - next(); // (0, 1]
    const r = Math.sqrt(-2 * Math.log(u));
    const t = 2 * Math.PI * next();
    spare = r * Math.sin(t);
    return r * Math.cos(t);
  };
}

/** Write the random checkpoint to `outDir`; returns its config and parameter count. */
export async function writeRandomCheckpoint(outDir: string, o: RandomCheckpointOptions): Promise<{ config: Qwen2Config; params: number }> {
  const config = readConfigFile(o.configFile);
  const tokens = loadTokenizer(o.tokenizerDir).vocabSize;
  if (tokens > config.vocab_size) throw new Error(`${o.tokenizerDir}: its tokenizer has ${tokens} tokens, more than the vocab_size ${config.vocab_size} of ${o.configFile}`);
  const std = config.initializer_range ?? 0.02;
  const normal = normals(resumableRng(`init:${o.seed ?? 0}`).next);
  const weights = new Map<string, HostTensor>();
  let params = 0;
  for (const [name, shape] of expectedParameterShapes(config)) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (name.endsWith('norm.weight')) data.fill(1);
    else if (!name.endsWith('.bias')) for (let i = 0; i < data.length; i++) data[i] = std * normal();
    weights.set(name, { shape, data });
    params += data.length;
  }
  await saveCheckpoint(outDir, { config, weights, dtype: o.dtype ?? 'BF16', tokenizerDir: o.tokenizerDir });
  return { config, params };
}

/** `sft init`: a random checkpoint of the settings' config.json in `out`; the command's result line. */
export async function runInit(f: InitSettings, log: (line: string) => void = console.error) {
  const t0 = Date.now();
  const tokenizerDir = f.tokenizer === 'qwen' ? defaultTokenizerDir() : f.tokenizer;
  const { config, params } = await writeRandomCheckpoint(f.out, { configFile: f.modelConfig, tokenizerDir, seed: f.seed, dtype: f.dtype });
  const shape = `hidden ${config.hidden_size}, ${config.num_hidden_layers} layers, ${config.num_attention_heads}/${config.num_key_value_heads} heads, vocab ${config.vocab_size}`;
  log(`sft init: ${f.out}: ${(params / 1e6).toFixed(1)}M random parameters (${shape}), ${f.dtype}, tokenizer ${tokenizerDir}`);
  return { stage: 'init', out: f.out, params, dtype: f.dtype, seconds: (Date.now() - t0) / 1000 };
}
