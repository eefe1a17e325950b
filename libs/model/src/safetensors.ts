// Read and write the safetensors format (the weight format of Hugging Face checkpoints).
//
// Layout of a file:
//   [u64 little-endian N] [N bytes of JSON header] [data]
// The header maps tensor names to {dtype, shape, data_offsets: [begin, end]}, offsets counted in
// bytes from the start of the data section; an optional "__metadata__" entry holds string -> string.
// Tensors are stored row-major, little-endian, and need not be aligned, so every read copies.
//
// Reading uses positioned reads on a file handle, one tensor at a time, so multi-GB shards never
// have to fit in memory at once. F32/F16/BF16 (and exactly representable I32/I64) decode to
// Float32Array. Writing streams tensor after tensor into a temp file in the same folder, fsyncs it,
// then renames it over the target: readers see the old file or the new one, never half of one.
// No tfjs here: plain typed arrays, so the model code converts to tensors however it wants.
import { randomBytes } from 'crypto';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { f32BitsToBf16Bits } from '@rlhf-code/backend';

/** A tensor on the host: row-major values, `data.length === product(shape)`. */
export type HostTensor = { shape: number[]; data: Float32Array };

/** One header entry: dtype as written in the file, shape, byte range relative to `dataStart`. */
export type TensorEntry = { dtype: string; shape: number[]; dataOffsets: [number, number] };

export type SafetensorsHeader = {
  tensors: Map<string, TensorEntry>;
  metadata: Record<string, string>;
  /** Absolute file offset of the data section (8 + header length). */
  dataStart: number;
};

export type WriteDtype = 'F32' | 'BF16' | 'F16';

export type WriteSafetensorsOptions = {
  dtype?: WriteDtype; // default F32 (bit-exact)
  metadata?: Record<string, string>; // Hugging Face expects {format: 'pt'} in model files
};

// Bytes per element of every dtype the format defines, so any valid header can be checked.
const DTYPE_BYTES: Record<string, number> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1,
  I16: 2, U16: 2, F16: 2, BF16: 2,
  I32: 4, U32: 4, F32: 4,
  I64: 8, U64: 8, F64: 8,
};
const MAX_HEADER_BYTES = 100 * 1024 * 1024; // the reference implementation's limit
const IO_CHUNK_BYTES = 64 * 1024 * 1024; // one read()/write() call stays far below the 2 GiB limit
const ENCODE_CHUNK = 1 << 20; // elements converted per write when narrowing to 16 bits

// Typed arrays share the host byte order; the file is little-endian.
if (os.endianness() !== 'LE') throw new Error('safetensors.ts assumes a little-endian host');

const numel = (shape: number[]): number => shape.reduce((a, b) => a * b, 1);
const fmtShape = (shape: number[]): string => `[${shape.join(', ')}]`;

// ---------------------------------------------------------------------------------------------
// Reading

/** Parse and validate the header of `file` (reads only its first 8 + N bytes). */
export async function readSafetensorsHeader(file: string): Promise<SafetensorsHeader> {
  const fh = await fs.open(file, 'r');
  try {
    return await readHeader(fh, file);
  } finally {
    await fh.close();
  }
}

async function readHeader(fh: fs.FileHandle, file: string): Promise<SafetensorsHeader> {
  const fileSize = (await fh.stat()).size;
  if (fileSize < 8) throw new Error(`${file}: ${fileSize} bytes is too short for a safetensors file`);
  const lenBuf = Buffer.alloc(8);
  await readExactly(fh, lenBuf, 0, file, 'header length');
  const headerLen = lenBuf.readBigUInt64LE(0);
  if (headerLen > BigInt(Math.min(MAX_HEADER_BYTES, fileSize - 8))) {
    throw new Error(`${file}: bad header length ${headerLen} (file has ${fileSize} bytes; limit ${MAX_HEADER_BYTES})`);
  }
  const n = Number(headerLen);
  const headerBuf = Buffer.alloc(n);
  await readExactly(fh, headerBuf, 8, file, 'header');
  let json: unknown;
  try {
    json = JSON.parse(headerBuf.toString('utf8'));
  } catch (e) {
    throw new Error(`${file}: header is not valid JSON (${(e as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`${file}: header must be a JSON object`);
  }
  const dataStart = 8 + n;
  const dataSize = fileSize - dataStart;
  const tensors = new Map<string, TensorEntry>();
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(json)) {
    if (name === '__metadata__') {
      metadata = parseMetadata(value, file);
      continue;
    }
    const entry = parseEntry(name, value, file);
    const [begin, end] = entry.dataOffsets;
    if (end > dataSize) {
      throw new Error(
        `${file}: tensor ${name} data_offsets [${begin}, ${end}] run past the end of the data ` +
          `(${dataSize} bytes; file truncated?)`,
      );
    }
    tensors.set(name, entry);
  }
  // Overlapping ranges mean a corrupt header (two tensors would share bytes).
  const byBegin = [...tensors].sort((a, b) => a[1].dataOffsets[0] - b[1].dataOffsets[0]);
  for (let i = 1; i < byBegin.length; i++) {
    const [prevName, prev] = byBegin[i - 1];
    const [name, cur] = byBegin[i];
    if (cur.dataOffsets[0] < prev.dataOffsets[1]) {
      throw new Error(`${file}: data of tensors ${prevName} and ${name} overlap`);
    }
  }
  return { tensors, metadata, dataStart };
}

function parseMetadata(value: unknown, file: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${file}: __metadata__ must be an object of strings`);
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new Error(`${file}: __metadata__.${k} must be a string, got ${JSON.stringify(v)}`);
  }
  return value as Record<string, string>;
}

function parseEntry(name: string, value: unknown, file: string): TensorEntry {
  const where = `${file}: tensor ${name}`;
  if (typeof value !== 'object' || value === null) throw new Error(`${where}: header entry must be an object`);
  const { dtype, shape, data_offsets } = value as Record<string, unknown>;
  if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES)) {
    throw new Error(`${where}: unknown dtype ${JSON.stringify(dtype)}`);
  }
  const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!Array.isArray(shape) || !shape.every(isCount)) {
    throw new Error(`${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  if (!Array.isArray(data_offsets) || data_offsets.length !== 2 || !data_offsets.every(isCount)) {
    throw new Error(`${where}: data_offsets must be [begin, end], got ${JSON.stringify(data_offsets)}`);
  }
  const [begin, end] = data_offsets as [number, number];
  if (end < begin) throw new Error(`${where}: data_offsets [${begin}, ${end}] end before they begin`);
  const expected = numel(shape) * DTYPE_BYTES[dtype];
  if (end - begin !== expected) {
    throw new Error(
      `${where}: shape ${fmtShape(shape)} ${dtype} needs ${expected} bytes but data_offsets span ${end - begin}`,
    );
  }
  return { dtype, shape: shape as number[], dataOffsets: [begin, end] };
}

/**
 * Read tensors of `file` (all of them, or only `names`) as Float32Array.
 * F32 is copied as is, BF16/F16 are widened exactly, I32/I64 (e.g. stored position ids) are
 * converted when every value is exactly representable in float32, other dtypes are rejected.
 */
export async function readSafetensors(file: string, names?: Iterable<string>): Promise<Map<string, HostTensor>> {
  const fh = await fs.open(file, 'r');
  try {
    const header = await readHeader(fh, file);
    const wanted = names ? [...names] : [...header.tensors.keys()];
    const out = new Map<string, HostTensor>();
    for (const name of wanted) {
      const entry = header.tensors.get(name);
      if (!entry) throw new Error(`${file}: no tensor named ${name}`);
      out.set(name, { shape: [...entry.shape], data: await readTensorData(fh, file, name, entry, header.dataStart) });
    }
    return out;
  } finally {
    await fh.close();
  }
}

async function readTensorData(
  fh: fs.FileHandle,
  file: string,
  name: string,
  entry: TensorEntry,
  dataStart: number,
): Promise<Float32Array> {
  const n = numel(entry.shape);
  const pos = dataStart + entry.dataOffsets[0];
  const what = `tensor ${name}`;
  switch (entry.dtype) {
    case 'F32': {
      const out = new Float32Array(n);
      await readExactly(fh, new Uint8Array(out.buffer), pos, file, what);
      return out;
    }
    case 'BF16': {
      // bfloat16 is the top half of a float32: shift the 16 bits into place.
      const raw = new Uint16Array(n);
      await readExactly(fh, new Uint8Array(raw.buffer), pos, file, what);
      const out = new Float32Array(n);
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) bits[i] = raw[i] << 16;
      return out;
    }
    case 'F16': {
      const raw = new Uint16Array(n);
      await readExactly(fh, new Uint8Array(raw.buffer), pos, file, what);
      const table = f16Table();
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = table[raw[i]];
      return out;
    }
    case 'I32': {
      const raw = new Int32Array(n);
      await readExactly(fh, new Uint8Array(raw.buffer), pos, file, what);
      const out = Float32Array.from(raw);
      const bad = out.findIndex((v, i) => v !== raw[i]);
      if (bad >= 0) throw notExact(file, name, entry.dtype, raw[bad]);
      return out;
    }
    case 'I64': {
      const raw = new BigInt64Array(n);
      await readExactly(fh, new Uint8Array(raw.buffer), pos, file, what);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        out[i] = Number(raw[i]);
        if (BigInt(out[i]) !== raw[i]) throw notExact(file, name, entry.dtype, raw[i]);
      }
      return out;
    }
    default:
      throw new Error(`${file}: tensor ${name} has dtype ${entry.dtype}; only F32, F16, BF16, I32 and I64 can be read`);
  }
}

const notExact = (file: string, name: string, dtype: string, v: number | bigint): Error =>
  new Error(`${file}: tensor ${name} (${dtype}) holds ${v}, which float32 cannot represent exactly`);

/** Fill `buf` from file position `pos`, in chunks, failing clearly if the file ends early. */
async function readExactly(fh: fs.FileHandle, buf: Uint8Array, pos: number, file: string, what: string): Promise<void> {
  let done = 0;
  while (done < buf.byteLength) {
    const len = Math.min(buf.byteLength - done, IO_CHUNK_BYTES);
    const { bytesRead } = await fh.read(buf, done, len, pos + done);
    if (bytesRead === 0) {
      throw new Error(`${file}: unexpected end of file reading ${what} (wanted ${buf.byteLength} bytes at offset ${pos})`);
    }
    done += bytesRead;
  }
}

// All 65536 half-precision values, decoded once.
let F16_TABLE: Float32Array | undefined;
function f16Table(): Float32Array {
  if (F16_TABLE) return F16_TABLE;
  F16_TABLE = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) F16_TABLE[h] = f16BitsToNumber(h);
  return F16_TABLE;
}

/** Decode IEEE half-precision bits: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
export function f16BitsToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24; // zero and subnormals
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

// ---------------------------------------------------------------------------------------------
// Writing

export { f32BitsToBf16Bits }; // the rounding the low-precision weights use too (@rlhf-code/backend)

/** float32 bits -> half-precision bits, rounding to nearest, ties to even; overflow -> inf. */
export function f32BitsToF16Bits(u: number): number {
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 | (mant >>> 13) : 0);
  const e = exp - 127 + 15; // half-precision biased exponent
  if (e >= 0x1f) return sign | 0x7c00;
  // Normal halves keep 10 of the 23 mantissa bits; subnormal ones (e <= 0) keep fewer, counting
  // the implicit leading 1. Rounding up may carry into the exponent, which is still correct.
  const full = e > 0 ? mant : mant | 0x800000;
  const shift = e > 0 ? 13 : 14 - e;
  if (shift > 24) return sign; // below half the smallest subnormal: rounds to zero
  const base = e > 0 ? (e << 10) | (full >>> shift) : full >>> shift;
  const rem = full & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  const roundUp = rem > halfway || (rem === halfway && (base & 1) === 1);
  return sign | (base + (roundUp ? 1 : 0));
}

/**
 * Write `tensors` to `file` atomically (temp file + fsync + rename). Names are sorted, the header is
 * padded with spaces to a multiple of 8 bytes, and data is streamed tensor by tensor.
 */
export async function writeSafetensors(
  file: string,
  tensors: Map<string, HostTensor>,
  opts: WriteSafetensorsOptions = {},
): Promise<void> {
  const dtype = opts.dtype ?? 'F32';
  if (!(dtype in ENCODERS)) throw new Error(`${file}: cannot write dtype ${dtype} (F32, BF16 or F16)`);
  const header = buildHeader(file, tensors, dtype, opts.metadata);
  await writeFileAtomic(file, async (fh) => {
    await writeAll(fh, header);
    for (const name of sortedNames(tensors)) await ENCODERS[dtype](fh, tensors.get(name)!.data);
  });
}

const sortedNames = (tensors: Map<string, HostTensor>): string[] =>
  [...tensors.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The 8-byte length prefix plus the padded JSON header, after checking every tensor. */
function buildHeader(
  file: string,
  tensors: Map<string, HostTensor>,
  dtype: WriteDtype,
  metadata: Record<string, string> | undefined,
): Buffer {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = parseMetadata(metadata, file);
  let offset = 0;
  for (const name of sortedNames(tensors)) {
    const { shape, data } = tensors.get(name)!;
    if (name === '' || name === '__metadata__') throw new Error(`${file}: invalid tensor name ${JSON.stringify(name)}`);
    if (!(data instanceof Float32Array)) throw new Error(`${file}: tensor ${name} data must be a Float32Array`);
    if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new Error(`${file}: tensor ${name} has invalid shape ${fmtShape(shape)}`);
    }
    if (numel(shape) !== data.length) {
      throw new Error(`${file}: tensor ${name} has shape ${fmtShape(shape)} (${numel(shape)} values) but ${data.length} values`);
    }
    const bytes = data.length * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Buffer.alloc(Math.ceil(json.length / 8) * 8, 0x20); // spaces keep it valid JSON
  json.copy(padded);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([prefix, padded]);
}

type Encoder = (fh: fs.FileHandle, data: Float32Array) => Promise<void>;

const ENCODERS: Record<WriteDtype, Encoder> = {
  // Raw bytes: bit-exact, including NaN payloads and -0.
  F32: (fh, data) => writeAll(fh, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)),
  BF16: (fh, data) => writeNarrowed(fh, data, f32BitsToBf16Bits),
  F16: (fh, data) => writeNarrowed(fh, data, f32BitsToF16Bits),
};

async function writeNarrowed(fh: fs.FileHandle, data: Float32Array, convert: (bits: number) => number): Promise<void> {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const chunk = new Uint16Array(Math.min(ENCODE_CHUNK, data.length));
  for (let start = 0; start < data.length; start += chunk.length) {
    const n = Math.min(chunk.length, data.length - start);
    for (let i = 0; i < n; i++) chunk[i] = convert(bits[start + i]);
    await writeAll(fh, new Uint8Array(chunk.buffer, 0, n * 2));
  }
}

async function writeAll(fh: fs.FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.byteLength; ) {
    const len = Math.min(bytes.byteLength - done, IO_CHUNK_BYTES);
    const { bytesWritten } = await fh.write(bytes, done, len);
    done += bytesWritten;
  }
}

// ---------------------------------------------------------------------------------------------
// Atomic files (shared with config.ts and checkpoint-folder.ts)

/** A fresh name for a temp sibling of `target`, hidden and unique to this process. */
export function tempSibling(target: string, tag: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${tag}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Create `file` through `write` into a temp file in the same folder, fsync, then rename over
 * `file` and fsync the folder, so a crash leaves either the old file or the complete new one.
 */
export async function writeFileAtomic(
  file: string,
  write: string | Uint8Array | ((fh: fs.FileHandle) => Promise<void>),
): Promise<void> {
  const tmp = tempSibling(file, 'tmp');
  const fh = await fs.open(tmp, 'wx');
  try {
    try {
      if (typeof write === 'function') await write(fh);
      else await writeAll(fh, typeof write === 'string' ? Buffer.from(write, 'utf8') : write);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(path.dirname(file));
}

/** Persist a folder's entries (a rename is durable only once its folder is synced). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(dir, 'r');
  } catch (e) {
    // Windows cannot open a folder for syncing; renames there are as durable as the OS makes them.
    if ((e as NodeJS.ErrnoException).code === 'EISDIR' || (e as NodeJS.ErrnoException).code === 'EPERM') return;
    throw e;
  }
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
