// The GGUF writer and reader: a round trip of every value type and tensor layout, exports of a bf16 checkpoint (the
// shipped base), of an untied checkpoint with a padded vocab_size, and of a PEFT adapter, read back; clear errors for
// what llama.cpp cannot run. (That llama.cpp loads these files: llamacpp.test.ts.)
import * as fs from 'fs';
import * as path from 'path';
import { loadMergedWeights, readAdapter } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel, tempDir } from '@rlhf-code/model/testing';
import { exportLoraGguf, exportModelGguf, readGgufHeader, readGgufTensor, writeGguf, type GgufValue } from './gguf';

const BASE = path.join(__dirname, '../../../models/base');

let dir: string;
beforeAll(() => {
  dir = tempDir('gguf-test-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const valueOf = (v: GgufValue | undefined) => v?.value;

describe('writeGguf / readGgufHeader', () => {
  it('round-trips every value type, the tensor table (ne reversed) and the data at aligned offsets', async () => {
    const file = path.join(dir, 'round-trip.gguf');
    const meta = new Map<string, GgufValue>([
      ['a.u8', { type: 'u8', value: 200 }],
      ['a.i8', { type: 'i8', value: -100 }],
      ['a.u16', { type: 'u16', value: 60000 }],
      ['a.i16', { type: 'i16', value: -30000 }],
      ['a.u32', { type: 'u32', value: 4e9 }],
      ['a.i32', { type: 'i32', value: -2e9 }],
      ['a.f32', { type: 'f32', value: 0.5 }],
      ['a.f64', { type: 'f64', value: Math.PI }],
      ['a.u64', { type: 'u64', value: 2 ** 40 }],
      ['a.i64', { type: 'i64', value: -(2 ** 40) }],
      ['a.bool', { type: 'bool', value: true }],
      ['a.string', { type: 'string', value: 'Ġhello ünicode' }],
      ['a.strings', { type: 'array', itemType: 'string', value: ['x', '', 'ÿ'] }],
      ['a.ints', { type: 'array', itemType: 'i32', value: [1, -2, 3] }],
    ]);
    const tensors = [
      { name: 'v', shape: [3], data: Float32Array.from([1, 2, 3]) }, // 12 bytes: the next one starts at 32
      { name: 'm', shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) },
      { name: 't', shape: [2, 1, 2], data: Float32Array.from([-1, 0.25, 7, 8]) },
    ];
    const bytes = await writeGguf(file, meta, tensors);
    expect(fs.statSync(file).size).toBe(bytes);
    const h = await readGgufHeader(file);
    expect(h.version).toBe(3);
    expect(h.alignment).toBe(32);
    expect([...h.metadata.keys()]).toEqual([...meta.keys(), 'general.alignment']);
    for (const [k, v] of meta) expect(h.metadata.get(k)).toEqual(v);
    expect([...h.tensors.keys()]).toEqual(['v', 'm', 't']);
    const offsets = [...h.tensors.values()].map((t) => t.offset);
    expect(offsets[1] - offsets[0]).toBe(32);
    expect(offsets.every((o) => o % 32 === 0)).toBe(true);
    // In the file, [2, 3] is ne = [3, 2]: name "m" (u64 length 1), n_dims 2, then ne[0] = 3 and ne[1] = 2.
    const raw = fs.readFileSync(file);
    const at = raw.indexOf(Buffer.from([1, 0, 0, 0, 0, 0, 0, 0, 0x6d, 2, 0, 0, 0]));
    expect([Number(raw.readBigUInt64LE(at + 13)), Number(raw.readBigUInt64LE(at + 21))]).toEqual([3, 2]);
    for (const t of tensors) {
      expect(h.tensors.get(t.name)!.shape).toEqual(t.shape);
      expect(Array.from(await readGgufTensor(file, t.name, h.tensors.get(t.name)!))).toEqual(Array.from(t.data));
    }
    await expect(writeGguf(file, new Map(), [{ name: 'x', shape: [2], data: new Float32Array(3) }])).rejects.toThrow('tensor x has 3 values for shape [2]');
  });
});

describe('exportModelGguf', () => {
  it('writes the shipped bf16 base as llama.cpp names it: tied head, Qwen2 biases, hyperparameters and tokenizer', async () => {
    const file = path.join(dir, 'base.gguf');
    const r = await exportModelGguf(BASE, file);
    const h = await readGgufHeader(file);
    expect(r).toEqual({ file, kind: 'model', tensors: 2 + 6 * 12, bytes: fs.statSync(file).size });
    expect(h.tensors.size).toBe(74);
    expect(h.tensors.has('output.weight')).toBe(false); // tied: llama.cpp reuses token_embd
    expect(h.tensors.get('token_embd.weight')!.shape).toEqual([16384, 256]);
    expect(h.tensors.get('blk.0.attn_q.bias')!.shape).toEqual([256]);
    expect(h.tensors.get('blk.5.attn_k.weight')!.shape).toEqual([128, 256]);
    expect(h.tensors.get('blk.5.ffn_down.weight')!.shape).toEqual([256, 704]);
    const m = (k: string) => valueOf(h.metadata.get(k));
    expect([m('general.architecture'), m('qwen2.block_count'), m('qwen2.embedding_length'), m('qwen2.feed_forward_length')]).toEqual(['qwen2', 6, 256, 704]);
    expect([m('qwen2.attention.head_count'), m('qwen2.attention.head_count_kv'), m('qwen2.attention.key_length'), m('qwen2.context_length')]).toEqual([4, 2, 64, 1024]);
    expect(m('qwen2.rope.freq_base')).toBe(10000);
    expect(m('qwen2.attention.layer_norm_rms_epsilon')).toBeCloseTo(1e-6, 12);
    expect([m('tokenizer.ggml.model'), m('tokenizer.ggml.pre'), m('tokenizer.ggml.add_bos_token')]).toEqual(['gpt2', 'qwen2', false]);
    expect([m('tokenizer.ggml.bos_token_id'), m('tokenizer.ggml.eos_token_id'), m('tokenizer.ggml.padding_token_id')]).toEqual([16358, 16358, 16377]);
    const tokens = m('tokenizer.ggml.tokens') as string[];
    const types = m('tokenizer.ggml.token_type') as number[];
    expect(tokens).toHaveLength(16384);
    expect([tokens[16358], types[16358], tokens[16374], types[16374], tokens[16372], types[16372], types[0]]).toEqual(['<|endoftext|>', 3, '<|fim_prefix|>', 3, '<tool_call>', 4, 1]);
    expect(m('tokenizer.ggml.merges') as string[]).toHaveLength(16102);
    expect((m('tokenizer.ggml.merges') as string[])[0]).toBe('Ġ Ġ');
    // bf16 values widen to f32 exactly.
    const { weights } = await loadMergedWeights(BASE);
    const embd = await readGgufTensor(file, 'token_embd.weight', h.tensors.get('token_embd.weight')!);
    expect(Buffer.from(embd.buffer).equals(Buffer.from(weights.get('model.embed_tokens.weight')!.data.buffer))).toBe(true);
  });

  it('writes an untied head and a vocab_size padded past the tokenizer with [PAD] tokens', async () => {
    const model = path.join(dir, 'untied');
    await saveTinyModel(model, { config: { tie_word_embeddings: false, vocab_size: 16448 } });
    const file = path.join(dir, 'untied.gguf');
    await exportModelGguf(model, file);
    const h = await readGgufHeader(file);
    expect(h.tensors.get('output.weight')!.shape).toEqual([16448, 32]);
    const tokens = h.metadata.get('tokenizer.ggml.tokens')!.value as string[];
    const types = h.metadata.get('tokenizer.ggml.token_type')!.value as number[];
    expect([tokens.length, tokens[16383], tokens[16384], types[16384], tokens[16447]]).toEqual([16448, '</think>', '[PAD16384]', 5, '[PAD16447]']);
    const { weights } = await loadMergedWeights(model);
    expect(Array.from(await readGgufTensor(file, 'output.weight', h.tensors.get('output.weight')!))).toEqual(Array.from(weights.get('lm_head.weight')!.data));
  });

  it('writes Q8_0 matrices: a quarter of the bytes, each value within half its block scale, norms and biases F32', async () => {
    const file = path.join(dir, 'base-q8.gguf');
    const f32File = path.join(dir, 'base.gguf'); // the first test's export (made here when run alone)
    const f32 = fs.existsSync(f32File) ? fs.statSync(f32File).size : (await exportModelGguf(BASE, f32File)).bytes;
    const r = await exportModelGguf(BASE, file, 'Q8_0');
    const h = await readGgufHeader(file);
    expect(r.bytes / f32).toBeGreaterThan(0.26);
    expect(r.bytes / f32).toBeLessThan(0.28); // 34 bytes for 32 values (plus the F32 norms and biases and the tokenizer)
    expect(valueOf(h.metadata.get('general.file_type'))).toBe(7);
    expect([h.tensors.get('token_embd.weight')!.type, h.tensors.get('blk.0.ffn_down.weight')!.type, h.tensors.get('blk.0.attn_q.bias')!.type, h.tensors.get('output_norm.weight')!.type]).toEqual([8, 8, 0, 0]);
    const { weights } = await loadMergedWeights(BASE);
    const x = weights.get('model.layers.0.mlp.down_proj.weight')!.data;
    const q = await readGgufTensor(file, 'blk.0.ffn_down.weight', h.tensors.get('blk.0.ffn_down.weight')!);
    let worst = 0;
    for (let b = 0; b < x.length; b += 32) {
      const amax = Math.max(...Array.from(x.subarray(b, b + 32), Math.abs));
      for (let i = b; i < b + 32; i++) worst = Math.max(worst, Math.abs(q[i] - x[i]) / (amax / 127));
    }
    expect(worst).toBeLessThanOrEqual(0.5 + 127 * 2 ** -11); // half a step, plus 127 times the f16 rounding of the scale (as ggml)
    await expect(writeGguf(file, new Map(), [{ name: 'x', shape: [2, 48], data: new Float32Array(96), type: 'Q8_0' }])).rejects.toThrow('tensor x [2, 48]: Q8_0 needs rows of a multiple of 32');
  });

  it('refuses a reward model and a folder without tokenizer.json, naming them', async () => {
    const rm = path.join(dir, 'rm');
    await saveTinyModel(rm, { kind: 'rm' });
    await expect(exportModelGguf(rm, path.join(dir, 'rm.gguf'))).rejects.toThrow(`${rm}: a sequence classifier (reward model); only a causal LM runs in llama.cpp`);
    const bare = path.join(dir, 'bare');
    await saveTinyModel(bare);
    fs.rmSync(path.join(bare, 'tokenizer.json'));
    await expect(exportModelGguf(bare, path.join(dir, 'bare.gguf'))).rejects.toThrow(`${path.join(bare, 'tokenizer.json')}: not found (the GGUF carries the tokenizer`);
  });
});

describe('exportLoraGguf', () => {
  it("writes PEFT's A and B as <tensor>.lora_a / .lora_b with alpha, as an adapter GGUF", async () => {
    const model = path.join(dir, 'lora-base');
    const adapter = path.join(dir, 'lora');
    await saveTinyModel(model);
    await saveTinyAdapter(adapter, model, { r: 2 });
    const file = path.join(dir, 'lora.gguf');
    const r = await exportLoraGguf(adapter, file);
    const h = await readGgufHeader(file);
    expect(r.tensors).toBe(2 * 7 * 2); // 2 layers x 7 projections x (A, B)
    expect(['general.architecture', 'general.type', 'adapter.type', 'adapter.lora.alpha'].map((k) => valueOf(h.metadata.get(k)))).toEqual(['qwen2', 'adapter', 'lora', 4]);
    expect(h.tensors.get('blk.1.attn_q.weight.lora_a')!.shape).toEqual([2, 32]); // A [r, in]
    expect(h.tensors.get('blk.1.ffn_down.weight.lora_b')!.shape).toEqual([32, 2]); // B [out, r]
    const { tensors } = await readAdapter(adapter);
    const b = tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')!;
    expect(Array.from(await readGgufTensor(file, 'blk.1.ffn_down.weight.lora_b', h.tensors.get('blk.1.ffn_down.weight.lora_b')!))).toEqual(Array.from(b.data));
  });

  it("refuses a reward model's adapter", async () => {
    const model = path.join(dir, 'rm-base');
    const adapter = path.join(dir, 'rm-lora');
    await saveTinyModel(model);
    await saveTinyAdapter(adapter, model, { kind: 'rm' });
    await expect(exportLoraGguf(adapter, path.join(dir, 'rm-lora.gguf'))).rejects.toThrow(`${adapter}: a reward model's adapter (task_type SEQ_CLS)`);
  });
});
