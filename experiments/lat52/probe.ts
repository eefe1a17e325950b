// Where llama.cpp's per-token time goes (issue 52): node-llama-cpp on the 0.5B shape's Q8_0 GGUF, 32 greedy tokens
// after a 64-token prompt, with and without the engine's per-token extras (confidence, tokenBias), and 1 vs 2 threads.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { llamaRuntime } from '../../libs/engine/src/llamacpp-runtime';

async function main() {
  const dir = path.join(os.tmpdir(), 'rlhf-code-gguf');
  const file = fs.readdirSync(dir).filter((f) => f.startsWith('q05-') && f.endsWith('.gguf')).map((f) => path.join(dir, f))[0];
  if (!file) throw new Error(`no q05 gguf in ${dir}`);
  const rt = await llamaRuntime();
  const model = await rt.llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const banned = rt.banned(model, Array.from({ length: 271 }, (_, k) => 151665 + k));
  const none = rt.banned(model, []);
  for (const threads of [2, 1]) {
    const ctx = await model.createContext({ contextSize: 512, sequences: 1, threads, flashAttention: false, experimentalKvCacheKeyType: 'F16', experimentalKvCacheValueType: 'F16' });
    for (const mode of ['plain', 'confidence', 'confidence+bias', 'plain', 'confidence', 'confidence+bias']) {
      const seq = ctx.getSequence();
      const prompt = Array.from({ length: 64 }, (_, i) => 1000 + ((i * 7919) % 50000));
      const opts = { temperature: 0, topK: 0, topP: 1, minP: 0, tokenBias: () => (mode.includes('bias') ? banned : none), yieldEogToken: true };
      const t0 = performance.now();
      let first = 0;
      let n = 0;
      const it = mode === 'plain' ? (seq as any).evaluate(prompt, opts) : seq.evaluateWithMetadata(prompt, { confidence: true }, opts);
      for await (const _ of it) {
        if (n === 0) first = performance.now();
        if (++n >= 33) break;
      }
      const t1 = performance.now();
      console.log(JSON.stringify({ threads, mode, ttft_ms: Math.round(first - t0), ms_per_token: +((t1 - first) / (n - 1)).toFixed(1) }));
      await seq.eraseContextTokenRanges([{ start: 0, end: seq.nextTokenIndex }]);
      (seq as any).dispose?.();
    }
    await ctx.dispose();
  }
  await model.dispose();
}
main().catch((e) => { console.error(e); process.exit(1); });
