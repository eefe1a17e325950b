// Where the time of one training step goes: every wasm kernel is wrapped with a timer, keyed by kernel name
// (low-precision products also by orientation and shape), and the step's wall time not inside a kernel is reported as
// tfjs overhead. Same model and step as `bench train` (libs/bench speed.ts): full training (--lora-rank 0) or LoRA on a
// base in --base-dtype, plus --recompute-layers and --precision.
//   node --import tsx tools/profile-step.ts --hidden 256 --layers 4 --heads 4 --kv 2 --ffn 704 --vocab 16384 --seq 256 \
//     --batch 8 --lora-rank 0 --base-dtype fp32 --precision bf16 --by-shape        (the bench preset, full training)
//   node --import tsx tools/profile-step.ts --hidden 896 --layers 24 --heads 14 --kv 2 --ffn 4864 --vocab 151936 \
//     --seq 128 --batch 1 --lora-rank 8 --base-dtype int8 [--int8-activations int16|fp32] [--recompute-layers] [--steps 3]
//     [--by-shape: every BatchMatMul one row per operand shapes and transposes, Add and Transpose by shapes]
// Prints a table on stdout and one JSON line.
import * as tf from '@tensorflow/tfjs';
import { inGemmPrecision, initBackend, setLowPrecisionActivations, type GemmPrecision, type LowPrecisionActivations } from '@rlhf-code/backend';
import { LORA_TARGETS, makeConfig, Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy, Trainer } from '@rlhf-code/trainer-core';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const str = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const f = {
  hidden: flag('hidden', 896), layers: flag('layers', 24), heads: flag('heads', 14), kv: flag('kv', 2), ffn: flag('ffn', 4864),
  vocab: flag('vocab', 151936), seq: flag('seq', 128), batch: flag('batch', 1), loraRank: flag('lora-rank', 8),
  baseDtype: str('base-dtype', 'int8') as 'int8' | 'bf16' | 'fp32', int8Activations: str('int8-activations', 'int16') as LowPrecisionActivations, steps: flag('steps', 3), recompute: args.includes('--recompute-layers'),
  byShape: args.includes('--by-shape'), precision: str('precision', 'fp32') as GemmPrecision,
};

const times = new Map<string, { ms: number; calls: number; flop: number }>();
let inKernel = 0;

function keyOf(name: string, inputs: Record<string, tf.TensorInfo>, attrs: Record<string, unknown>): { key: string; flop: number } {
  if (name === 'RlhfLowPrecisionMatMul') {
    const m = inputs.x.shape[0];
    const rows = attrs.rows as number, cols = attrs.cols as number;
    const what = rows > 100000 ? 'LM head' : `[${cols}->${rows}]`;
    return { key: `lowp ${attrs.transW ? 'fwd x.W^T' : 'dgrad dy.W'} ${what}`, flop: 2 * m * rows * cols };
  }
  if (name === 'BatchMatMul') {
    const a = inputs.a.shape, b = inputs.b.shape;
    const big = a.some((d) => d > 100000) || b.some((d) => d > 100000);
    if (f.byShape && a.length === 2) {
      const [m, k] = attrs.transposeA ? [a[1], a[0]] : a;
      const n = attrs.transposeB ? b[0] : b[1];
      return { key: `BatchMatMul [${a}]${attrs.transposeA ? '^T' : ''} x [${b}]${attrs.transposeB ? '^T' : ''}`, flop: 2 * m * n * k };
    }
    return { key: big ? 'BatchMatMul (vocab-sized)' : a.length > 2 ? 'BatchMatMul (batched)' : 'BatchMatMul (LoRA etc.)', flop: 0 };
  }
  if (f.byShape && (name === 'Transpose' || name === 'Add')) {
    return { key: `${name} [${inputs.x?.shape ?? inputs.a?.shape}] ${JSON.stringify(attrs.perm ?? inputs.b?.shape)}`, flop: 0 };
  }
  return { key: name, flop: 0 };
}

function wrapKernels(): void {
  for (const config of tf.getKernelsForBackend('wasm')) {
    const inner = config.kernelFunc;
    tf.unregisterKernel(config.kernelName, 'wasm');
    tf.registerKernel({
      ...config,
      kernelFunc: ((a: { inputs: Record<string, tf.TensorInfo>; attrs: Record<string, unknown> }) => {
        if (inKernel++ > 0) {
          try {
            return (inner as (x: unknown) => unknown)(a);
          } finally {
            inKernel--;
          }
        }
        const t0 = performance.now();
        try {
          return (inner as (x: unknown) => unknown)(a);
        } finally {
          const ms = performance.now() - t0;
          inKernel--;
          const { key, flop } = keyOf(config.kernelName, a.inputs, a.attrs ?? {});
          const e = times.get(key) ?? { ms: 0, calls: 0, flop: 0 };
          e.ms += ms;
          e.calls++;
          e.flop += flop;
          times.set(key, e);
        }
      }) as tf.KernelFunc,
    });
  }
}

async function main(): Promise<void> {
  await initBackend({});
  setLowPrecisionActivations(f.int8Activations); // as sft and rm train (their --int8-activations)
  const config = makeConfig({
    hidden_size: f.hidden, num_hidden_layers: f.layers, num_attention_heads: f.heads, num_key_value_heads: f.kv,
    intermediate_size: f.ffn, vocab_size: f.vocab, tie_word_embeddings: true, max_position_embeddings: Math.max(2048, f.seq),
  });
  const model = Qwen2Model.init(config, { seed: 0, baseDtype: f.baseDtype });
  model.recomputeLayers = f.recompute;
  if (f.loraRank > 0) {
    model.addLora({ r: f.loraRank, alpha: 2 * f.loraRank, dropout: 0, targets: [...LORA_TARGETS] }, { seed: 1 });
    tf.tidy(() => Object.entries(model.adapters).forEach(([name, v], i) => name.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.02, 'float32', i))));
  }
  const trainer = new Trainer(model.trainableParams(), { optimizer: { lr: 1e-4 }, schedule: { totalSteps: f.steps + 1, kind: 'constant' }, maxGradNorm: 0 });
  const tokens = new Int32Array(f.batch * (f.seq + 1));
  for (let i = 0; i < tokens.length; i++) tokens[i] = Math.floor(Math.random() * f.vocab);
  const loss = () =>
    tf.tidy(() => {
      const all = tf.tensor2d(tokens, [f.batch, f.seq + 1], 'int32');
      const ids = tf.slice(all, [0, 0], [f.batch, f.seq]) as tf.Tensor2D;
      const targets = tf.reshape(tf.slice(all, [0, 1], [f.batch, f.seq]), [-1]);
      return { loss: sparseCrossEntropy(tf.reshape(model.logits(ids), [f.batch * f.seq, f.vocab]), targets) };
    });
  // The first step (wasm and JS compiled on first use, the heap's pages touched for the first time) apart.
  const usage0 = process.resourceUsage();
  const warm0 = performance.now();
  inGemmPrecision(f.precision, () => trainer.step([{ loss }]));
  const warmMs = performance.now() - warm0;
  const usage1 = process.resourceUsage();
  const warmUp = {
    ms: warmMs, user_ms: (usage1.userCPUTime - usage0.userCPUTime) / 1000, system_ms: (usage1.systemCPUTime - usage0.systemCPUTime) / 1000,
    minor_faults: usage1.minorPageFault - usage0.minorPageFault,
  };
  const tensorsBefore = tf.memory().numTensors;
  wrapKernels();
  const stepMs: number[] = [];
  for (let i = 0; i < f.steps; i++) {
    const t0 = performance.now();
    inGemmPrecision(f.precision, () => trainer.step([{ loss }]));
    stepMs.push(performance.now() - t0);
  }
  const usage2 = process.resourceUsage();
  const total = stepMs.reduce((a, b) => a + b, 0) / f.steps;
  const rows = [...times.entries()].map(([key, e]) => ({ key, ms: e.ms / f.steps, calls: e.calls / f.steps, gflops: e.flop ? e.flop / (e.ms * 1e6) : null }));
  rows.sort((a, b) => b.ms - a.ms);
  const kernelMs = rows.reduce((a, r) => a + r.ms, 0);
  const tokensPerStep = f.batch * f.seq;
  process.stdout.write(`setting ${JSON.stringify(f)}\nstep ${total.toFixed(0)} ms (${stepMs.map((s) => s.toFixed(0)).join(', ')}), ${(tokensPerStep / (total / 1000)).toFixed(1)} tokens/s\n`);
  process.stdout.write(
    `first step ${warmUp.ms.toFixed(0)} ms (user ${warmUp.user_ms.toFixed(0)}, system ${warmUp.system_ms.toFixed(0)} ms CPU, ${warmUp.minor_faults} page faults); ` +
      `the measured steps ${((usage2.minorPageFault - usage1.minorPageFault) / f.steps).toFixed(0)} page faults each\n`,
  );
  process.stdout.write('| what | ms/step | share | calls/step | GFLOP/s |\n| --- | ---: | ---: | ---: | ---: |\n');
  for (const r of rows.filter((r) => r.ms >= 0.5)) {
    process.stdout.write(`| ${r.key} | ${r.ms.toFixed(1)} | ${((100 * r.ms) / total).toFixed(1)}% | ${r.calls} | ${r.gflops ? r.gflops.toFixed(0) : ''} |\n`);
  }
  const small = rows.filter((r) => r.ms < 0.5).reduce((a, r) => a + r.ms, 0);
  process.stdout.write(`| other kernels (< 0.5 ms each) | ${small.toFixed(1)} | ${((100 * small) / total).toFixed(1)}% | | |\n`);
  process.stdout.write(`| outside kernels (tfjs/JS overhead) | ${(total - kernelMs).toFixed(1)} | ${((100 * (total - kernelMs)) / total).toFixed(1)}% | | |\n`);
  process.stdout.write(JSON.stringify({ setting: f, first_step: warmUp, step_ms: total, tokens_per_s: tokensPerStep / (total / 1000), rows, outside_ms: total - kernelMs, tensors_before: tensorsBefore, tensors_after: tf.memory().numTensors }) + '\n');
  trainer.dispose();
  model.dispose();
}

void main();
