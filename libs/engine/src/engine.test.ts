import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { initBackend } from '@rlhf-code/backend';
import { generateBatch, Qwen2Model } from '@rlhf-code/model';
import { tinyConfig, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { engineFields, LocalEngine, openEngine, parseEngineSpec, publishPolicy, type RolloutEngine } from './index';

beforeAll(() => initBackend({ quiet: true }));

describe('parseEngineSpec', () => {
  it('reads the three kinds and names the flag in errors', () => {
    expect(parseEngineSpec('local')).toEqual({ kind: 'local' });
    expect(parseEngineSpec('llamacpp')).toEqual({ kind: 'llamacpp' });
    expect(parseEngineSpec('openai:http://127.0.0.1:8000/')).toEqual({ kind: 'openai', url: 'http://127.0.0.1:8000' });
    expect(() => parseEngineSpec('vllm')).toThrow("--engine: expected local, llamacpp or openai:URL, got 'vllm'");
    expect(() => parseEngineSpec('openai:nope', 'ENGINE')).toThrow("ENGINE: 'nope' is not a URL");
    expect(() => parseEngineSpec('openai:ftp://x')).toThrow('must be http:// or https://');
  });
});

describe('engineFields, openEngine, publishPolicy', () => {
  const Schema = z.strictObject(engineFields);

  it('--engine defaults to local, is checked by the schema, and the local engine publishes without writing', async () => {
    expect(Schema.parse({})).toEqual({ engine: 'local', engineWeights: 'F32' });
    expect(Schema.safeParse({ engineWeights: 'Q4_0' }).success).toBe(false);
    expect(Schema.safeParse({ engine: 'vllm' }).error?.issues[0].message).toBe("expected local, llamacpp or openai:URL, got 'vllm'");
    const model = Qwen2Model.init(tinyConfig(), { seed: 3 });
    const tokenizer = undefined as never; // the local engine decodes no text in this test
    await expect(openEngine({ engine: 'local', engineSharedDir: '/x' }, { model, tokenizer, checkpointDir: '/unused' })).rejects.toThrow('--engine-shared-dir / --engine-path-prefix: only the openai engine uses them');
    await expect(openEngine({ engine: 'local', engineWeights: 'Q8_0' }, { model, tokenizer, checkpointDir: '/unused' })).rejects.toThrow('--engine-weights Q8_0: only the llamacpp engine exports weights, not --engine local');
    await expect(openEngine({ engine: 'local', engineSequences: 16 }, { model, tokenizer, checkpointDir: '/unused' })).rejects.toThrow('--engine-sequences: only the llamacpp engine decodes on sequences of its own, not --engine local');
    expect(Schema.safeParse({ engineSequences: 0 }).success).toBe(false);
    const engine = await openEngine({ engine: 'local' }, { model, tokenizer, checkpointDir: '/unused' });
    expect(engine).toBeInstanceOf(LocalEngine);
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('rlhf-policy-')).length;
    await publishPolicy(engine, model, { version: 1, baseModel: '/unused' });
    expect(engine.policyVersion).toBe(1);
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('rlhf-policy-')).length).toBe(before);
    await engine.close();
    model.dispose();
  });

  it('a non-local engine gets the LoRA adapter (else a full checkpoint) in a temporary policy-v<version>, removed once published', async () => {
    const seen: { kind: string; dir: string; files: string[] }[] = [];
    const engine: RolloutEngine = {
      name: 'fake',
      policyVersion: 0,
      sample: async () => [],
      publish: async (snapshot) => void seen.push({ kind: snapshot.kind, dir: snapshot.dir, files: fs.readdirSync(snapshot.dir).sort() }),
      close: async () => undefined,
    };
    const model = Qwen2Model.init(tinyConfig(), { seed: 3 });
    await publishPolicy(engine, model, { version: 1, baseModel: TOKENIZER_DIR }); // full weights: the tokenizer files from there
    model.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['q_proj', 'v_proj'] }, { seed: 1 });
    await publishPolicy(engine, model, { version: 2, baseModel: '/base' });
    expect(seen[0].kind).toBe('full');
    expect(seen[0].files).toEqual(expect.arrayContaining(['config.json', 'model.safetensors', 'tokenizer.json']));
    expect(seen[1]).toMatchObject({ kind: 'adapter', files: ['adapter_config.json', 'adapter_model.safetensors'] });
    expect(path.basename(seen[1].dir)).toBe('policy-v2');
    for (const s of seen) expect(fs.existsSync(path.dirname(s.dir))).toBe(false);
    model.dispose();
  });
});

describe('LocalEngine', () => {
  it('samples what generateBatch samples, tagged with the published version', async () => {
    const model = Qwen2Model.init(tinyConfig(), { seed: 3 });
    const prompts = [[5, 6, 7], [8, 9]];
    const opts = { maxNewTokens: 6, temperature: 1, stopIds: [16358], vocabSize: 16384, seed: 11 };
    const before = tf.memory().numTensors;
    const engine = new LocalEngine(model);
    const a = await engine.sample(prompts, opts);
    const b = await generateBatch(model, prompts, opts);
    expect(a.map((c) => c.ids)).toEqual(b.map((c) => c.ids));
    expect(a.map((c) => c.logprobs)).toEqual(b.map((c) => c.logprobs));
    expect(a.every((c) => c.policyVersion === 0)).toBe(true);
    await engine.publish({ kind: 'full', dir: '/unused' }, 1);
    expect((await engine.sample(prompts, opts))[0].policyVersion).toBe(1);
    await expect(engine.publish({ kind: 'full', dir: '/unused' }, 1)).rejects.toThrow('version 1 is not after 1');
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});

describe('LocalEngine with a prefix cache', () => {
  it("a prompt sampled alone under a cache key reuses its key's earlier prompt; the samples are generateBatch's", async () => {
    const model = Qwen2Model.init(tinyConfig(), { seed: 3 });
    const first = Array.from({ length: 20 }, (_, i) => 100 + i);
    const next = [...first, 7, 8, 9]; // the user typed on
    const opts = { maxNewTokens: 4, temperature: 0, stopIds: [16358], vocabSize: 16384 };
    const before = tf.memory().numTensors;
    const engine = new LocalEngine(model, undefined, { prefixCacheBytes: 1 << 20 });
    await engine.sample([first], { ...opts, cacheKeys: ['user:file.py'] });
    const [again] = await engine.sample([next], { ...opts, cacheKeys: ['user:file.py'] });
    expect(again.cachedTokens).toBe(first.length);
    expect(again.ids).toEqual((await generateBatch(model, [next], opts))[0].ids);
    const [other] = await engine.sample([next], { ...opts, cacheKeys: ['user:other.py'] });
    expect(other.cachedTokens).toBe(0);
    await engine.close(); // frees the cache
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});
