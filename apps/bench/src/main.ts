// bench: training and generation speed of the Qwen2 model on this machine, one JSON line each.
// The preset matches ../shared/tools/torch_ref_bench.py so the two can be compared in one run: `bench compare`.
import { Command, Option } from 'commander';
import { z } from 'zod';
import * as tf from '@tensorflow/tfjs';
import { backendOption, backendSchema, parseFlags, runCli } from '@rlhf-code/cli';
import { generateBatch, makeConfig, Qwen2Model } from '@rlhf-code/model';
import { describeBackend, initBackend, shutdownBackend } from '@rlhf-code/backend';
import { sparseCrossEntropy, Trainer } from '@rlhf-code/train';
import { BenchMode, compare, DEFAULT_PYTHON, DEFAULT_TORCH_SCRIPT, median } from './compare';

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

const CompareFlags = z.object({
  ...Flags.shape,
  runs: int,
  mode: z.enum(['train', 'generate', 'both']),
  python: z.string().min(1),
  torchScript: z.string().min(1),
});

/** The preset flags, named as both bench and torch_ref_bench.py take them. */
const PRESET = ['hidden', 'layers', 'heads', 'kv', 'ffn', 'vocab', 'seq', 'batch', 'steps', 'new'] as const;

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
  return { f, backend: describeBackend(info), model: Qwen2Model.init(config, { seed: 0 }) };
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
    await generateBatch(model, [prompt], {
      maxNewTokens: f.new,
      greedy: true,
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

function benchCompare(opts: unknown): void {
  const f = parseFlags(CompareFlags, opts);
  const modes: BenchMode[] = f.mode === 'both' ? ['train', 'generate'] : [f.mode];
  compare(
    {
      modes,
      runs: f.runs,
      python: f.python,
      torchScript: f.torchScript,
      presetArgs: PRESET.flatMap((k) => [`--${k}`, String(f[k])]),
      oursArgs: f.backend ? ['--backend', f.backend] : [],
    },
    print,
  );
}

const program = new Command('bench').description('Speed of the Qwen2 model: one JSON line per benchmark.');
withPreset(program.command('train').description('training step (forward, loss, backward, AdamW): {"backend", "params", "step_s", "tokens_per_s"}')).action(benchTrain);
withPreset(program.command('generate').description('greedy generation with a KV cache, batch 1: {"backend", "ttft_ms", "total_ms", "decode_tokens_per_s"}')).action(benchGenerate);
withPreset(
  program
    .command('compare')
    .description(
      'this project against the PyTorch yardstick (torch_ref_bench.py) on the same preset, in one invocation: per mode, ' +
        '--runs pairs run one at a time, ours then torch (--threads = CPU cores); progress on stderr, one JSON line per mode on stdout. ' +
        'train: {"mode", "backend", "torch", "runs", "ours_tokens_per_s", "torch_tokens_per_s", "ratio"}; ' +
        'generate: {"mode", "backend", "torch", "runs", "ours_decode_tokens_per_s", "torch_decode_tokens_per_s", "decode_ratio", ' +
        '"ours_ttft_ms", "torch_ttft_ms", "ttft_ratio"}. Each figure is {"median", "min", "max", "values"}; ratios are ours/torch ' +
        'per pair (pair i = our run i and torch run i), so > 1 is faster for tokens/s and < 1 is faster for ttft_ms',
    )
    .option('--runs <n>', 'alternated pairs (ours, torch) per mode', '3')
    .addOption(new Option('--mode <mode>', 'which benchmarks').choices(['train', 'generate', 'both']).default('both'))
    .option('--python <path>', 'python with torch (Debian: apt-get install -y python3-torch libopenblas0-pthread)', DEFAULT_PYTHON)
    .option('--torch-script <path>', 'the PyTorch yardstick', DEFAULT_TORCH_SCRIPT),
).action(benchCompare);

void runCli(program, shutdownBackend);
