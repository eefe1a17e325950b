// Teacher-forced log-probs must equal the ones generation computed while sampling (KV cache, left padding).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { generate, Qwen2Model } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { responseLogProbs } from './logprobs';
import { generateResponses, sampledIds } from './responses';
import { saveTinyModel, TOKENIZER_DIR } from './testing/tiny-model';

const tok = loadTokenizer(TOKENIZER_DIR);
let tmp: string;
let model: Qwen2Model;

beforeAll(async () => {
  await initBackend({ quiet: true });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-lp-'));
  model = await saveTinyModel(tmp, 11);
});
// The model's variables go with the backend (jest-teardown shuts it down before this file's afterAll runs).
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const prompts = ['# add two numbers\n', '# Write a function to find the shared elements of two lists.\n', 'def f(x):\n'];

describe('responseLogProbs', () => {
  it('equals the log-probs generation reported for its own tokens, for any batch split', async () => {
    const ids = prompts.map((p) => tok.encode(p));
    const gens = await generate(model, ids, { maxNewTokens: 6, greedy: true, padId: tok.padId, seed: 0 });
    const rows = gens.map((g, i) => ({ prompt: ids[i], response: g.ids }));
    for (const batchSize of [1, 3]) {
      const lp = responseLogProbs(model, rows, tok.padId, batchSize);
      lp.forEach((row, i) => {
        expect(row).toHaveLength(gens[i].ids.length);
        row.forEach((x, t) => expect(x).toBeCloseTo(gens[i].logprobs[t], 3));
      });
    }
    // Peaked distributions: a greedy token is far more likely than uniform (-log 16384 = -9.7), so an
    // off-by-one position would show.
    expect(Math.max(...gens.flatMap((g) => g.logprobs))).toBeGreaterThan(-5);
  });

  it('an empty response has no log-probs', () => {
    expect(responseLogProbs(model, [{ prompt: [1, 2], response: [] }], tok.padId)).toEqual([[]]);
    expect(responseLogProbs(model, [{ prompt: [1], response: [] }], tok.padId)).toEqual([[]]);
  });
});

describe('generateResponses', () => {
  it('batches do not change greedy responses; text decodes the ids; sampling is seeded', async () => {
    const opts = { maxNewTokens: 5, greedy: true, temperature: 1, seed: 0, template: 'raw' as const };
    const one = await generateResponses(model, tok, prompts, { ...opts, batchSize: 1 });
    const seen: number[] = [];
    const all = await generateResponses(model, tok, prompts, { ...opts, batchSize: 2 }, (start, b) => seen.push(start, b.length));
    expect(seen).toEqual([0, 2, 2, 1]);
    expect(all.map((r) => r.ids)).toEqual(one.map((r) => r.ids));
    for (const r of all) {
      expect(r.text).toBe(tok.decode(r.ids));
      expect(sampledIds(r)).toEqual(r.stopId === null ? r.ids : [...r.ids, r.stopId]);
      expect(r.ids.length + (r.stopId === null ? 0 : 1)).toBeLessThanOrEqual(5);
    }
    const s1 = await generateResponses(model, tok, prompts, { ...opts, greedy: false, seed: 7, batchSize: 2 });
    const s2 = await generateResponses(model, tok, prompts, { ...opts, greedy: false, seed: 7, batchSize: 2 });
    expect(s1.map((r) => r.ids)).toEqual(s2.map((r) => r.ids));
  });

  it('a response ending at the end token drops it from ids and keeps it for KL', async () => {
    // Make <|endoftext|> the argmax everywhere by copying a huge bias into its embedding row (tied LM head).
    const eos = tok.eosId;
    const emb = model.params['model.embed_tokens.weight'];
    const saved = emb.clone();
    const w = emb.arraySync() as number[][];
    w[eos] = w[eos].map(() => 0);
    // logit(eos) = h . e_eos with h RMS-normalised: point e_eos along the mean hidden state direction.
    const h = model.forward(tf.tensor2d([tok.encode(prompts[0])], undefined, 'int32'));
    const last = (h.arraySync() as number[][][])[0].at(-1)!;
    h.dispose();
    w[eos] = last.map((x) => x * 100);
    emb.assign(tf.tensor2d(w));
    try {
      const [r] = await generateResponses(model, tok, [prompts[0]], { maxNewTokens: 5, greedy: true, temperature: 1, seed: 0, template: 'raw', batchSize: 1 });
      expect(r.stopId).toBe(eos);
      expect(r.ids).toEqual([]);
      expect(r.text).toBe('');
      expect(sampledIds(r)).toEqual([eos]);
    } finally {
      emb.assign(saved);
      saved.dispose();
    }
  });
});
