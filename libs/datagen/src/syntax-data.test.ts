// Syntax training data: the filter (real python compile check on bodies whose verdict is known), the pick among
// kept bodies, prompt cutting, and the sampling loop on a tiny random model (shapes, seeding, the pick applied).
import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Qwen2Model } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { checkSyntax } from '@rlhf-code/sandbox';
import { loadTokenizer, Tokenizer } from '@rlhf-code/tokenizer';
import { cutPrompt, cutSuffix, fimSyntaxTrainingData, judgeFimSamples, judgeSamples, pickBest, SyntaxCandidate, syntaxExample, syntaxTrainingData, tokenF1 } from './syntax-data';
import { functionCases, withFileContext, type FimCase } from '@rlhf-code/eval';
import { saveTinyModel, TOKENIZER_DIR } from '@rlhf-code/model/testing';

const FILE = [
  'class Box:',
  '    def get(self, key, default=None):',
  '        """Return the value for key."""',
  '        if key in self.data:',
  '            return self.data[key]',
  '        return default',
  '',
  '    def put(self, key, value):',
  '        """Store value."""',
  '        self.data[key] = value',
  '',
].join('\n');
const cases = functionCases([{ path: 'box.py', text: FILE }]);

describe('tokenF1', () => {
  it('is the F1 of the word-token bags', () => {
    expect(tokenF1('return a + b', 'return a + b')).toBe(1);
    expect(tokenF1('return a + b', 'pass')).toBe(0);
    expect(tokenF1('', 'pass')).toBe(0);
    // {return, a, b} vs {return, b}: 2 in common, F1 = 2*2 / (3+2)
    expect(tokenF1('return a + b', 'return b')).toBeCloseTo(0.8, 12);
    // multiset: two x's against one
    expect(tokenF1('x x', 'x')).toBeCloseTo((2 * 1) / 3, 12);
  });
});

describe('judgeSamples (real python compile check)', () => {
  it('keeps the bodies the model ended itself that compile and do not repeat a line more than allowed', async () => {
    expect(cases.map((c) => c.name)).toEqual(['get', 'put']);
    const get = 0;
    const completions = [
      // ended by the next method (a line back at the def's indentation); compiles
      { caseIndex: get, text: '        return self.data.get(key, default)\n\n    def other(self):\n', stopped: false },
      // ended by the end token; an unclosed bracket
      { caseIndex: get, text: '        return self.data.get(key,\n', stopped: true },
      // ended, compiles, but one line three times
      { caseIndex: get, text: '        x = 1\n        x = 1\n        x = 1\n', stopped: true },
      // compiles but cut by the token limit (not ended): the last, partial line is dropped
      { caseIndex: get, text: '        return default\n        ret', stopped: false },
      // ended at once: empty
      { caseIndex: get, text: '', stopped: true },
      // the other function, ended and valid
      { caseIndex: 1, text: '        self.data[key] = value\n', stopped: true },
    ];
    const judged = await judgeSamples(cases, completions, (codes) => checkSyntax(codes), 2);
    expect(judged.map((j) => [j.ended, j.syntaxOk, j.kept])).toEqual([
      [true, true, true],
      [true, false, false],
      [true, true, false],
      [false, true, false],
      [true, false, false],
      [true, true, true],
    ]);
    expect(judged[0].body).toBe('        return self.data.get(key, default)\n');
    expect(judged[2].maxRepeat).toBe(3);
    expect(judged[3].body).toBe('        return default\n');
    expect(judged[5].similarity).toBe(1); // the true body
    expect(judged[0].similarity).toBeCloseTo(tokenF1(judged[0].body, cases[get].reference), 12);
  });
});

describe('pickBest', () => {
  const c = (kept: boolean, similarity: number, body = `b${similarity}`): SyntaxCandidate => ({ text: body, body, kept, similarity, ended: true, syntaxOk: kept, maxRepeat: 1 });
  it('takes the kept body most similar to the true one, the first of equals, none when nothing was kept', () => {
    expect(pickBest([c(true, 0.2), c(false, 0.9), c(true, 0.5), c(true, 0.1)])?.body).toBe('b0.5');
    expect(pickBest([c(true, 0.5, 'first'), c(true, 0.5, 'second')])?.body).toBe('first');
    expect(pickBest([c(false, 0.9)])).toBeNull();
    expect(pickBest([])).toBeNull();
  });
});

describe('cutPrompt and syntaxTrainingData on a tiny random model', () => {
  let dir: string;
  let model: Qwen2Model;
  let tok: Tokenizer;
  beforeAll(async () => {
    await initBackend({ quiet: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'syntax-data-'));
    await saveTinyModel(dir, { seed: 5 });
    model = await Qwen2Model.load(dir, { trainable: false });
    tok = loadTokenizer(TOKENIZER_DIR);
  });
  afterAll(() => {
    model.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cutPrompt keeps a short prompt as it is and a long one to its last tokens', () => {
    expect(cutPrompt(tok, cases[0].prompt, 10_000)).toEqual({ ids: tok.encode(cases[0].prompt), text: cases[0].prompt });
    const cut = cutPrompt(tok, cases[1].prompt, 8);
    expect(cut.ids).toEqual(tok.encode(cases[1].prompt).slice(-8));
    expect(cut.text).toBe(tok.decode(cut.ids));
    expect(cases[1].prompt.endsWith(cut.text)).toBe(true);
  });

  it('syntaxExample writes a plain example, or a FIM one whose suffix is the start of the file after the true body', () => {
    const best: SyntaxCandidate = { text: 'x', body: '        return 1\n', kept: true, similarity: 0.123456, ended: true, syntaxOk: true, maxRepeat: 1 };
    expect(syntaxExample(tok, cases[0], 'PROMPT', best, null)).toEqual({ prompt: 'PROMPT', response: '        return 1\n', path: 'box.py', name: 'get', similarity: 0.1235 });
    const fim = syntaxExample(tok, cases[0], 'PROMPT', best, 6);
    expect(fim.suffix).toBe(cutSuffix(tok, cases[0].suffix, 6));
    expect(tok.encode(fim.suffix!)).toHaveLength(6);
    expect(cases[0].suffix.startsWith(fim.suffix!)).toBe(true);
    expect(fim.suffix!.trimStart().startsWith('def put(')).toBe(true);
    expect(cutSuffix(tok, cases[0].suffix, 10_000)).toBe(cases[0].suffix);
  });

  const opts = { samples: 3, temperature: 1, maxNewTokens: 12, maxPromptTokens: 40, batchSize: 4, maxLineRepeats: 2, seed: 4, fimRate: 0.5, maxSuffixTokens: 16 };

  it('samples every function `samples` times, judges every sample, and picks at most one example per function', async () => {
    const seen: string[] = [];
    // Accept everything the compiler is shown, so only "ended", "empty" and repetition decide (the random model rarely
    // ends a body, and its verdicts would hide the pick).
    const check = async (codes: string[]) => {
      seen.push(...codes);
      return codes.map(() => true);
    };
    const r = await syntaxTrainingData(model, tok, cases, opts, check);
    expect(r.candidates.map((c) => c.length)).toEqual([3, 3]);
    expect(seen).toHaveLength(6);
    seen.forEach((code) => expect(code.startsWith('def get(') || code.startsWith('def put(')).toBe(true)); // dedented head + body
    expect(r.stats.samples).toBe(6);
    expect(r.stats.functions).toBe(2);
    const flat = r.candidates.flat();
    expect(r.stats.kept_rate).toBeCloseTo(flat.filter((x) => x.kept).length / 6, 12);
    expect(r.stats.ended_rate).toBeCloseTo(flat.filter((x) => x.ended).length / 6, 12);
    flat.forEach((x) => expect(x.kept).toBe(x.ended && x.body.trim() !== '' && x.maxRepeat <= 2));
    const picked = r.candidates.map(pickBest).filter((x) => x !== null).map((x) => x!.body);
    expect(r.examples.map((e) => e.response)).toEqual(picked);
    expect(r.stats.functions_with_example).toBe(r.examples.length / 2);
    for (const e of r.examples) {
      const c = cases.find((x) => x.name === e.name)!;
      expect(e.path).toBe('box.py');
      expect(e.prompt).toBe(cutPrompt(tok, c.prompt, 40).text);
    }

    // Seeded: the same flags give the same samples; another seed other samples.
    const again = await syntaxTrainingData(model, tok, cases, opts, check);
    expect(again.candidates).toEqual(r.candidates);
    // ... whatever the batch size (each sample has its own random stream).
    const alone = await syntaxTrainingData(model, tok, cases, { ...opts, batchSize: 1 }, check);
    expect(alone.candidates).toEqual(r.candidates);
    const other = await syntaxTrainingData(model, tok, cases, { ...opts, seed: 5 }, check);
    expect(flat.every((x) => x.text.length > 0)).toBe(true);
    expect(other.candidates.flat().map((x) => x.text)).not.toEqual(flat.map((x) => x.text));
  });

  it('--references adds each function\'s true body as an example of its own, leaving the sampled examples as they were', async () => {
    const check = async (codes: string[]) => codes.map(() => true);
    const plain = await syntaxTrainingData(model, tok, cases, opts, check);
    const withRefs = await syntaxTrainingData(model, tok, cases, { ...opts, fimRate: 1, references: true }, check);
    const sampled = withRefs.examples.filter((e) => !e.reference);
    const refs = withRefs.examples.filter((e) => e.reference);
    // The samples' examples are the same bodies (their FIM form is drawn by the samples' own coin: all FIM at rate 1).
    expect(sampled.map((e) => e.response)).toEqual(plain.examples.map((e) => e.response));
    expect(refs.map((e) => [e.name, e.response, e.similarity])).toEqual(cases.map((c) => [c.name, c.reference, 1]));
    refs.forEach((e, i) => {
      expect(e.prompt).toBe(cutPrompt(tok, cases[i].prompt, 40).text);
      expect(e.suffix).toBe(cutSuffix(tok, cases[i].suffix, 16)); // fimRate 1: every true body in FIM form too
    });
    expect(withRefs.stats.references).toBe(2);
    expect(plain.stats.references).toBe(0);
    expect(withRefs.stats.mean_body_lines).toBe(plain.stats.mean_body_lines); // the true bodies are not counted
    const plainRefs = await syntaxTrainingData(model, tok, cases, { ...opts, fimRate: 0, references: true }, check);
    plainRefs.examples.forEach((e) => expect(e.suffix).toBeUndefined());
  });

  it('refuses a token budget that leaves no room for a prompt, and an empty case list', async () => {
    await expect(syntaxTrainingData(model, tok, cases, { ...opts, maxNewTokens: 512 }, async (c) => c.map(() => true))).rejects.toThrow(
      "max new tokens 512 leaves no room for a prompt in the model's window (512)",
    );
    await expect(syntaxTrainingData(model, tok, [], opts, async (c) => c.map(() => true))).rejects.toThrow('no functions to sample');
  });
});

// Two FIM cases cut from FILE, with the rest of the file attached: the rest of a line, and a whole line.
const fimCases: FimCase[] = withFileContext(
  [
    { prefix: '        if key in self.', middle: 'data:', suffix: '\n            return self.data[key]\n', path: 'box.py', split: 'train', kind: 'rest-of-line' },
    { prefix: '    def put(self, key, value):\n        """Store value."""\n', middle: '        self.data[key] = value\n', suffix: '', path: 'box.py', split: 'train', kind: 'lines' },
  ],
  new Map([['box.py', FILE]]),
);

describe('judgeFimSamples (real python compile check, in the whole file)', () => {
  it('keeps the middles the model ended itself that compile in their file and do not repeat a line more than allowed', async () => {
    expect(fimCases.every((c) => c.file !== undefined)).toBe(true);
    const completions = [
      { caseIndex: 0, text: 'data:', stopped: true }, // the true middle
      { caseIndex: 0, text: 'keys():', stopped: true }, // another valid one
      { caseIndex: 0, text: 'data', stopped: true }, // no colon: invalid in the file
      { caseIndex: 0, text: 'data:', stopped: false }, // valid but cut by the token limit
      { caseIndex: 1, text: '        self.data[key] = value\n', stopped: true },
      { caseIndex: 1, text: '            self.data[key] = value\n', stopped: true }, // unexpected indent
      { caseIndex: 1, text: '        pass\n        pass\n        pass\n', stopped: true }, // compiles, one line 3 times
      { caseIndex: 1, text: '\n', stopped: true }, // blank: the file compiles (a docstring body) but it is empty
    ];
    const judged = await judgeFimSamples(fimCases, completions, checkSyntax, 2);
    expect(judged.map((j) => j.syntaxOk)).toEqual([true, true, false, true, true, false, true, false]);
    expect(judged.map((j) => j.kept)).toEqual([true, true, false, false, true, false, false, false]);
    expect(judged.map((j) => j.ended)).toEqual(completions.map((c) => c.stopped));
    expect(judged[0].similarity).toBe(1);
    expect(judged[1].similarity).toBe(0);
    expect(pickBest(judged.slice(0, 4))!.text).toBe('data:');
  });

  it('refuses a case without its file', async () => {
    const bare = { ...fimCases[0], file: undefined };
    await expect(judgeFimSamples([bare], [{ caseIndex: 0, text: 'x', stopped: true }], checkSyntax, 2)).rejects.toThrow('FIM example 1 (box.py) has no file context');
  });
});

describe('fimSyntaxTrainingData on a tiny random model', () => {
  let dir: string;
  let model: Qwen2Model;
  let tok: Tokenizer;
  beforeAll(async () => {
    await initBackend({ quiet: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'fim-syntax-'));
    await saveTinyModel(dir, { seed: 6 });
    model = await Qwen2Model.load(dir, { trainable: false });
    tok = loadTokenizer(TOKENIZER_DIR);
  });
  afterAll(() => {
    model.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const opts = { samples: 3, temperature: 1, maxNewTokens: 10, batchSize: 4, maxLineRepeats: 2, seed: 1 };

  it('samples every case `samples` times, judges each middle in its file, and writes the best kept one as a FIM example', async () => {
    const seen: string[] = [];
    // Accept every file, so only "ended", "empty" and repetition decide (the random model's middles rarely compile).
    const check = async (codes: string[]) => {
      seen.push(...codes);
      return codes.map(() => true);
    };
    const r = await fimSyntaxTrainingData(model, tok, fimCases, opts, check);
    expect(r.candidates.map((c) => c.length)).toEqual([3, 3]);
    const flat = r.candidates.flat();
    // What the compiler saw: the whole file with each middle in place.
    expect(seen).toEqual(r.candidates.flatMap((cs, i) => cs.map((x) => fimCases[i].file!.before + fimCases[i].prefix + x.text + fimCases[i].suffix + fimCases[i].file!.after)));
    flat.forEach((x) => expect(x.kept).toBe(x.ended && x.text.trim() !== '' && x.maxRepeat <= 2));
    expect(r.stats).toMatchObject({ cases: 2, samples: 6, kept_rate: flat.filter((x) => x.kept).length / 6, cases_with_example: r.examples.length / 2 });
    const picked = r.candidates.map((cs, i) => ({ best: pickBest(cs), c: fimCases[i] })).filter((x) => x.best !== null);
    expect(r.examples).toEqual(
      picked.map(({ best, c }) => ({ prompt: c.prefix, suffix: c.suffix, response: best!.text, path: 'box.py', name: `fim:${c.kind}`, similarity: Math.round(best!.similarity * 1e4) / 1e4 })),
    );
    // Seeded.
    expect((await fimSyntaxTrainingData(model, tok, fimCases, opts, check)).candidates).toEqual(r.candidates);
    expect(flat.some((x) => x.text.length > 0)).toBe(true);
  });

  it('refuses no cases, and a case whose source file was not found', async () => {
    const accept = async (c: string[]) => c.map(() => true);
    await expect(fimSyntaxTrainingData(model, tok, [], opts, accept)).rejects.toThrow('no FIM examples to sample');
    await expect(fimSyntaxTrainingData(model, tok, [fimCases[0], { ...fimCases[1], file: undefined }], opts, accept)).rejects.toThrow(
      'FIM example 2 (box.py): its source file was not found in the corpus',
    );
  });
});
