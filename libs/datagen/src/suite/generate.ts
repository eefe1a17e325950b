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
//
// Groups mean what they say: no program of a more-trained operation (sft before rl before dev before test) solves an
// rl-only or unseen problem. The alias check (aliasPairs) fails `prep suite` when such a program passes every test of
// ALIAS_SHARE or more of an operation's problems, on inputs drawn for that operation alone: the two compute the same
// function on the suite's inputs and ops.ts must change. Below that share the agreement is chance, and the problem
// draws new inputs until no such program passes all three tests (as for the stubs).
import { spawnSync } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { markdownTable } from '@rlhf-code/cli';
import { dataRandom, shuffle, writeJsonl } from '@rlhf-code/data';
import { resolvePython } from '@rlhf-code/sandbox';
import { ARG_NAMES, ARG_NOUNS, NEUTRAL_NAMES, OPERATIONS, type ArgKind, type Family, type Operation, type Rand, type Seen } from './ops';

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

/**
 * RL prompts per sft operation (new instances, no reference), single and composite. RL should reach the trained
 * operations too, not only the rl-only ones (25 prompts each): with 4 and 3 a run drew each rl-only operation ~19 times
 * and each sft operation ~2.7 times (shared/notes/audit-rl-recipe.md, R2).
 */
const RL_PROMPTS_PER_SFT_OPERATION: Record<Family, number> = { single: 12, composite: 8 };

/** Problems per operation in each split, by family and who sees the operation. */
const PER_OPERATION: Record<Family, Partial<Record<Seen, Partial<Record<SuiteSplit, number>>>>> = {
  single: { sft: { sft: 16, rl: RL_PROMPTS_PER_SFT_OPERATION.single, dev: 1, test: 2 }, dev: { dev: 5 }, test: { test: 5 } },
  composite: { sft: { sft: 10, rl: RL_PROMPTS_PER_SFT_OPERATION.composite, dev: 1, test: 2 }, rl: { rl: 25, dev: 3, test: 5 }, dev: { dev: 5 }, test: { test: 5 } },
};
export const perOperation = (op: Operation, split: SuiteSplit) => PER_OPERATION[op.family ?? 'single'][op.seen]?.[split] ?? 0;

const GROUP: Record<Seen, SuiteGroup> = { sft: 'sft_ops', rl: 'rl_only_ops', dev: 'unseen_ops', test: 'unseen_ops' };
/** task_id = base of the split + running number: never MBPP's 1..974. */
const ID_BASE: Record<SuiteSplit, number> = { sft: 100000, rl: 200000, dev: 300000, test: 400000 };
const TESTS_PER_PROBLEM = 3;
/**
 * The order in which an operation's shuffled statements are dealt to the splits: rl last, so that the number of RL
 * prompts can change without moving a problem of sft, dev or test.
 */
const DEAL_ORDER: readonly SuiteSplit[] = ['sft', 'dev', 'test', 'rl'];
/**
 * A more-trained operation aliases another when its reference passes every test of at least this share of the other's
 * problems: a clear majority, the same function on the inputs drawn. Chance agreements stay below it (`max_abs_odd`'s
 * 3 of 5 test problems were passed by three different sft references, none by more than 2) and are drawn again.
 */
export const ALIAS_SHARE = 0.6;

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

// --- aliases: a more-trained operation's reference that passes a problem's tests -------------------------------

/** How much training a class of operations gets, most first: sft (references), rl (rewards), dev (settings), test. */
const EXPOSURE: Record<Seen, number> = { sft: 0, rl: 1, dev: 2, test: 3 };
/**
 * Whether `other`'s program could flatter `op`'s group: `other` is of a class with more training (an sft operation
 * for an rl-only one; sft and rl for dev; sft, rl and dev for test) and takes as many arguments. The reverse
 * direction does not flatter anything (`digit_count`, `len(str(n))`, passes `string_length`'s problems: a
 * generalisation, not the same function), and two operations of one class may alias harmlessly.
 */
const moreTrained = (other: Operation, op: Operation) => EXPOSURE[other.seen] < EXPOSURE[op.seen] && other.args.length === op.args.length;

// Each operation's body becomes one function (parameters _arg0, _arg1: no body local has those names), bound to the
// problem's function name while its asserts run. A call that runs over 50 ms (a factorial of a seven-digit number)
// counts as failing.
const OTHER_PASSES = `
import json, signal, sys
class Slow(Exception):
    pass
def on_alarm(*_):
    raise Slow()
signal.signal(signal.SIGALRM, on_alarm)
job = json.load(sys.stdin)
funcs = []
for code in job["codes"]:
    scope = {}
    exec(code, scope)
    funcs.append(scope["candidate"])
out = []
for p in job["problems"]:
    tests = [compile(t, "<test>", "exec") for t in p["tests"]]
    passing = []
    for j in p["candidates"]:
        scope = {p["fn"]: funcs[j]}
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            try:
                for t in tests:
                    exec(t, scope)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            passing.append(j)
        except Exception:
            pass
    out.append(passing)
json.dump(out, sys.stdout)
`;

type Tested = Pick<SuiteProblem, 'op' | 'test_list'>;

/**
 * For each problem, the operations of more-trained classes (moreTrained) whose reference passes all of its tests,
 * renamed to the problem's function; one python process for all (trusted code: ours).
 */
export function aliasedBy(problems: readonly Tested[], o: { operations?: readonly Operation[]; python?: string } = {}): string[][] {
  if (problems.length === 0) return [];
  const operations = o.operations ?? OPERATIONS;
  const byId = new Map(operations.map((op) => [op.id, op]));
  const codes = operations.map((op) => referenceCode('candidate', op.args.map((_, i) => `_arg${i}`), op.body));
  const jobs = problems.map((p) => ({
    fn: p.test_list[0].match(/^assert (\w+)\(/)![1],
    tests: p.test_list,
    candidates: operations.flatMap((other, j) => (moreTrained(other, byId.get(p.op)!) ? [j] : [])),
  }));
  const run = spawnSync(resolvePython(o.python), ['-I', '-c', OTHER_PASSES], { input: JSON.stringify({ codes, problems: jobs }), maxBuffer: 1 << 28, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`prep suite: python failed running references on other problems' tests: ${run.stderr.trim().split('\n').pop()}`);
  return (JSON.parse(run.stdout) as number[][]).map((js) => js.map((j) => operations[j].id));
}

/**
 * The alias rule: operation B aliases operation A when B is more trained (moreTrained) and its reference passes every
 * test of ALIAS_SHARE or more of A's problems (all splits), on tests drawn for A alone. One line per alias.
 */
export function aliasPairs(problems: readonly Tested[], passing: readonly string[][], operations: readonly Operation[] = OPERATIONS): string[] {
  const seen = new Map(operations.map((op) => [op.id, op.seen]));
  const total = new Map<string, number>();
  const passed = new Map<string, Map<string, number>>();
  problems.forEach((p, i) => {
    total.set(p.op, (total.get(p.op) ?? 0) + 1);
    const by = passed.get(p.op) ?? new Map<string, number>();
    for (const other of passing[i]) by.set(other, (by.get(other) ?? 0) + 1);
    passed.set(p.op, by);
  });
  return [...passed].flatMap(([op, by]) =>
    [...by]
      .filter(([, n]) => n >= ALIAS_SHARE * total.get(op)!)
      .map(([other, n]) => `${other} (${seen.get(other)}) aliases ${op} (${seen.get(op)}): its reference passes every test of ${n} of the ${total.get(op)} ${op} problems`),
  );
}

// --- the suite ---------------------------------------------------------------------------------------------------

export interface SuiteOptions {
  seed: number;
  python?: string;
  /** Draws of fresh inputs for one problem before giving up (a generator that cannot produce stub-proof tests). */
  maxDraws?: number;
  /** The operations (default: ops.ts's); tests plant aliases here. */
  operations?: readonly Operation[];
}

type Planned = { inst: Instance; split: SuiteSplit; k: number };

/**
 * Draws inputs round by round for the problems `pending` (indices into `planned`): every problem still lacking tests
 * gets fresh inputs from its own stream, evaluated in one batch; its tests are offered to `keep` (one batch a round)
 * when they are stub-proof, and `keep` returns the problems that take them. Returns the tests taken, by problem.
 */
function drawTests(
  planned: readonly Planned[],
  rngs: readonly Rand[],
  pending: readonly number[],
  o: { maxDraws: number; python?: string },
  keep: (offered: Map<number, string[]>) => Iterable<number>,
): Map<number, string[]> {
  const tests = new Map<number, string[]>();
  for (let draw = 0; draw < o.maxDraws && tests.size < pending.length; draw++) {
    const round = pending.filter((i) => !tests.has(i));
    const calls: Call[] = [];
    const argsOf: string[][][] = [];
    for (const i of round) {
      const p = planned[i];
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
    const offered = new Map<number, string[]>();
    let k = 0;
    round.forEach((i, j) => {
      const args = argsOf[j];
      const rs = results.slice(k, k + args.length);
      k += args.length;
      if (args.length === TESTS_PER_PROBLEM && stubProof(rs)) offered.set(i, args.map((a, t) => `assert ${planned[i].inst.fn}(${a.join(', ')}) == ${rs[t].repr}`));
    });
    for (const i of keep(offered)) tests.set(i, offered.get(i)!);
  }
  return tests;
}

/** The whole suite, in split order (sft, rl, dev, test), each split in operation order. Deterministic for a seed. */
export function generateSuite(o: SuiteOptions): SuiteProblem[] {
  const operations = o.operations ?? OPERATIONS;
  const allNames = new Set(operations.flatMap((op) => op.names));
  const planned: Planned[] = [];
  for (const op of operations) {
    const pool = instances(op, o.seed, allNames);
    let next = 0;
    for (const split of DEAL_ORDER) {
      const n = perOperation(op, split);
      if (next + n > pool.length) throw new Error(`prep suite: operation ${op.id} has ${pool.length} distinct statements, fewer than the ${next + n} its splits need`);
      for (let k = 0; k < n; k++) planned.push({ inst: pool[next++], split, k });
    }
  }
  // Each problem has its own stream of inputs (by operation, split and rank), so one split's size does not change
  // another's tests.
  const rngs = planned.map((p) => dataRandom(`${o.seed}:${p.inst.op.id}:${p.split}:${p.k}`));
  const draws = { maxDraws: o.maxDraws ?? 50, python: o.python };
  const all = planned.map((_, i) => i);
  const tests = drawTests(planned, rngs, all, draws, (offered) => offered.keys());
  const missing = all.filter((i) => !tests.has(i));
  if (missing.length > 0) throw new Error(`prep suite: no stub-proof tests after ${draws.maxDraws} draws for operations ${[...new Set(missing.map((i) => planned[i].inst.op.id))].join(', ')}`);

  // The alias check, on tests drawn for each operation alone: a more-trained operation that passes a majority of an
  // operation's problems computes the same function on the suite's inputs, and ops.ts must change.
  const tested = (is: Iterable<number>) => [...is].map((i) => ({ op: planned[i].inst.op.id, test_list: tests.get(i)! }));
  const passing = aliasedBy(tested(all), { operations, python: o.python });
  const aliases = aliasPairs(tested(all), passing, operations);
  if (aliases.length > 0) throw new Error(`prep suite: operations alias (change ops.ts; the rule: ALIAS_SHARE in generate.ts):\n${aliases.join('\n')}`);
  // Agreement by chance, below the rule: the problem draws again from its own stream until no more-trained reference
  // passes all its tests, so no rl-only or unseen problem is solved by a program its group did not have to find.
  const agreed = all.filter((i) => passing[i].length > 0);
  const stuck = new Map(agreed.map((i) => [i, passing[i]]));
  const redrawn = drawTests(planned, rngs, agreed, draws, (offered) => {
    const ids = [...offered.keys()];
    const again = aliasedBy(tested(ids).map((p, j) => ({ ...p, test_list: offered.get(ids[j])! })), { operations, python: o.python });
    ids.forEach((i, j) => stuck.set(i, again[j]));
    return ids.filter((_, j) => again[j].length === 0);
  });
  for (const [i, t] of redrawn) tests.set(i, t);
  const unresolved = agreed.filter((i) => !redrawn.has(i)).map((i) => `task of ${planned[i].inst.op.id} (${planned[i].split}): ${stuck.get(i)!.join(', ')}`);
  if (unresolved.length > 0) throw new Error(`prep suite: no tests in ${draws.maxDraws} draws that these more-trained operations fail:\n${unresolved.join('\n')}`);

  const counters: Record<SuiteSplit, number> = { sft: 0, rl: 0, dev: 0, test: 0 };
  const problems = planned.map(({ inst, split }, i) => ({
    task_id: ID_BASE[split] + ++counters[split],
    text: inst.text,
    ...(split === 'rl' ? {} : { code: referenceCode(inst.fn, inst.params, inst.op.body) }),
    test_list: tests.get(i)!,
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
  const row = (split: SuiteSplit) => [split, ...[count(split), count(split, 'sft_ops'), count(split, 'rl_only_ops'), count(split, 'unseen_ops')].map(String)];
  return `# The task suite

Small Python problems in MBPP's schema (\`task_id\`, \`text\`, \`code\`, \`test_list\`, \`test_setup_code\`,
\`challenge_test_list\`), plus \`op\` (the operation), \`group\` (who trained on the operation) and \`split\`. Built for
the shipped 8.6M model, which solves no MBPP problem: ${OPERATIONS.length} operations on ints, strings, lists and dicts
(single operations, and list compositions: an aggregate of a map of a filter), each stated with several function names, argument names and wordings, judged
by three assert tests that no trivial program (\`pass\`, constant returns, echoing an argument) passes together.

- Generated by \`npx nx run prep:suite\` (libs/datagen/src/suite: the operations in ops.ts, the generator in
  generate.ts) with seed ${seed}; the same seed writes the same files.
- License: MIT, as the rest of this repository (the problems are this project's own work).

${markdownTable(['split', 'problems', 'sft_ops', 'rl_only_ops', 'unseen_ops'], SUITE_SPLITS.map(row))}

- \`sft.jsonl\`: references of the sft operations (what SFT trains on).
- \`rl.jsonl\`: prompts and tests, no \`code\`: new instances of the sft operations (${RL_PROMPTS_PER_SFT_OPERATION.single} per single and
  ${RL_PROMPTS_PER_SFT_OPERATION.composite} per composite operation) and the rl-only operations (${PER_OPERATION.composite.rl!.rl} each:
  ${ops('rl').join(', ')}), which appear with a reference in no training file.
- \`dev.jsonl\`: for every setting and design decision: unseen instances of trained operations, and unseen operations
  (${ops('dev').join(', ')}).
- \`test.jsonl\`: reported figures only: unseen instances of trained operations, and unseen operations that are in no
  other file (${ops('test').join(', ')}).
- \`rm_data.jsonl\`: the reward model's data, from problems of the sft split only: references, mutants and stubs scored
  in the sandbox (\`npx nx run prep:rm -- --problems data/suite/sft.jsonl --limit 250 --out data/suite/rm_data.jsonl\`).

No statement or test list is in two splits (checked by libs/datagen's suite test, which also regenerates the files
and compares).

## Groups mean what they say

No program of a more-trained operation (sft, then rl-only, then dev-only, then test-only) passes every test of an
rl-only or unseen problem. The alias rule: operation B aliases operation A when B is of a more-trained class, takes
as many arguments, and its reference (renamed to each problem's function) passes every test of ${ALIAS_SHARE * 100}% or more of A's
problems over all splits, on inputs drawn for A alone; \`prep suite\` then fails naming the pairs, and ops.ts must
change. Below that share the agreement is chance (three random lists on which the largest absolute odd number is
also the largest number), and the problem draws new inputs until no such reference passes all its tests. Aliases
within a class (two sft operations) are harmless and allowed.

## This regeneration (honest groups, RL prompts for the sft operations)

- Aliases resolved (the alias check's findings on the previous operations): max_id_positive (rl-only; = max_id_all and
  max_abs_positive, sft), min_abs_positive (rl-only; = min_id_positive), min_double_all (rl-only; = min_double_negative
  on 30 of 33 problems), list_abs_positive (test-only; = list_id_positive), min_id_all (test-only; = min_id_negative,
  dev-only, on 4 of 5) became sft operations, with min_id_negative (dev-only) as well. Their places went to
  max_abs_negative, min_abs_odd, min_double_positive (rl-only), min_abs_negative (dev-only), min_abs_even and
  list_abs_negative (test-only), which were sft: the number of operations of each class is unchanged.
- Before, 18 of the 100 rl-only and 10 of the 80 unseen test problems passed with the reference of an sft operation;
  now none does (dev: 14 of 60 and 4 of 60 before, 0 now). 36 rl, 8 dev and 10 test problems drew new inputs for a
  chance agreement.
- RL prompts per sft operation: 12 (single) and 8 (composite), were 4 and 3: the rl split has 1448 problems, was 831
  (948 of sft operations, was 331; rl-only unchanged at 500). Statements are now dealt to rl last, after sft, dev and
  test, so this count no longer moves other splits.
- Problems changed (compared by statement): sft 60 of 1234 (the six operations that became sft and the six that left,
  10 each; the other 1174 are identical, tests too); dev 159 of 214 and test 298 of 368: every problem of an sft or
  rl-only operation (94 + 60, 188 + 100) got another statement, once, because rl is now dealt last (the input values of
  each rank stay), and the replaced unseen operations' 5 and 10; the other unseen problems kept their 55 and 70
  statements, 4 and 5 of them with new inputs.
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
