// GGUF, llama.cpp's model file (version 3), written and read by hand: the llamacpp engine runs a checkpoint as a
// GGUF export of it, and each policy version of a LoRA run as a LoRA GGUF of the adapter the trainer wrote.
//
// Layout of a file (little-endian):
//   "GGUF" u32 version=3, u64 tensor count, u64 metadata count
//   metadata: {string key, u32 value type, value} ...      strings are u64 byte length + UTF-8 bytes
//   tensor infos: {string name, u32 n_dims, u64 ne[n_dims], u32 ggml type, u64 offset} ...
//   padding to general.alignment (32), then each tensor's data at its offset (from the data start, aligned)
// ne[0] is the fastest-varying dimension: a row-major [out, in] matrix (a safetensors shape) is ne = [in, out], so
// shapes are reversed on the way in and out and the bytes stay as they are. Tensors are written as F32, or Q8_0 (ggml's 8-bit blocks) for a model's matrices.
//
// What llama.cpp reads:
//   model   general.architecture=qwen2 and qwen2.* hyperparameters; tensors token_embd, blk.N.attn_norm,
//           blk.N.attn_{q,k,v}.{weight,bias} (Qwen2's q/k/v biases), blk.N.attn_output, blk.N.ffn_norm,
//           blk.N.ffn_{gate,up,down}, output_norm, and output only when the embedding is untied; the tokenizer as
//           tokenizer.ggml.* (model gpt2, pre qwen2, tokens with their types, merges, special ids, no BOS added).
//           A vocab_size padded past the tokenizer's tokens gets [PAD<id>] tokens of type UNUSED, as
//           convert_hf_to_gguf.py writes them.
//   LoRA    general.type=adapter, adapter.type=lora, adapter.lora.alpha; tensors <model tensor>.lora_a = A [r, in]
//           and <model tensor>.lora_b = B [out, r] (PEFT's lora_A / lora_B as they are); llama.cpp applies
//           scale * alpha / r * B A, scale 1 here: PEFT's alpha / r.
import { promises as fs } from 'fs';
import * as path from 'path';
import { expectedParameterShapes, f16BitsToNumber, f32BitsToF16Bits, headDim, isSequenceClassifier, loadMergedWeights, modelConfigOf, readAdapter, type Qwen2Config } from '@rlhf-code/model';

const MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const VERSION = 3;
const ALIGNMENT = 32;

/** Metadata value types by name, with their GGUF codes. */
const TYPE_CODES = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;
type ScalarType = Exclude<keyof typeof TYPE_CODES, 'array'>;
type NumberType = Exclude<ScalarType, 'bool' | 'string'>;
const TYPE_NAMES = Object.fromEntries(Object.entries(TYPE_CODES).map(([k, v]) => [v, k])) as Record<number, keyof typeof TYPE_CODES>;
const NUMBER_BYTES: Record<NumberType, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 };

/** One metadata value (64-bit integers as numbers: every one written here is far below 2^53). */
export type GgufValue =
  | { type: NumberType; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: ScalarType; value: readonly (number | boolean | string)[] };

/** A tensor to write: row-major values of a (safetensors-order) shape. */
export interface GgufTensor {
  name: string;
  shape: readonly number[];
  data: Float32Array;
  /** How it is stored: F32 (default), or Q8_0 (its last dimension a multiple of 32; see quantizeQ8_0). */
  type?: GgufWeightType;
}

/** The weight types written here: F32, and Q8_0 (ggml's 8-bit blocks: 32 int8 values and one f16 scale, 8.5 bits a value). */
export type GgufWeightType = 'F32' | 'Q8_0';
const GGML_TYPE = { F32: 0, Q8_0: 8 } as const;
const Q8_0_BLOCK = 32;
const Q8_0_BYTES = 2 + Q8_0_BLOCK; // an f16 scale, then 32 int8

/**
 * ggml's Q8_0 of `x` (its length a multiple of 32): per block of 32 values, d = max|x| / 127 (as f16) and
 * q = round(x / d), so a value is off by at most d / 2 (0.4% of the block's largest).
 */
export function quantizeQ8_0(x: Float32Array): Buffer {
  if (x.length % Q8_0_BLOCK !== 0) throw new Error(`quantizeQ8_0: ${x.length} values is not a multiple of ${Q8_0_BLOCK}`);
  const out = Buffer.alloc((x.length / Q8_0_BLOCK) * Q8_0_BYTES);
  const q = new Int8Array(out.buffer, out.byteOffset, out.length);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  for (let b = 0, o = 0; b < x.length; b += Q8_0_BLOCK, o += Q8_0_BYTES) {
    let amax = 0;
    for (let i = b; i < b + Q8_0_BLOCK; i++) amax = Math.max(amax, Math.abs(x[i]));
    f32[0] = amax / 127;
    const inv = f32[0] > 0 ? 1 / f32[0] : 0;
    const h = f32BitsToF16Bits(u32[0]);
    out[o] = h & 0xff; // little-endian f16
    out[o + 1] = h >>> 8;
    for (let i = 0; i < Q8_0_BLOCK; i++) q[o + 2 + i] = Math.round(x[b + i] * inv);
  }
  return out;
}

/** Q8_0 blocks back to values (readGgufTensor, tests). */
function dequantizeQ8_0(bytes: Buffer, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let b = 0, o = 0; b < n; b += Q8_0_BLOCK, o += Q8_0_BYTES) {
    const d = f16BitsToNumber(bytes.readUInt16LE(o));
    for (let i = 0; i < Q8_0_BLOCK; i++) out[b + i] = d * bytes.readInt8(o + 2 + i);
  }
  return out;
}

/** A tensor's bytes as stored. */
function tensorBytes(t: GgufTensor): Buffer {
  return (t.type ?? 'F32') === 'Q8_0' ? quantizeQ8_0(t.data) : Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

/** A tensor as a file lists it: its row-major shape (ne reversed), ggml type and absolute byte offset. */
export interface GgufTensorInfo {
  shape: number[];
  type: number;
  offset: number;
}

export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: Map<string, GgufTensorInfo>;
  alignment: number;
}

/** What an export wrote. */
export interface GgufExport {
  file: string;
  kind: 'model' | 'lora';
  tensors: number;
  bytes: number;
}

const u32 = (value: number): GgufValue => ({ type: 'u32', value });
const f32 = (value: number): GgufValue => ({ type: 'f32', value });
const str = (value: string): GgufValue => ({ type: 'string', value });
const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;

// ---------------------------------------------------------------------------------------------
// Writing

/** Bytes of the header, appended piece by piece. */
class HeaderBytes {
  private readonly chunks: Buffer[] = [];
  length = 0;

  private push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }

  number(type: NumberType, v: number): void {
    const b = Buffer.alloc(NUMBER_BYTES[type]);
    if (type === 'u8') b.writeUInt8(v);
    else if (type === 'i8') b.writeInt8(v);
    else if (type === 'u16') b.writeUInt16LE(v);
    else if (type === 'i16') b.writeInt16LE(v);
    else if (type === 'u32') b.writeUInt32LE(v);
    else if (type === 'i32') b.writeInt32LE(v);
    else if (type === 'f32') b.writeFloatLE(v);
    else if (type === 'f64') b.writeDoubleLE(v);
    else if (type === 'u64') b.writeBigUInt64LE(BigInt(v));
    else b.writeBigInt64LE(BigInt(v));
    this.push(b);
  }

  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.number('u64', bytes.length);
    this.push(bytes);
  }

  scalar(type: ScalarType, v: number | boolean | string): void {
    if (type === 'string') this.string(v as string);
    else if (type === 'bool') this.number('u8', v ? 1 : 0);
    else this.number(type, v as number);
  }

  value(v: GgufValue): void {
    this.number('u32', TYPE_CODES[v.type]);
    if (v.type !== 'array') return this.scalar(v.type, v.value);
    this.number('u32', TYPE_CODES[v.itemType]);
    this.number('u64', v.value.length);
    for (const item of v.value) this.scalar(v.itemType, item);
  }

  padTo(alignment: number): void {
    this.push(Buffer.alloc(alignUp(this.length, alignment) - this.length));
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/**
 * Write a GGUF file: `metadata` (general.alignment set to 32 unless given) and `tensors` as F32. Written to a temp file
 * beside `file`, fsynced, then renamed over it (a reader never sees half a file). Returns the file's size in bytes.
 */
export async function writeGguf(file: string, metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Promise<number> {
  const meta = new Map(metadata);
  if (!meta.has('general.alignment')) meta.set('general.alignment', u32(ALIGNMENT));
  const alignValue = meta.get('general.alignment')!;
  const alignment = alignValue.type === 'u32' ? alignValue.value : NaN;
  if (!(Number.isInteger(alignment) && alignment > 0 && alignment % 8 === 0)) throw new Error(`writeGguf(${file}): general.alignment must be a u32 multiple of 8`);
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`writeGguf(${file}): tensor ${t.name} given twice`);
    names.add(t.name);
    if (t.shape.reduce((a, b) => a * b, 1) !== t.data.length) throw new Error(`writeGguf(${file}): tensor ${t.name} has ${t.data.length} values for shape [${t.shape.join(', ')}]`);
    if (t.type === 'Q8_0' && t.shape[t.shape.length - 1] % Q8_0_BLOCK !== 0) throw new Error(`writeGguf(${file}): tensor ${t.name} [${t.shape.join(', ')}]: Q8_0 needs rows of a multiple of ${Q8_0_BLOCK}`);
  }

  const h = new HeaderBytes();
  h.number('u32', MAGIC);
  h.number('u32', VERSION);
  h.number('u64', tensors.length);
  h.number('u64', meta.size);
  for (const [key, v] of meta) {
    h.string(key);
    h.value(v);
  }
  const offsets: number[] = [];
  const sizes = tensors.map((t) => ((t.type ?? 'F32') === 'Q8_0' ? (t.data.length / Q8_0_BLOCK) * Q8_0_BYTES : t.data.byteLength));
  let end = 0;
  for (const [k, t] of tensors.entries()) {
    const offset = alignUp(end, alignment);
    offsets.push(offset);
    end = offset + sizes[k];
    h.string(t.name);
    h.number('u32', t.shape.length);
    for (const d of [...t.shape].reverse()) h.number('u64', d); // ne[0] is the last (fastest) row-major dimension
    h.number('u32', GGML_TYPE[t.type ?? 'F32']);
    h.number('u64', offset);
  }
  h.padTo(alignment);
  const header = h.bytes();

  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.write(header, 0, header.length, 0);
    for (const [k, t] of tensors.entries()) {
      const bytes = tensorBytes(t);
      for (let at = 0; at < bytes.length; at += 1 << 30) {
        const piece = bytes.subarray(at, at + (1 << 30)); // one write() stays below the 2 GiB limit
        await fh.write(piece, 0, piece.length, header.length + offsets[k] + at);
      }
    }
    const size = header.length + alignUp(end, alignment);
    await fh.truncate(size); // the last tensor's padding
    await fh.sync();
    await fh.close();
    await fs.rename(tmp, file);
    return size;
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Sequential reads from a file handle through a buffer that grows as the header is parsed. */
class HeaderReader {
  private buf = Buffer.alloc(0);
  private pos = 0; // into buf
  private fileAt = 0; // file offset of buf[0]

  constructor(
    private readonly fh: fs.FileHandle,
    private readonly file: string,
    private readonly size: number,
  ) {}

  get offset(): number {
    return this.fileAt + this.pos;
  }

  private async need(n: number): Promise<void> {
    if (this.pos + n <= this.buf.length) return;
    if (this.offset + n > this.size) throw new Error(`${this.file}: GGUF header runs past the end of the file (${this.size} bytes; truncated?)`);
    const rest = this.buf.subarray(this.pos);
    const more = Buffer.alloc(Math.min(Math.max(n - rest.length, 1 << 20), this.size - this.offset - rest.length));
    await this.fh.read(more, 0, more.length, this.offset + rest.length);
    this.fileAt = this.offset;
    this.buf = Buffer.concat([rest, more]);
    this.pos = 0;
  }

  async number(type: NumberType): Promise<number> {
    const n = NUMBER_BYTES[type];
    await this.need(n);
    const b = this.buf;
    const p = this.pos;
    this.pos += n;
    if (type === 'u8') return b.readUInt8(p);
    if (type === 'i8') return b.readInt8(p);
    if (type === 'u16') return b.readUInt16LE(p);
    if (type === 'i16') return b.readInt16LE(p);
    if (type === 'u32') return b.readUInt32LE(p);
    if (type === 'i32') return b.readInt32LE(p);
    if (type === 'f32') return b.readFloatLE(p);
    if (type === 'f64') return b.readDoubleLE(p);
    const big = type === 'u64' ? b.readBigUInt64LE(p) : b.readBigInt64LE(p);
    if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.file}: a 64-bit value at byte ${p + this.fileAt} is too large`);
    return Number(big);
  }

  async string(): Promise<string> {
    const n = await this.number('u64');
    await this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  async scalar(type: ScalarType): Promise<number | boolean | string> {
    if (type === 'string') return this.string();
    if (type === 'bool') return (await this.number('u8')) !== 0;
    return this.number(type);
  }

  async typeName(where: string): Promise<keyof typeof TYPE_CODES> {
    const code = await this.number('u32');
    const name = TYPE_NAMES[code];
    if (name === undefined) throw new Error(`${this.file}: ${where} has unknown value type ${code}`);
    return name;
  }

  async value(key: string): Promise<GgufValue> {
    const type = await this.typeName(`metadata ${key}`);
    if (type !== 'array') return { type, value: await this.scalar(type) } as GgufValue;
    const itemType = await this.typeName(`metadata ${key}'s items`);
    if (itemType === 'array') throw new Error(`${this.file}: metadata ${key} is an array of arrays (not read here)`);
    const n = await this.number('u64');
    const value: (number | boolean | string)[] = [];
    for (let i = 0; i < n; i++) value.push(await this.scalar(itemType));
    return { type: 'array', itemType, value };
  }
}

/** Parse the header of a GGUF file: its metadata and tensor table (no tensor data is read). */
export async function readGgufHeader(file: string): Promise<GgufHeader> {
  const fh = await fs.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const r = new HeaderReader(fh, file, size);
    if ((await r.number('u32')) !== MAGIC) throw new Error(`${file}: not a GGUF file (no GGUF magic)`);
    const version = await r.number('u32');
    if (version !== VERSION) throw new Error(`${file}: GGUF version ${version}, expected ${VERSION}`);
    const tensorCount = await r.number('u64');
    const metaCount = await r.number('u64');
    const metadata = new Map<string, GgufValue>();
    for (let i = 0; i < metaCount; i++) {
      const key = await r.string();
      metadata.set(key, await r.value(key));
    }
    const align = metadata.get('general.alignment');
    const alignment = align === undefined ? ALIGNMENT : align.type === 'u32' ? align.value : NaN;
    if (!(alignment > 0)) throw new Error(`${file}: general.alignment must be a positive u32`);
    const table: { name: string; shape: number[]; type: number; offset: number }[] = [];
    for (let i = 0; i < tensorCount; i++) {
      const name = await r.string();
      const dims = await r.number('u32');
      const ne: number[] = [];
      for (let d = 0; d < dims; d++) ne.push(await r.number('u64'));
      table.push({ name, shape: ne.reverse(), type: await r.number('u32'), offset: await r.number('u64') });
    }
    const dataStart = alignUp(r.offset, alignment);
    const tensors = new Map<string, GgufTensorInfo>();
    for (const t of table) {
      if (t.offset % alignment !== 0) throw new Error(`${file}: tensor ${t.name} at offset ${t.offset} is not aligned to ${alignment}`);
      tensors.set(t.name, { shape: t.shape, type: t.type, offset: dataStart + t.offset });
    }
    return { version, metadata, tensors, alignment };
  } finally {
    await fh.close();
  }
}

/** The values of an F32 or Q8_0 tensor of a GGUF file (row-major in `info.shape`). */
export async function readGgufTensor(file: string, name: string, info: GgufTensorInfo): Promise<Float32Array> {
  if (info.type !== GGML_TYPE.F32 && info.type !== GGML_TYPE.Q8_0) throw new Error(`${file}: tensor ${name} has ggml type ${info.type}; only F32 (0) and Q8_0 (8) are read here`);
  const n = info.shape.reduce((a, b) => a * b, 1);
  const bytes = Buffer.alloc(info.type === GGML_TYPE.F32 ? n * 4 : (n / Q8_0_BLOCK) * Q8_0_BYTES);
  const fh = await fs.open(file, 'r');
  try {
    const { bytesRead } = await fh.read(bytes, 0, bytes.length, info.offset);
    if (bytesRead !== bytes.length) throw new Error(`${file}: tensor ${name} runs past the end of the file`);
  } finally {
    await fh.close();
  }
  return info.type === GGML_TYPE.F32 ? new Float32Array(bytes.buffer, bytes.byteOffset, n).slice() : dequantizeQ8_0(bytes, n);
}

// ---------------------------------------------------------------------------------------------
// Qwen2 checkpoints and PEFT adapters

/** llama.cpp's name of a layer tensor of a Qwen2 model, by its Hugging Face name after `model.layers.N.`. */
const LAYER_TENSORS: Record<string, string> = {
  'input_layernorm.weight': 'attn_norm.weight',
  'self_attn.q_proj.weight': 'attn_q.weight',
  'self_attn.q_proj.bias': 'attn_q.bias',
  'self_attn.k_proj.weight': 'attn_k.weight',
  'self_attn.k_proj.bias': 'attn_k.bias',
  'self_attn.v_proj.weight': 'attn_v.weight',
  'self_attn.v_proj.bias': 'attn_v.bias',
  'self_attn.o_proj.weight': 'attn_output.weight',
  'post_attention_layernorm.weight': 'ffn_norm.weight',
  'mlp.gate_proj.weight': 'ffn_gate.weight',
  'mlp.up_proj.weight': 'ffn_up.weight',
  'mlp.down_proj.weight': 'ffn_down.weight',
};

/** llama.cpp's name of a Qwen2 causal LM tensor given its Hugging Face name, or null for tensors it has none for (a value head). */
function ggufName(hfName: string): string | null {
  if (hfName === 'model.embed_tokens.weight') return 'token_embd.weight';
  if (hfName === 'model.norm.weight') return 'output_norm.weight';
  if (hfName === 'lm_head.weight') return 'output.weight';
  const m = /^model\.layers\.(\d+)\.(.+)$/.exec(hfName);
  const rest = m ? LAYER_TENSORS[m[2]] : undefined;
  return rest ? `blk.${m![1]}.${rest}` : null;
}

const TOKEN_NORMAL = 1;
const TOKEN_CONTROL = 3;
const TOKEN_USER_DEFINED = 4;
const TOKEN_UNUSED = 5;

interface TokenizerJson {
  model?: { type?: string; vocab?: Record<string, number>; merges?: (string | [string, string])[] };
  added_tokens?: { id: number; content: string; special?: boolean }[];
}

async function readJson(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new Error(`${file}: not found (${what})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

/** The id of a special token named in tokenizer_config.json (a string, or {content}), or undefined. */
function specialId(tokens: readonly string[], entry: unknown): number | undefined {
  const content = typeof entry === 'string' ? entry : (entry as { content?: unknown } | null)?.content;
  if (typeof content !== 'string') return undefined;
  const id = tokens.indexOf(content);
  return id >= 0 ? id : undefined;
}

/** tokenizer.ggml.* from the folder's tokenizer.json (and tokenizer_config.json for a pad token the config lacks). */
async function tokenizerMetadata(dir: string, config: Qwen2Config): Promise<[string, GgufValue][]> {
  const file = path.join(dir, 'tokenizer.json');
  const json = (await readJson(file, 'the GGUF carries the tokenizer: copy tokenizer.json beside the weights')) as TokenizerJson;
  if (json.model?.type !== 'BPE' || !json.model.vocab || !json.model.merges) throw new Error(`${file}: expected a BPE tokenizer with model.vocab and model.merges (Qwen2's)`);
  const V = config.vocab_size;
  const tokens: string[] = new Array(V);
  const types = new Array<number>(V).fill(TOKEN_UNUSED);
  const place = (id: number, content: string, type: number) => {
    if (!(Number.isInteger(id) && id >= 0 && id < V)) throw new Error(`${file}: token ${JSON.stringify(content)} has id ${id}, outside the model's vocab_size ${V}`);
    tokens[id] = content;
    types[id] = type;
  };
  for (const [content, id] of Object.entries(json.model.vocab)) place(id, content, TOKEN_NORMAL);
  // Special tokens, and added ones that look special (<|...|>), are control tokens, as convert_hf_to_gguf.py has it.
  for (const t of json.added_tokens ?? []) place(t.id, t.content, t.special || /^<\|.*\|>$/.test(t.content) ? TOKEN_CONTROL : TOKEN_USER_DEFINED);
  for (let id = 0; id < V; id++) tokens[id] ??= `[PAD${id}]`; // rows past the tokenizer's tokens
  const merges = json.model.merges.map((m) => (typeof m === 'string' ? m : m.join(' ')));

  const eos = Array.isArray(config.eos_token_id) ? config.eos_token_id[0] : config.eos_token_id;
  let pad = typeof config.pad_token_id === 'number' ? config.pad_token_id : undefined;
  if (pad === undefined) {
    const tc = path.join(dir, 'tokenizer_config.json');
    const exists = await fs.access(tc).then(() => true, () => false);
    if (exists) pad = specialId(tokens, ((await readJson(tc, 'tokenizer settings')) as { pad_token?: unknown }).pad_token);
  }
  const ids: [string, number | null | undefined][] = [
    ['tokenizer.ggml.bos_token_id', config.bos_token_id],
    ['tokenizer.ggml.eos_token_id', eos],
    ['tokenizer.ggml.padding_token_id', pad],
  ];
  return [
    ['tokenizer.ggml.model', str('gpt2')],
    ['tokenizer.ggml.pre', str('qwen2')],
    ['tokenizer.ggml.tokens', { type: 'array', itemType: 'string', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', itemType: 'i32', value: types }],
    ['tokenizer.ggml.merges', { type: 'array', itemType: 'string', value: merges }],
    ...ids.flatMap(([key, id]): [string, GgufValue][] => (typeof id === 'number' ? [[key, u32(id)]] : [])),
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
  ];
}

/**
 * Export the causal LM in `dir` (a Hugging Face checkpoint folder, bf16 or f32 safetensors, or a LoRA adapter folder:
 * its base with the adapter folded in) to `out` as a GGUF that llama.cpp loads, the tokenizer included: every tensor
 * F32, or with `weightType` Q8_0 the matrices in Q8_0 (a quarter of the bytes; the norms and biases stay F32).
 */
export async function exportModelGguf(dir: string, out: string, weightType: GgufWeightType = 'F32'): Promise<GgufExport> {
  const { config, weights } = await loadMergedWeights(dir);
  if (isSequenceClassifier(config)) throw new Error(`${dir}: a sequence classifier (reward model); only a causal LM runs in llama.cpp`);
  const tensors: GgufTensor[] = [];
  for (const [name, t] of weights) {
    const g = ggufName(name);
    // [V, D] -> ne [D, V], [out, in] -> ne [in, out]
    if (g) tensors.push({ name: g, shape: t.shape, data: t.data, type: weightType === 'Q8_0' && t.shape.length === 2 && t.shape[1] % Q8_0_BLOCK === 0 ? 'Q8_0' : 'F32' });
  }
  const hd = headDim(config);
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', str('qwen2')],
    ['general.type', str('model')],
    ['general.name', str(path.basename(path.resolve(dir)))],
    ['general.file_type', u32(weightType === 'Q8_0' ? 7 : 0)], // llama.cpp's ftype: ALL_F32 or MOSTLY_Q8_0
    ['general.alignment', u32(ALIGNMENT)],
    ['qwen2.context_length', u32(config.max_position_embeddings)],
    ['qwen2.embedding_length', u32(config.hidden_size)],
    ['qwen2.block_count', u32(config.num_hidden_layers)],
    ['qwen2.feed_forward_length', u32(config.intermediate_size)],
    ['qwen2.attention.head_count', u32(config.num_attention_heads)],
    ['qwen2.attention.head_count_kv', u32(config.num_key_value_heads)],
    ['qwen2.attention.key_length', u32(hd)],
    ['qwen2.attention.value_length', u32(hd)],
    ['qwen2.rope.freq_base', f32(config.rope_theta)],
    ['qwen2.attention.layer_norm_rms_epsilon', f32(config.rms_norm_eps)],
    ...(await tokenizerMetadata(dir, config)),
  ]);
  return { file: out, kind: 'model', tensors: tensors.length, bytes: await writeGguf(out, metadata, tensors) };
}

/** The config of an adapter's base where its folder is here, else null (llama.cpp checks the shapes on loading anyway). */
function baseConfigOf(adapterDir: string): Qwen2Config | null {
  try {
    return modelConfigOf(adapterDir);
  } catch {
    return null;
  }
}

/**
 * Export the PEFT LoRA adapter in `dir` (adapter_config.json + adapter_model.safetensors, as libs/model's lora.ts
 * writes them) to `out` as a LoRA GGUF for llama.cpp, applied on a GGUF export of the adapter's base.
 */
export async function exportLoraGguf(dir: string, out: string): Promise<GgufExport> {
  const a = await readAdapter(dir);
  const where = path.join(dir, 'adapter_model.safetensors');
  if (a.taskType === 'SEQ_CLS') throw new Error(`${dir}: a reward model's adapter (task_type SEQ_CLS); only a causal LM's adapter runs in llama.cpp`);
  const base = baseConfigOf(dir);
  const expected = base ? expectedParameterShapes(base) : null;
  const tensors: GgufTensor[] = [];
  for (const [name, t] of a.tensors) {
    const m = /^base_model\.model\.(.+)\.lora_([AB])\.weight$/.exec(name);
    const g = m ? ggufName(`${m[1]}.weight`) : null;
    if (!m || !g) throw new Error(`${where}: tensor ${name} is not a LoRA matrix of a Qwen2 projection`);
    const w = expected?.get(`${m[1]}.weight`);
    const [rows, cols] = t.shape;
    if (w && (m[2] === 'A' ? cols !== w[1] || rows !== a.config.r : rows !== w[0] || cols !== a.config.r)) {
      throw new Error(`${where}: ${name} has shape [${t.shape.join(', ')}], which does not fit the base's [${w.join(', ')}] at rank ${a.config.r}`);
    }
    tensors.push({ name: `${g}.lora_${m[2].toLowerCase()}`, shape: t.shape, data: t.data }); // A [r, in] -> ne [in, r]; B [out, r] -> ne [r, out]
  }
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', str('qwen2')],
    ['general.type', str('adapter')],
    ['general.name', str(path.basename(path.resolve(dir)))],
    ['general.alignment', u32(ALIGNMENT)],
    ['adapter.type', str('lora')],
    ['adapter.lora.alpha', f32(a.config.alpha)],
  ]);
  return { file: out, kind: 'lora', tensors: tensors.length, bytes: await writeGguf(out, metadata, tensors) };
}
