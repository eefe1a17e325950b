// The `generate` app's four commands (apps/generate turns flags into their settings): `logits` prints raw logits for
// given ids, `run` generates text, `serve-openai` serves a checkpoint over vLLM's OpenAI-compatible subset
// (serve-openai.ts) until SIGINT or SIGTERM, `gguf` exports a checkpoint or a LoRA adapter for llama.cpp (gguf.ts).
import { z } from 'zod';
import * as tf from '@tensorflow/tfjs';
import { parseJsonFlag, UsageError } from '@rlhf-code/cli';
import { checkpointAt, generateBatch, GenerateLogitsSettings, GenerateRunSettings, isAdapterFolder, openCheckpoint, sampledIds } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { encodeFim, parseFim, type Tokenizer } from '@rlhf-code/tokenizer';
import { exportLoraGguf, exportModelGguf } from './gguf';
import { GgufSettings } from './gguf-settings';
import { localEngineHost, serveOpenAi, ServeOpenAiSettings } from './serve-openai';

const tokenIds = z.array(z.number().int().nonnegative()).min(1);

function checkVocab(flag: string, rows: number[][], vocab: number): void {
  rows.forEach((row, b) =>
    row.forEach((id, t) => {
      if (id >= vocab) throw new UsageError(`${flag}[${b}][${t}]: id ${id} is outside the model's vocabulary (size ${vocab})`);
    }),
  );
}

export async function logitsCommand(flags: GenerateLogitsSettings): Promise<void> {
  const ids = parseJsonFlag('--ids', flags.ids, z.array(tokenIds).min(1));
  if (ids.some((r) => r.length !== ids[0].length)) throw new UsageError('--ids: rows must have equal length (left-pad them and pass --mask)');
  const mask = flags.mask ? parseJsonFlag('--mask', flags.mask, z.array(z.array(z.union([z.literal(0), z.literal(1)])))) : undefined;
  if (mask && (mask.length !== ids.length || mask.some((r, b) => r.length !== ids[b].length))) {
    throw new UsageError(`--mask: must have the shape of --ids, [${ids.length}, ${ids[0].length}]`);
  }
  const checkpoint = checkpointAt(flags.model, '--model');
  await initBackend();
  const { model } = await openCheckpoint(checkpoint, { trainable: false, baseDtype: flags.baseDtype, tokenizer: false });
  checkVocab('--ids', ids, model.config.vocab_size);
  const logits = tf.tidy(() => model.logits(tf.tensor2d(ids, undefined, 'int32'), { mask: mask && tf.tensor2d(mask) }));
  process.stdout.write(JSON.stringify({ logits: await logits.array() }) + '\n');
}

/**
 * --prompt text -> ids. A prompt in Qwen's FIM text form (<|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>) is laid out in
 * the order the checkpoint was trained on (its tokenizer_config.json "fim_mode"), as the online server does.
 */
function promptFlagIds(tok: Tokenizer, text: string): number[] {
  let fim;
  try {
    fim = parseFim(text);
  } catch (e) {
    throw new UsageError(`--prompt: ${(e as Error).message.replace(/^parseFim: /, 'malformed FIM prompt: ')}`);
  }
  return fim ? encodeFim(tok, fim.prefix, fim.suffix) : tok.encode(text);
}

export async function runCommand(flags: GenerateRunSettings): Promise<void> {
  const idsFlag = flags.ids === undefined ? undefined : parseJsonFlag('--ids', flags.ids, tokenIds);
  const checkpoint = checkpointAt(flags.model, '--model');
  await initBackend();
  // Text needs the checkpoint's tokenizer; with --ids --json and no stop strings we can do without one.
  const opts = { trainable: false, baseDtype: flags.baseDtype };
  const { model, tokenizer } = idsFlag && flags.json && flags.stop.length === 0 ? { ...(await openCheckpoint(checkpoint, { ...opts, tokenizer: false })), tokenizer: undefined } : await openCheckpoint(checkpoint, opts);
  const prompt = idsFlag ?? promptFlagIds(tokenizer!, flags.prompt!);
  checkVocab('--ids', [prompt], model.config.vocab_size);
  const sampling = flags.temperature !== undefined || flags.topP !== undefined || flags.topK !== undefined;
  const [out] = await generateBatch(model, [prompt], {
    maxNewTokens: flags.maxNewTokens,
    greedy: !sampling,
    temperature: flags.temperature ?? 1,
    topP: flags.topP ?? 1,
    topK: flags.topK ?? 0,
    seed: flags.seed,
    tokenizer,
    stop: tokenizer ? 'raw' : undefined, // <|endoftext|>
    stopStrings: flags.stop,
    onText: flags.json ? undefined : (_row, delta) => process.stdout.write(delta),
  });
  // "ids": every new id, the end token included.
  process.stdout.write(flags.json ? JSON.stringify({ ids: sampledIds(out), text: out.text }) + '\n' : '\n');
}

export async function serveOpenAiCommand(flags: ServeOpenAiSettings): Promise<void> {
  const checkpoint = checkpointAt(flags.model, '--model');
  await initBackend();
  const host = await localEngineHost(checkpoint);
  // The API key is the one the openai:URL engine sends (RLHF_ENGINE_TOKEN), never a flag: flags show in `ps`.
  const server = await serveOpenAi(host, { host: flags.host, port: flags.port, servedModelName: flags.servedModelName ?? flags.model, maxLoraRank: flags.maxLoraRank, apiKey: process.env.RLHF_ENGINE_TOKEN || undefined, log: (line) => process.stdout.write(`[serve-openai] ${line}\n`) });
  process.stdout.write(`[serve-openai] ${flags.model} on the ${flags.engine} engine at ${server.url} (GET /v1/models; POST /v1/completions, /v1/load_lora_adapter, /v1/unload_lora_adapter)\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`[serve-openai] ${signal}: stopping\n`);
      server.close().then(resolve, (e) => {
        process.stderr.write(`[serve-openai] error while stopping: ${(e as Error).message}\n`);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** Write the GGUF of --model (a checkpoint) or --adapter (a LoRA adapter); prints {file, kind, tensors, bytes, seconds}. */
export async function ggufCommand(flags: GgufSettings): Promise<void> {
  const started = Date.now();
  if (flags.adapter !== undefined && !isAdapterFolder(flags.adapter)) throw new UsageError(`--adapter: ${flags.adapter} is not a LoRA adapter folder (adapter_config.json without config.json)`);
  await initBackend(); // folding an adapter folder given as --model runs tensor ops
  const out = flags.adapter !== undefined ? await exportLoraGguf(flags.adapter, flags.out) : await exportModelGguf(checkpointAt(flags.model!, '--model').dir, flags.out, flags.weights);
  process.stdout.write(JSON.stringify({ ...out, seconds: (Date.now() - started) / 1000 }) + '\n');
}
