// Training data from the compiler's verdict (rejection sampling, a.k.a. expert iteration): the model writes several
// bodies for documented functions of the corpus's TRAINING files, Python's compiler rejects the ones that do not parse,
// and the best surviving body per function becomes a {prompt, response} example for `sft train`. One round of this is
// the cheapest RL from compiler feedback: the reward is 1 for a kept body and 0 otherwise, and SFT on the kept bodies
// moves the policy towards them.
//
//   prompt   the file up to and including the docstring, cut from the left to maxPromptTokens (the same prompt the
//            function-body figure of eval:base uses, function-eval.ts, only shorter)
//   sample   `samples` continuations per prompt at `temperature` (top-k 0, top-p 1), at most maxNewTokens each
//   body     cutBody: up to the first line back at the def's indentation, or the end token
//   kept     the model ended the body itself, it is not empty, signature + docstring + body compile, and no line
//            appears more than maxLineRepeats times (a body of `x = x` thirty times compiles, but is not worth learning)
//   best     among the kept bodies of one function, the one sharing most identifiers and literals with the true body
//            (F1 of the bags of word tokens): a tie-break towards real code, not a filter
//   response the best body; `sft train` appends <|endoftext|>, so the model learns to end a function it was asked for
//   form     with probability fimRate the example is a fill-in-the-middle one instead: {prompt, suffix, response} with
//            suffix = the file after the true body, cut to maxSuffixTokens; `sft train` then builds the FIM
//            example in the checkpoint's order (PSM: <|fim_prefix|>prompt<|fim_suffix|>suffix<|fim_middle|>response<|endoftext|>). Without this share, learning
//            to end functions with <|endoftext|> also teaches the model to end every FIM middle at once (measured:
//            all FIM completions empty after a plain-only round), and the online mode serves FIM.
import { Qwen2Model } from '@rlhf-code/model';
import { Tokenizer } from '@rlhf-code/tokenizer';
import { dataRandom } from '@rlhf-code/data';
import { completeBatched, completeFim, cutBody, functionSource, bodyLines, maxLineRepeat, type FimCase, type FunctionCase } from '@rlhf-code/eval';

export interface SyntaxDataOptions {
  samples: number;
  temperature: number;
  maxNewTokens: number;
  maxPromptTokens: number;
  /** Sequences generated together (prompts x samples, left padded). */
  batchSize: number;
  maxLineRepeats: number;
  /** Share of examples in fill-in-the-middle form (a seeded coin per example). */
  fimRate: number;
  /** FIM examples: the suffix is cut to its first this many tokens. */
  maxSuffixTokens: number;
  /** Also write every function's true body as an example (its form drawn by a coin of its own), besides its kept sample. */
  references?: boolean;
  seed: number;
  onProgress?: (done: number, total: number) => void;
}

/** One sampled body and the compiler's verdict. */
export interface SyntaxCandidate {
  /** The raw completion (decoded, the stop token excluded). */
  text: string;
  body: string;
  ended: boolean;
  syntaxOk: boolean;
  maxRepeat: number;
  kept: boolean;
  similarity: number;
}

/** One line of the output: what `sft train` reads, plus where it came from. */
export interface SyntaxExample {
  prompt: string;
  /** Present on fill-in-the-middle examples only: the text after the body. */
  suffix?: string;
  response: string;
  path: string;
  name: string;
  similarity: number;
  /** Present (true) on an example whose response is the function's true body (--references), not a sample. */
  reference?: true;
}

export interface SyntaxDataStats {
  functions: number;
  samples: number;
  ended_rate: number;
  syntax_valid_rate: number;
  kept_rate: number;
  /** Share of functions with at least one kept body (= examples / functions). */
  functions_with_example: number;
  /** Mean non-blank lines of the kept samples' examples (the true bodies of --references not counted). */
  mean_body_lines: number;
  /** Examples holding a true body (--references; 0 without). */
  references: number;
}

/** F1 overlap of the multisets of word tokens (identifiers, keywords, numbers) of two pieces of code, in [0, 1]. */
export function tokenF1(a: string, b: string): number {
  const bag = (s: string) => {
    const m = new Map<string, number>();
    for (const w of s.match(/\w+/g) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  const x = bag(a);
  const y = bag(b);
  const size = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
  const [nx, ny] = [size(x), size(y)];
  if (nx === 0 || ny === 0) return 0;
  let common = 0;
  for (const [w, c] of x) common += Math.min(c, y.get(w) ?? 0);
  return common === 0 ? 0 : (2 * common) / (nx + ny);
}

/** The prompt's last maxPromptTokens tokens, as text (what the model saw when sampling). */
export function cutPrompt(tok: Tokenizer, prompt: string, maxPromptTokens: number): { ids: number[]; text: string } {
  const ids = tok.encode(prompt);
  if (ids.length <= maxPromptTokens) return { ids, text: prompt };
  const kept = ids.slice(ids.length - maxPromptTokens);
  return { ids: kept, text: tok.decode(kept) };
}

/** The suffix's first maxSuffixTokens tokens, as text. */
export function cutSuffix(tok: Tokenizer, suffix: string, maxSuffixTokens: number): string {
  const ids = tok.encode(suffix);
  return ids.length <= maxSuffixTokens ? suffix : tok.decode(ids.slice(0, maxSuffixTokens));
}

/** The output line for a kept body: plain {prompt, response}, or with maxSuffixTokens a FIM one with the file's suffix. */
export function syntaxExample(tok: Tokenizer, c: FunctionCase, promptText: string, best: Pick<SyntaxCandidate, 'body' | 'similarity'>, maxSuffixTokens: number | null): SyntaxExample {
  const suffix = maxSuffixTokens === null ? {} : { suffix: cutSuffix(tok, c.suffix, maxSuffixTokens) };
  return { prompt: promptText, ...suffix, response: best.body, path: c.path, name: c.name, similarity: Math.round(best.similarity * 1e4) / 1e4 };
}

/** Judge sampled completions of one case: cut each body, check it, mark the kept ones. */
export async function judgeSamples(
  cases: readonly FunctionCase[],
  completions: readonly { caseIndex: number; text: string; stopped: boolean }[],
  check: (codes: string[]) => Promise<boolean[]>,
  maxLineRepeats: number,
): Promise<SyntaxCandidate[]> {
  const cut = completions.map((c) => cutBody(c.text, cases[c.caseIndex].indent, c.stopped));
  const ok = await check(completions.map((c, i) => functionSource(cases[c.caseIndex], cut[i].body)));
  return completions.map((c, i) => {
    const body = cut[i].body;
    const syntaxOk = ok[i] && body.trim() !== '';
    const maxRepeat = maxLineRepeat(body);
    return {
      text: c.text,
      body,
      ended: cut[i].ended,
      syntaxOk,
      maxRepeat,
      kept: syntaxOk && cut[i].ended && maxRepeat <= maxLineRepeats,
      similarity: tokenF1(body, cases[c.caseIndex].reference),
    };
  });
}

/** The kept candidate most similar to the true body (the first of equals); null when none was kept. */
export function pickBest<C extends { kept: boolean; similarity: number }>(candidates: readonly C[]): C | null {
  let best: C | null = null;
  for (const x of candidates) if (x.kept && (best === null || x.similarity > best.similarity)) best = x;
  return best;
}

/** Candidates per case (in sample order), and the shares of all samples ended / compiling / kept. */
function tally<C extends { ended: boolean; syntaxOk: boolean; kept: boolean }>(nCases: number, caseOf: readonly number[], judged: readonly C[]) {
  const candidates: C[][] = Array.from({ length: nCases }, () => []);
  judged.forEach((x, i) => candidates[caseOf[i]].push(x));
  const rate = (f: (x: C) => boolean) => judged.filter(f).length / judged.length;
  return {
    candidates,
    rates: { samples: judged.length, ended_rate: rate((x) => x.ended), syntax_valid_rate: rate((x) => x.syntaxOk), kept_rate: rate((x) => x.kept) },
  };
}

/**
 * Sample, judge and pick: at most one example per case (the kept body most similar to the true one, the first on a
 * tie), in case order. `check` compiles many sources at once (the sandbox's checkSyntax).
 */
export async function syntaxTrainingData(
  model: Qwen2Model,
  tok: Tokenizer,
  cases: readonly FunctionCase[],
  opts: SyntaxDataOptions,
  check: (codes: string[]) => Promise<boolean[]>,
): Promise<{ examples: SyntaxExample[]; candidates: SyntaxCandidate[][]; stats: SyntaxDataStats }> {
  if (cases.length === 0) throw new Error('syntaxTrainingData: no functions to sample');
  const maxPrompt = Math.min(opts.maxPromptTokens, model.config.max_position_embeddings - opts.maxNewTokens);
  if (maxPrompt < 1) throw new Error(`max new tokens ${opts.maxNewTokens} leaves no room for a prompt in the model's window (${model.config.max_position_embeddings})`);
  const prompts = cases.map((c) => cutPrompt(tok, c.prompt, maxPrompt));

  // Rows = (case, sample) pairs in case order; completeBatched puts prompts of similar length in one batch.
  const rows = cases.flatMap((_, i) => Array.from({ length: opts.samples }, () => i));
  const texts = await completeBatched(
    model,
    tok,
    rows.map((i) => prompts[i].ids),
    { ...opts, sampling: { temperature: opts.temperature, seed: opts.seed } },
  );
  const completions = texts.map((t, r) => ({ caseIndex: rows[r], ...t }));

  const judged = await judgeSamples(cases, completions, check, opts.maxLineRepeats);
  const { candidates, rates } = tally(cases.length, rows, judged);
  const examples: SyntaxExample[] = [];
  const coin = dataRandom(`syntax-fim:${opts.seed}`);
  const referenceCoin = dataRandom(`syntax-reference-fim:${opts.seed}`); // its own stream: the samples' forms stay as without --references
  let sampled = 0;
  cases.forEach((c, i) => {
    const fim = coin() < opts.fimRate; // drawn for every case, so the form of one case does not depend on the others' samples
    const best = pickBest(candidates[i]);
    if (best) {
      examples.push(syntaxExample(tok, c, prompts[i].text, best, fim ? opts.maxSuffixTokens : null));
      sampled++;
    }
    if (opts.references) {
      // The true body compiles (compilingCases) and is the body every similarity is measured against.
      const form = referenceCoin() < opts.fimRate ? opts.maxSuffixTokens : null;
      examples.push({ ...syntaxExample(tok, c, prompts[i].text, { body: c.reference, similarity: 1 }, form), reference: true });
    }
  });
  const samples = examples.filter((e) => !e.reference);
  return {
    examples,
    candidates,
    stats: {
      functions: cases.length,
      ...rates,
      functions_with_example: sampled / cases.length,
      mean_body_lines: samples.length ? samples.reduce((s, e) => s + bodyLines(e.response), 0) / samples.length : 0,
      references: examples.length - samples.length,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The same round on fill-in-the-middle: what the online mode serves.
//
//   cases    editor-shaped FIM examples of the corpus's TRAINING files ({prefix, suffix, middle} from prep-fim: the
//            rest of a line, or 1-3 whole lines), each with the rest of its source file (withFileContext), whose
//            cursor is in code (the caller picks them: inside a docstring nearly any text compiles)
//   sample   `samples` middles per case from the prompt the online server builds (completeFim: the checkpoint's FIM
//            order, Qwen's <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|> or SPM, cut to the window), at `temperature`
//   kept     the model ended the middle itself (a control token), it is not empty, the whole file with it in place
//            compiles, and no line appears more than maxLineRepeats times
//   best     the kept middle sharing most word tokens with the true one
//   example  {prompt: prefix, suffix, response: middle}: `sft train` builds the same FIM prompt from it

/** One sampled middle and the compiler's verdict. */
export interface FimCandidate {
  text: string;
  ended: boolean;
  /** The whole file with this middle in place compiles (and the middle is not empty). */
  syntaxOk: boolean;
  maxRepeat: number;
  kept: boolean;
  similarity: number;
}

export type FimSyntaxOptions = Omit<SyntaxDataOptions, 'fimRate' | 'maxSuffixTokens' | 'maxPromptTokens' | 'stopIds'>;

export interface FimSyntaxStats {
  cases: number;
  samples: number;
  ended_rate: number;
  syntax_valid_rate: number;
  kept_rate: number;
  /** Share of cases with at least one kept middle (= examples / cases). */
  cases_with_example: number;
  mean_middle_chars: number;
}

/** Judge sampled middles: each in its whole file (cases must carry `file`), one compile call for all. */
export async function judgeFimSamples(
  cases: readonly FimCase[],
  completions: readonly { caseIndex: number; text: string; stopped: boolean }[],
  check: (codes: string[]) => Promise<boolean[]>,
  maxLineRepeats: number,
): Promise<FimCandidate[]> {
  const ok = await check(
    completions.map((c) => {
      const x = cases[c.caseIndex];
      if (!x.file) throw new Error(`judgeFimSamples: FIM example ${c.caseIndex + 1} (${x.path}) has no file context`);
      return x.file.before + x.prefix + c.text + x.suffix + x.file.after;
    }),
  );
  return completions.map((c, i) => {
    const syntaxOk = ok[i] && c.text.trim() !== '';
    const maxRepeat = maxLineRepeat(c.text);
    return {
      text: c.text,
      ended: c.stopped,
      syntaxOk,
      maxRepeat,
      kept: syntaxOk && c.stopped && maxRepeat <= maxLineRepeats,
      similarity: tokenF1(c.text, cases[c.caseIndex].middle),
    };
  });
}

/**
 * Sample, judge and pick for FIM cases: at most one example per case, in case order. Every case needs its file
 * context (withFileContext), since a middle is judged in its whole file.
 */
export async function fimSyntaxTrainingData(
  model: Qwen2Model,
  tok: Tokenizer,
  cases: readonly FimCase[],
  opts: FimSyntaxOptions,
  check: (codes: string[]) => Promise<boolean[]>,
): Promise<{ examples: SyntaxExample[]; candidates: FimCandidate[][]; stats: FimSyntaxStats }> {
  if (cases.length === 0) throw new Error('fimSyntaxTrainingData: no FIM examples to sample');
  const missing = cases.findIndex((c) => !c.file);
  if (missing >= 0) throw new Error(`FIM example ${missing + 1} (${cases[missing].path}): its source file was not found in the corpus`);
  const rows = cases.flatMap((_, i) => Array.from({ length: opts.samples }, () => i));
  const done = await completeFim(
    model,
    tok,
    rows.map((i) => cases[i]),
    { maxNewTokens: opts.maxNewTokens, batchSize: opts.batchSize, sampling: { temperature: opts.temperature, seed: opts.seed }, onProgress: opts.onProgress },
  );
  const completions = done.map((d, r) => ({ caseIndex: rows[r], text: d.text, stopped: d.stopped }));
  const judged = await judgeFimSamples(cases, completions, check, opts.maxLineRepeats);
  const { candidates, rates } = tally(cases.length, rows, judged);
  const examples: SyntaxExample[] = [];
  cases.forEach((c, i) => {
    const best = pickBest(candidates[i]);
    if (best) {
      examples.push({ prompt: c.prefix, suffix: c.suffix, response: best.text, path: c.path ?? '', name: `fim:${c.kind ?? 'middle'}`, similarity: Math.round(best.similarity * 1e4) / 1e4 });
    }
  });
  return {
    examples,
    candidates,
    stats: {
      cases: cases.length,
      ...rates,
      cases_with_example: examples.length / cases.length,
      mean_middle_chars: examples.length ? examples.reduce((s, e) => s + e.response.length, 0) / examples.length : 0,
    },
  };
}
