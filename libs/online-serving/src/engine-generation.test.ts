// online serve --engine openai:URL, end to end in this process: the EngineGenerator decodes through the OpenAI-style
// server of @rlhf-code/engine (serve-openai.ts, over the project's own decoder) what LocalGenerator decodes on the same
// models; a published update becomes a new adapter version on the server (the policy's answers change to the updated
// model's, the start model's do not); an aborted request stops; full fine-tuning is refused with a reason. (The
// llamacpp kind runs the same class; its decoding is checked in @rlhf-code/engine's llamacpp tests.)
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { checkpointAt, Qwen2Model, type HostTensor } from '@rlhf-code/model';
import { localEngineHost, serveOpenAi } from '@rlhf-code/engine';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { loadOnlineModels, parseOnlineConfig } from '@rlhf-code/online-core';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { EngineGenerator } from './engine-generation';
import { Aborted, LocalGenerator, type GenerationRequest, type TextEvent } from './generation';
import { PolicyHolder } from './policy';
import { twoRowRequest } from './testing';

let dir: string;
let tok: Tokenizer;
let server: Awaited<ReturnType<typeof serveOpenAi>>;
let models: Awaited<ReturnType<typeof loadOnlineModels>>;
let generator: EngineGenerator;
const errors: string[] = [];

const request = (over: Partial<GenerationRequest> = {}) => twoRowRequest(tok, { maxNewTokens: 10, temperature: 0, seed: 'engine-gen', ...over });

/** What the project's decoder gives on the served models as they are now (greedy: the engines' answers must match). */
async function locally(req: GenerationRequest) {
  const g = new LocalGenerator({ policy: new PolicyHolder(models.policy), start: models.start, tokenizer: tok });
  return (await g.generate(req)).completions.map((c) => ({ ids: c.ids, text: c.text, finishReason: c.finishReason }));
}

const answers = (cs: { ids: number[]; text: string; finishReason: string }[]) => cs.map(({ ids, text, finishReason }) => ({ ids, text, finishReason }));

beforeAll(async () => {
  await initBackend({ quiet: true });
  tensorsAtStart = tf.memory().numTensors;
  dir = await makeTinyModelDir(3);
  const host = await localEngineHost(checkpointAt(dir, '--model'));
  server = await serveOpenAi(host, { port: 0, servedModelName: 'tiny' });
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-gen-shared-'));
  const config = parseOnlineConfig({ model: dir, engine: `openai:${server.url}`, engineSharedDir: shared, training: { loraRank: 2 } });
  models = await loadOnlineModels(config, null, 'serve');
  tok = models.tokenizer;
  generator = await EngineGenerator.open(config, {
    ...models,
    startDir: dir,
    policyDir: null,
    version: 0,
    onPublishError: (v, e) => errors.push(`${v}: ${e.message}`),
  });
});

let tensorsAtStart = 0;

test('decodes through the server what the project decodes on the same models, text streamed whole', async () => {
  const events: TextEvent[] = [];
  const got = await generator.generate(request(), (e) => events.push(e));
  expect(answers(got.completions)).toEqual(await locally(request()));
  expect(got.completions.every((c) => c.modelLogprobs!.length === c.ids.length + (c.stopId === null ? 0 : 1))).toBe(true);
  expect(got.versions).toEqual([0]);
  got.completions.forEach((c, row) => expect(events.filter((e) => e.row === row).map((e) => e.delta).join('')).toBe(c.text));
  expect(generator.modelWindow).toBe(models.policy.config.max_position_embeddings);
});

test('a published update is the policy version the server answers with; the start model stays', async () => {
  const startBefore = answers((await generator.generate(request({ model: 'start' }))).completions);
  const adapter = models.policy.trainableWeights();
  const moved = new Map<string, HostTensor>([...adapter].map(([k, t]) => [k, { shape: t.shape, data: Float32Array.from(t.data, (_v: number, i: number) => Math.sin(i + k.length) * 0.5) }]));
  expect(generator.publish(moved)).toBe(1);
  expect(generator.latestVersion).toBe(1);
  await generator.servedModel(); // waits for the publication
  expect(errors).toEqual([]);
  expect(generator.version).toBe(1);
  const after = await generator.generate(request());
  expect(after.versions).toEqual([1]);
  expect(answers(after.completions)).toEqual(await locally(request()));
  expect(answers(after.completions)).not.toEqual(startBefore);
  expect(answers((await generator.generate(request({ model: 'start' }))).completions)).toEqual(startBefore);
});

test('an aborted request stops with Aborted; full fine-tuning on a server is refused with the reason', async () => {
  const stop = new AbortController();
  stop.abort();
  await expect(generator.generate(request(), undefined, stop.signal)).rejects.toBeInstanceOf(Aborted);
  const full = await Qwen2Model.load(dir, { trainable: false });
  try {
    await expect(
      EngineGenerator.open({ engine: `openai:${server.url}` }, { policy: full, start: full, tokenizer: tok, startDir: dir, policyDir: null, version: 0 }),
    ).rejects.toThrow(/full weights only by replacing the server's model.*training.loraRank/);
  } finally {
    full.dispose();
  }
});

// Last: jest's teardown releases the backend before a file's afterAll would run.
test('close releases the models, both engines and the adapters the server loaded', async () => {
  await generator.close();
  await server.close();
  expect(tf.memory().numTensors).toBe(tensorsAtStart);
});
