// The figures of the shipped base model (models/base, pretrained from scratch with FIM):
//
//   held-out loss   next-token cross-entropy on the corpus files the model never trained on (readCorpus(dir).test),
//                   cut into windows exactly as pretraining cuts them (pretrainWindows): once as plain text
//                   (fimRate 0) and once with every chunk in FIM form (fimRate 1; every token is a target, the FIM
//                   markers and the prefix/suffix included). Perplexity = exp(loss).
//   FIM             the model fills {prefix, suffix} examples (data/fim/fim.jsonl, test split) from the prompt the
//                   online server builds (encodeServedPrompt: Qwen's <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>, or
//                   the SPM order for a checkpoint trained on it, the prefix cut from the left to fit the window),
//                   greedy, until a control token or maxNewTokens. The held-out FIM loss uses the same order.
//     first_line_exact: see FIRST_LINE_RULE.
//     syntax_valid:     prefix + completion + suffix compiles as Python (an empty completion never counts as valid);
//                       syntax_valid_reference is the same with the true middle, the ceiling (prefixes are cut at a
//                       line boundary, so most start inside a block or a docstring and cannot compile whatever is
//                       filled in).
//     syntax_valid_in_file: the completion put in the whole source file the example was cut from (found in the corpus
//                       by the record's path), which compiles with the true middle: the figure for "writes valid
//                       Python", free of the cut-off prefix. The prompt is the same; only the check sees more.
//     syntax_valid_in_file_code: the same on the examples whose cursor is in code (cursorInCode), not inside a
//                       docstring, string or comment, where nearly anything compiles: the stricter figure.
//     shown_*:          the completion as Continue would show it (showCompletion: its stop strings and line rules,
//                       blank = not shown) and whether the exact-first-line simulated user of the
//                       online mode accepts it (acceptsCompletion): the offline preview of the online figures.
import { existsSync, promises as fs, readFileSync } from 'fs';
import * as path from 'path';
import { FimRecord, shuffle, writeJsonl } from '@rlhf-code/data';
import { modelConfigOf, openCheckpoint, Qwen2Model, writeFileAtomic, type Checkpoint } from '@rlhf-code/model';
import { acceptsCompletion, showCompletion } from '@rlhf-code/continue';
import { CODE, QUOTE, checkSyntax as sandboxCheckSyntax, scanPython } from '@rlhf-code/sandbox';
import { encodeServedPrompt, formatFim, PromptError, SERVED_MIN_TOKENS, Tokenizer } from '@rlhf-code/tokenizer';
import { lmRowLosses, padLmBatch, pretrainWindows } from '@rlhf-code/train';
import { jackknife } from '@rlhf-code/stats';
import { yieldToEventLoop } from '@rlhf-code/trainer-core';
import { CompleteOptions, completeBatched } from './batched';
import { share } from './metrics';
import {
  compilingCases,
  completeFunctions,
  FUNCTION_METRIC_DESCRIPTIONS,
  FunctionCase,
  FunctionCompletion,
  FunctionFigures,
  FunctionOutcome,
  bodyLines,
  scoreFunctions,
  selectFunctionCases,
} from './function-eval';

/** The online server's default min_tokens: eval base measures FIM completions as they are served. */
export { SERVED_MIN_TOKENS }; // the completion server's default min_tokens, which the FIM figures use

export const FIRST_LINE_RULE =
  'the first line of the completion with any non-whitespace character, trimmed at both ends, equals the same line of ' +
  'the true middle (a completion and a middle with no such line count as equal)';

export const BASE_METRIC_DESCRIPTIONS: Record<string, string> = {
  'heldout.loss': 'mean next-token cross-entropy (nats) on the held-out corpus files, plain windows as in pretraining',
  'heldout.loss_se / loss_fim_se': 'standard error of the loss over windows (jackknife, a window left out at a time; windows of one file are not independent, so a lower bound)',
  'heldout.window_losses / window_losses_fim': 'each window\'s mean loss in window order, for paired comparisons of two models on the same windows',
  'fim.per_example / functions.per_example': 'each example\'s outcome in example order (1/0; body_lines a count), for paired comparisons of two models on the same examples (eval base-compare)',
  'heldout.loss_fim': 'the same with every chunk in FIM form (fimRate 1), all tokens counted',
  'heldout.ppl / ppl_fim': 'exp(loss)',
  'fim.first_line_exact': `share of FIM examples where ${FIRST_LINE_RULE}`,
  'fim.syntax_valid': 'share where prefix + completion + suffix compiles as Python (empty completion = invalid)',
  'fim.syntax_valid_reference': 'share where prefix + true middle + suffix compiles (the ceiling)',
  'fim.syntax_valid_when_reference_valid': 'syntax_valid among the examples whose reference compiles',
  'fim.syntax_valid_in_file': 'share where the whole source file, with the completion in place of the middle, compiles (examples located in --corpus)',
  'fim.syntax_valid_in_file_reference': 'the same with the true middle (the ceiling, normally 1)',
  'fim.syntax_valid_in_file_code': 'syntax_valid_in_file on the examples whose cursor is in code, not inside a string, docstring or comment (where nearly any text compiles); n_in_file_code of them',
  'fim.empty_rate': 'share of completions that are empty or whitespace only',
  'fim.mean_completion_chars': 'mean length of the completions in characters',
  'fim.min_new_tokens': 'the end token could not be chosen before this many tokens (--min-new-tokens)',
  'fim.stopped_rate': 'share of completions ended by the model (end/FIM token) rather than by --max-new-tokens',
  'fim.shown_rate': 'share of examples where Continue would show something (showCompletion: its stop strings and line rules, blank = silent)',
  'fim.accept_rate_shown': 'share of shown completions the simulated user accepts (first line equal to the true middle\'s, trimmed)',
  'fim.accepted_per_request': 'accepted completions / examples',
  'fim.syntax_valid_shown_in_file': 'share of shown completions (with file context) that compile in the whole file in place of the middle',
  ...FUNCTION_METRIC_DESCRIPTIONS,
};

// ---------------------------------------------------------------------------------------------
// Held-out loss

export interface LossFigures {
  n_windows: number;
  /** Target tokens counted (seqLen - 1 per window). */
  n_tokens: number;
  loss: number;
  /** The loss's standard error over windows (jackknife of the token-weighted mean, a window left out at a time). */
  loss_se: number | null;
  ppl: number;
  /** Each window's mean loss, in window order: two models on the same windows compare paired. */
  window_losses: number[];
}

export interface LossOptions {
  /** Window length; the pretraining one (training_args.json seqLen) measures what training measured. */
  seqLen: number;
  /** Windows per forward pass (the [batch * seqLen, vocab] logits dominate memory). */
  batchSize: number;
  /** Use only the first n windows (0 = all). */
  maxWindows?: number;
  onProgress?: (done: number, total: number) => void;
}

/** The window pretraining used (seqLen in the checkpoint's training_args.json), else 512; never above the model's window. */
export function defaultSeqLen(modelDir: string): number {
  const window = modelConfigOf(modelDir).max_position_embeddings;
  const file = path.join(modelDir, 'training_args.json');
  let seqLen = 512;
  if (existsSync(file)) {
    try {
      const args: unknown = JSON.parse(readFileSync(file, 'utf8'));
      const v = (args as { seqLen?: unknown }).seqLen;
      if (typeof v === 'number' && Number.isInteger(v) && v >= 2) seqLen = v;
    } catch {
      // not ours to validate: fall back to the default
    }
  }
  return Math.min(seqLen, window);
}

/** Token-weighted mean loss over the windows pretraining would cut from `texts` with this FIM rate. */
export async function heldoutLoss(model: Qwen2Model, tok: Tokenizer, texts: readonly string[], fimRate: number, opts: LossOptions): Promise<LossFigures> {
  const all = pretrainWindows(tok, texts, { seqLen: opts.seqLen, fimRate, seed: 'heldout' });
  const windows = opts.maxWindows ? all.slice(0, opts.maxWindows) : all;
  if (windows.length === 0) throw new Error(`held-out loss: the held-out files do not fill one window of ${opts.seqLen} tokens`);
  const rows: { sum: number; tokens: number }[] = [];
  for (let i = 0; i < windows.length; i += opts.batchSize) {
    rows.push(...lmRowLosses(model, padLmBatch(windows.slice(i, i + opts.batchSize), tok.padId)));
    opts.onProgress?.(Math.min(i + opts.batchSize, windows.length), windows.length);
    await yieldToEventLoop(); // lets the progress bar draw
  }
  const sum = rows.reduce((a, r) => a + r.sum, 0);
  const tokens = rows.reduce((a, r) => a + r.tokens, 0);
  const loss = sum / tokens;
  // Windows of one file are not independent draws: the SE over windows is a lower bound on the file-level one.
  const se = jackknife(rows.length, (skip) => (skip < 0 ? loss : (sum - rows[skip].sum) / (tokens - rows[skip].tokens))).se;
  return { n_windows: windows.length, n_tokens: tokens, loss, loss_se: se, ppl: Math.exp(loss), window_losses: rows.map((r) => r.sum / r.tokens) };
}

// ---------------------------------------------------------------------------------------------
// FIM completions

export type FimCase = Pick<FimRecord, 'prefix' | 'suffix' | 'middle' | 'path' | 'split'> & {
  kind?: unknown;
  /** The rest of the source file: the text before the prefix and after the suffix (see withFileContext). */
  file?: { before: string; after: string };
};

/** The examples of one split ('all' = every record); with `limit`, a seeded random subset kept in file order. */
export function selectFimCases<T extends FimCase>(records: readonly T[], opts: { split: string; limit?: number; seed: number | string }): T[] {
  const inSplit = opts.split === 'all' ? records.slice() : records.filter((r) => r.split === opts.split);
  if (inSplit.length === 0) throw new Error(`no FIM examples with split "${opts.split}" (${records.length} records)`);
  if (opts.limit === undefined || opts.limit >= inSplit.length) return inSplit;
  const keep = new Set(shuffle(inSplit, `fim:${opts.seed}`).slice(0, opts.limit));
  return inSplit.filter((r) => keep.has(r));
}

/**
 * Give each case the rest of its source file: `corpusDir/<path>` (CRLF read as LF, as the FIM builder does), or the
 * text under `path` in a map of files already read, when prefix + middle + suffix occurs in it. Cases without a path,
 * a file or a match are returned unchanged.
 */
export function withFileContext<T extends FimCase>(cases: readonly T[], corpus: string | ReadonlyMap<string, string>): T[] {
  const files = new Map<string, string | null>();
  const read = (rel: string) => {
    if (typeof corpus !== 'string') return corpus.get(rel) ?? null;
    if (!files.has(rel)) {
      const file = path.join(corpus, rel);
      files.set(rel, existsSync(file) ? readFileSync(file, 'utf8').replace(/\r\n/g, '\n') : null);
    }
    return files.get(rel)!;
  };
  return cases.map((c) => {
    const text = c.path ? read(c.path) : null;
    const window = c.prefix + c.middle + c.suffix;
    const at = text === null ? -1 : text.indexOf(window);
    return at < 0 ? c : { ...c, file: { before: text!.slice(0, at), after: text!.slice(at + window.length) } };
  });
}

/**
 * Whether the cursor (where the true middle starts) is in code rather than inside a string literal or a comment of
 * the whole file (scanPython; the opening quote of a string counts as code); null without file context. Inside a
 * docstring almost any text compiles, so the compiler's verdict on a middle put there says little.
 */
export function cursorInCode(c: FimCase): boolean | null {
  if (!c.file) return null;
  const kind = scanPython(c.file.before + c.prefix + c.middle + c.suffix + c.file.after).kind[c.file.before.length + c.prefix.length];
  return kind === CODE || kind === QUOTE;
}

export interface FimCompletion {
  /** Decoded completion, without the stop token. */
  text: string;
  /** Ended by a stop token (else cut at maxNewTokens). */
  stopped: boolean;
  promptTokens: number;
  /** Prompt tokens dropped to fit the window. */
  truncated: number;
}

/** Completion of each case, greedy unless `sampling` (completeBatched: batched with left padding, similar lengths together). */
export async function completeFim(model: Qwen2Model, tok: Tokenizer, cases: readonly FimCase[], opts: CompleteOptions): Promise<FimCompletion[]> {
  const maxPrompt = model.config.max_position_embeddings - opts.maxNewTokens;
  const prompts = cases.map((c, i) => {
    try {
      return encodeServedPrompt(tok, formatFim(c.prefix, c.suffix), maxPrompt);
    } catch (e) {
      if (e instanceof PromptError) throw new Error(`FIM example ${i + 1}${c.path ? ` (${c.path})` : ''}: ${e.field}: ${e.message}`);
      throw e;
    }
  });
  const done = await completeBatched(
    model,
    tok,
    prompts.map((p) => p.ids),
    opts,
  );
  return done.map((d, i) => ({ ...d, promptTokens: prompts[i].ids.length, truncated: prompts[i].truncated }));
}

// ---------------------------------------------------------------------------------------------
// Scoring

/** The first line holding a non-whitespace character, trimmed; '' when there is none. */
export function firstNonEmptyLine(text: string): string {
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t !== '') return t;
  }
  return '';
}

/** FIRST_LINE_RULE. */
export function firstLineExact(completion: string, middle: string): boolean {
  return firstNonEmptyLine(completion) === firstNonEmptyLine(middle);
}

export interface FimOutcome {
  completion: string;
  firstLineExact: boolean;
  empty: boolean;
  syntaxOk: boolean;
  referenceOk: boolean;
  /** The completion inside the whole file compiles; null without file context. */
  inFileOk: boolean | null;
  inFileReferenceOk: boolean | null;
  /** The cursor is in code, not in a string or comment (cursorInCode); null without file context. */
  inCode: boolean | null;
  /** What Continue would show; null = nothing shown. */
  shown: string | null;
  accepted: boolean;
  /** The shown completion inside the whole file compiles; null when not shown or without file context. */
  shownInFileOk: boolean | null;
}

export interface FimFigures {
  n: number;
  first_line_exact: number;
  syntax_valid: number;
  syntax_valid_reference: number;
  /** null when no reference compiles. */
  syntax_valid_when_reference_valid: number | null;
  /** Examples with file context; the two in-file figures are null when there are none. */
  n_in_file: number;
  syntax_valid_in_file: number | null;
  syntax_valid_in_file_reference: number | null;
  /** The in-file figure on the examples whose cursor is in code (not inside a string or comment); null when none. */
  n_in_file_code: number;
  syntax_valid_in_file_code: number | null;
  empty_rate: number;
  mean_completion_chars: number;
  shown_rate: number;
  /** null when nothing is shown. */
  accept_rate_shown: number | null;
  accepted_per_request: number;
  n_shown_in_file: number;
  syntax_valid_shown_in_file: number | null;
}

export type SyntaxChecker = (codes: string[]) => Promise<boolean[]>;


/**
 * The sandbox's compile-only check. Whole source files (up to ~200 KB each, several per example) take longer and more
 * memory than the default limits allow for snippets; nothing is executed.
 */
export const syntaxChecker =
  (python?: string): SyntaxChecker =>
  (codes) =>
    sandboxCheckSyntax(codes, { python, timeoutMs: 30_000 + 20 * codes.length, memoryMb: 2048 });
const defaultChecker = syntaxChecker();

/** Score completions[i] as the middle of cases[i]; one syntax-check call (one python process) for everything. */
export async function scoreFim(
  cases: readonly FimCase[],
  completions: readonly string[],
  check: SyntaxChecker = defaultChecker,
): Promise<{ figures: FimFigures; outcomes: FimOutcome[] }> {
  if (cases.length === 0) throw new Error('scoreFim: no FIM examples');
  if (completions.length !== cases.length) throw new Error(`scoreFim: ${completions.length} completions for ${cases.length} examples`);
  // Programs to compile, each remembered by its index in `codes`.
  const codes: string[] = [];
  const add = (code: string) => codes.push(code) - 1;
  const shown = cases.map((c, i) => showCompletion(completions[i], c.prefix, c.suffix));
  const at = cases.map((c, i) => ({
    shownInFile: c.file && shown[i] !== null ? add(c.file.before + c.prefix + shown[i] + c.suffix + c.file.after) : -1,
    assembled: add(c.prefix + completions[i] + c.suffix),
    reference: add(c.prefix + c.middle + c.suffix),
    inFile: c.file ? add(c.file.before + c.prefix + completions[i] + c.suffix + c.file.after) : -1,
    inFileReference: c.file ? add(c.file.before + c.prefix + c.middle + c.suffix + c.file.after) : -1,
  }));
  const ok = await check(codes);
  const outcomes = cases.map((c, i): FimOutcome => {
    const empty = completions[i].trim() === '';
    return {
      completion: completions[i],
      firstLineExact: firstLineExact(completions[i], c.middle),
      empty,
      syntaxOk: ok[at[i].assembled] && !empty,
      referenceOk: ok[at[i].reference],
      inFileOk: c.file ? ok[at[i].inFile] && !empty : null,
      inFileReferenceOk: c.file ? ok[at[i].inFileReference] : null,
      inCode: cursorInCode(c),
      shown: shown[i],
      accepted: shown[i] !== null && acceptsCompletion(shown[i]!, c.middle),
      shownInFileOk: at[i].shownInFile >= 0 ? ok[at[i].shownInFile] : null,
    };
  });
  const refValid = outcomes.filter((o) => o.referenceOk);
  const inFile = outcomes.filter((o) => o.inFileOk !== null);
  const inFileCode = inFile.filter((o) => o.inCode === true);
  const shownOutcomes = outcomes.filter((o) => o.shown !== null);
  const shownInFile = outcomes.filter((o) => o.shownInFileOk !== null);
  return {
    outcomes,
    figures: {
      n: cases.length,
      first_line_exact: share(outcomes.map((o) => o.firstLineExact)),
      syntax_valid: share(outcomes.map((o) => o.syntaxOk)),
      syntax_valid_reference: share(outcomes.map((o) => o.referenceOk)),
      syntax_valid_when_reference_valid: refValid.length > 0 ? share(refValid.map((o) => o.syntaxOk)) : null,
      n_in_file: inFile.length,
      syntax_valid_in_file: inFile.length > 0 ? share(inFile.map((o) => o.inFileOk!)) : null,
      syntax_valid_in_file_reference: inFile.length > 0 ? share(inFile.map((o) => o.inFileReferenceOk!)) : null,
      n_in_file_code: inFileCode.length,
      syntax_valid_in_file_code: inFileCode.length > 0 ? share(inFileCode.map((o) => o.inFileOk!)) : null,
      empty_rate: share(outcomes.map((o) => o.empty)),
      mean_completion_chars: completions.reduce((s, c) => s + c.length, 0) / completions.length,
      shown_rate: shownOutcomes.length / outcomes.length,
      accept_rate_shown: shownOutcomes.length > 0 ? share(shownOutcomes.map((o) => o.accepted)) : null,
      accepted_per_request: share(outcomes.map((o) => o.accepted)),
      n_shown_in_file: shownInFile.length,
      syntax_valid_shown_in_file: shownInFile.length > 0 ? share(shownInFile.map((o) => o.shownInFileOk!)) : null,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The whole evaluation

export interface BaseEvalOptions {
  modelDir: string;
  /** modelDir as the command checked it (absent: checked when opened). */
  checkpoint?: Checkpoint<'causal-lm'>;
  /** Texts of the held-out corpus files (readCorpus(dir).test). */
  heldoutTexts: readonly string[];
  fimCases: readonly FimCase[];
  seqLen: number;
  lossBatchSize: number;
  maxHeldoutWindows?: number;
  maxNewTokens: number;
  /** FIM completions: no end token before this many tokens (as the online server, completion.minTokens); default 0. */
  minNewTokens?: number;
  batchSize: number;
  checkSyntax?: SyntaxChecker;
  /** Function-body completion (function-eval.ts): candidate cases from the held-out files; omitted = skipped. */
  functions?: { cases: readonly FunctionCase[]; limit: number; seed: number | string; maxNewTokens: number };
  onProgress?: (stage: 'heldout' | 'heldout_fim' | 'fim' | 'functions', done: number, total: number) => void;
}

export interface BaseEvalReport {
  model: string;
  heldout: {
    seq_len: number;
    n_windows: number;
    n_tokens: number;
    loss: number;
    loss_se: number | null;
    ppl: number;
    n_windows_fim: number;
    n_tokens_fim: number;
    loss_fim: number;
    loss_fim_se: number | null;
    /** Each window's mean loss (plain, FIM), in window order: paired comparisons of two models on the same windows. */
    window_losses: number[];
    window_losses_fim: number[];
    ppl_fim: number;
  };
  fim: FimFigures & {
    max_new_tokens: number;
    min_new_tokens: number;
    stopped_rate: number;
    truncated_prompts: number;
    /** Each example's outcome (1/0) in example order: paired comparisons of two models on the same examples. */
    per_example: { first_line_exact: number[]; syntax_valid: number[]; accepted: number[] };
  };
  /** null when not asked for. n_candidates: documented functions found; n_compiling: those whose own code compiles. */
  functions:
    | (FunctionFigures & {
        max_new_tokens: number;
        reference_fits: number;
        n_candidates: number;
        n_compiling: number;
        truncated_prompts: number;
        /** Each function's outcome in case order: compiles (1/0), its body's non-blank lines, repetitive (1/0; absent in older files). */
        per_example: { syntax_valid: number[]; body_lines: number[]; repetitive?: number[] };
      })
    | null;
  seconds: { heldout: number; fim_generate: number; syntax: number; functions: number };
}

export interface FunctionResult {
  cases: FunctionCase[];
  completions: FunctionCompletion[];
  outcomes: FunctionOutcome[];
}

export async function evaluateBase(
  opts: BaseEvalOptions,
): Promise<{ report: BaseEvalReport; outcomes: FimOutcome[]; completions: FimCompletion[]; functions: FunctionResult | null }> {
  const { model, tokenizer: tok } = await openCheckpoint(opts.checkpoint ?? opts.modelDir, { flag: '--model', trainable: false });
  try {
    if (opts.seqLen > model.config.max_position_embeddings) {
      throw new Error(`seq_len ${opts.seqLen} is longer than the model's window (${model.config.max_position_embeddings})`);
    }
    const seconds = (t0: number) => (performance.now() - t0) / 1000;
    let t0 = performance.now();
    const lossOpts = (stage: 'heldout' | 'heldout_fim'): LossOptions => ({
      seqLen: opts.seqLen,
      batchSize: opts.lossBatchSize,
      maxWindows: opts.maxHeldoutWindows,
      onProgress: (d, t) => opts.onProgress?.(stage, d, t),
    });
    const plain = await heldoutLoss(model, tok, opts.heldoutTexts, 0, lossOpts('heldout'));
    const fim = await heldoutLoss(model, tok, opts.heldoutTexts, 1, lossOpts('heldout_fim'));
    const heldoutSeconds = seconds(t0);

    t0 = performance.now();
    const completions = await completeFim(model, tok, opts.fimCases, {
      maxNewTokens: opts.maxNewTokens,
      minNewTokens: opts.minNewTokens,
      batchSize: opts.batchSize,
      onProgress: (d, t) => opts.onProgress?.('fim', d, t),
    });
    const generateSeconds = seconds(t0);
    t0 = performance.now();
    const check = opts.checkSyntax ?? defaultChecker;
    const scored = await scoreFim(
      opts.fimCases,
      completions.map((c) => c.text),
      check,
    );
    const syntaxSeconds = seconds(t0);

    t0 = performance.now();
    let functions: FunctionResult | null = null;
    let functionFigures: BaseEvalReport['functions'] = null;
    if (opts.functions) {
      const f = opts.functions;
      const compiling = await compilingCases(f.cases, check);
      const cases = selectFunctionCases(compiling, f.limit, f.seed);
      if (cases.length === 0) throw new Error(`no documented function with a compiling body among ${f.cases.length} candidates in the held-out files`);
      const fc = await completeFunctions(model, tok, cases, {
        maxNewTokens: f.maxNewTokens,
        batchSize: opts.batchSize,
        onProgress: (d, t) => opts.onProgress?.('functions', d, t),
      });
      const scoredFunctions = await scoreFunctions(cases, fc, check);
      functions = { cases, completions: fc, outcomes: scoredFunctions.outcomes };
      functionFigures = {
        ...scoredFunctions.figures,
        max_new_tokens: f.maxNewTokens,
        reference_fits: share(cases.map((c) => tok.encode(c.reference).length < f.maxNewTokens)),
        n_candidates: f.cases.length,
        n_compiling: compiling.length,
        truncated_prompts: fc.filter((c) => c.truncated > 0).length,
        per_example: {
          syntax_valid: scoredFunctions.outcomes.map((o) => +o.syntaxOk),
          body_lines: scoredFunctions.outcomes.map((o) => bodyLines(o.body)),
          repetitive: scoredFunctions.outcomes.map((o) => +o.repetitive),
        },
      };
    }
    const report: BaseEvalReport = {
      model: opts.modelDir,
      heldout: {
        seq_len: opts.seqLen,
        n_windows: plain.n_windows,
        n_tokens: plain.n_tokens,
        loss: plain.loss,
        loss_se: plain.loss_se,
        ppl: plain.ppl,
        n_windows_fim: fim.n_windows,
        n_tokens_fim: fim.n_tokens,
        loss_fim: fim.loss,
        loss_fim_se: fim.loss_se,
        ppl_fim: fim.ppl,
        window_losses: plain.window_losses,
        window_losses_fim: fim.window_losses,
      },
      fim: {
        ...scored.figures,
        max_new_tokens: opts.maxNewTokens,
        min_new_tokens: opts.minNewTokens ?? 0,
        stopped_rate: share(completions.map((c) => c.stopped)),
        truncated_prompts: completions.filter((c) => c.truncated > 0).length,
        per_example: {
          first_line_exact: scored.outcomes.map((o) => +o.firstLineExact),
          syntax_valid: scored.outcomes.map((o) => +o.syntaxOk),
          accepted: scored.outcomes.map((o) => +o.accepted),
        },
      },
      functions: functionFigures,
      seconds: { heldout: heldoutSeconds, fim_generate: generateSeconds, syntax: syntaxSeconds, functions: seconds(t0) },
    };
    return { report, outcomes: scored.outcomes, completions, functions };
  } finally {
    model.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Output files

export const BASE_OUTPUT_FILES = { json: 'base_eval.json', samples: 'fim_samples.jsonl', functionSamples: 'function_samples.jsonl' } as const;

/** One line of fim_samples.jsonl: the context near the cursor, the true middle and the model's completion. */
export interface FimSample {
  path: string | null;
  kind: unknown;
  prefix_tail: string;
  middle: string;
  completion: string;
  suffix_head: string;
  first_line_exact: boolean;
  syntax_ok: boolean;
  reference_ok: boolean;
  in_file_ok: boolean | null;
  /** The cursor is in code, not in a string or comment (null without file context). */
  in_code: boolean | null;
  /** What Continue would show (null = nothing) and whether the simulated user accepts it. */
  shown: string | null;
  accepted: boolean;
  stopped: boolean;
}

/** The first `n` examples as samples (prefix and suffix shortened to `context` characters next to the cursor). */
export function fimSamples(cases: readonly FimCase[], outcomes: readonly FimOutcome[], completions: readonly FimCompletion[], n: number, context = 300): FimSample[] {
  return cases.slice(0, n).map((c, i) => ({
    path: c.path ?? null,
    kind: c.kind ?? null,
    prefix_tail: c.prefix.slice(-context),
    middle: c.middle,
    completion: outcomes[i].completion,
    suffix_head: c.suffix.slice(0, context),
    first_line_exact: outcomes[i].firstLineExact,
    syntax_ok: outcomes[i].syntaxOk,
    reference_ok: outcomes[i].referenceOk,
    in_file_ok: outcomes[i].inFileOk,
    in_code: outcomes[i].inCode,
    shown: outcomes[i].shown,
    accepted: outcomes[i].accepted,
    stopped: completions[i].stopped,
  }));
}

/** One line of function_samples.jsonl: the signature + docstring, the true body and the body the model wrote. */
export interface FunctionSample {
  path: string;
  name: string;
  head: string;
  reference: string;
  body: string;
  ended: boolean;
  syntax_ok: boolean;
}

/** The first `n` function cases as samples. */
export function functionSamples(result: FunctionResult, n: number): FunctionSample[] {
  return result.cases.slice(0, n).map((c, i) => ({
    path: c.path,
    name: c.name,
    head: c.head,
    reference: c.reference,
    body: result.outcomes[i].body,
    ended: result.outcomes[i].ended,
    syntax_ok: result.outcomes[i].syntaxOk,
  }));
}

/**
 * Write <out>/base_eval.json (the report plus the metric definitions), <out>/fim_samples.jsonl and, when functions
 * were evaluated, <out>/function_samples.jsonl; returns the paths.
 */
export async function writeBaseEval(
  outDir: string,
  report: BaseEvalReport,
  samples: readonly FimSample[],
  fnSamples: readonly FunctionSample[] | null = null,
): Promise<string[]> {
  await fs.mkdir(outDir, { recursive: true });
  const json = path.join(outDir, BASE_OUTPUT_FILES.json);
  const jsonl = path.join(outDir, BASE_OUTPUT_FILES.samples);
  await writeFileAtomic(json, JSON.stringify({ ...report, definitions: BASE_METRIC_DESCRIPTIONS }, null, 2) + '\n');
  await writeJsonl(jsonl, samples);
  if (fnSamples === null) return [json, jsonl];
  const fnl = path.join(outDir, BASE_OUTPUT_FILES.functionSamples);
  await writeJsonl(fnl, fnSamples);
  return [json, jsonl, fnl];
}
