// The llamacpp engine: llama.cpp in this process (node-llama-cpp, llamacpp-runtime.ts) on a GGUF export of a
// checkpoint (gguf.ts). Decoding runs on llama.cpp's own threads; this thread only steers it token by token.
//
//   opening     a checkpoint folder (or a LoRA adapter folder, folded into its base) is exported once to a cache
//               folder, keyed by the source files' names, sizes and modification times; a .gguf file is used as is.
//   sampling    every prompt decodes on a sequence of its own, up to `sequences` of them in one context (llama.cpp
//               batches them into one decode); a sequence keeps its KV cache between prompts, and a prompt goes to
//               the free sequence holding the longest prefix of it, so a prompt sharing a prefix with an earlier one
//               (a GRPO group, a user's next keystroke) costs only the rest (SampleRequest.cacheKeys is not needed). Every sampling parameter is sent: temperature (0: greedy), top-k (0: off), top-p (1: off),
//               min-p 0; ids at or past the request's vocabSize, and the stop ids before minNewTokens, get a logit
//               bias of -inf. Each prompt's seed is one draw from the stream generateBatch's seeding rule gives it
//               (a root stream from `seed` or `rng`, one stream per prompt in input order, or the caller's `rngs`),
//               so the caller's streams advance as under generateBatch; the tokens come from llama.cpp's own RNG.
//               A prompt's continuation depends on the seed, its index and the model, up to the float rounding
//               (~1e-6 in log-probs) of how llama.cpp batched the sequences and which prefix a sequence had cached;
//               with one sequence a run repeats exactly.
//   log-probs   log of llama.cpp's confidence in the sampled token: its probability under softmax(logits / T) over
//               the tokens the sampler kept, i.e. generateBatch's log p(token) at top-k 0 / top-p 1 (at T = 1 when
//               greedy); with a top-k or top-p the distribution is the truncated, renormalised one. With the KV
//               cache in F32 (the default) llama.cpp's logits are within ~1e-5 of the project's fp32 forward pass.
//   text        with a tokenizer: stop strings and stopWhen are checked after every token, as generateBatch does,
//               and onText streams the text that can no longer change as it is decoded (generateBatch's rule).
//   versions    publish({kind: 'adapter'}) converts the PEFT folder to a LoRA GGUF and opens a new context with it;
//               publish({kind: 'full'}) exports and loads the new weights. The previous context is released once
//               the calls sampling from it end. llama.cpp frees adapters only with their model, so after
//               `recycleEvery` adapters the model is loaded afresh and the old one (and its adapter files) released.
// Ignored: batchSize and byLength (llama.cpp schedules its sequences itself).
import { createHash } from 'crypto';
import { existsSync, promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { finalTextEnd, isAdapterFolder, resumableRng, type Completion, type Rng } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { EngineCompletion, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';
import { exportLoraGguf, exportModelGguf, readGgufHeader, type GgufWeightType } from './gguf';
import { llamaRuntime, type LlamaContext, type LlamaContextSequence, type LlamaModel, type LlamaRuntime, type LlamaTokenBias } from './llamacpp-runtime';

export interface LlamaCppOptions {
  /** Prompts decoded at once, each on a sequence of its own; default 8 (see DEFAULT_SEQUENCES). */
  sequences?: number;
  /** Tokens a sequence holds (prompt plus new tokens); default the model's context length, at most 2048. */
  contextSize?: number;
  /** CPU threads of llama.cpp; default defaultLlamaThreads (one for a small model, else every core). */
  threads?: number;
  /**
   * The KV cache's type: F32 (default) keeps logits within ~1e-5 of the project's fp32 forward pass; F16 (llama.cpp's
   * usual) halves its memory and moves them by ~1e-3 (tools/llamacpp-agreement.ts --kv-cache F16).
   */
  kvCache?: 'F32' | 'F16';
  /**
   * How a checkpoint's matrices are exported: F32 (default; the agreement above) or Q8_0 (a quarter of the bytes to
   * read per decoded token, so about that much faster where decoding is memory-bound; logits move by ~1e-2).
   */
  weights?: GgufWeightType;
  /** Where checkpoint exports are cached; default <tmp>/rlhf-code-gguf. */
  cacheDir?: string;
  /** A fresh model after this many adapter versions on one (each stays loaded until its model goes); default 8. */
  recycleEvery?: number;
  /** Decodes `text`, and is needed for stop strings, stopWhen and onText. */
  tokenizer?: Tokenizer;
  /**
   * Past the prefix a prompt shares with what a sequence holds, keep runs of at least this many held tokens that the
   * prompt has further on, removing the held tokens between them and shifting the rest to their new positions
   * (llama.cpp's --cache-reuse). A prompt that lost a span near its front (Continue's snippet losing lines, the prefix
   * window losing its first line) then prefills only its new tokens. Approximate: a kept token's keys were computed
   * with the removed span in view. 0 (default): only the shared prefix is kept, so every answer is exact.
   */
  cacheReuse?: number;
}

/**
 * How to turn the `held` tokens of a sequence into a prefix of `prompt` by removing spans only: keep their shared
 * prefix, then each run of at least `minRun` held tokens found next in the prompt (the held tokens before it removed),
 * and remove what is left at the end. `kept`: the prompt's first tokens the sequence then holds. minRun 0: the shared
 * prefix alone.
 */
export function cacheReusePlan(held: readonly number[], prompt: readonly number[], minRun: number): { erase: { start: number; end: number }[]; kept: number } {
  let i = 0; // in held
  let j = 0; // in prompt
  while (i < held.length && j < prompt.length && held[i] === prompt[j]) i++, j++;
  const erase: { start: number; end: number }[] = [];
  while (minRun > 0 && i < held.length && j + minRun <= prompt.length) {
    let at = -1; // the first held position >= i where prompt[j, j + minRun) starts
    for (let c = i; c + minRun <= held.length && at < 0; c++) {
      let m = 0;
      while (m < minRun && held[c + m] === prompt[j + m]) m++;
      if (m === minRun) at = c;
    }
    if (at < 0) break;
    if (at > i) erase.push({ start: i, end: at });
    i = at;
    while (i < held.length && j < prompt.length && held[i] === prompt[j]) i++, j++;
  }
  if (i < held.length) erase.push({ start: i, end: held.length });
  return { erase, kept: j };
}

/**
 * Prompts decoded at once by default. Each decode call has a fixed cost (graph, threads, the sampler's pass over the
 * vocabulary) that a batch of sequences shares: on models/base (2 cores, one thread, 64 prompts x 32 tokens) 4
 * sequences took 5.5-7.6 s, 8 took 4.8 s, 64 took 3.8 s (EXPERIMENTS.md, "llama.cpp's threads and sequences"). Each
 * sequence holds its own contextSize of KV cells, so memory grows with it.
 */
export const DEFAULT_SEQUENCES = 8;

/** Below this many parameters a decoded token is too little work to share between threads. */
export const SMALL_MODEL_PARAMETERS = 50e6;

/**
 * llama.cpp's threads by default: one for a small model, every core otherwise. Its threads meet at a barrier after
 * every operation; on a model of a few million parameters the operations are microseconds long, and a second thread
 * (spinning while node's own threads sample and steer) made decoding up to 4.7x slower on 2 cores (models/base: 4
 * sequences 26 s against 5.5 s with one thread; 16 sequences 4.8-10.5 s against 4.6-4.7 s; only at 64 sequences was
 * it 8% faster). A larger model's matrix products are long enough to split.
 */
export function defaultLlamaThreads(parameters: number, cores: number = os.availableParallelism()): number {
  return parameters < SMALL_MODEL_PARAMETERS ? 1 : cores;
}

/** A loaded model, and the files deleted when it is released: its adapters, and its GGUF where the engine wrote it. */
interface LoadedModel {
  model: LlamaModel;
  file: string;
  owned: string[];
  adapters: number;
  generations: number;
}

/** One policy version: a context (on a model, with its adapter) and its free sequences. */
interface Generation {
  version: number;
  loaded: LoadedModel;
  context: LlamaContext;
  free: LlamaContextSequence[];
  waiting: ((s: LlamaContextSequence) => void)[];
  users: number;
  retired: boolean;
}

/** A request checked against the engine, with what every prompt's decoding needs. */
interface Plan {
  temps: number[];
  topK: number;
  topP: number;
  minNew: number;
  /** llama.cpp's seed of each prompt (undefined when every prompt is greedy). */
  seeds: (number | undefined)[];
  /** Ids at or past the request's vocabSize never sampled; with the stop ids too, before minNew tokens. */
  bias: LlamaTokenBias;
  stopBias: LlamaTokenBias;
  stops: Set<number>;
}

/** Every file of `dir` (name, size, modification time), and for an adapter folder its base's: the export cache key. */
async function sourceStamp(dir: string): Promise<string[]> {
  const stamp: string[] = [];
  for (const name of (await fs.readdir(dir)).sort()) {
    const s = await fs.stat(path.join(dir, name));
    if (s.isFile()) stamp.push(`${name}:${s.size}:${s.mtimeMs}`);
  }
  if (!isAdapterFolder(dir)) return stamp;
  const base = (JSON.parse(await fs.readFile(path.join(dir, 'adapter_config.json'), 'utf8')) as { base_model_name_or_path?: string }).base_model_name_or_path;
  const baseDir = base === undefined ? undefined : [base, path.resolve(dir, base)].find((d) => existsSync(d));
  return baseDir ? [...stamp, ...(await sourceStamp(baseDir))] : stamp;
}

/** The GGUF of `source`: a .gguf file as is, a checkpoint or adapter folder exported into `cacheDir` (once per content). */
async function ggufOf(source: string, cacheDir: string, weights: GgufWeightType): Promise<string> {
  if (!existsSync(source)) throw new Error(`llamacpp engine: ${source} does not exist`);
  if ((await fs.stat(source)).isFile()) return source;
  const key = createHash('sha256')
    .update(JSON.stringify([path.resolve(source), await sourceStamp(source), weights]))
    .digest('hex')
    .slice(0, 16);
  const file = path.join(cacheDir, `${path.basename(path.resolve(source))}-${key}.gguf`);
  if (!existsSync(file)) await exportModelGguf(source, file, weights);
  return file;
}

export class LlamaCppEngine implements RolloutEngine {
  readonly name = 'llamacpp';
  private current: Generation;
  private publishing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly rt: LlamaRuntime,
    private readonly opts: Required<Omit<LlamaCppOptions, 'tokenizer' | 'cacheDir'>> & Pick<LlamaCppOptions, 'tokenizer'>,
    private readonly workDir: string,
    /** Rows of the model's output (its GGUF vocabulary, padding included). */
    readonly vocabRows: number,
    first: Generation,
  ) {
    this.current = first;
  }

  /** Open `source`: a checkpoint folder, a LoRA adapter folder (folded into its base) or a .gguf file. */
  static async open(source: string, o: LlamaCppOptions = {}): Promise<LlamaCppEngine> {
    const rt = await llamaRuntime();
    const cacheDir = o.cacheDir ?? path.join(os.tmpdir(), 'rlhf-code-gguf');
    await fs.mkdir(cacheDir, { recursive: true });
    const file = await ggufOf(source, cacheDir, o.weights ?? 'F32');
    const header = await readGgufHeader(file);
    const embd = header.tensors.get('token_embd.weight');
    const trained = header.metadata.get('qwen2.context_length');
    if (!embd || trained?.type !== 'u32') throw new Error(`llamacpp engine: ${file} is not a Qwen2 GGUF (no token_embd.weight or qwen2.context_length)`);
    const parameters = [...header.tensors.values()].reduce((n, t) => n + t.shape.reduce((a, b) => a * b, 1), 0);
    const opts = {
      sequences: o.sequences ?? DEFAULT_SEQUENCES,
      contextSize: o.contextSize ?? Math.min(trained.value, 2048),
      threads: o.threads ?? defaultLlamaThreads(parameters),
      recycleEvery: o.recycleEvery ?? 8,
      cacheReuse: o.cacheReuse ?? 0,
      kvCache: o.kvCache ?? 'F32',
      weights: o.weights ?? 'F32',
      tokenizer: o.tokenizer,
    };
    for (const [k, v] of Object.entries({ sequences: opts.sequences, contextSize: opts.contextSize, threads: opts.threads, recycleEvery: opts.recycleEvery })) {
      if (!(Number.isInteger(v) && v >= 1)) throw new Error(`llamacpp engine: ${k} must be an integer >= 1, got ${v}`);
    }
    if (!(Number.isInteger(opts.cacheReuse) && opts.cacheReuse >= 0)) throw new Error(`llamacpp engine: cacheReuse must be an integer >= 0, got ${opts.cacheReuse}`);
    const workDir = await fs.mkdtemp(path.join(cacheDir, 'engine-'));
    const loaded = await loadModel(rt, file, []);
    const first = await newGeneration(0, loaded, opts, undefined);
    return new LlamaCppEngine(rt, opts, workDir, embd.shape[0], first);
  }

  get policyVersion(): number {
    return this.current.version;
  }

  async sample(prompts: readonly (readonly number[])[], req: SampleRequest): Promise<EngineCompletion[]> {
    if (this.closed) throw new Error('llamacpp engine: closed');
    const plan = this.plan(prompts, req);
    const gen = this.current;
    gen.users++;
    try {
      const out: EngineCompletion[] = new Array(prompts.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < prompts.length; i = next++) {
          const seq = await acquire(gen, prompts[i]);
          try {
            out[i] = { ...(await this.decode(seq, i, prompts[i], req, plan)), policyVersion: gen.version };
            req.onBatch?.([i], [out[i]]);
          } finally {
            release(gen, seq);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(prompts.length, this.opts.sequences) }, worker));
      return out;
    } finally {
      gen.users--;
      if (gen.retired && gen.users === 0) await this.dispose(gen);
    }
  }

  /** Check a request against the engine (clear errors before any decoding) and work out its seeds and biases. */
  private plan(prompts: readonly (readonly number[])[], req: SampleRequest): Plan {
    const fail = (m: string): never => {
      throw new Error(`llamacpp engine: ${m}`);
    };
    const n = prompts.length;
    if (!(Number.isInteger(req.maxNewTokens) && req.maxNewTokens >= 0)) fail(`maxNewTokens must be an integer >= 0, got ${req.maxNewTokens}`);
    const minNew = req.minNewTokens ?? 0;
    if (!(Number.isInteger(minNew) && minNew >= 0)) fail(`minNewTokens must be an integer >= 0, got ${req.minNewTokens}`);
    if (req.temperatures && req.temperatures.length !== n) fail(`${n} prompts need ${n} temperatures, got ${req.temperatures.length}`);
    const temps = prompts.map((_, i) => req.temperatures?.[i] ?? req.temperature);
    if (temps.some((t) => !(t >= 0))) fail(`temperatures must be >= 0, got ${temps.find((t) => !(t >= 0))}`);
    const topK = req.topK ?? 0;
    const topP = req.topP ?? 1;
    if (!(Number.isInteger(topK) && topK >= 0)) fail(`topK must be an integer >= 0, got ${topK}`);
    if (!(topP > 0 && topP <= 1)) fail(`topP must be in (0, 1], got ${topP}`);
    if (!(Number.isInteger(req.vocabSize) && req.vocabSize >= 1)) fail(`vocabSize must be an integer >= 1, got ${req.vocabSize}`);
    if ((req.stopStrings?.length || req.stopWhen || req.onText) && !this.opts.tokenizer) fail('stop strings, stopWhen and onText need the engine opened with a tokenizer');
    prompts.forEach((p, i) => {
      if (p.length === 0) fail(`prompt ${i} is empty (every prompt needs at least one token)`);
      const bad = p.find((id) => !(Number.isInteger(id) && id >= 0 && id < this.vocabRows));
      if (bad !== undefined) fail(`prompt ${i} has id ${bad}, outside the model's ${this.vocabRows} rows`);
      if (p.length + req.maxNewTokens > this.opts.contextSize) fail(`prompt ${i} has ${p.length} tokens + maxNewTokens ${req.maxNewTokens} > the context size ${this.opts.contextSize} (LlamaCppOptions.contextSize)`);
    });

    // generateBatch's seeding rule: one stream per prompt in input order from the root stream, or the caller's.
    if (req.rngs && (req.rng || req.seed !== undefined)) fail('give rngs, or rng / seed, not both');
    if (req.rngs && req.rngs.length !== n) fail(`${n} prompts need ${n} rngs, got ${req.rngs.length}`);
    const greedy = temps.every((t) => t === 0);
    const root = greedy || req.rngs ? undefined : (req.rng ?? resumableRng(req.seed ?? 0));
    const streams: readonly Rng[] | undefined = greedy ? undefined : (req.rngs ?? prompts.map(() => resumableRng(String(root!.next()))));
    const seeds = prompts.map((_, i) => (streams ? Math.floor(streams[i].next() * 2 ** 32) : undefined));

    const padding = Array.from({ length: Math.max(0, this.vocabRows - req.vocabSize) }, (_, k) => req.vocabSize + k);
    const model = this.current.loaded.model;
    const bias = this.rt.banned(model, padding); // empty: no bias
    const stopBias = minNew > 0 ? this.rt.banned(model, [...padding, ...req.stopIds]) : bias;
    return { temps, topK, topP, minNew, seeds, bias, stopBias, stops: new Set(req.stopIds) };
  }

  /** cacheReusePlan applied to `seq`: the spans it names erased (the rest shifted); returns the prompt's tokens it then holds. */
  private async reuseRuns(seq: LlamaContextSequence, prompt: readonly number[]): Promise<number> {
    const plan = cacheReusePlan(seq.contextTokens, prompt, this.opts.cacheReuse);
    if (plan.erase.length > 0) await seq.eraseContextTokenRanges(plan.erase);
    return plan.kept;
  }

  /** One prompt's continuation on `seq` (the KV cache of the prefix it shares with what `seq` holds is kept). */
  private async decode(seq: LlamaContextSequence, index: number, prompt: readonly number[], req: SampleRequest, plan: Plan): Promise<Completion> {
    const tok = this.opts.tokenizer;
    const ids: number[] = [];
    const logprobs: number[] = [];
    let stopId: number | null = null;
    let finishReason: Completion['finishReason'] = 'length';
    let text: string | null = null; // the text when stop strings or stopWhen cut it
    let streamed = 0;
    let cachedTokens = 0; // the prompt's first positions whose keys and values the sequence already held
    const stream = (t: string, done: boolean) => {
      const end = finalTextEnd(t, req.stopStrings ?? [], done);
      if (req.onText && end > streamed) req.onText(index, t.slice(streamed, end));
      streamed = Math.max(streamed, end);
    };
    if (req.maxNewTokens > 0) {
      const shared = this.opts.cacheReuse > 0 ? await this.reuseRuns(seq, prompt) : seq.compareContextTokens([...prompt]).firstDifferentIndex;
      const keep = Math.min(shared, prompt.length - 1); // the last prompt token is evaluated again: its logits are needed
      cachedTokens = keep;
      if (seq.nextTokenIndex > keep) await seq.eraseContextTokenRanges([{ start: keep, end: seq.nextTokenIndex }]);
      const stops = (req.stopStrings ?? []).filter((s) => s.length > 0);
      const checkText = stops.length > 0 || req.stopWhen !== undefined || req.onText !== undefined;
      await req.beforeStep?.();
      const steps = seq.evaluateWithMetadata(prompt.slice(keep), { confidence: true }, {
        temperature: plan.temps[index],
        topK: plan.topK,
        topP: plan.topP,
        minP: 0,
        seed: plan.seeds[index],
        tokenBias: (): LlamaTokenBias => (ids.length < plan.minNew ? plan.stopBias : plan.bias),
        yieldEogToken: true, // the stop ids are the request's, not the GGUF's end-of-generation set
      });
      for await (const { token, confidence } of steps) {
        ids.push(token);
        logprobs.push(Math.log(confidence));
        if (plan.stops.has(token)) {
          stopId = token;
          finishReason = 'stop';
          break;
        }
        if (checkText) {
          // generateBatch's rules: the text ends at the first stop string, or where stopWhen cuts it; what can no
          // longer change streams as it is decoded
          let t = tok!.decode(ids);
          for (const s of stops) {
            const at = t.indexOf(s);
            if (at >= 0) {
              t = t.slice(0, at);
              finishReason = 'stop';
            }
          }
          const cut = req.stopWhen?.(index, t) ?? null;
          if (cut !== null) {
            t = t.slice(0, cut);
            finishReason = 'stop';
          }
          if (finishReason === 'stop') {
            text = t;
            break;
          }
          stream(t, false);
        }
        if (ids.length >= req.maxNewTokens) break;
        await req.beforeStep?.();
      }
    }
    const visible = stopId === null ? ids : ids.slice(0, -1);
    const out: Completion = { ids: visible, stopId, finishReason, logprobs, text: text ?? tok?.decode(visible) ?? '', cachedTokens };
    stream(out.text, true);
    return out;
  }

  /**
   * The raw logits llama.cpp computes after each position of `ids` under the current version ([T] rows of
   * [vocabRows]); for checking the export against the project's forward pass.
   */
  async logits(ids: readonly number[]): Promise<Float32Array[]> {
    const gen = this.current;
    gen.users++;
    const seq = await acquire(gen, []);
    try {
      if (seq.nextTokenIndex > 0) await seq.eraseContextTokenRanges([{ start: 0, end: seq.nextTokenIndex }]);
      const out = await seq.controlledEvaluate(ids.map((id) => [id, { generateNext: { logits: true } }]));
      await seq.eraseContextTokenRanges([{ start: 0, end: seq.nextTokenIndex }]);
      return ids.map((_, t) => {
        const row = new Float32Array(this.vocabRows);
        for (const [id, v] of out[t]?.next.logits ?? []) row[id] = v;
        return row;
      });
    } finally {
      release(gen, seq);
      gen.users--;
      if (gen.retired && gen.users === 0) await this.dispose(gen);
    }
  }

  publish(snapshot: PolicySnapshot, version: number): Promise<void> {
    const run = this.publishing.then(() => this.publishNow(snapshot, version));
    this.publishing = run.catch(() => undefined);
    return run;
  }

  private async publishNow(snapshot: PolicySnapshot, version: number): Promise<void> {
    if (this.closed) throw new Error('llamacpp engine: closed');
    if (!(Number.isInteger(version) && version > this.current.version)) throw new Error(`llamacpp engine: version ${version} is not after ${this.current.version}`);
    const prev = this.current;
    let gen: Generation;
    if (snapshot.kind === 'adapter') {
      if (!isAdapterFolder(snapshot.dir)) throw new Error(`llamacpp engine: publish: ${snapshot.dir} is not a LoRA adapter folder (adapter_config.json without config.json)`);
      const file = path.join(this.workDir, `policy-v${version}.lora.gguf`);
      await exportLoraGguf(snapshot.dir, file);
      // The adapter goes on the weights the engine runs; a model that holds recycleEvery adapters is replaced by the
      // same GGUF loaded afresh, which takes over the file when the engine wrote it.
      const base = prev.loaded;
      const loaded = base.adapters < this.opts.recycleEvery ? base : await loadModel(this.rt, base.file, base.owned.includes(base.file) ? [base.file] : []);
      try {
        gen = await newGeneration(version, loaded, this.opts, file);
      } catch (e) {
        if (loaded !== base) await loaded.model.dispose();
        throw new Error(`llamacpp engine: ${snapshot.dir} (as ${file}) does not apply to ${base.file}: ${(e as Error).message}`);
      }
      if (loaded !== base) base.owned = base.owned.filter((f) => f !== base.file);
      loaded.owned.push(file);
      loaded.adapters++;
    } else {
      const file = path.join(this.workDir, `policy-v${version}.gguf`);
      await exportModelGguf(snapshot.dir, file, this.opts.weights);
      const rows = (await readGgufHeader(file)).tensors.get('token_embd.weight')!.shape[0];
      if (rows !== this.vocabRows) throw new Error(`llamacpp engine: publish: ${snapshot.dir} has ${rows} vocabulary rows, the engine ${this.vocabRows}`);
      gen = await newGeneration(version, await loadModel(this.rt, file, [file]), this.opts, undefined);
    }
    this.current = gen;
    prev.retired = true;
    if (prev.users === 0) await this.dispose(prev);
  }

  /** Release a retired generation's context, and its model once no generation uses it. */
  private async dispose(gen: Generation): Promise<void> {
    await gen.context.dispose();
    gen.loaded.generations--;
    if (gen.loaded.generations === 0 && gen.loaded !== this.current.loaded) {
      await gen.loaded.model.dispose();
      for (const f of gen.loaded.owned) await fs.rm(f, { force: true });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.publishing;
    const gen = this.current;
    await gen.context.dispose();
    await gen.loaded.model.dispose();
    await fs.rm(this.workDir, { recursive: true, force: true });
  }
}

async function loadModel(rt: LlamaRuntime, file: string, owned: string[]): Promise<LoadedModel> {
  const model = await rt.llama.loadModel({ modelPath: file, gpuLayers: rt.llama.gpu === false ? 0 : 'max' });
  return { model, file, owned, adapters: 0, generations: 0 };
}

async function newGeneration(version: number, loaded: LoadedModel, opts: { sequences: number; contextSize: number; threads: number; kvCache: 'F32' | 'F16' }, lora: string | undefined): Promise<Generation> {
  const context = await loaded.model.createContext({
    contextSize: opts.contextSize,
    sequences: opts.sequences,
    threads: opts.threads,
    flashAttention: false,
    experimentalKvCacheKeyType: opts.kvCache,
    experimentalKvCacheValueType: opts.kvCache,
    ...(lora ? { lora: { adapters: [{ filePath: lora, scale: 1 }] } } : {}),
  });
  loaded.generations++;
  const free = Array.from({ length: opts.sequences }, () => context.getSequence());
  return { version, loaded, context, free, waiting: [], users: 0, retired: false };
}

/** A free sequence of `gen`, the one whose KV cache holds the longest prefix of `prompt` (waits for one). */
function acquire(gen: Generation, prompt: readonly number[]): Promise<LlamaContextSequence> {
  if (gen.free.length === 0) return new Promise((resolve) => gen.waiting.push(resolve));
  const shared = gen.free.map((s) => s.compareContextTokens([...prompt]).firstDifferentIndex);
  const best = shared.indexOf(Math.max(...shared));
  return Promise.resolve(gen.free.splice(best, 1)[0]);
}

function release(gen: Generation, seq: LlamaContextSequence): void {
  const next = gen.waiting.shift();
  if (next) next(seq);
  else gen.free.push(seq);
}
