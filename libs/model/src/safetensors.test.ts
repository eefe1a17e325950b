import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  HostTensor,
  f32BitsToBf16Bits,
  f32BitsToF16Bits,
  readSafetensors,
  readSafetensorsHeader,
  writeSafetensors,
} from './safetensors';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'safetensors-test-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const f32FromBits = (bits: number[]): Float32Array => new Float32Array(new Uint32Array(bits).buffer);
const bitsOf = (a: Float32Array): number[] => [...new Uint32Array(a.buffer, a.byteOffset, a.length)];

/** A safetensors file built by hand (independent of writeSafetensors): header object + data bytes. */
function rawFile(name: string, header: object, data: Uint8Array, headerLen?: number): string {
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(headerLen ?? json.length));
  const file = path.join(tmp, name);
  fs.writeFileSync(file, Buffer.concat([prefix, json, data]));
  return file;
}

/** Parse a file with plain Buffer/JSON code, to check what the writer produced byte by byte. */
function parseRaw(file: string): { headerLen: number; header: Record<string, any>; data: Buffer } {
  const b = fs.readFileSync(file);
  const headerLen = Number(b.readBigUInt64LE(0));
  return { headerLen, header: JSON.parse(b.subarray(8, 8 + headerLen).toString()), data: b.subarray(8 + headerLen) };
}

const u16Bytes = (v: number[]): Uint8Array => new Uint8Array(new Uint16Array(v).buffer);
const u16Of = (b: Buffer): number[] => [...new Uint16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length))];

describe('writeSafetensors + readSafetensors', () => {
  it('round-trips F32 bit-exactly, with sorted names, padded header and metadata', async () => {
    const special = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001, 0x00000001, 0x3eaaaaab];
    const tensors = new Map<string, HostTensor>([
      ['b.weight', { shape: [7], data: f32FromBits(special) }],
      ['a.weight', { shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) }],
      ['scalar', { shape: [], data: Float32Array.from([-2.5]) }],
      ['empty', { shape: [0, 4], data: new Float32Array(0) }],
      // a view with a byteOffset must be written from its own bytes only
      ['view', { shape: [2], data: Float32Array.from([9, 8, 7, 6]).subarray(1, 3) }],
    ]);
    const file = path.join(tmp, 'rt.safetensors');
    await writeSafetensors(file, tensors, { metadata: { format: 'pt', note: 'x' } });

    const raw = parseRaw(file);
    expect(raw.headerLen % 8).toBe(0);
    expect(Object.keys(raw.header)).toEqual(['__metadata__', 'a.weight', 'b.weight', 'empty', 'scalar', 'view']);
    expect(raw.header['a.weight']).toEqual({ dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] });
    expect(raw.header['b.weight'].data_offsets).toEqual([24, 52]);
    expect(raw.data.length).toBe(24 + 28 + 0 + 4 + 8);

    const header = await readSafetensorsHeader(file);
    expect(header.metadata).toEqual({ format: 'pt', note: 'x' });
    expect(header.dataStart).toBe(8 + raw.headerLen);
    const back = await readSafetensors(file);
    expect([...back.keys()].sort()).toEqual(['a.weight', 'b.weight', 'empty', 'scalar', 'view']);
    for (const [name, t] of tensors) {
      expect(back.get(name)!.shape).toEqual(t.shape);
      expect(bitsOf(back.get(name)!.data)).toEqual(bitsOf(t.data));
    }
    expect(fs.readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('reads only the requested tensors and names a missing one', async () => {
    const file = path.join(tmp, 'subset.safetensors');
    await writeSafetensors(file, new Map([
      ['x', { shape: [2], data: Float32Array.from([1, 2]) }],
      ['y', { shape: [1], data: Float32Array.from([3]) }],
    ]));
    const got = await readSafetensors(file, ['y']);
    expect([...got.keys()]).toEqual(['y']);
    expect([...got.get('y')!.data]).toEqual([3]);
    await expect(readSafetensors(file, ['z'])).rejects.toThrow(`${file}: no tensor named z`);
  });

  it('rounds to BF16 to nearest even (specials, ties, subnormals, overflow)', async () => {
    const cases: [number, number][] = [
      [0x3f800000, 0x3f80], // 1.0
      [0x3eaaaaab, 0x3eab], // 1/3: dropped bits 0xaaab > half -> up
      [0x80000000, 0x8000], // -0
      [0x7f800000, 0x7f80], // inf
      [0xff800000, 0xff80], // -inf
      [0x7fc00000, 0x7fc0], // NaN
      [0x7f800001, 0x7fc0], // NaN whose payload sits in the dropped bits stays NaN, not inf
      [0x00000001, 0x0000], // smallest subnormal -> 0
      [0x00008000, 0x0000], // subnormal tie, even -> down
      [0x00018000, 0x0002], // subnormal tie, odd -> up
      [0x3f808000, 0x3f80], // tie, even -> stays
      [0x3f818000, 0x3f82], // tie, odd -> up
      [0x3f80ffff, 0x3f81], // carry within the mantissa
      [0x7f7fffff, 0x7f80], // largest float32 rounds past bf16's largest finite -> inf
    ];
    for (const [f32, bf16] of cases) expect(f32BitsToBf16Bits(f32)).toBe(bf16);

    const file = path.join(tmp, 'bf16.safetensors');
    await writeSafetensors(file, new Map([['t', { shape: [cases.length], data: f32FromBits(cases.map((c) => c[0])) }]]), {
      dtype: 'BF16',
    });
    const raw = parseRaw(file);
    expect(raw.header.t).toEqual({ dtype: 'BF16', shape: [cases.length], data_offsets: [0, 2 * cases.length] });
    expect(u16Of(raw.data)).toEqual(cases.map((c) => c[1]));
    const back = await readSafetensors(file);
    expect(bitsOf(back.get('t')!.data)).toEqual(cases.map((c) => (c[1] << 16) >>> 0));
  });

  it('rounds to F16 to nearest even (values checked against numpy float16)', async () => {
    const cases: [number, number][] = [
      [1, 0x3c00],
      [-2, 0xc000],
      [65504, 0x7bff], // largest half
      [65520, 0x7c00], // halfway to the next power: ties to even = inf
      [1 / 3, 0x3555],
      [0.1, 0x2e66],
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // half of it: tie, even -> 0
      [1.5 * 2 ** -25, 0x0001],
      [1e-10, 0x0000],
      [-0, 0x8000],
      [Infinity, 0x7c00],
      [NaN, 0x7e00],
    ];
    for (const [v, h] of cases) expect(f32BitsToF16Bits(bitsOf(Float32Array.from([v]))[0])).toBe(h);

    const file = path.join(tmp, 'f16.safetensors');
    await writeSafetensors(file, new Map([['t', { shape: [cases.length], data: Float32Array.from(cases.map((c) => c[0])) }]]), {
      dtype: 'F16',
    });
    const raw = parseRaw(file);
    expect(raw.header.t.dtype).toBe('F16');
    expect(u16Of(raw.data)).toEqual(cases.map((c) => c[1]));
  });

  it('streams a tensor larger than the I/O chunk (64 MiB) and the 16-bit encode chunk', async () => {
    const n = 17 * 1024 * 1024 + 3; // 68 MiB in F32
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = (i % 1000) - 500.25;
    const f32 = path.join(tmp, 'big.safetensors');
    await writeSafetensors(f32, new Map([['big', { shape: [n], data }]]));
    expect(fs.statSync(f32).size).toBeGreaterThan(64 * 1024 * 1024);
    const back = (await readSafetensors(f32)).get('big')!.data;
    expect(back.length).toBe(n);
    expect(Buffer.compare(Buffer.from(back.buffer), Buffer.from(data.buffer))).toBe(0);
    fs.rmSync(f32);

    const small = data.subarray(0, (1 << 20) + 5);
    const bf16 = path.join(tmp, 'big-bf16.safetensors');
    await writeSafetensors(bf16, new Map([['big', { shape: [small.length], data: small }]]), { dtype: 'BF16' });
    const b = (await readSafetensors(bf16)).get('big')!.data;
    const expected = Uint32Array.from(bitsOf(small), (u) => (f32BitsToBf16Bits(u) << 16) >>> 0);
    expect(Buffer.compare(Buffer.from(b.buffer), Buffer.from(expected.buffer))).toBe(0);
  });

  it('rejects bad tensors before writing and keeps an existing file on failure', async () => {
    const file = path.join(tmp, 'keep.safetensors');
    await writeSafetensors(file, new Map([['x', { shape: [1], data: Float32Array.from([42]) }]]));
    const before = fs.readFileSync(file);
    await expect(
      writeSafetensors(file, new Map([['bad', { shape: [2, 2], data: new Float32Array(3) }]])),
    ).rejects.toThrow(`${file}: tensor bad has shape [2, 2] (4 values) but 3 values`);
    await expect(
      writeSafetensors(file, new Map([['x', { shape: [1], data: new Float32Array(1) }]]), { dtype: 'F64' as never }),
    ).rejects.toThrow('cannot write dtype F64');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('reading dtypes from hand-made files', () => {
  it('decodes F16 and BF16 bit patterns exactly', async () => {
    const f16 = [0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x7c00, 0xfc00, 0x7e00, 0x8000, 0x3555];
    const bf16 = [0x3f80, 0xc0a0, 0x7f80, 0x0001, 0x8000];
    const file = rawFile(
      'dtypes.safetensors',
      {
        h: { dtype: 'F16', shape: [2, 5], data_offsets: [0, 20] },
        b: { dtype: 'BF16', shape: [5], data_offsets: [20, 30] },
      },
      Buffer.concat([u16Bytes(f16), u16Bytes(bf16)]),
    );
    const t = await readSafetensors(file);
    expect(t.get('h')!.shape).toEqual([2, 5]);
    expect([...t.get('h')!.data]).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14, Infinity, -Infinity, NaN, -0, 0.333251953125]);
    expect(Object.is(t.get('h')!.data[8], -0)).toBe(true);
    expect([...t.get('b')!.data]).toEqual([1, -5, Infinity, 2 ** -133, -0]);
  });

  it('reads I32/I64 that float32 holds exactly and names a value it cannot', async () => {
    const i64 = new BigInt64Array([0n, -7n, 16777216n, 1n << 40n]);
    const file = rawFile(
      'ints.safetensors',
      {
        i: { dtype: 'I32', shape: [3], data_offsets: [0, 12] },
        l: { dtype: 'I64', shape: [4], data_offsets: [12, 44] },
        bad: { dtype: 'I64', shape: [1], data_offsets: [44, 52] },
      },
      Buffer.concat([
        new Uint8Array(new Int32Array([5, -3, 123456]).buffer),
        new Uint8Array(i64.buffer),
        new Uint8Array(new BigInt64Array([16777217n]).buffer),
      ]),
    );
    const t = await readSafetensors(file, ['i', 'l']);
    expect([...t.get('i')!.data]).toEqual([5, -3, 123456]);
    expect([...t.get('l')!.data]).toEqual([0, -7, 16777216, 2 ** 40]);
    await expect(readSafetensors(file, ['bad'])).rejects.toThrow(
      `${file}: tensor bad (I64) holds 16777217, which float32 cannot represent exactly`,
    );
  });

  it('rejects dtypes it cannot decode, naming tensor and file', async () => {
    const file = rawFile('f64.safetensors', { w: { dtype: 'F64', shape: [1], data_offsets: [0, 8] } }, Buffer.alloc(8));
    await expect(readSafetensors(file)).rejects.toThrow(`${file}: tensor w has dtype F64; only F32, F16, BF16, I32 and I64`);
  });
});

describe('header validation', () => {
  const ok = { w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } };

  it('names the file and the problem', async () => {
    const short = path.join(tmp, 'short.safetensors');
    fs.writeFileSync(short, Buffer.alloc(5));
    await expect(readSafetensorsHeader(short)).rejects.toThrow(`${short}: 5 bytes is too short for a safetensors file`);

    const longLen = rawFile('longlen.safetensors', ok, Buffer.alloc(8), 1e9);
    await expect(readSafetensorsHeader(longLen)).rejects.toThrow(`${longLen}: bad header length 1000000000 (file has`);

    const notJson = path.join(tmp, 'notjson.safetensors');
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(4n);
    fs.writeFileSync(notJson, Buffer.concat([prefix, Buffer.from('{"a"')]));
    await expect(readSafetensorsHeader(notJson)).rejects.toThrow(`${notJson}: header is not valid JSON`);

    const mismatch = rawFile('mismatch.safetensors', { w: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 20] } }, Buffer.alloc(24));
    await expect(readSafetensorsHeader(mismatch)).rejects.toThrow(
      `${mismatch}: tensor w: shape [2, 3] F32 needs 24 bytes but data_offsets span 20`,
    );

    const past = rawFile('past.safetensors', { w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, Buffer.alloc(12));
    await expect(readSafetensorsHeader(past)).rejects.toThrow(
      `${past}: tensor w data_offsets [0, 16] run past the end of the data (12 bytes; file truncated?)`,
    );

    const overlap = rawFile(
      'overlap.safetensors',
      { a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } },
      Buffer.alloc(12),
    );
    await expect(readSafetensorsHeader(overlap)).rejects.toThrow(`${overlap}: data of tensors a and b overlap`);

    const dtype = rawFile('dtype.safetensors', { w: { dtype: 'F128', shape: [1], data_offsets: [0, 16] } }, Buffer.alloc(16));
    await expect(readSafetensorsHeader(dtype)).rejects.toThrow(`${dtype}: tensor w: unknown dtype "F128"`);

    const shape = rawFile('shape.safetensors', { w: { dtype: 'F32', shape: [-1], data_offsets: [0, 4] } }, Buffer.alloc(4));
    await expect(readSafetensorsHeader(shape)).rejects.toThrow(`${shape}: tensor w: shape must be an array of non-negative integers`);

    const meta = rawFile('meta.safetensors', { __metadata__: { n: 1 }, ...ok }, Buffer.alloc(8));
    await expect(readSafetensorsHeader(meta)).rejects.toThrow(`${meta}: __metadata__.n must be a string, got 1`);
  });

  it('detects a truncated file written by writeSafetensors', async () => {
    const file = path.join(tmp, 'trunc.safetensors');
    await writeSafetensors(file, new Map([
      ['a', { shape: [4], data: new Float32Array(4) }],
      ['b', { shape: [4], data: new Float32Array(4) }],
    ]));
    fs.truncateSync(file, fs.statSync(file).size - 4);
    await expect(readSafetensors(file)).rejects.toThrow(`${file}: tensor b data_offsets [16, 32] run past the end of the data (28 bytes`);
  });
});
