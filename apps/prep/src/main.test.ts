// The prep CLI end to end on a small MBPP-shaped file (real tsx, real python3 for `rm`).
import { createHash } from 'crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BASE_MODEL, printedConfig, runApp } from '@rlhf-code/cli/testing';
import { saveTinyAppModel } from '@rlhf-code/model/testing';
import { isHeldOut, openTokenCache, readCorpus, readPpoData, readRmData, readSftData } from '@rlhf-code/data';
import { fimExamplesFromText, PrepCorpusSettings, PrepRmSettings, PrepSyntaxSettings } from '@rlhf-code/datagen';
import { cursorInCode, functionCases, functionSource, maxLineRepeat, withFileContext } from '@rlhf-code/eval';
import { checkSyntax } from '@rlhf-code/sandbox';

const prep = (...args: string[]) => runApp('prep', args, 60_000);

const task = (task_id: number, text: string, code: string, tests: string[]) => ({
  task_id,
  text,
  code,
  test_list: tests,
  test_setup_code: '',
  challenge_test_list: [],
});
const TASKS = [
  task(5, 'Write a function to double a number.', 'def double(x):\r\n  return 2 * x', ['assert double(2) == 4']),
  task(12, 'Write a function to add two numbers.', 'def add(a, b):\r\n  return a + b', ['assert add(1, 2) == 3']),
  task(13, 'Write a function to negate a number.', 'def neg(x):\r\n  return -x', ['assert neg(1) == -1']),
  task(520, 'Write a function to find the larger of two numbers.', 'def larger(a, b):\r\n  if a > b:\r\n    return a\r\n  return b', [
    'assert larger(1, 2) == 2',
    'assert larger(3, 2) == 3',
    'assert larger(-1, -1) == -1',
  ]),
  task(700, 'Write a function to sum a list.', 'def total(xs):\r\n  s = 0\r\n  for i in range(len(xs)):\r\n    s += xs[i]\r\n  return s', [
    'assert total([1, 2, 3]) == 6',
    'assert total([]) == 0',
    'assert total([5]) == 5',
  ]),
  // Same problem as test task 12: must stay out of training.
  task(701, 'Write a function to add two numbers', 'def plus(a, b):\r\n  return a + b', ['assert plus(1, 1) == 2']),
];

let dir: string;
let mbpp: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'prep-test-'));
  mbpp = path.join(dir, 'mbpp-in.jsonl');
  writeFileSync(mbpp, TASKS.map((t) => JSON.stringify(t)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('prep data', () => {
  it('writes the training files from 511-974 only, the eval file from 11-510, and the MBPP copy with its README', async () => {
    const out = path.join(dir, 'out');
    const r = prep('data', '--mbpp', mbpp, '--out-dir', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toContain('left out 701 (repeats test task 12)');

    const sft = await readSftData(path.join(out, 'sft_data.jsonl'));
    expect(sft.map((x) => x.task_id)).toEqual([520, 700]);
    expect(sft[0].response).toBe('def larger(a, b):\n  if a > b:\n    return a\n  return b\n');
    const ppo = await readPpoData(path.join(out, 'ppo_prompts.jsonl'));
    expect(ppo.map((x) => x.task_id)).toEqual([700]);
    expect(ppo[0].tests).toEqual(TASKS[4].test_list);
    const validation = await readPpoData(path.join(out, 'mbpp_validation.jsonl'));
    expect(validation.map((x) => x.task_id)).toEqual([520]);
    const evalRows = await readPpoData(path.join(out, 'eval_mbpp_test.jsonl'));
    expect(evalRows.map((x) => x.task_id)).toEqual([12, 13]);
    expect(evalRows[0].prompt).toBe('# Write a function to add two numbers.\n# Your code should pass this test:\n# assert add(1, 2) == 3\n');

    expect(readFileSync(path.join(out, 'mbpp/mbpp.jsonl'), 'utf8')).toBe(readFileSync(mbpp, 'utf8'));
    const readme = readFileSync(path.join(out, 'mbpp/README.md'), 'utf8');
    expect(readme).toContain('License: CC BY 4.0');
    expect(readme).toContain('"Program Synthesis with Large Language');
    expect(readme).toContain('Jacob Austin');
  });

  it('names the missing input file', () => {
    const r = prep('data', '--mbpp', path.join(dir, 'nope.jsonl'), '--out-dir', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`prep: error: ${path.join(dir, 'nope.jsonl')}: file not found\n`);
  });
});

describe('prep rm', () => {
  it('scores the reference and its mutants for each training prompt, deterministically', async () => {
    const out1 = path.join(dir, 'rm1.jsonl');
    const out2 = path.join(dir, 'rm2.jsonl');
    const r = prep('rm', '--mbpp', mbpp, '--out', out1, '--seed', '3', '--timeout-ms', '2000');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^prep rm: .* rows for 2 prompts; score mean [\d.]+, =1\.0 [\d.]+%, <0\.3 [\d.]+%; references at 1\.0: 2\/2;/);
    const rows = await readRmData(out1);
    expect(new Set(rows.map((x) => x.task_id))).toEqual(new Set([520, 700]));
    const refs = rows.filter((x) => x.source === 'reference');
    expect(refs.map((x) => x.score)).toEqual([1, 1]);
    // Syntax-broken variants: the compile penalty.
    for (const x of rows.filter((x) => /drop_colon|unbalance_bracket|truncate|bad_indent/.test(String(x.source)))) expect(x.score).toBe(-0.1);
    // Logic-broken ones compile: 1 if they still pass every test, else 0.
    const logic = rows.filter((x) => /swap_|off_by_one|wrong_return|delete_line/.test(String(x.source)));
    expect(logic.length).toBeGreaterThan(4);
    expect(logic.every((x) => x.score === 0 || x.score === 1)).toBe(true);
    expect(logic.some((x) => x.score === 0)).toBe(true);
    // The stubs of each prompt, all worth nothing (those equal to a mutant are not repeated).
    const stubs = rows.filter((x) => String(x.source).startsWith('stub:'));
    expect(stubs.length).toBeGreaterThanOrEqual(2 * 8);
    expect(new Set(stubs.map((x) => x.score))).toEqual(new Set([0]));

    prep('rm', '--mbpp', mbpp, '--out', out2, '--seed', '3', '--timeout-ms', '2000');
    expect(readFileSync(out2, 'utf8')).toBe(readFileSync(out1, 'utf8'));
  });

  it("--problems: rows from any problems in MBPP's schema that have a reference; a file without one is a clear error", async () => {
    const problems = path.join(dir, 'problems.jsonl');
    const p = (id: number, code?: string) => ({ task_id: id, text: 'Write a function twice(n) that returns 2 * n.', ...(code ? { code } : {}), test_list: ['assert twice(2) == 4', 'assert twice(5) == 10'] });
    writeFileSync(problems, [p(100001, 'def twice(n):\n    return n * 2\n'), p(200001)].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const out = path.join(dir, 'rm-problems.jsonl');
    const r = prep('rm', '--problems', problems, '--out', out);
    expect(r.code).toBe(0);
    const rows = await readRmData(out);
    expect(new Set(rows.map((x) => x.task_id))).toEqual(new Set([100001]));
    expect(rows.find((x) => x.source === 'reference')).toMatchObject({ score: 1, prompt: '# Write a function twice(n) that returns 2 * n.\n# Your code should pass this test:\n# assert twice(2) == 4\n' });
    expect(rows.find((x) => x.source === 'stub:echo-arg')).toMatchObject({ response: 'def twice(n):\n    return n\n', score: 0 });
    const none = path.join(dir, 'no-reference.jsonl');
    writeFileSync(none, JSON.stringify(p(200002)) + '\n');
    const e = prep('rm', '--problems', none, '--out', path.join(dir, 'x.jsonl'));
    expect(e.code).toBe(1);
    expect(e.stderr).toBe(`prep: error: --problems ${none}: no problem has a reference (\`code\`), so there is nothing to mutate\n`);
  });

  it('stops with one clear line when python is missing', () => {
    const r = prep('rm', '--mbpp', mbpp, '--out', path.join(dir, 'x.jsonl'), '--python', '/nonexistent/python3');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('prep: error: /nonexistent/python3 not found: install Python 3 or set --python / RLHF_PYTHON\n');
  });

  it('names a bad flag', () => {
    const r = prep('rm', '--mbpp', mbpp, '--timeout-ms', 'soon');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--timeout-ms');
  });
});

describe('prep syntax', () => {
  // A small corpus of simple documented functions; the path-hash split holds out mod10.py and mod11.py.
  let corpus: string;
  beforeAll(() => {
    corpus = path.join(dir, 'corpus');
    mkdirSync(corpus);
    for (let i = 0; i < 12; i++) {
      const fns = [0, 1, 2].map((k) => `def f${i}_${k}(x, y=None):\n    """Return x plus ${k}."""\n    if y is None:\n        return x + ${k}\n    return x + y\n`);
      writeFileSync(path.join(corpus, `mod${i}.py`), `import os\n\n\n${fns.join('\n\n')}`);
    }
  });
  const FLAGS = ['--functions', '0', '--samples', '4', '--max-new-tokens', '40', '--max-prompt-tokens', '64', '--batch-size', '8'];

  it('keeps only bodies of training-file functions that the model ended and that compile, deterministically', async () => {
    const out1 = path.join(dir, 'syntax1.jsonl');
    const r = runApp('prep', ['syntax', '--model', BASE_MODEL, '--corpus', corpus, '--out', out1, ...FLAGS], 120_000);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const train = readCorpus(corpus).train;
    const total = functionCases(train).length;
    expect(train.map((f) => f.path).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `mod${i}.py`).sort());
    expect(total).toBe(30);
    const m = /^prep syntax: (\S+) (\d+) examples from (\d+) functions of (\d+) training files \((\d+) samples: ended ([\d.]+), compile ([\d.]+), kept ([\d.]+); mean [\d.]+ lines per example\)/.exec(r.stdout);
    expect(m).not.toBeNull();
    expect([m![1], Number(m![3]), Number(m![4]), Number(m![5])]).toEqual([out1, total, train.length, 4 * total]);

    const rows = readFileSync(out1, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toHaveLength(Number(m![2]));
    const cases = new Map(functionCases(train).map((c) => [`${c.path}:${c.name}`, c]));
    for (const row of rows) {
      const fim = 'suffix' in row; // --fim-rate 0.5: both forms
      expect(Object.keys(row).sort()).toEqual(['name', 'path', 'prompt', 'response', 'similarity', ...(fim ? ['suffix'] : [])].sort());
      expect(isHeldOut(row.path)).toBe(false);
      const c = cases.get(`${row.path}:${row.name}`)!;
      expect(c.prompt.endsWith(row.prompt)).toBe(true);
      if (fim) expect(c.suffix.startsWith(row.suffix)).toBe(true);
      expect(row.response.trim()).not.toBe('');
      expect(maxLineRepeat(row.response)).toBeLessThanOrEqual(2);
    }
    // Every kept body compiles under its signature and docstring (checked again here, by python).
    const ok = await checkSyntax(rows.map((row) => functionSource(cases.get(`${row.path}:${row.name}`)!, row.response)));
    expect(ok.every(Boolean)).toBe(true);

    const out2 = path.join(dir, 'syntax2.jsonl');
    expect(runApp('prep', ['syntax', '--model', BASE_MODEL, '--corpus', corpus, '--out', out2, ...FLAGS], 120_000).code).toBe(0);
    expect(readFileSync(out2, 'utf8')).toBe(readFileSync(out1, 'utf8'));
  });

  it('says so in one line, writing nothing, when no body was kept (a random model never ends a function)', async () => {
    const tiny = path.join(dir, 'tiny');
    await saveTinyAppModel(tiny, 'prep-syntax');
    const out = path.join(dir, 'never.jsonl');
    const r = runApp('prep', ['syntax', '--model', tiny, '--corpus', corpus, '--out', out, ...FLAGS, '--samples', '1', '--max-new-tokens', '8']);
    expect(r.code).toBe(1);
    const last = r.stderr.trim().split('\n').pop()!; // after the progress bar
    expect(last).toMatch(new RegExp(`^prep: error: no body of ${tiny} was kept \\(\\d+ samples: ended [\\d.]+, compile [\\d.]+, kept 0\\.000\\); nothing written to ${out}\\.`));
    expect(r.stderr.split('\n').filter((l) => /^\s+at /.test(l))).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('names a missing corpus folder and a missing python', () => {
    const none = path.join(dir, 'no-corpus');
    const r = runApp('prep', ['syntax', '--corpus', none, '--out', path.join(dir, 'x.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Corpus folder not found: ${none}`);
    const p = runApp('prep', ['syntax', '--corpus', corpus, '--python', '/nonexistent/python3']);
    expect(p.stderr).toBe('prep: error: /nonexistent/python3 not found: install Python 3 or set --python / RLHF_PYTHON\n');
  });

  describe('--source fim', () => {
    // FIM examples cut from the same corpus by the online prep-fim rule: train records from mod0-9, test from mod10-11.
    let fimData: string;
    let records: ReturnType<typeof fimExamplesFromText>;
    beforeAll(() => {
      records = readCorpus(corpus).train.concat(readCorpus(corpus).test).flatMap((f) => fimExamplesFromText(f.path, f.text, { perFile: 3, seed: 2 }));
      fimData = path.join(dir, 'fim.jsonl');
      writeFileSync(fimData, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    });
    const FIM_FLAGS = ['--source', 'fim', '--samples', '3', '--max-new-tokens', '24', '--batch-size', '8', '--seed', '1'];

    it('fills only the train records, keeps middles that compile in their whole file, deterministically', async () => {
      const files = new Map(readCorpus(corpus).train.map((f) => [f.path, f.text]));
      const train = records.filter((r) => r.split === 'train');
      const inCode = withFileContext(train, files).filter((c) => cursorInCode(c));
      expect(train.length).toBe(30);
      expect(records.length).toBeGreaterThan(train.length);
      expect(inCode.length).toBeGreaterThan(10); // the others sit in docstrings: never sampled
      expect(inCode.length).toBeLessThan(train.length);
      const out1 = path.join(dir, 'fim1.jsonl');
      const r = runApp('prep', ['syntax', '--model', BASE_MODEL, '--corpus', corpus, '--fim-data', fimData, '--out', out1, ...FIM_FLAGS], 120_000);
      expect(r.stderr).not.toContain('error');
      expect(r.code).toBe(0);
      const m = /^prep syntax: (\S+) (\d+) examples from (\d+) FIM examples of (\S+) \(train split, cursor in code; (\d+) samples: ended ([\d.]+), compile ([\d.]+), kept ([\d.]+); mean \d+ characters per middle\)/.exec(r.stdout);
      expect(m).not.toBeNull();
      expect([m![1], Number(m![3]), m![4], Number(m![5])]).toEqual([out1, inCode.length, fimData, 3 * inCode.length]);
      const rows = readFileSync(out1, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(rows.length).toBe(Number(m![2]));
      expect(rows.length).toBeGreaterThan(0);
      const sources: string[] = [];
      for (const row of rows) {
        expect(Object.keys(row).sort()).toEqual(['name', 'path', 'prompt', 'response', 'similarity', 'suffix']);
        expect(isHeldOut(row.path)).toBe(false);
        const rec = inCode.find((t) => t.path === row.path && t.prefix === row.prompt && t.suffix === row.suffix)!;
        expect(rec).toBeDefined();
        expect(row.name).toBe(`fim:${rec.kind}`);
        expect(row.response.trim()).not.toBe('');
        const text = files.get(row.path)!;
        const at = text.indexOf(rec.prefix + rec.middle + rec.suffix);
        sources.push(text.slice(0, at) + rec.prefix + row.response + rec.suffix + text.slice(at + rec.prefix.length + rec.middle.length + rec.suffix.length));
      }
      expect((await checkSyntax(sources)).every(Boolean)).toBe(true); // each kept middle compiles in its file (python again)

      const out2 = path.join(dir, 'fim2.jsonl');
      expect(runApp('prep', ['syntax', '--model', BASE_MODEL, '--corpus', corpus, '--fim-data', fimData, '--out', out2, ...FIM_FLAGS], 120_000).code).toBe(0);
      expect(readFileSync(out2, 'utf8')).toBe(readFileSync(out1, 'utf8'));
    });

    it('refuses a train record from a held-out file, and one that is not in its file, naming the line', () => {
      const heldOut = records.find((r) => r.split === 'test')!;
      const bad1 = path.join(dir, 'fim-bad1.jsonl');
      writeFileSync(bad1, [records[0], { ...heldOut, split: 'train' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
      const r1 = runApp('prep', ['syntax', '--corpus', corpus, '--fim-data', bad1, '--out', path.join(dir, 'x.jsonl'), ...FIM_FLAGS]);
      expect(r1.code).toBe(1);
      expect(r1.stderr).toBe(`prep: error: ${bad1}:2: ${heldOut.path} is a held-out corpus file, it must not be trained on (its split should be "test")\n`);
      const bad2 = path.join(dir, 'fim-bad2.jsonl');
      writeFileSync(bad2, JSON.stringify({ ...records[0], prefix: 'not in the file' + records[0].prefix }) + '\n');
      const r2 = runApp('prep', ['syntax', '--corpus', corpus, '--fim-data', bad2, '--out', path.join(dir, 'x.jsonl'), ...FIM_FLAGS]);
      expect(r2.stderr).toBe(`prep: error: ${bad2}:1: prefix + middle + suffix not found in a training file of the corpus named ${records[0].path}\n`);
      const r3 = runApp('prep', ['syntax', '--corpus', corpus, '--fim-data', path.join(dir, 'none.jsonl'), ...FIM_FLAGS]);
      expect(r3.code).toBe(1);
      expect(r3.stderr).toContain('none.jsonl');
      expect(r3.stderr.split('\n').filter((l) => /^\s+at /.test(l))).toEqual([]);
    });
  });

  it('--print-config: each source with its own settings and defaults', () => {
    expect(printedConfig('prep', ['syntax'])).toEqual(PrepSyntaxSettings.parse({}));
    expect(printedConfig('prep', ['syntax', '--source', 'fim'])).toMatchObject({ source: 'fim', maxNewTokens: 64, fimCases: 0 });
    expect(printedConfig('prep', ['syntax'])).toMatchObject({ source: 'functions', maxNewTokens: 128, functions: 1200 });
    expect(printedConfig('prep', ['rm', '--limit', '3'])).toEqual(PrepRmSettings.parse({ limit: 3 }));
    const r = runApp('prep', ['syntax', '--fim-cases', '3', '--print-config']);
    expect(r.stderr).toBe('prep: error: --fim-cases: only with source fim, not source functions\n');
  });
});

describe('prep corpus', () => {
  /** A file name `<stem><i>.py` whose path `<folder><name>` is (or is not) held out by the path hash. */
  const named = (folder: string, stem: string, heldOut: boolean) => {
    for (let i = 0; ; i++) if (isHeldOut(`${folder}${stem}${i}.py`) === heldOut) return `${stem}${i}.py`;
  };
  const code = (name: string, n = 8) =>
    Array.from({ length: n }, (_, i) => `def ${name}_${i}(items_${i}):\n    total_${i} = sum(x * ${i} for x in items_${i})\n    return total_${i} - len('${name}')\n`).join('\n');
  const put = (file: string, text: string | Buffer) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');

  it('writes the token cache from planted packages: held-out material and copies removed, splits by path hash', () => {
    const root = path.join(dir, 'corpus');
    const debs = path.join(root, 'debs');
    const extracted = path.join(root, 'extracted');
    // The .deb files are stand-ins with the pinned sha256, already unpacked (the stamp names them): no apt, no dpkg-deb.
    const entry = (name: string, version: string) => ({ package: name, version, sha256: sha(`${name} deb`), licence: 'MIT' });
    const manifest = { suite: 'bookworm', architecture: 'amd64', packages: [entry('python3-demo', '1.0-1'), entry('python3-other', '2:3.1-2')], reserved: [entry('python3-requests', '2.28.1+dfsg-1')] };
    for (const p of [...manifest.packages, ...manifest.reserved]) {
      put(path.join(debs, `${p.package}_${p.version.replace(':', '%3a')}_all.deb`), `${p.package} deb`);
      put(path.join(extracted, `${p.package}.sha256`), p.sha256 + '\n');
    }
    put(path.join(root, 'manifest.json'), JSON.stringify(manifest));
    const site = 'usr/lib/python3/dist-packages';
    const requestsModels = code('requests_model', 12);
    put(path.join(extracted, `python3-requests/${site}/requests/models.py`), requestsModels);
    const demo = path.join(extracted, `python3-demo/${site}/demo`);
    const trainName = named(`python3-demo/${site}/demo/`, 'train', false);
    const heldName = named(`python3-demo/${site}/demo/`, 'held', true);
    put(path.join(demo, trainName), code('alpha'));
    put(path.join(demo, heldName), code('beta'));
    put(path.join(demo, 'train_copy.py'), code('alpha')); // after the first copy in path order
    put(path.join(demo, 'leak.py'), requestsModels.replace('total_3 =', 'subtotal_3 ='));
    put(path.join(demo, '_vendor/six.py'), code('six'));
    put(path.join(demo, 'latin1.py'), Buffer.from('# caf\xe9\nx = 1\n', 'latin1'));
    put(path.join(demo, 'mbpp_copy.py'), 'def remove_Occ(s, ch):\n    return s.replace(ch, "", 1)\n');
    put(path.join(extracted, 'python3-other/usr/share/doc/python3-other/README'), 'not python');
    put(path.join(extracted, `python3-other/${site}/other/gamma.py`), code('gamma'));
    const stdlib = path.join(root, 'python-stdlib');
    const stdTrain = named('', 'mod', false);
    put(path.join(stdlib, named('', 'held', true)), code('stdlib_heldout'));
    put(path.join(stdlib, stdTrain), code('stdlib_train'));
    put(path.join(demo, 'stdlib_leak.py'), code('stdlib_heldout'));
    const mbppFile = path.join(root, 'mbpp.jsonl');
    put(mbppFile, [task(11, 'Remove the first occurrence of a character.', 'def remove_Occ(s, ch):\n    return s.replace(ch, "", 1)\n', ['assert remove_Occ("aa", "a") == "a"'])].map((t) => JSON.stringify(t)).join('\n') + '\n');
    const suiteFile = path.join(root, 'suite-test.jsonl');
    put(suiteFile, JSON.stringify(task(400001, 'Add two numbers.', 'def shiny_garden(num, m):\n    return num + m\n', ['assert shiny_garden(1, 2) == 3'])) + '\n');

    const out = path.join(root, 'cache');
    const r = prep('corpus', '--manifest', path.join(root, 'manifest.json'), '--debs', debs, '--extracted', extracted, '--out', out,
      '--stdlib', stdlib, '--mbpp', mbppFile, '--held-out-problems', suiteFile);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('prep corpus: [3/3] python3-requests 2.28.1+dfsg-1: .deb present');
    expect(r.stdout).toMatch(/\| near-duplicate of held-out +\| +3 \|/);

    const cache = openTokenCache(out);
    const docs = (split: string) => readFileSync(path.join(out, `${split}.docs.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l).path);
    expect(docs('train')).toEqual([`cpython-stdlib/python-stdlib/${stdTrain}`, `python3-demo/${site}/demo/${trainName}`, `python3-other/${site}/other/gamma.py`]);
    expect(docs('heldout')).toEqual([`python3-demo/${site}/demo/${heldName}`]);
    expect(cache.meta.tokenizer.vocab_size).toBe(16384);
    expect(cache.split('train').tokens.length).toBe(cache.meta.splits.train.tokens);
    const source = cache.meta.source as { manifest: { sha256: string }; filters: Record<string, { files: number }> };
    expect(source.manifest.sha256).toBe(createHash('sha256').update(readFileSync(path.join(root, 'manifest.json'))).digest('hex'));
    const removed = readFileSync(path.join(out, 'removed.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(Object.fromEntries(removed.map((x) => [x.doc.split('/').pop(), x.filter]))).toEqual({
      README: 'not .py',
      'train_copy.py': 'exact duplicate',
      'leak.py': 'near-duplicate of held-out',
      'mbpp_copy.py': 'near-duplicate of held-out',
      'stdlib_leak.py': 'near-duplicate of held-out',
      'six.py': 'vendored path',
      'latin1.py': 'not UTF-8',
    });
    expect(removed.find((x) => x.doc.endsWith('leak.py') && !x.doc.endsWith('stdlib_leak.py')).detail).toMatch(/^python3-requests\/usr\/lib\/python3\/dist-packages\/requests\/models\.py \(\d+ shared lines/);

    // The same manifest gives the same cache.
    const again = path.join(root, 'cache2');
    expect(prep('corpus', '--manifest', path.join(root, 'manifest.json'), '--debs', debs, '--extracted', extracted, '--out', again,
      '--stdlib', stdlib, '--mbpp', mbppFile, '--held-out-problems', suiteFile).code).toBe(0);
    for (const f of ['train.tokens.bin', 'train.offsets.bin', 'heldout.docs.jsonl', 'removed.jsonl']) expect(readFileSync(path.join(again, f))).toEqual(readFileSync(path.join(out, f)));
  });

  it('--print-config: the defaults', () => {
    expect(printedConfig('prep', ['corpus'])).toEqual(PrepCorpusSettings.parse({}));
  });
});
