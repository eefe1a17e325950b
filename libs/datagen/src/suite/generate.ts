// The task suite (`prep suite`): problems in MBPP's own schema at the shipped model's scale, generated from the
// operations in ops.ts with a seed. Every problem states the function and its arguments in words, shows its first
// test (as MBPP's prompt does) and is judged by three assert tests whose expected values Python computed from the
// reference.
//
// Splits (the `split` field; disjoint by problem text, and by operation as ops.ts's `seen` says):
//   sft   references of the sft operations
//   rl    prompts and tests only: new instances of the sft operations, and every rl-only operation
//   dev   for choosing settings: unseen instances of sft and rl operations, and the dev-only unseen operations
//   test  reported: unseen instances of sft and rl operations, and the test-only unseen operations
// `group` says who saw the operation: sft_ops (SFT and RL), rl_only_ops (RL only), unseen_ops (no training split).
//
// No trivial program passes every test of a problem: the generator draws new inputs until the expected values differ
// between tests and no stub (None, 0, 1, True, False, [], '', the first argument) equals all of them, compared with
// Python's own `==` (where False == 0).
import { spawnSync } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { dataRandom, shuffle, writeJsonl } from '@rlhf-code/data';
import { resolvePython } from '@rlhf-code/sandbox';
import { ARG_NAMES, ARG_NOUNS, NEUTRAL_NAMES, OPERATIONS, type ArgKind, type Family, type Operation, type Seen } from './ops';

export type SuiteSplit = 'sft' | 'rl' | 'dev' | 'test';
export const SUITE_SPLITS: readonly SuiteSplit[] = ['sft', 'rl', 'dev', 'test'];
export type SuiteGroup = 'sft_ops' | 'rl_only_ops' | 'unseen_ops';

/** One problem, in MBPP's schema plus where it belongs. `code` is absent in the rl split. */
export interface SuiteProblem {
  task_id: number;
  text: string;
  code?: string;
  test_list: string[];
  test_setup_code: string;
  challenge_test_list: string[];
  op: string;
  group: SuiteGroup;
  split: SuiteSplit;
}

/** Problems per operation in each split, by family and who sees the operation. */
const PER_OPERATION: Record<Family, Partial<Record<Seen, Partial<Record<SuiteSplit, number>>>>> = {
  single: { sft: { sft: 16, rl: 4, dev: 1, test: 2 }, dev: { dev: 5 }, test: { test: 5 } },
  composite: { sft: { sft: 10, rl: 3, dev: 1, test: 2 }, rl: { rl: 25, dev: 3, test: 5 }, dev: { dev: 5 }, test: { test: 5 } },
};
export const perOperation = (op: Operation, split: SuiteSplit) => PER_OPERATION[op.family ?? 'single'][op.seen]?.[split] ?? 0;

const GROUP: Record<Seen, SuiteGroup> = { sft: 'sft_ops', rl: 'rl_only_ops', dev: 'unseen_ops', test: 'unseen_ops' };
/** task_id = base of the split + running number: never MBPP's 1..974. */
const ID_BASE: Record<SuiteSplit, number> = { sft: 100000, rl: 200000, dev: 300000, test: 400000 };
const TESTS_PER_PROBLEM = 3;

/** Ways to ask for the function: {fn} its name, {sig} its parameters, {takes} the arguments in words, {say} the result. */
const FRAMES = [
  'Write a function {fn}({sig}) that returns {say}.',
  'Write a python function {fn}({sig}) to find {say}.',
  'Write a function named {fn} that takes {takes} and returns {say}.',
  'Define {fn}({sig}), which returns {say}.',
  'Given {takes}, return {say}. Write it as {fn}({sig}).',
];

const fill = (template: string, args: readonly string[]) => template.replace(/\{(\d)\}/g, (_, i) => args[Number(i)]);
const words = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** Identifiers the reference body uses itself (loop variables, accumulators): no argument may take these names. */
const bodyLocals = (op: Operation) => new Set(op.body.replace(/\{\d\}/g, ' ').match(/[A-Za-z_]\w*/g) ?? []);

/** Every tuple of distinct argument names for the operation's kinds (not its locals, not a function name). */
function argNameTuples(op: Operation, forbidden: ReadonlySet<string>): string[][] {
  let tuples: string[][] = [[]];
  for (const kind of op.args) {
    tuples = tuples.flatMap((t) => ARG_NAMES[kind].filter((n) => !t.includes(n) && !forbidden.has(n)).map((n) => [...t, n]));
  }
  return tuples;
}

interface Instance {
  op: Operation;
  fn: string;
  params: string[];
  text: string;
}

/**
 * Every distinct statement of an operation (name x argument names x wording x frame), shuffled by the seed: its own
 * names and neutral names (NEUTRAL_NAMES) alternate, so half the problems of every split give a neutral name.
 */
function instances(op: Operation, seed: number, allNames: ReadonlySet<string>): Instance[] {
  const own = statements(op, op.names, allNames, `${seed}:${op.id}`);
  const neutral = statements(op, shuffle(NEUTRAL_NAMES, `${seed}:${op.id}:names`).slice(0, 24), allNames, `${seed}:${op.id}:neutral`);
  return own.flatMap((x, i) => (i < neutral.length ? [x, neutral[i]] : [x]));
}

function statements(op: Operation, names: readonly string[], allNames: ReadonlySet<string>, seed: string): Instance[] {
  const locals = bodyLocals(op);
  const out: Instance[] = [];
  for (const fn of names) {
    const forbidden = new Set([...locals, ...allNames, fn]);
    for (const params of argNameTuples(op, forbidden)) {
      const takes = words(op.args.map((k: ArgKind, i) => `${ARG_NOUNS[k]} ${params[i]}`));
      for (const say of op.says) {
        for (const frame of FRAMES) {
          const text = frame.replace('{fn}', fn).replace('{sig}', params.join(', ')).replace('{takes}', takes).replace('{say}', fill(say, params));
          out.push({ op, fn, params, text: text[0].toUpperCase() + text.slice(1) });
        }
      }
    }
  }
  return shuffle(out, seed);
}

export const referenceCode = (fn: string, params: readonly string[], body: string) =>
  `def ${fn}(${params.join(', ')}):\n${fill(body, params)
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

// --- Python computes the expected values and checks them against the stubs -------------------------------------

interface Call {
  /** The reference that defines the function. */
  code: string;
  fn: string;
  /** The arguments, as Python literals. */
  args: string[];
}
interface CallResult {
  /** repr() of the result, or null when the call raised. */
  repr: string | null;
  /** result == each stub's value: None, 0, 1, True, False, [], '', the first argument. */
  stubs: boolean[];
}

const EVALUATE = `
import json, sys
out = []
for job in json.load(sys.stdin):
    scope = {}
    exec(job["code"], scope)
    args = [eval(a, {}) for a in job["args"]]
    try:
        r = scope[job["fn"]](*args)
    except Exception:
        out.append({"repr": None, "stubs": []})
        continue
    consts = [None, 0, 1, True, False, [], ""] + ([args[0]] if args else [])
    out.append({"repr": repr(r), "stubs": [bool(r == c) for c in consts]})
json.dump(out, sys.stdout)
`;

/** Run the references on the calls in one python process (trusted code: ours). */
function evaluateCalls(calls: readonly Call[], python?: string): CallResult[] {
  const p = spawnSync(resolvePython(python), ['-I', '-c', EVALUATE], { input: JSON.stringify(calls), maxBuffer: 1 << 28, encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`prep suite: python failed evaluating the references: ${p.stderr.trim().split('\n').pop()}`);
  return JSON.parse(p.stdout) as CallResult[];
}

/** No stub passes every test: for each stub some test's result differs from it; and the results are not all equal. */
export function stubProof(results: readonly CallResult[]): boolean {
  if (results.some((r) => r.repr === null)) return false;
  if (new Set(results.map((r) => r.repr)).size < 2) return false;
  const stubs = results[0].stubs.length;
  for (let s = 0; s < stubs; s++) if (results.every((r) => r.stubs[s])) return false;
  return true;
}

// --- the suite ---------------------------------------------------------------------------------------------------

export interface SuiteOptions {
  seed: number;
  python?: string;
  /** Draws of fresh inputs for one problem before giving up (a generator that cannot produce stub-proof tests). */
  maxDraws?: number;
}

/** The whole suite, in split order (sft, rl, dev, test), each split in operation order. Deterministic for a seed. */
export function generateSuite(o: SuiteOptions): SuiteProblem[] {
  const allNames = new Set(OPERATIONS.flatMap((op) => op.names));
  const planned: { inst: Instance; split: SuiteSplit; k: number }[] = [];
  for (const op of OPERATIONS) {
    const pool = instances(op, o.seed, allNames);
    let next = 0;
    for (const split of SUITE_SPLITS) {
      const n = perOperation(op, split);
      if (next + n > pool.length) throw new Error(`prep suite: operation ${op.id} has ${pool.length} distinct statements, fewer than the ${next + n} its splits need`);
      for (let k = 0; k < n; k++) planned.push({ inst: pool[next++], split, k });
    }
  }
  // Draw inputs round by round: every problem still lacking stub-proof tests gets fresh inputs, evaluated in one batch.
  // Each problem has its own stream (by operation, split and rank), so one split's size does not change another's tests.
  const tests: (string[] | null)[] = planned.map(() => null);
  const rngs = planned.map((p) => dataRandom(`${o.seed}:${p.inst.op.id}:${p.split}:${p.k}`));
  const maxDraws = o.maxDraws ?? 50;
  for (let draw = 0; draw < maxDraws && tests.some((t) => t === null); draw++) {
    const pending = planned.map((p, i) => ({ p, i })).filter(({ i }) => tests[i] === null);
    const calls: Call[] = [];
    const argsOf: string[][][] = [];
    for (const { p, i } of pending) {
      const seen = new Set<string>();
      const args: string[][] = [];
      for (let tries = 0; args.length < TESTS_PER_PROBLEM && tries < 100; tries++) {
        const a = p.inst.op.inputs(rngs[i]);
        if (!seen.has(a.join(','))) {
          seen.add(a.join(','));
          args.push(a);
        }
      }
      argsOf.push(args);
      const code = referenceCode(p.inst.fn, p.inst.params, p.inst.op.body);
      for (const a of args) calls.push({ code, fn: p.inst.fn, args: a });
    }
    const results = evaluateCalls(calls, o.python);
    let k = 0;
    pending.forEach(({ p, i }, j) => {
      const args = argsOf[j];
      const rs = results.slice(k, k + args.length);
      k += args.length;
      if (args.length === TESTS_PER_PROBLEM && stubProof(rs)) tests[i] = args.map((a, t) => `assert ${p.inst.fn}(${a.join(', ')}) == ${rs[t].repr}`);
    });
  }
  const failed = planned.filter((_, i) => tests[i] === null).map((p) => p.inst.op.id);
  if (failed.length > 0) throw new Error(`prep suite: no stub-proof tests after ${maxDraws} draws for operations ${[...new Set(failed)].join(', ')}`);

  const counters: Record<SuiteSplit, number> = { sft: 0, rl: 0, dev: 0, test: 0 };
  const problems = planned.map(({ inst, split }, i) => ({
    task_id: ID_BASE[split] + ++counters[split],
    text: inst.text,
    ...(split === 'rl' ? {} : { code: referenceCode(inst.fn, inst.params, inst.op.body) }),
    test_list: tests[i]!,
    test_setup_code: '',
    challenge_test_list: [],
    op: inst.op.id,
    group: GROUP[inst.op.seen],
    split,
  }));
  return SUITE_SPLITS.flatMap((s) => problems.filter((p) => p.split === s));
}

/** Problem text compared loosely (case, spacing): two splits must not share a statement. */
export const statementKey = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * The leak check: no statement, prompt or test list of one split appears in another; no rl-only operation has a
 * reference anywhere; dev and test operations appear in no training split, and dev's unseen operations not in test.
 * Returns the problems found, one line each (empty: no leak).
 */
export function suiteLeaks(problems: readonly SuiteProblem[]): string[] {
  const out: string[] = [];
  const firstSplit = new Map<string, SuiteSplit>();
  for (const p of problems) {
    for (const key of [statementKey(p.text), p.test_list.join('\n')]) {
      const s = firstSplit.get(key);
      if (s !== undefined && s !== p.split) out.push(`task ${p.task_id} (${p.split}) repeats a ${s} problem: ${p.text}`);
      firstSplit.set(key, s ?? p.split);
    }
  }
  const seenBy = new Map(OPERATIONS.map((op) => [op.id, op.seen]));
  const opsIn = (split: SuiteSplit) => new Set(problems.filter((p) => p.split === split).map((p) => p.op));
  const training = new Set([...opsIn('sft'), ...opsIn('rl')]);
  for (const p of problems) {
    const seen = seenBy.get(p.op);
    if (seen === undefined) out.push(`task ${p.task_id}: unknown operation ${p.op}`);
    if (seen === 'rl' && p.code !== undefined && (p.split === 'sft' || p.split === 'rl')) out.push(`task ${p.task_id}: rl-only operation ${p.op} has a reference in ${p.split}`);
    if (p.group === 'unseen_ops' && training.has(p.op)) out.push(`task ${p.task_id}: unseen operation ${p.op} is in a training split`);
  }
  for (const op of opsIn('dev')) if (seenBy.get(op) === 'dev' && opsIn('test').has(op)) out.push(`dev-only operation ${op} is in the test split`);
  return out;
}

// --- files -------------------------------------------------------------------------------------------------------

const suiteReadme = (problems: readonly SuiteProblem[], seed: number) => {
  const count = (split: SuiteSplit, group?: SuiteGroup) => problems.filter((p) => p.split === split && (!group || p.group === group)).length;
  const ops = (seen: Seen) => OPERATIONS.filter((op) => op.seen === seen).map((op) => op.id);
  const row = (split: SuiteSplit) =>
    `| ${split} | ${count(split)} | ${count(split, 'sft_ops')} | ${count(split, 'rl_only_ops')} | ${count(split, 'unseen_ops')} |`;
  return `# The task suite

Small Python problems in MBPP's schema (\`task_id\`, \`text\`, \`code\`, \`test_list\`, \`test_setup_code\`,
\`challenge_test_list\`), plus \`op\` (the operation), \`group\` (who trained on the operation) and \`split\`. Built for
the shipped 8.6M model, which solves no MBPP problem: ${OPERATIONS.length} operations on ints, strings, lists and dicts
(single operations, and list compositions: an aggregate of a map of a filter), each stated with several function names, argument names and wordings, judged
by three assert tests that no trivial program (\`pass\`, constant returns, echoing an argument) passes together.

- Generated by \`npx nx run prep:suite\` (libs/datagen/src/suite: the operations in ops.ts, the generator in
  generate.ts) with seed ${seed}; the same seed writes the same files.
- License: MIT, as the rest of this repository (the problems are this project's own work).

| split | problems | sft_ops | rl_only_ops | unseen_ops |
| --- | ---: | ---: | ---: | ---: |
${SUITE_SPLITS.map(row).join('\n')}

- \`sft.jsonl\`: references of the sft operations (what SFT trains on).
- \`rl.jsonl\`: prompts and tests, no \`code\`: new instances of the sft operations and the rl-only operations
  (${ops('rl').join(', ')}), which appear with a reference in no training file.
- \`dev.jsonl\`: for every setting and design decision: unseen instances of trained operations, and unseen operations
  (${ops('dev').join(', ')}).
- \`test.jsonl\`: reported figures only: unseen instances of trained operations, and unseen operations that are in no
  other file (${ops('test').join(', ')}).
- \`rm_data.jsonl\`: the reward model's data, from problems of the sft split only: references, mutants and stubs scored
  in the sandbox (\`npx nx run prep:rm -- --problems data/suite/sft.jsonl --limit 250 --out data/suite/rm_data.jsonl\`).

No statement or test list is in two splits (checked by libs/datagen's suite test, which also regenerates the files
and compares).
`;
};

/** Write the four split files and the README; returns one summary line. */
export async function writeSuite(s: { outDir: string; seed: number; python?: string }): Promise<string> {
  const problems = generateSuite({ seed: s.seed, python: s.python });
  const leaks = suiteLeaks(problems);
  if (leaks.length > 0) throw new Error(`prep suite: the splits leak into each other:\n${leaks.slice(0, 10).join('\n')}`);
  await fs.mkdir(s.outDir, { recursive: true });
  const counts: string[] = [];
  for (const split of SUITE_SPLITS) {
    const rows = problems.filter((p) => p.split === split);
    await writeJsonl(path.join(s.outDir, `${split}.jsonl`), rows);
    counts.push(`${split} ${rows.length}`);
  }
  await fs.writeFile(path.join(s.outDir, 'README.md'), suiteReadme(problems, s.seed));
  return `${s.outDir}: ${counts.join(', ')} problems of ${OPERATIONS.length} operations`;
}
