// The base-model evaluation: the first-line rule, FIM scoring with the real python syntax check on hand-made
// examples whose outcome is known, and the whole run (held-out loss, batched FIM generation) on a tiny random model.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { Qwen2Model } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { promoteToken } from '@rlhf-code/model/testing';
import { checkSyntax } from '@rlhf-code/sandbox';
import { formatFim, loadTokenizer, Tokenizer } from '@rlhf-code/tokenizer';
import {
  BASE_OUTPUT_FILES,
  completeFim,
  evaluateBase,
  FimCase,
  fimSamples,
  firstLineExact,
  firstNonEmptyLine,
  heldoutLoss,
  scoreFim,
  selectFimCases,
  withFileContext,
  cursorInCode,
  functionSamples,
  writeBaseEval,
} from './base-eval';
import { cutBody, functionCases, functionSource } from './function-eval';
import { saveTinyModel, TOKENIZER_DIR } from '@rlhf-code/model/testing';

describe('first-line rule', () => {
  it('takes the first line with a non-whitespace character, trimmed at both ends', () => {
    expect(firstNonEmptyLine('\n  \n\t  return x  \n y = 2')).toBe('return x');
    expect(firstNonEmptyLine('a\r\nb')).toBe('a');
    expect(firstNonEmptyLine('   \n\n')).toBe('');
    expect(firstNonEmptyLine('')).toBe('');
  });

  it('compares completion and middle by that line only', () => {
    expect(firstLineExact('\n\n  foo(a)   \nsomething else', 'foo(a)\nbar(b)\n')).toBe(true);
    expect(firstLineExact('foo(a) ', '    foo(a)')).toBe(true);
    expect(firstLineExact('foo( a)', 'foo(a)')).toBe(false); // whitespace inside the line counts
    expect(firstLineExact('foo(a', 'foo(a)')).toBe(false);
    expect(firstLineExact('x', 'x\ny')).toBe(true);
  });

  it('an empty middle matches only a completion without any non-blank line', () => {
    expect(firstLineExact('', '')).toBe(true);
    expect(firstLineExact('  \n\t\n', '')).toBe(true);
    expect(firstLineExact('x', '  \n')).toBe(false);
    expect(firstLineExact('', 'x = 1')).toBe(false);
  });
});

// Hand-made examples: whether each assembled program compiles is known.
const A = { prefix: 'def f(x):\n    return ', suffix: '\n\nprint(f(1))\n', middle: 'x + 1' };
const INDENTED = { prefix: '    y = 1\n', suffix: '', middle: 'z = 2\n' }; // starts with an indent: never compiles
const LIST = { prefix: 'items = [1, 2,\n', suffix: 'print(items)\n', middle: '    3]\n' };
const TOP = { prefix: 'x = 1\n', suffix: '', middle: 'y = x\n' };

describe('scoreFim (real python syntax check)', () => {
  const cases: FimCase[] = [A, A, A, INDENTED, LIST, TOP];
  const completions = [
    'x + 1', // exact, compiles
    'x +', // syntax error
    '', // `return` alone compiles, but an empty completion never counts as valid
    'z = 2\n', // exact, but the prefix makes it an unexpected indent
    '\n\n    3]  \n', // exact after skipping blank lines and trimming; compiles
    'return x\n', // compile() rejects `return` outside a function
  ];

  it('scores each example and aggregates, with one checker call for all programs', async () => {
    const calls: number[] = [];
    const { figures, outcomes } = await scoreFim(cases, completions, (codes) => {
      calls.push(codes.length);
      return checkSyntax(codes);
    });
    expect(calls).toEqual([12]);
    expect(outcomes.map((o) => o.firstLineExact)).toEqual([true, false, false, true, true, false]);
    expect(outcomes.map((o) => o.syntaxOk)).toEqual([true, false, false, false, true, false]);
    expect(outcomes.map((o) => o.referenceOk)).toEqual([true, true, true, false, true, true]);
    expect(outcomes.map((o) => o.empty)).toEqual([false, false, true, false, false, false]);
    // As Continue shows them (its line rules; trailing whitespace trimmed; blank = silent). The 5th starts with two
    // blank lines: Continue ends a suggestion at a blank line after the first, so nothing is left to show.
    expect(outcomes.map((o) => o.shown)).toEqual(['x + 1', 'x +', null, 'z = 2', null, 'return x']);
    // The simulated user compares the first line as shown (a blank first line is never accepted).
    expect(outcomes.map((o) => o.accepted)).toEqual([true, false, false, true, false, false]);
    expect(figures).toEqual({
      n: 6,
      first_line_exact: 3 / 6,
      syntax_valid: 2 / 6,
      syntax_valid_reference: 5 / 6,
      syntax_valid_when_reference_valid: 2 / 5,
      n_in_file: 0,
      syntax_valid_in_file: null,
      syntax_valid_in_file_reference: null,
      n_in_file_code: 0,
      syntax_valid_in_file_code: null,
      empty_rate: 1 / 6,
      mean_completion_chars: (5 + 3 + 0 + 6 + 11 + 9) / 6,
      shown_rate: 4 / 6,
      accept_rate_shown: 2 / 4,
      accepted_per_request: 2 / 6,
      n_shown_in_file: 0,
      syntax_valid_shown_in_file: null,
    });
  });

  it('syntax_valid_when_reference_valid is null when no reference compiles', async () => {
    const { figures } = await scoreFim([INDENTED], ['z = 2\n'], checkSyntax);
    expect(figures.syntax_valid_reference).toBe(0);
    expect(figures.syntax_valid_when_reference_valid).toBeNull();
  });

  it('rejects mismatched inputs', async () => {
    await expect(scoreFim(cases, ['x'], checkSyntax)).rejects.toThrow('scoreFim: 1 completions for 6 examples');
    await expect(scoreFim([], [], checkSyntax)).rejects.toThrow('scoreFim: no FIM examples');
  });
});

describe('in-file syntax check', () => {
  // The example is cut from inside a method, so its prefix alone (starting indented) never compiles; in the file it does.
  const SOURCE = 'import os\r\n\r\n\r\nclass K:\r\n    def f(self, x):\r\n        return x + 1\r\n\r\n    def g(self):\r\n        return 2\r\n';
  const CUT = { path: 'pkg/mod.py', prefix: '        return ', middle: 'x + 1', suffix: '\n\n    def g(self):\n' };
  let corpus: string;
  beforeAll(() => {
    corpus = fs.mkdtempSync(path.join(os.tmpdir(), 'base-eval-corpus-'));
    fs.mkdirSync(path.join(corpus, 'pkg'));
    fs.writeFileSync(path.join(corpus, 'pkg/mod.py'), SOURCE);
  });
  afterAll(() => fs.rmSync(corpus, { recursive: true, force: true }));

  it('withFileContext finds the example in its file (CRLF read as LF), else leaves it alone', () => {
    const [found, noFile, noMatch, noPath] = withFileContext<FimCase>(
      [CUT, { ...CUT, path: 'pkg/missing.py' }, { ...CUT, middle: 'x + 2' }, { ...CUT, path: undefined }],
      corpus,
    );
    expect(found.file).toEqual({ before: 'import os\n\n\nclass K:\n    def f(self, x):\n', after: '        return 2\n' });
    expect(found.file!.before + CUT.prefix + CUT.middle + CUT.suffix + found.file!.after).toBe(SOURCE.replace(/\r\n/g, '\n'));
    expect([noFile.file, noMatch.file, noPath.file]).toEqual([undefined, undefined, undefined]);
  });

  it('scores completions inside the whole file; examples without a file get null', async () => {
    const cases = withFileContext([CUT, CUT, CUT, { ...CUT, path: 'pkg/missing.py' }], corpus);
    const { figures, outcomes } = await scoreFim(cases, ['x + 1', 'x +', ' ', 'x + 1'], checkSyntax);
    expect(outcomes.map((o) => o.syntaxOk)).toEqual([false, false, false, false]); // the cut-off prefix alone
    expect(outcomes.map((o) => o.inFileOk)).toEqual([true, false, false, null]); // ' ' is empty: never valid
    expect(outcomes.map((o) => o.inFileReferenceOk)).toEqual([true, true, true, null]);
    expect(figures).toMatchObject({ n_in_file: 3, syntax_valid_in_file: 1 / 3, syntax_valid_in_file_reference: 1, syntax_valid_reference: 0 });
    // Shown (one line: the cursor line has code) and compiled in the file; ' ' is not shown, the last has no file.
    expect(outcomes.map((o) => o.shownInFileOk)).toEqual([true, false, null, null]);
    expect(figures).toMatchObject({ shown_rate: 3 / 4, n_shown_in_file: 2, syntax_valid_shown_in_file: 1 / 2, accepted_per_request: 2 / 4 });
    expect(outcomes.map((o) => o.inCode)).toEqual([true, true, true, null]);
    expect(figures).toMatchObject({ n_in_file_code: 3, syntax_valid_in_file_code: 1 / 3 });
  });

  it('counts the examples whose cursor is inside a docstring, string or comment apart (nearly anything compiles there)', async () => {
    const FILE = 'def f(x):\n    """Add one to x.\n\n    Returns a number.\n    """\n    s = "a b"  # note here\n    return x + 1\n';
    const files = new Map([['m.py', FILE]]);
    const cut = (prefixEnd: string, middle: string) => {
      const at = FILE.indexOf(prefixEnd) + prefixEnd.length;
      return { path: 'm.py', prefix: FILE.slice(0, at), middle, suffix: FILE.slice(at + middle.length) };
    };
    const cases = withFileContext(
      [
        cut('    Returns', ' a number.'), // inside the docstring
        cut('s = "a', ' b"'), // inside a string literal
        cut('# note', ' here'), // inside a comment
        cut('s = ', '"a b"'), // at the opening quote: code
        cut('    return ', 'x + 1'), // code
      ],
      files,
    );
    expect(cases.map(cursorInCode)).toEqual([false, false, false, true, true]);
    expect(cursorInCode({ prefix: 'a', middle: 'b', suffix: '' })).toBeNull();
    // The same junk compiles in the docstring and the comment, not in code.
    const { figures, outcomes } = await scoreFim(cases, ['if if', 'if if', 'if if', '"x"', 'if if'], checkSyntax);
    expect(outcomes.map((o) => o.inFileOk)).toEqual([true, false, true, true, false]); // 'if if' ends the string early
    expect(figures).toMatchObject({ n_in_file: 5, syntax_valid_in_file: 3 / 5, n_in_file_code: 2, syntax_valid_in_file_code: 1 / 2 });
  });
});

describe('selectFimCases', () => {
  const records = Array.from({ length: 12 }, (_, i) => ({ prefix: `p${i}`, suffix: '', middle: 'm', split: i % 3 === 0 ? 'train' : 'test' }));
  const test = records.filter((r) => r.split === 'test');

  it('keeps the split in file order; a limit takes a seeded subset, still in file order', () => {
    expect(selectFimCases(records, { split: 'test', seed: 0 })).toEqual(test);
    expect(selectFimCases(records, { split: 'all', limit: 100, seed: 0 })).toEqual(records);
    const a = selectFimCases(records, { split: 'test', limit: 3, seed: 0 });
    expect(a).toHaveLength(3);
    expect(a.every((r) => r.split === 'test')).toBe(true);
    expect(a.map((r) => test.indexOf(r))).toEqual([...a.map((r) => test.indexOf(r))].sort((x, y) => x - y));
    expect(selectFimCases(records, { split: 'test', limit: 3, seed: 0 })).toEqual(a);
    const subsets = [1, 2, 3, 4, 5].map((seed) => JSON.stringify(selectFimCases(records, { split: 'test', limit: 3, seed })));
    expect(new Set([JSON.stringify(a), ...subsets]).size).toBeGreaterThan(1);
  });

  it('names the split when it has no examples', () => {
    expect(() => selectFimCases(records, { split: 'dev', seed: 0 })).toThrow('no FIM examples with split "dev" (12 records)');
  });
});

// ---------------------------------------------------------------------------------------------
// A tiny random model (2 layers, 32 wide, window 512)

const HELDOUT = [
  'import os\n\n\ndef join(a, b):\n    """Join two paths."""\n    return os.path.join(a, b)\n\n\nclass Box:\n    def __init__(self, v):\n        self.v = v\n',
  'def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\n\nprint(total([1, 2, 3]))\n',
  'VALUES = {"a": 1, "b": 2}\n\nfor key, value in sorted(VALUES.items()):\n    print(key, value)\n',
];
const LONG = { prefix: 'counter = 0\n' + 'counter += 1\n'.repeat(400), suffix: 'print(counter)\n', middle: 'counter += 1\n' };

let tmp: string;
let modelDir: string;
let model: Qwen2Model;
let tok: Tokenizer;

beforeAll(async () => {
  await initBackend({ quiet: true });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'base-eval-'));
  modelDir = path.join(tmp, 'base');
  await saveTinyModel(modelDir, { seed: 3 });
  model = await Qwen2Model.load(modelDir, { trainable: false });
  tok = loadTokenizer(TOKENIZER_DIR);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('heldoutLoss', () => {
  it('is a token-weighted mean: the same whatever the batch size, seqLen - 1 targets per window', async () => {
    const one = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 1 });
    const three = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 3 });
    expect(one.n_windows).toBeGreaterThanOrEqual(5); // batches of 3 leave an uneven last batch
    expect(one.n_windows % 3).not.toBe(0);
    expect(one.n_tokens).toBe(one.n_windows * 15);
    expect(three.n_tokens).toBe(one.n_tokens);
    expect(three.loss).toBeCloseTo(one.loss, 4);
    expect(three.loss_se).toBeCloseTo(one.loss_se!, 4);
    expect(one.ppl).toBeCloseTo(Math.exp(one.loss), 6);
    expect(Number.isFinite(one.loss) && one.loss > 0).toBe(true);
  });

  it('the standard error over windows: the SD of the per-window losses over sqrt(n) (equal windows), null for one window', async () => {
    const all = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 2 });
    // each window alone (maxWindows k minus maxWindows k - 1 gives window k's loss, every window holding 15 targets)
    const perWindow: number[] = [];
    let before = 0;
    for (let k = 1; k <= all.n_windows; k++) {
      const first = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 2, maxWindows: k });
      perWindow.push(first.loss * k - before);
      before = first.loss * k;
    }
    const n = perWindow.length;
    const mean = perWindow.reduce((a, x) => a + x, 0) / n;
    expect(all.loss).toBeCloseTo(mean, 4);
    expect(all.window_losses).toHaveLength(n);
    all.window_losses.forEach((l, i) => expect(l).toBeCloseTo(perWindow[i], 4));
    const sd = Math.sqrt(perWindow.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
    expect(all.loss_se).toBeGreaterThan(0);
    expect(all.loss_se!).toBeCloseTo(sd / Math.sqrt(n), 4);
    expect((await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 2, maxWindows: 1 })).loss_se).toBeNull();
  });

  it('maxWindows takes the first windows; FIM windows hold more tokens for the same text', async () => {
    const two = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 16, batchSize: 4, maxWindows: 2 });
    expect(two.n_windows).toBe(2);
    const plain = await heldoutLoss(model, tok, HELDOUT, 0, { seqLen: 8, batchSize: 8 });
    const fim = await heldoutLoss(model, tok, HELDOUT, 1, { seqLen: 8, batchSize: 8 });
    expect(fim.n_windows).toBeGreaterThan(plain.n_windows); // 3 markers per chunk (and EOS on every FIM chunk)
  });

  it('says so when the files do not fill one window', async () => {
    await expect(heldoutLoss(model, tok, ['x = 1\n'], 0, { seqLen: 400, batchSize: 1 })).rejects.toThrow(
      'held-out loss: the held-out files do not fill one window of 400 tokens',
    );
  });
});

describe('completeFim', () => {
  const cases: FimCase[] = [A, LIST, LONG, TOP, INDENTED];

  it('batched (left padded, sorted by length) equals one prompt at a time, in input order', async () => {
    const tensors = tf.memory().numTensors;
    const single = [];
    for (const c of cases) single.push(...(await completeFim(model, tok, [c], { maxNewTokens: 6, batchSize: 1 })));
    const batched = await completeFim(model, tok, cases, { maxNewTokens: 6, batchSize: 3 });
    expect(tf.memory().numTensors).toBe(tensors);
    expect(batched).toEqual(single);
    expect(single.map((c) => c.text).some((t) => t !== '')).toBe(true);
  });

  it('cuts long prefixes from the left to fit the window, and stops at control tokens', async () => {
    const [long, short] = await completeFim(model, tok, [LONG, A], { maxNewTokens: 6, batchSize: 2 });
    expect(long.truncated).toBeGreaterThan(0);
    // At most the window less the new tokens; a cut prefix starts at a line, so the rest of one line ('counter += 1\n') may go too.
    expect(long.promptTokens).toBeLessThanOrEqual(512 - 6);
    expect(long.promptTokens).toBeGreaterThanOrEqual(512 - 6 - tok.encode('counter += 1\n').length);
    expect(long.promptTokens + long.truncated).toBe(tok.encode(formatFim(LONG.prefix, LONG.suffix)).length);
    expect(short.truncated).toBe(0);
    // decode keeps control tokens as text, so one generated and not stopped at would show here.
    for (const c of [long, short]) expect(c.text).not.toMatch(/<\|(endoftext|fim_\w+|im_\w+)\|>/);
  });
  it('minNewTokens keeps the end token out of the first tokens (as the online server serves)', async () => {
    // Make the end token the greedy first token of A (in place of A's first token).
    const [first] = await completeFim(model, tok, [A], { maxNewTokens: 1, batchSize: 1 });
    const original = promoteToken(model, tok.eosId, tok.encode(first.text)[0]);
    try {
      const [raw] = await completeFim(model, tok, [A], { maxNewTokens: 6, batchSize: 1 });
      expect(raw).toMatchObject({ text: '', stopped: true });
      const [held] = await completeFim(model, tok, [A], { maxNewTokens: 6, minNewTokens: 1, batchSize: 1 });
      expect(held.text.startsWith(first.text)).toBe(true);
      expect(held.text).not.toMatch(/<\|(endoftext|fim_\w+)\|>/);
    } finally {
      model.assignWeights(original);
    }
  });
});

describe('evaluateBase', () => {
  it('runs end to end; the figures agree with per-example outcomes checked one by one', async () => {
    const cases: FimCase[] = [A, LIST, INDENTED, TOP];
    const candidates = functionCases(HELDOUT.map((text, i) => ({ path: `f${i}.py`, text })));
    expect(candidates.map((c) => c.name)).toEqual(['join']);
    const { report, outcomes, completions, functions } = await evaluateBase({
      modelDir,
      heldoutTexts: HELDOUT,
      fimCases: cases,
      seqLen: 16,
      lossBatchSize: 4,
      maxNewTokens: 8,
      batchSize: 4,
      functions: { cases: candidates, limit: 10, seed: 0, maxNewTokens: 12 },
    });
    expect(report.model).toBe(modelDir);
    expect(report.heldout.n_tokens).toBe(report.heldout.n_windows * 15);
    expect(report.heldout.ppl_fim).toBeCloseTo(Math.exp(report.heldout.loss_fim), 6);
    // The prefix that starts indented never compiles; the other references do.
    expect(report.fim.syntax_valid_reference).toBe(3 / 4);
    expect(outcomes[2].syntaxOk).toBe(false);
    // Each outcome against an independent check of its own program.
    const texts = completions.map((c) => c.text);
    const ok = await Promise.all(cases.map(async (c, i) => (await checkSyntax([c.prefix + texts[i] + c.suffix]))[0] && texts[i].trim() !== ''));
    expect(outcomes.map((o) => o.syntaxOk)).toEqual(ok);
    expect(outcomes.map((o) => o.firstLineExact)).toEqual(cases.map((c, i) => firstLineExact(texts[i], c.middle)));
    expect(report.fim).toMatchObject({
      n: 4,
      max_new_tokens: 8,
      min_new_tokens: 0,
      syntax_valid: ok.filter(Boolean).length / 4,
      first_line_exact: outcomes.filter((o) => o.firstLineExact).length / 4,
      empty_rate: texts.filter((t) => t.trim() === '').length / 4,
      mean_completion_chars: texts.join('').length / 4,
      stopped_rate: completions.filter((c) => c.stopped).length / 4,
      truncated_prompts: 0,
    });
    // Per example, for paired comparisons (eval base-compare): the same outcomes as 1/0, in case order.
    expect(report.fim.per_example).toEqual({
      first_line_exact: outcomes.map((o) => +o.firstLineExact),
      syntax_valid: ok.map((x) => +x),
      accepted: outcomes.map((o) => +o.accepted),
    });

    // The function body, cut and compiled again here.
    expect(functions!.cases).toEqual(candidates);
    const fc = functions!.completions[0];
    const cut = cutBody(fc.text, 0, fc.stopped);
    const fnOk = (await checkSyntax([functionSource(candidates[0], cut.body)]))[0] && cut.body.trim() !== '';
    expect(report.functions).toMatchObject({ n: 1, n_candidates: 1, n_compiling: 1, max_new_tokens: 12, syntax_valid: fnOk ? 1 : 0, ended_rate: cut.ended ? 1 : 0 });
    // The true body of join() ("    return os.path.join(a, b)") is well under 12 tokens.
    expect(tok.encode(candidates[0].reference).length).toBeLessThan(12);
    expect(report.functions!.reference_fits).toBe(1);
    const lines = cut.body.split('\n').filter((l) => l.trim() !== '');
    const repetitive = Math.max(0, ...[...new Set(lines.map((l) => l.trim()))].map((u) => lines.filter((l) => l.trim() === u).length)) > 2;
    expect(report.functions!.per_example).toEqual({ syntax_valid: [+fnOk], body_lines: [lines.length], repetitive: [+repetitive] });
    expect(report.functions!.repetitive_rate).toBe(+repetitive);

    const out = path.join(tmp, 'out');
    const written = await writeBaseEval(out, report, fimSamples(cases, outcomes, completions, 2), functionSamples(functions!, 5));
    expect(written).toEqual([
      path.join(out, BASE_OUTPUT_FILES.json),
      path.join(out, BASE_OUTPUT_FILES.samples),
      path.join(out, BASE_OUTPUT_FILES.functionSamples),
    ]);
    const fnSamples = fs.readFileSync(written[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(fnSamples).toEqual([{ path: 'f0.py', name: 'join', head: candidates[0].head, reference: candidates[0].reference, body: cut.body, ended: cut.ended, syntax_ok: fnOk }]);
    const json = JSON.parse(fs.readFileSync(written[0], 'utf8'));
    expect(json.fim).toEqual(report.fim);
    expect(json.functions).toEqual(report.functions);
    expect(Object.keys(json.heldout)).toEqual(expect.arrayContaining(['n_tokens', 'loss', 'ppl', 'loss_fim', 'ppl_fim']));
    const samples = fs.readFileSync(written[1], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(samples).toHaveLength(2);
    expect(samples[1]).toMatchObject({ middle: LIST.middle, completion: texts[1], reference_ok: true, prefix_tail: LIST.prefix });
  });

  it('skips the function figures unless asked', async () => {
    const { report, functions } = await evaluateBase({ modelDir, heldoutTexts: HELDOUT, fimCases: [A], seqLen: 16, lossBatchSize: 4, maxNewTokens: 2, batchSize: 1 });
    expect(report.functions).toBeNull();
    expect(functions).toBeNull();
  });

  it('refuses a window longer than the model has', async () => {
    await expect(
      evaluateBase({ modelDir, heldoutTexts: HELDOUT, fimCases: [A], seqLen: 1024, lossBatchSize: 1, maxNewTokens: 4, batchSize: 1 }),
    ).rejects.toThrow("seq_len 1024 is longer than the model's window (512)");
  });
});
