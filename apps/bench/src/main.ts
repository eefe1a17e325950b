// bench: training and generation speed of the Qwen2 model on this machine, one JSON line each.
// The preset matches ../shared/tools/torch_ref_bench.py so the two can be compared in one run.
import { Command } from 'commander';
import { z } from 'zod';
import * as tf from '@tensorflow/tfjs';
import { backendOption, backendSchema, parseFlags, runCli } from '@rlhf-code/cli';
import { generate, makeConfig, Qwen2Model } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { sparseCrossEntropy, Trainer } from '@rlhf-code/train';

const int = z.coerce.number().int().positive();
const Flags = z.object({
  hidden: int,
  layers: int,
  heads: int,
  kv: int,
  ffn: int,
  vocab: int,
  seq: int,
  batch: int,
  steps: z.coerce.number().int().min(5),
  new: int,
  backend: backendSchema,
});
type Flags = z.output<typeof Flags>;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function setup(opts: unknown) {
  const f = parseFlags(Flags, opts);
  const info = await initBackend({ backend: f.backend });
  const config = makeConfig({
    hidden_size: f.hidden,
    num_hidden_layers: f.layers,
    num_attention_heads: f.heads,
    num_key_value_heads: f.kv,
    intermediate_size: f.ffn,
    vocab_size: f.vocab,
    tie_word_embeddings: true,
    max_position_embeddings: Math.max(2048, f.seq + f.new),
  });
  const backend = info.kind === 'wasm' ? `wasm (${info.simd ? 'simd, ' : ''}${info.threads} threads)` : info.name;
  return { f, backend, model: Qwen2Model.init(config, { seed: 0 }) };
}

/** Random token rows [batch, seq + 1], as the torch reference uses. */
function randomTokens(f: Flags): Int32Array {
  const ids = new Int32Array(f.batch * (f.seq + 1));
  for (let i = 0; i < ids.length; i++) ids[i] = Math.floor(Math.random() * f.vocab);
  return ids;
}

async function benchTrain(opts: unknown): Promise<void> {
  const { f, backend, model } = await setup(opts);
  const trainer = new Trainer(model.params, {
    optimizer: { lr: 1e-4 },
    schedule: { totalSteps: f.steps + 1, kind: 'constant' },
    maxGradNorm: 0,
  });
  const tokens = randomTokens(f);
  const loss = () =>
    tf.tidy(() => {
      const all = tf.tensor2d(tokens, [f.batch, f.seq + 1], 'int32');
      const ids = tf.slice(all, [0, 0], [f.batch, f.seq]) as tf.Tensor2D;
      const targets = tf.reshape(tf.slice(all, [0, 1], [f.batch, f.seq]), [-1]);
      const logits = model.logits(ids); // [B, T, V]
      return { loss: sparseCrossEntropy(tf.reshape(logits, [f.batch * f.seq, f.vocab]), targets) };
    });
  trainer.step([{ loss }]); // warm-up: kernels compiled, optimizer state created
  const times: number[] = [];
  for (let i = 0; i < f.steps; i++) {
    const t0 = performance.now();
    trainer.step([{ loss }]);
    times.push((performance.now() - t0) / 1000);
  }
  const step_s = median(times);
  print({ backend, mode: 'train', params: model.numParams, step_s, tokens_per_s: (f.batch * f.seq) / step_s });
}

async function benchGenerate(opts: unknown): Promise<void> {
  const { f, backend, model } = await setup(opts);
  const prompt = Array.from(randomTokens({ ...f, batch: 1 }).subarray(0, f.seq));
  const once = async () => {
    let steps = 0;
    let ttft = 0;
    const t0 = performance.now();
    await generate(model, [prompt], {
      maxNewTokens: f.new,
      greedy: true,
      padId: 0,
      beforeStep: () => {
        if (steps++ === 1) ttft = performance.now() - t0; // the first token has been chosen
      },
    });
    return { ttft, total: performance.now() - t0 };
  };
  await once(); // warm-up
  const runs: { ttft: number; total: number }[] = [];
  for (let i = 0; i < f.steps; i++) runs.push(await once());
  runs.sort((a, b) => a.total - b.total);
  const { ttft, total } = runs[Math.floor(runs.length / 2)];
  print({
    backend,
    mode: 'generate',
    params: model.numParams,
    prompt_tokens: f.seq,
    new_tokens: f.new,
    ttft_ms: ttft,
    total_ms: total,
    decode_tokens_per_s: ((f.new - 1) * 1000) / (total - ttft),
  });
}

function print(x: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(x) + '\n');
}

function withPreset(cmd: Command): Command {
  return cmd
    .option('--hidden <n>', 'hidden size', '256')
    .option('--layers <n>', 'decoder layers', '4')
    .option('--heads <n>', 'attention heads', '4')
    .option('--kv <n>', 'key/value heads', '2')
    .option('--ffn <n>', 'MLP intermediate size', '704')
    .option('--vocab <n>', 'vocabulary size (tied embeddings)', '16384')
    .option('--seq <n>', 'training sequence length / prompt length', '256')
    .option('--batch <n>', 'training batch size', '8')
    .option('--steps <n>', 'timed repetitions after one warm-up (median reported, >= 5)', '5')
    .option('--new <n>', 'new tokens to generate', '32')
    .addOption(backendOption());
}

const program = new Command('bench').description('Speed of the Qwen2 model: one JSON line per benchmark.');
withPreset(program.command('train').description('training step (forward, loss, backward, AdamW): {"backend", "params", "step_s", "tokens_per_s"}')).action(benchTrain);
withPreset(program.command('generate').description('greedy generation with a KV cache, batch 1: {"backend", "ttft_ms", "total_ms", "decode_tokens_per_s"}')).action(benchGenerate);

void runCli(program, shutdownBackend);
