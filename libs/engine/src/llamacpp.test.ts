// The llamacpp engine on a tiny checkpoint (its vocab_size padded past the tokenizer's tokens) and a LoRA adapter the
// project writes: llama.cpp's logits and sampled log-probs agree with the project's forward pass and the trainer's
// recompute (tools/llamacpp-agreement.ts), and the engine samples, stops, seeds and publishes versions as the
// RolloutEngine contract says (testing/llamacpp-scenarios.ts). node-llama-cpp is an ES module jest cannot import, so
// both run under tsx in a child process; without node-llama-cpp installed they fail (npm ci installs it).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { saveTinyAdapter, saveTinyModel, tempDir } from '@rlhf-code/model/testing';

const ROOT = path.join(__dirname, '../../..');

function runTsx(script: string, args: string[]): unknown {
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), [script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`${path.relative(ROOT, script)} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

let dir: string;
let model: string;
let adapter: string;

beforeAll(async () => {
  dir = tempDir('llamacpp-test-');
  model = path.join(dir, 'model');
  adapter = path.join(dir, 'adapter');
  await saveTinyModel(model, { seed: 2, config: { vocab_size: 16448, tie_word_embeddings: false } });
  await saveTinyAdapter(adapter, model, { seed: 3, r: 2 });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('llamacpp engine', () => {
  it('agrees with the project forward pass and the trainer recompute, with and without the adapter', () => {
    const [r] = runTsx(path.join(ROOT, 'tools/llamacpp-agreement.ts'), ['--model', model, '--adapter', adapter, '--json', '--threads', '1']) as {
      base: { positions: number; maxAbs: number; maxLogprob: number; argmaxAgree: number };
      adapter: { positions: number; maxAbs: number; maxLogprob: number; argmaxAgree: number };
      sampled: { tokens: number; maxAbs: number };
    }[];
    for (const row of [r.base, r.adapter]) {
      expect(row.positions).toBe(21);
      expect(row.maxAbs).toBeLessThan(1e-3); // F32 KV cache: ~1e-5 measured (F16: ~1e-2)
      expect(row.maxLogprob).toBeLessThan(1e-3);
      expect(row.argmaxAgree).toBe(row.positions);
    }
    expect(r.sampled.tokens).toBeGreaterThan(10);
    expect(r.sampled.maxAbs).toBeLessThan(1e-3);
  });

  it('samples, stops, seeds and publishes versions as a RolloutEngine', () => {
    const r = runTsx(path.join(__dirname, 'testing/llamacpp-scenarios.ts'), [model, adapter]) as Record<string, Record<string, unknown>>;
    expect(r.vocabRows).toBe(16448);
    // The same tokens; log-probs equal up to the float rounding of another batching or a cached prefix.
    expect(r.seeding.repeatLogprobDiff).toBeLessThan(1e-4);
    expect({ ...r.seeding, repeatLogprobDiff: 0 }).toEqual({
      repeatable: true,
      repeatLogprobDiff: 0,
      firstAloneSame: true,
      otherSeedDiffers: true,
      rootAdvancedByPrompts: true,
      concurrentSame: true,
      lengths: [8, 8, 8],
      versions: [0, 0, 0],
    });
    const lp = r.logprobs;
    expect(lp.bannedIdsBelow100).toBe(true);
    expect(lp.greedyIsArgmax).toBe(true);
    expect(lp.minNewHeldStop).toBe(true);
    for (const k of ['bannedLogprobDiff', 'greedyLogprobDiff', 'minNewLogprobDiff']) expect(lp[k]).toBeLessThan(1e-4);
    expect(r.stops).toEqual({ stopId: true, stopString: true, stopWhen: true, maxNewZero: true, perPromptGreedy: true, streams: true });
    const v = r.versions;
    expect(v.adapterMovesLogits).toBeGreaterThan(0.1);
    expect(v.recycledSame).toBe(0);
    expect(v.foldedSame).toBeLessThan(1e-3);
    expect(v.sampledVersion).toEqual([1, 1, 1]);
    expect(v.policyVersion).toBe(4);
    expect(v.repeated).toBe('llamacpp engine: version 1 is not after 1');
    expect(v.filesAtV3).toEqual(['policy-v3.lora.gguf']);
    // Q8_0: quantised (not the F32 file again), and near it. This tiny random model (hidden 32) is its worst case:
    // models/base moves by 1.2% of its largest logit with 29 of 30 greedy choices the same (EXPERIMENTS.md).
    expect(r.q8.relativeDiff).toBeGreaterThan(0);
    expect(r.q8.relativeDiff).toBeLessThan(0.3);
    expect(r.q8.argmaxAgree).toBeGreaterThanOrEqual(0.75);
    // cacheReuse: the 15 held tokens past the removed span are kept (25 of the 27-token prompt), not only the 10 before
    // it; the same prompt again reuses all but its last token either way.
    expect(r.reuse).toEqual({
      cacheReuse0: { cachedTokens: 10, newTokens: 4, againCached: 26 },
      cacheReuse4: { cachedTokens: 25, newTokens: 4, againCached: 26 },
      badSetting: 'llamacpp engine: cacheReuse must be an integer >= 0, got -1',
    });
    expect(r.errors.tooLong).toMatch(/prompt 0 has \d+ tokens \+ maxNewTokens 64 > the context size 64/);
    expect(r.errors.outsideVocab).toBe("llamacpp engine: prompt 0 has id 17384, outside the model's 16448 rows");
    expect(r.errors.empty).toBe('llamacpp engine: prompt 0 is empty (every prompt needs at least one token)');
    expect(r.errors.closed).toBe('llamacpp engine: closed');
    expect(r.cacheAfterClose).toEqual([]);
  });
});
