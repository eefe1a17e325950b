// The token cache: a tokenized corpus on disk as flat little-endian binary files that pretraining reads without
// re-tokenizing (prep:corpus writes it; `sft pretrain --cache` streams windows from it). One folder:
//   meta.json                 format, version, dtype, the tokenizer it was made with, per split {tokens, docs}, and a
//                             free-form `source` record (the manifest's hash, what each filter removed, ...)
//   <split>.tokens.bin        every document's token ids, concatenated in order (uint16 when the vocabulary fits)
//   <split>.offsets.bin       uint32 [docs + 1]: where each document starts; the last entry is the split's token count
//   <split>.docs.jsonl        one line per document: {path, package, tokens} (provenance, leak checks)
// The files are plain arrays so any tool (numpy.fromfile, mmap) reads them; here a split is read whole (a 100M-token
// split is 200 MB as uint16).
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

export const TOKEN_CACHE_FORMAT = 'rlhf-code-token-cache';
export const TOKEN_CACHE_VERSION = 1;

export type TokenDtype = 'uint16' | 'uint32';

export interface TokenCacheDoc {
  /** The document's path (e.g. "python3-numpy/usr/lib/python3/dist-packages/numpy/core/numeric.py"). */
  path: string;
  /** Where it came from (a Debian package name, "cpython-stdlib", ...). */
  package: string;
}

export interface TokenCacheMeta {
  format: typeof TOKEN_CACHE_FORMAT;
  version: number;
  dtype: TokenDtype;
  tokenizer: { dir: string; sha256: string; vocab_size: number };
  splits: Record<string, { tokens: number; docs: number }>;
  source: Record<string, unknown>;
}

/** One split in memory: the token ids and where each document starts (offsets[i]..offsets[i+1]). */
export interface TokenSplit {
  tokens: Uint16Array | Uint32Array;
  /** [docs + 1]; offsets[docs] === tokens.length. */
  offsets: Uint32Array;
}

export interface TokenCache {
  dir: string;
  meta: TokenCacheMeta;
  /** The split's arrays; an error naming the folder and the splits it has when `name` is not one of them. */
  split(name: string): TokenSplit;
}

const UINT32_MAX = 0xffffffff;

/**
 * Writes a token cache document by document, buffered, to `dir` (created; existing cache files are replaced).
 * `close` writes meta.json last, so a folder without meta.json is an interrupted write, never a readable cache.
 */
export class TokenCacheWriter {
  private readonly files = new Map<string, { tokens: number; offsets: number[]; fd: number; docsFd: number; pending: number[] }>();
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly opts: { dtype: TokenDtype; tokenizer: TokenCacheMeta['tokenizer'] },
  ) {
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(path.join(dir, 'meta.json'), { force: true });
  }

  /** Appends one document's ids to `split`. */
  add(split: string, ids: ArrayLike<number>, doc: TokenCacheDoc): void {
    if (this.closed) throw new Error(`token cache ${this.dir}: add after close`);
    if (!/^[a-z][a-z0-9_-]*$/.test(split)) throw new Error(`token cache: bad split name "${split}" (lower-case letters, digits, - and _)`);
    const max = this.opts.dtype === 'uint16' ? 0xffff : UINT32_MAX;
    let f = this.files.get(split);
    if (!f) {
      f = {
        tokens: 0,
        offsets: [0],
        fd: fs.openSync(path.join(this.dir, `${split}.tokens.bin`), 'w'),
        docsFd: fs.openSync(path.join(this.dir, `${split}.docs.jsonl`), 'w'),
        pending: [],
      };
      this.files.set(split, f);
    }
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0 || id > max) throw new Error(`token cache: id ${id} of ${doc.path} does not fit ${this.opts.dtype}`);
      f.pending.push(id);
    }
    if (f.tokens + ids.length > UINT32_MAX) throw new Error(`token cache: split ${split} passes 2^32 tokens`);
    f.tokens += ids.length;
    f.offsets.push(f.tokens);
    fs.writeSync(f.docsFd, JSON.stringify({ path: doc.path, package: doc.package, tokens: ids.length }) + '\n');
    if (f.pending.length >= 1 << 20) this.flush(f);
  }

  private flush(f: { fd: number; pending: number[] }): void {
    if (f.pending.length === 0) return;
    const arr = this.opts.dtype === 'uint16' ? Uint16Array.from(f.pending) : Uint32Array.from(f.pending);
    fs.writeSync(f.fd, Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength));
    f.pending = [];
  }

  /** Flushes every split, writes the offsets and meta.json; returns the meta. */
  close(source: Record<string, unknown> = {}): TokenCacheMeta {
    if (this.closed) throw new Error(`token cache ${this.dir}: closed twice`);
    this.closed = true;
    const splits: TokenCacheMeta['splits'] = {};
    for (const [name, f] of [...this.files.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      this.flush(f);
      fs.closeSync(f.fd);
      fs.closeSync(f.docsFd);
      const offsets = Uint32Array.from(f.offsets);
      fs.writeFileSync(path.join(this.dir, `${name}.offsets.bin`), Buffer.from(offsets.buffer));
      splits[name] = { tokens: f.tokens, docs: f.offsets.length - 1 };
    }
    const meta: TokenCacheMeta = { format: TOKEN_CACHE_FORMAT, version: TOKEN_CACHE_VERSION, dtype: this.opts.dtype, tokenizer: this.opts.tokenizer, splits, source };
    fs.writeFileSync(path.join(this.dir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
    return meta;
  }
}

/** The smallest dtype that holds ids below `vocabSize`. */
export const tokenDtypeFor = (vocabSize: number): TokenDtype => (vocabSize <= 0x10000 ? 'uint16' : 'uint32');

/** Opens a token cache folder; errors name the folder and what is wrong (no meta.json, other format, short file). */
export function openTokenCache(dir: string): TokenCache {
  const metaPath = path.join(dir, 'meta.json');
  if (!fs.existsSync(metaPath)) throw new Error(`${dir}: not a token cache (no meta.json; an interrupted prep:corpus leaves none: run it again)`);
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as TokenCacheMeta;
  if (meta.format !== TOKEN_CACHE_FORMAT) throw new Error(`${metaPath}: format is ${JSON.stringify(meta.format)}, expected "${TOKEN_CACHE_FORMAT}"`);
  if (meta.version !== TOKEN_CACHE_VERSION) throw new Error(`${metaPath}: version ${meta.version}, this code reads version ${TOKEN_CACHE_VERSION}`);
  if (meta.dtype !== 'uint16' && meta.dtype !== 'uint32') throw new Error(`${metaPath}: dtype ${JSON.stringify(meta.dtype)} is not uint16 or uint32`);
  const loaded = new Map<string, TokenSplit>();
  return {
    dir,
    meta,
    split(name: string): TokenSplit {
      const cached = loaded.get(name);
      if (cached) return cached;
      const info = meta.splits[name];
      if (!info) throw new Error(`${dir}: no split "${name}" (it has ${Object.keys(meta.splits).join(', ') || 'none'})`);
      const read = (file: string, bytes: number): Buffer => {
        const p = path.join(dir, file);
        const buf = fs.readFileSync(p);
        if (buf.length !== bytes) throw new Error(`${p}: ${buf.length} bytes, meta.json says ${bytes} (a partial copy?)`);
        return buf;
      };
      const width = meta.dtype === 'uint16' ? 2 : 4;
      const tb = read(`${name}.tokens.bin`, info.tokens * width);
      const ob = read(`${name}.offsets.bin`, (info.docs + 1) * 4);
      // Copies into aligned buffers (a Buffer may start at any byte of Node's pool).
      const tokens = meta.dtype === 'uint16' ? new Uint16Array(info.tokens) : new Uint32Array(info.tokens);
      new Uint8Array(tokens.buffer).set(tb);
      const offsets = new Uint32Array(info.docs + 1);
      new Uint8Array(offsets.buffer).set(ob);
      const split = { tokens, offsets };
      loaded.set(name, split);
      return split;
    },
  };
}

/** The ids of document `i` of a split (a view, no copy). */
export const docTokens = (s: TokenSplit, i: number): Uint16Array | Uint32Array => s.tokens.subarray(s.offsets[i], s.offsets[i + 1]);

/**
 * meta.json's tokenizer.sha256: the sha256 (hex) of the tokenizer folder's tokenizer.json, the file that decides the
 * ids (what a run checks before training on a cache).
 */
export function tokenizerSha256(dir: string): string {
  const file = path.join(dir, 'tokenizer.json');
  if (!fs.existsSync(file)) throw new Error(`${dir}: no tokenizer.json`);
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The documents of a split in order, from `<split>.docs.jsonl` (their paths and packages: per-package weights, leak checks). */
export function readTokenCacheDocs(cache: TokenCache, name: string): TokenCacheDoc[] {
  const info = cache.meta.splits[name];
  if (!info) throw new Error(`${cache.dir}: no split "${name}" (it has ${Object.keys(cache.meta.splits).join(', ') || 'none'})`);
  const file = path.join(cache.dir, `${name}.docs.jsonl`);
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  if (lines.length !== info.docs) throw new Error(`${file}: ${lines.length} lines, meta.json says ${info.docs} documents (a partial copy?)`);
  return lines.map((l, i) => {
    const d = JSON.parse(l) as Partial<TokenCacheDoc>;
    if (typeof d.path !== 'string' || typeof d.package !== 'string') throw new Error(`${file}:${i + 1}: needs "path" and "package" strings`);
    return { path: d.path, package: d.package };
  });
}
