import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readProblems, problemParts } from '@rlhf-code/data';
import { SandboxPool, scoreAll, stubPrograms, STUB_NAMES } from '@rlhf-code/sandbox';
import { OPERATIONS, type Operation, type Rand, type Seen } from './ops';
import { aliasedBy, generateSuite, perOperation, referenceCode, statementKey, stubProof, SUITE_SPLITS, suiteLeaks, writeSuite, type SuiteProblem } from './generate';

const SHIPPED = path.join(__dirname, '../../../../data/suite');
const suite = generateSuite({ seed: 0 });
const bySplit = (split: string) => suite.filter((p) => p.split === split);

describe('the operations', () => {
  it('are at least 40, on ints, strings, lists and dicts, with several names, wordings and argument names each', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(40);
    for (const op of OPERATIONS) {
      expect(op.names.length).toBeGreaterThanOrEqual(4);
      expect(op.says.length).toBeGreaterThanOrEqual(3);
    }
    const names = OPERATIONS.flatMap((op) => op.names);
    expect(new Set(names).size).toBe(names.length); // a function name belongs to one operation
    expect(new Set(OPERATIONS.map((op) => op.id)).size).toBe(OPERATIONS.length);
  });

  it('include operations that only RL sees, and unseen ones for dev and for test', () => {
    const seen = (s: string) => OPERATIONS.filter((op) => op.seen === s).length;
    expect(seen('sft')).toBeGreaterThanOrEqual(30);
    expect(seen('rl')).toBeGreaterThanOrEqual(5);
    expect(seen('dev')).toBeGreaterThanOrEqual(3);
    expect(seen('test')).toBeGreaterThanOrEqual(3);
  });
});

describe('generateSuite', () => {
  it('has the planned number of problems per operation and split', () => {
    for (const op of OPERATIONS) {
      for (const split of SUITE_SPLITS) {
        expect([op.id, split, suite.filter((p) => p.op === op.id && p.split === split).length]).toEqual([op.id, split, perOperation(op, split)]);
      }
    }
  });

  it('writes MBPP-schema problems whose statement names the function and its arguments, and whose tests call it', () => {
    for (const p of suite) {
      const ref = p.code ?? suite.find((q) => q.op === p.op && q.code)!.code!;
      const fn = p.test_list[0].match(/^assert (\w+)\(/)![1];
      expect(p.text).toContain(fn);
      expect(p.test_list).toHaveLength(3);
      expect(p.test_list.every((t) => t.startsWith(`assert ${fn}(`))).toBe(true);
      if (p.code) {
        const params = p.code.match(/^def \w+\(([^)]*)\)/)![1].split(', ');
        for (const a of params) expect(p.text).toMatch(new RegExp(`\\b${a}\\b`));
      }
      expect(ref).toMatch(/^def \w+\(/);
    }
  });

  it('has these split sizes: 12 and 8 RL prompts per single and composite sft operation, 25 per rl-only one', () => {
    const counts = Object.fromEntries(
      SUITE_SPLITS.map((s) => [s, ['sft_ops', 'rl_only_ops', 'unseen_ops'].map((g) => bySplit(s).filter((p) => p.group === g).length)]),
    );
    expect(counts).toEqual({ sft: [1234, 0, 0], rl: [948, 500, 0], dev: [94, 60, 60], test: [188, 100, 80] });
  });

  it('is deterministic for a seed and different for another', () => {
    expect(generateSuite({ seed: 0 })).toEqual(suite);
    expect(generateSuite({ seed: 1 }).map((p) => p.text)).not.toEqual(suite.map((p) => p.text));
  });

  it('keeps rl-only operations without a reference in every training split, and unseen operations out of training', () => {
    const rlOnly = new Set(OPERATIONS.filter((op) => op.seen === 'rl').map((op) => op.id));
    expect(bySplit('sft').some((p) => rlOnly.has(p.op))).toBe(false);
    expect(bySplit('rl').every((p) => p.code === undefined)).toBe(true);
    expect(bySplit('rl').some((p) => rlOnly.has(p.op))).toBe(true);
    const trained = new Set([...bySplit('sft'), ...bySplit('rl')].map((p) => p.op));
    for (const p of [...bySplit('dev'), ...bySplit('test')].filter((q) => q.group === 'unseen_ops')) expect(trained.has(p.op)).toBe(false);
    const testUnseen = new Set(bySplit('test').filter((p) => p.group === 'unseen_ops').map((p) => p.op));
    for (const p of bySplit('dev').filter((q) => q.group === 'unseen_ops')) expect(testUnseen.has(p.op)).toBe(false);
    expect(new Set(bySplit('test').map((p) => p.group))).toEqual(new Set(['sft_ops', 'rl_only_ops', 'unseen_ops']));
  });
});

describe('the leak check', () => {
  it('finds nothing in the generated suite', () => {
    expect(suiteLeaks(suite)).toEqual([]);
  });

  it('finds a test statement repeated in training (case and spacing ignored), a repeated test list, and misplaced operations', () => {
    const test = bySplit('test')[0];
    const leak = (extra: SuiteProblem) => suiteLeaks([...suite, extra]);
    expect(leak({ ...test, split: 'sft', task_id: 1, text: `  ${test.text.toUpperCase()} `, test_list: ['assert x() == 1'] })[0]).toContain(`task 1 (sft) repeats a test problem`);
    expect(leak({ ...test, split: 'rl', task_id: 2, text: 'Something else.' }).length).toBeGreaterThan(0);
    const unseen = bySplit('test').find((p) => p.group === 'unseen_ops')!;
    expect(leak({ ...unseen, split: 'rl', task_id: 3, text: 'A new statement.', test_list: ['assert y() == 2'] })).toContain(`task 3: unseen operation ${unseen.op} is in a training split`);
    const rlOnly = bySplit('rl').find((p) => p.group === 'rl_only_ops')!;
    expect(leak({ ...rlOnly, split: 'sft', task_id: 4, code: 'def f(): pass\n', text: 'Yet another.', test_list: ['assert z() == 3'] })).toContain(
      `task 4: rl-only operation ${rlOnly.op} has a reference in sft`,
    );
    expect(statementKey(' A  b ')).toBe(statementKey('a b'));
  });
});

describe('the alias check', () => {
  /** A list operation with its own names; `inputs` draws lists of 3 to 6 numbers in lo..hi. */
  const listOp = (id: string, seen: Seen, body: string, lo = -9, hi = 9): Operation => ({
    id,
    seen,
    family: 'composite',
    names: ['a', 'b', 'c', 'd', 'e'].map((x) => `${id}_${x}`),
    args: ['list'],
    says: [`the ${id} of {0}`, `${id} over {0}`, `the ${id} of the list {0}`],
    body,
    inputs: (r: Rand) => [`[${Array.from({ length: 3 + Math.floor(r() * 4) }, () => lo + Math.floor(r() * (hi - lo + 1))).join(', ')}]`],
  });
  const suiteOf = (...operations: Operation[]) => generateSuite({ seed: 0, operations });

  it('fails the suite when an unseen operation is a trained one under another name', () => {
    expect(() => suiteOf(listOp('total', 'sft', 'return sum({0})'), listOp('grand', 'test', 'return sum({0})'))).toThrow(
      /total \(sft\) aliases grand \(test\): its reference passes every test of 5 of the 5 grand problems/,
    );
  });

  it('fails the suite when an rl-only operation takes absolute values of inputs that are never negative', () => {
    expect(() => suiteOf(listOp('total', 'sft', 'return sum({0})', 0, 9), listOp('abs_total', 'rl', 'return sum(abs(x) for x in {0})', 0, 9))).toThrow(
      /total \(sft\) aliases abs_total \(rl\)/,
    );
  });

  it('allows aliases within a class, and a less-trained operation whose function extends a trained one', () => {
    expect(() => suiteOf(listOp('total', 'sft', 'return sum({0})'), listOp('grand', 'sft', 'return sum({0})'))).not.toThrow();
    // sum over every number (test) passes the problems of the sum of positive numbers drawn on non-negative lists (sft).
    expect(() => suiteOf(listOp('sum_positive', 'sft', 'return sum(x for x in {0} if x > 0)', 0, 9), listOp('total', 'test', 'return sum({0})'))).not.toThrow();
  });

  it('draws new tests where a trained reference agrees by chance', () => {
    // The largest absolute value equals the largest value on about half the lists: all three tests, one problem in 8.
    const ops = [listOp('largest', 'sft', 'return max({0})'), listOp('largest_abs', 'rl', 'return max(abs(x) for x in {0})')];
    const problems = suiteOf(...ops).filter((p) => p.op === 'largest_abs');
    expect(problems.length).toBe(33);
    expect(aliasedBy(problems, { operations: ops })).toEqual(problems.map(() => []));
  });

  it('finds no rl-only or unseen problem of the suite solved by the reference of a more-trained operation', () => {
    const outside = suite.filter((p) => p.group !== 'sft_ops');
    expect(outside.length).toBe(500 + 60 + 60 + 100 + 80);
    expect(aliasedBy(outside).flatMap((ops, i) => ops.map((op) => `${outside[i].task_id} ${outside[i].op}: ${op}`))).toEqual([]);
  });
});

describe('stubProof', () => {
  const r = (repr: string, stubs: boolean[]) => ({ repr, stubs });
  it('refuses tests that one stub passes together, equal expected values, or a call that raised', () => {
    expect(stubProof([r('1', [false, true]), r('2', [false, false])])).toBe(true);
    expect(stubProof([r('0', [false, true]), r('False', [false, true])])).toBe(false); // return 0 passes both
    expect(stubProof([r('3', [false]), r('3', [false])])).toBe(false);
    expect(stubProof([{ repr: null, stubs: [] }, r('3', [false])])).toBe(false);
  });
});

describe('in the sandbox', () => {
  // Every reference passes its tests and no stub does, on every problem of every split; references of the rl split
  // are rebuilt from the operation (the file has none).
  it('every reference scores 1 and every stub 0', async () => {
    const pool = new SandboxPool({ concurrency: 2 });
    const sample = suite.filter((_, i) => i % 40 === 0); // a fortieth of the suite (82 problems, every split): the sandbox runs ~40 programs a second
    const opOf = new Map(OPERATIONS.map((op) => [op.id, op]));
    const jobs = sample.flatMap((p) => {
      const parts = problemParts(p);
      const fn = p.test_list[0].match(/^assert (\w+)\(/)![1];
      const reference = p.code ?? referenceCode(fn, parameterNamesOf(p), opOf.get(p.op)!.body);
      return [
        { problem: p, name: 'reference', code: parts.prompt + reference, tests: parts.tests },
        ...stubPrograms({ ...parts, code: reference }).map((s) => ({ problem: p, name: s.name, code: parts.prompt + s.response, tests: parts.tests })),
      ];
    });
    const runs = await scoreAll(pool, jobs);
    const wrong = jobs.filter((j, k) => runs[k].score !== (j.name === 'reference' ? 1 : 0)).map((j) => `${j.problem.task_id} ${j.name}`);
    expect(wrong).toEqual([]);
    expect(jobs.filter((j) => j.name !== 'reference').length).toBe(sample.length * STUB_NAMES.length);
  }, 240_000);
});

/** The parameters of an rl problem, read from its statement's signature (`name(a, b)`) or from its wording. */
function parameterNamesOf(p: SuiteProblem): string[] {
  const fn = p.test_list[0].match(/^assert (\w+)\(/)![1];
  const sig = new RegExp(`${fn}\\(([^)]*)\\)`).exec(p.text);
  if (sig) return sig[1].split(', ');
  // the arguments are named before "returns" (its result may be "a dictionary that ...", not an argument)
  const takes = p.text.split(/ returns? /)[0];
  return [...takes.matchAll(/(?:an integer|a positive integer|a string|a character|a list of integers|a dictionary|a key) (\w+)/g)].map((m) => m[1]);
}

describe('the shipped files', () => {
  it('are what `prep suite` writes with seed 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-'));
    await writeSuite({ outDir: dir, seed: 0 });
    for (const f of ['sft.jsonl', 'rl.jsonl', 'dev.jsonl', 'test.jsonl', 'README.md']) {
      expect([f, fs.readFileSync(path.join(SHIPPED, f), 'utf8')]).toEqual([f, fs.readFileSync(path.join(dir, f), 'utf8')]);
    }
    fs.rmSync(dir, { recursive: true });
  });

  it('read as MBPP-schema problems', async () => {
    const test = await readProblems(path.join(SHIPPED, 'test.jsonl'));
    expect(test.length).toBe(bySplit('test').length);
    expect(problemParts(test[0]).prompt).toBe(`# ${test[0].text}\n# Your code should pass this test:\n# ${test[0].test_list[0]}\n`);
  });
});
