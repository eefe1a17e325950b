import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expectedParameterShapes, headDim, makeConfig, parseConfig, readConfig, writeConfig } from './config';

const FIXTURES = path.join(__dirname, '../../../test-fixtures');

// Qwen2.5-Coder-0.5B's config.json (tied embeddings, GQA 14:2, head_dim 64).
const CODER_0_5B = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151643,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 24,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.44.0',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

const numel = (s: number[]) => s.reduce((a, b) => a * b, 1);

describe('parseConfig', () => {
  it('reads the fixtures', () => {
    const untied = readConfig(path.join(FIXTURES, 'qwen2-tiny-f32-untied'));
    expect(untied).toMatchObject({
      hidden_size: 64, intermediate_size: 160, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2,
      vocab_size: 1024, rope_theta: 1e6, rms_norm_eps: 1e-6, tie_word_embeddings: false, bos_token_id: 1, eos_token_id: 2,
    });
    expect(headDim(untied)).toBe(16);
    expect(untied.use_cache).toBe(true); // unknown fields kept
    expect(readConfig(path.join(FIXTURES, 'qwen2-tiny-bf16-tied')).tie_word_embeddings).toBe(true);
  });

  it('accepts a Qwen2.5-Coder config and counts its 494,032,768 parameters', () => {
    const cfg = parseConfig(CODER_0_5B, 'coder/config.json');
    expect(headDim(cfg)).toBe(64);
    const shapes = expectedParameterShapes(cfg);
    expect(shapes.size).toBe(1 + 24 * 12 + 1); // embed, 12 per layer, final norm; no lm_head (tied)
    expect(shapes.has('lm_head.weight')).toBe(false);
    expect(shapes.get('model.layers.23.self_attn.k_proj.weight')).toEqual([128, 896]);
    expect([...shapes.values()].reduce((n, s) => n + numel(s), 0)).toBe(494032768);
  });

  it('fills defaults the way transformers does', () => {
    const { num_key_value_heads, rope_theta, max_position_embeddings, hidden_act, ...rest } = CODER_0_5B;
    const cfg = parseConfig({ ...rest, tie_word_embeddings: undefined }, 'x');
    expect(cfg.num_key_value_heads).toBe(14);
    expect(cfg.rope_theta).toBe(10000);
    expect(cfg.max_position_embeddings).toBe(32768);
    expect(cfg.hidden_act).toBe('silu');
    expect(cfg.tie_word_embeddings).toBe(false);
    expect(parseConfig({ ...CODER_0_5B, eos_token_id: [151645, 151643] }, 'x').eos_token_id).toEqual([151645, 151643]);
  });

  it('reads the RoPE base from rope_parameters, as newer transformers versions write it', () => {
    const { rope_theta, rope_scaling, ...rest } = CODER_0_5B;
    const v5 = { ...rest, rope_parameters: { rope_theta: 1e6, rope_type: 'default' }, layer_types: Array(24).fill('full_attention') };
    expect(parseConfig(v5, 'x').rope_theta).toBe(1e6);
    expect(() => parseConfig({ ...v5, rope_parameters: { rope_type: 'yarn', factor: 4, rope_theta: 1e6 } }, 'c')).toThrow(
      'c: invalid Qwen2 config: rope_parameters.rope_type: only rope_type "default" is supported',
    );
    expect(() => parseConfig({ ...v5, rope_theta: 1e4 }, 'c')).toThrow(
      'c: rope_theta (10000) disagrees with rope_parameters.rope_theta (1000000)',
    );
    expect(() => parseConfig({ ...v5, layer_types: ['full_attention', 'sliding_attention'] }, 'c')).toThrow(
      'c: invalid Qwen2 config: layer_types.1: only "full_attention" layers are supported',
    );
  });

  it('uses an explicit head_dim for the attention shapes', () => {
    const cfg = parseConfig({ ...CODER_0_5B, hidden_size: 100, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32 }, 'x');
    expect(headDim(cfg)).toBe(32);
    const shapes = expectedParameterShapes(cfg);
    expect(shapes.get('model.layers.0.self_attn.q_proj.weight')).toEqual([128, 100]);
    expect(shapes.get('model.layers.0.self_attn.v_proj.bias')).toEqual([64]);
    expect(shapes.get('model.layers.0.self_attn.o_proj.weight')).toEqual([100, 128]);
  });

  it('rejects what the model cannot run, naming the file and field', () => {
    expect(() => parseConfig({ ...CODER_0_5B, model_type: 'llama' }, 'm/config.json')).toThrow(
      'm/config.json: unsupported model_type "llama" (only "qwen2" is supported)',
    );
    const { model_type, ...noType } = CODER_0_5B;
    expect(() => parseConfig(noType, 'm/config.json')).toThrow('m/config.json: missing model_type (expected "qwen2")');
    const { hidden_size, ...noHidden } = CODER_0_5B;
    expect(() => parseConfig(noHidden, 'm/config.json')).toThrow(/^m\/config.json: invalid Qwen2 config: hidden_size: /);
    expect(() => parseConfig({ ...CODER_0_5B, hidden_act: 'gelu' }, 'c')).toThrow('c: invalid Qwen2 config: hidden_act: only "silu" is supported');
    expect(() => parseConfig({ ...CODER_0_5B, rope_scaling: { type: 'yarn', factor: 4 } }, 'c')).toThrow(
      'c: invalid Qwen2 config: rope_scaling: RoPE scaling is not supported',
    );
    expect(() => parseConfig({ ...CODER_0_5B, use_sliding_window: true }, 'c')).toThrow(
      'use_sliding_window: sliding-window attention is not supported',
    );
    expect(() => parseConfig({ ...CODER_0_5B, vocab_size: 10.5 }, 'c')).toThrow('vocab_size:');
    expect(() => parseConfig({ ...CODER_0_5B, num_key_value_heads: 3 }, 'c')).toThrow(
      'c: num_attention_heads (14) must be divisible by num_key_value_heads (3)',
    );
    expect(() => parseConfig({ ...CODER_0_5B, hidden_size: 900 }, 'c')).toThrow(
      'c: hidden_size (900) must be divisible by num_attention_heads (14) when head_dim is not given',
    );
    expect(() => parseConfig([], 'c')).toThrow('c: config must be a JSON object');
  });
});

describe('expectedParameterShapes', () => {
  it('lists every Hugging Face parameter, [out, in] for Linear, lm_head only when untied', () => {
    const cfg = readConfig(path.join(FIXTURES, 'qwen2-tiny-f32-untied'));
    const shapes = expectedParameterShapes(cfg);
    // the fixture's own tensor list (model.safetensors header) is the reference
    const header = JSON.parse(
      (() => {
        const b = fs.readFileSync(path.join(FIXTURES, 'qwen2-tiny-f32-untied/model.safetensors'));
        return b.subarray(8, 8 + Number(b.readBigUInt64LE(0))).toString();
      })(),
    );
    delete header.__metadata__;
    expect([...shapes.keys()].sort()).toEqual(Object.keys(header).sort());
    for (const [name, shape] of shapes) expect([name, shape]).toEqual([name, header[name].shape]);
    expect([...shapes.keys()][0]).toBe('model.embed_tokens.weight');
    expect([...shapes.keys()].slice(-2)).toEqual(['model.norm.weight', 'lm_head.weight']);
    expect(shapes.get('model.layers.1.mlp.down_proj.weight')).toEqual([64, 160]);
  });

  it('gives a sequence classifier a score head instead of lm_head', () => {
    const cfg = parseConfig(
      { ...CODER_0_5B, tie_word_embeddings: false, architectures: ['Qwen2ForSequenceClassification'], id2label: { '0': 'LABEL_0' } },
      'rm',
    );
    const shapes = expectedParameterShapes(cfg);
    expect(shapes.get('score.weight')).toEqual([1, 896]);
    expect(shapes.has('lm_head.weight')).toBe(false);
  });
});

describe('makeConfig / writeConfig', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'config-test-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('makes a valid small config with Qwen2.5 defaults and overrides', () => {
    const cfg = makeConfig({ num_hidden_layers: 2, hidden_size: 128 });
    expect(cfg).toMatchObject({
      model_type: 'qwen2', num_hidden_layers: 2, hidden_size: 128, num_attention_heads: 4, num_key_value_heads: 2,
      rope_theta: 1e6, rms_norm_eps: 1e-6, vocab_size: 151936, tie_word_embeddings: true, hidden_act: 'silu',
    });
    expect(headDim(cfg)).toBe(32);
    expect(() => makeConfig({ hidden_size: 100, num_attention_heads: 3, num_key_value_heads: 3 })).toThrow(
      'makeConfig: hidden_size (100) must be divisible by num_attention_heads (3)',
    );
  });

  it('writes a config that reads back equal, unknown fields included', async () => {
    const cfg = parseConfig({ ...CODER_0_5B, some_future_field: { a: [1, 2] } }, 'x');
    await writeConfig(tmp, cfg);
    const text = fs.readFileSync(path.join(tmp, 'config.json'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ some_future_field: { a: [1, 2] }, transformers_version: '4.44.0', rope_scaling: null });
    expect(readConfig(tmp)).toEqual(cfg);
    expect(fs.readdirSync(tmp)).toEqual(['config.json']); // no temp file left behind
  });

  it('names the file when config.json is not JSON', () => {
    fs.writeFileSync(path.join(tmp, 'config.json'), '{nope');
    expect(() => readConfig(tmp)).toThrow(`${path.join(tmp, 'config.json')}: not valid JSON`);
  });
});
