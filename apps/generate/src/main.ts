// generate: run a Qwen2 checkpoint. `logits` prints raw logits for given ids; `run` generates text.
import { Command } from 'commander';
import { z } from 'zod';
import * as tf from '@tensorflow/tfjs';
import { backendOption, backendSchema, parseFlags, parseJsonFlag, runCli, UsageError } from '@rlhf-code/cli';
import { generateBatch, Qwen2Model, sampledIds } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { encodeFim, loadTokenizer, parseFim } from '@rlhf-code/tokenizer';

const tokenIds = z.array(z.number().int().nonnegative()).min(1);

function checkVocab(flag: string, rows: number[][], vocab: number): void {
  rows.forEach((row, b) =>
    row.forEach((id, t) => {
      if (id >= vocab) throw new UsageError(`${flag}[${b}][${t}]: id ${id} is outside the model's vocabulary (size ${vocab})`);
    }),
  );
}

const LogitsFlags = z.object({ model: z.string(), ids: z.string(), mask: z.string().optional(), backend: backendSchema });

async function logitsCommand(opts: unknown): Promise<void> {
  const flags = parseFlags(LogitsFlags, opts);
  const ids = parseJsonFlag('--ids', flags.ids, z.array(tokenIds).min(1));
  if (ids.some((r) => r.length !== ids[0].length)) throw new UsageError('--ids: rows must have equal length (left-pad them and pass --mask)');
  const mask = flags.mask ? parseJsonFlag('--mask', flags.mask, z.array(z.array(z.union([z.literal(0), z.literal(1)])))) : undefined;
  if (mask && (mask.length !== ids.length || mask.some((r, b) => r.length !== ids[b].length))) {
    throw new UsageError(`--mask: must have the shape of --ids, [${ids.length}, ${ids[0].length}]`);
  }
  await initBackend({ backend: flags.backend });
  const model = await Qwen2Model.load(flags.model, { trainable: false });
  checkVocab('--ids', ids, model.config.vocab_size);
  const logits = tf.tidy(() => model.logits(tf.tensor2d(ids, undefined, 'int32'), { mask: mask && tf.tensor2d(mask) }));
  process.stdout.write(JSON.stringify({ logits: await logits.array() }) + '\n');
}

const RunFlags = z
  .object({
    model: z.string(),
    prompt: z.string().optional(),
    ids: z.string().optional(),
    maxNewTokens: z.coerce.number().int().nonnegative(),
    greedy: z.boolean().optional(),
    temperature: z.coerce.number().positive().optional(),
    topP: z.coerce.number().gt(0).lte(1).optional(),
    topK: z.coerce.number().int().nonnegative().optional(),
    seed: z.coerce.number().int(),
    stop: z.array(z.string()),
    json: z.boolean().default(false),
    backend: backendSchema,
  })
  .refine((f) => (f.prompt === undefined) !== (f.ids === undefined), { message: 'pass exactly one of --prompt or --ids', path: ['prompt'] })
  .refine((f) => !(f.greedy && (f.temperature || f.topP || f.topK)), {
    message: 'cannot be combined with --temperature, --top-p or --top-k',
    path: ['greedy'],
  });

/**
 * --prompt text -> ids. A prompt in Qwen's FIM text form (<|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>) is laid out in
 * the order the checkpoint was trained on (its tokenizer_config.json "fim_mode"), as the online server does.
 */
function encodePrompt(tok: ReturnType<typeof loadTokenizer>, text: string): number[] {
  let fim;
  try {
    fim = parseFim(text);
  } catch (e) {
    throw new UsageError(`--prompt: ${(e as Error).message.replace(/^parseFim: /, 'malformed FIM prompt: ')}`);
  }
  return fim ? encodeFim(tok, fim.prefix, fim.suffix) : tok.encode(text);
}

async function runCommand(opts: unknown): Promise<void> {
  const flags = parseFlags(RunFlags, opts);
  const idsFlag = flags.ids === undefined ? undefined : parseJsonFlag('--ids', flags.ids, tokenIds);
  await initBackend({ backend: flags.backend });
  const model = await Qwen2Model.load(flags.model, { trainable: false });
  // Text needs the checkpoint's tokenizer; with --ids --json and no stop strings we can do without one.
  const tokenizer = idsFlag && flags.json && flags.stop.length === 0 ? undefined : await loadTokenizer(flags.model);
  if (tokenizer && tokenizer.vocabSize > model.config.vocab_size) {
    throw new UsageError(`${flags.model}: its tokenizer has ${tokenizer.vocabSize} tokens, more than the model's ${model.config.vocab_size}`);
  }
  const prompt = idsFlag ?? encodePrompt(tokenizer!, flags.prompt!);
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

const program = new Command('generate').description('Run a Qwen2 checkpoint (Hugging Face folder) with TensorFlow.js.');
program
  .command('logits')
  .description('print {"logits": [batch][seq][vocab]} for the given token ids, as one JSON line')
  .requiredOption('--model <dir>', 'checkpoint folder: config.json + model.safetensors (or a sharded index)')
  .requiredOption('--ids <json>', 'token ids as a JSON matrix [[...], ...] with rows of equal length')
  .option('--mask <json>', 'attention mask of the same shape: 1 = token, 0 = left padding')
  .addOption(backendOption())
  .action(logitsCommand);
program
  .command('run')
  .description('generate a continuation of a prompt (streams text, or one JSON line with --json)')
  .requiredOption('--model <dir>', "checkpoint folder; its tokenizer.json encodes --prompt and decodes the output")
  .option('--prompt <text>', 'prompt text; a fill-in-the-middle prompt in Qwen\'s form (<|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>) is reordered for a checkpoint trained in SPM order')
  .option('--ids <json>', 'prompt token ids as a JSON array [...]')
  .option('--max-new-tokens <n>', 'maximum number of new tokens', '64')
  .option('--greedy', 'always pick the most likely token (the default when no sampling flag is given)')
  .option('--temperature <t>', 'sample from softmax(logits / t)')
  .option('--top-p <p>', 'nucleus sampling: sample among the most likely tokens whose probability adds up to p')
  .option('--top-k <k>', 'sample among the k most likely tokens (0 = all)')
  .option('--seed <n>', 'random seed for sampling', '0')
  .option('--stop <string>', 'stop when the output contains this string (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
  .option('--json', 'print {"ids": [...new ids...], "text": "..."} as one JSON line')
  .addOption(backendOption())
  .action(runCommand);

void runCli(program, shutdownBackend);
