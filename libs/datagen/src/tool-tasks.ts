// Tasks that need execution: questions whose answer is a computed value the shipped model cannot work out
// in its head (9-digit products, modular powers, letter counts, digit sums of large powers), but can get by running
// the right code. A task is an operation (its `kind`: a seeded generator of the computation) phrased by a question
// template; its reference tool calls compute it, and the answer is what they print in the interpreter
// (solveToolTasks), so it is Python's own result.
//
// The questions hold a Python expression ("What is pow(417, 9021, 7919)?"): the shipped model learns to copy it into
// a call and read the result back. Two-step operations first define a variable, then ask about it: their reference
// traces make two calls (define, then query), which only a stateful interpreter answers.
//
// Splits are by template: the held-out file phrases the trained operations with question templates never trained on.
// Operations never trained on at all (NEW_OPERATION_KINDS) go to a third file, a harder transfer test.
import { promises as fs } from 'fs';
import * as path from 'path';
import { codeQuestion, mbppDatasets, readMbpp, writeJsonl } from '@rlhf-code/data';
import { resumableRng, type Rng } from '@rlhf-code/model';
import { PythonInterpreter, SandboxPool } from '@rlhf-code/sandbox';
import type { PrepToolsSettings } from './settings';

export interface ToolTask {
  id: string;
  /** The operation (what is computed). */
  kind: string;
  /** Which question template phrased it (the split is by template). */
  template: string;
  question: string;
  /** The exact answer, as the final reply should state it (the reference calls' printed value). */
  answer: string;
  /** The reference tool calls, in order: the last one prints the answer. */
  calls: string[];
}

const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng.next() * (hi - lo + 1));
const digits = (rng: Rng, n: number) => String(int(rng, 1, 9)) + Array.from({ length: n - 1 }, () => int(rng, 0, 9)).join('');
const letters = (rng: Rng, n: number, alphabet = 'abcde') => Array.from({ length: n }, () => alphabet[int(rng, 0, alphabet.length - 1)]).join('');
const list = (rng: Rng, n: number, lo: number, hi: number) => `[${Array.from({ length: n }, () => int(rng, lo, hi)).join(', ')}]`;
const word = (rng: Rng) => letters(rng, int(rng, 3, 5), 'abcdefghijklmnopqrstuvwxyz');

/** What an operation computes: one expression, or a variable defined first and an expression over it. */
type Computation = { expr: string } | { name: string; value: string; query: string };
type Operation = (rng: Rng) => Computation;

/** Every operation, by name. Expressions and answers are kept short: the model copies both, token by token. */
export const TOOL_TASK_KINDS: Record<string, Operation> = {
  product: (rng) => ({ expr: `${digits(rng, int(rng, 4, 5))} * ${digits(rng, int(rng, 4, 5))}` }),
  power_mod: (rng) => ({ expr: `pow(${int(rng, 2, 999)}, ${int(rng, 100, 9999)}, ${int(rng, 100, 9999)})` }),
  floor_mod: (rng) => ({ expr: `${digits(rng, 6)} // ${int(rng, 7, 99)} + ${digits(rng, 5)} % ${int(rng, 7, 99)}` }),
  digit_sum: (rng) => ({ expr: `sum(int(d) for d in str(${int(rng, 2, 99)} ** ${int(rng, 20, 80)}))` }),
  count_letter: (rng) => ({ expr: `'${letters(rng, int(rng, 20, 30))}'.count('${letters(rng, 1)}')` }),
  kth_smallest: (rng) => ({ expr: `sorted(${list(rng, 8, -99, 99)})[${int(rng, 1, 7)}]` }),
  sum_of_squares: (rng) => ({ expr: `sum(x * x for x in ${list(rng, 8, -99, 99)})` }),
  divisor_count: (rng) => {
    const n = int(rng, 1000, 99999);
    return { expr: `len([d for d in range(1, ${n} + 1) if ${n} % d == 0])` };
  },
  two_step_list: (rng) => ({ name: 'xs', value: list(rng, 6, -99, 99), query: 'sum(xs) * max(xs)' }),
  two_step_text: (rng) => ({ name: 's', value: `'${letters(rng, int(rng, 15, 25))}'`, query: `s.count('${letters(rng, 1)}') * len(s)` }),
  // New operations, never trained on by default (NEW_OPERATION_KINDS): a harder transfer test.
  digit_count: (rng) => ({ expr: `len(str(${int(rng, 2, 99)} ** ${int(rng, 100, 900)}))` }),
  reverse_words: (rng) => ({ expr: `' '.join(reversed('${Array.from({ length: int(rng, 3, 5) }, () => word(rng)).join(' ')}'.split()))` }),
  multiples_sum: (rng) => ({ expr: `sum(i for i in range(1, ${int(rng, 500, 5000)}) if i % ${int(rng, 3, 13)} == 0)` }),
  two_step_range: (rng) => ({ name: 'ys', value: list(rng, 6, -999, 999), query: 'max(ys) - min(ys) + len(ys)' }),
};

/** Operations held out entirely by default: no template of them is trained on. */
export const NEW_OPERATION_KINDS = ['digit_count', 'reverse_words', 'multiples_sum', 'two_step_range'];
/** The operations trained on by default: the others. */
export const TRAIN_KINDS = Object.keys(TOOL_TASK_KINDS).filter((k) => !NEW_OPERATION_KINDS.includes(k));

/** Question templates, by name: `e` is the expression; two-step ones get the name, its value and the query. */
const EXPR_TEMPLATES: Record<string, (e: string) => string> = {
  what_is: (e) => `What is ${e}?`,
  calculate: (e) => `Calculate ${e}.`,
  value_of: (e) => `Find the value of ${e}.`,
  compute: (e) => `Compute ${e}.`,
  evaluate: (e) => `Use Python to evaluate ${e}.`,
  result_of: (e) => `What does ${e} give?`,
};
const STEP_TEMPLATES: Record<string, (n: string, v: string, q: string) => string> = {
  what_is: (n, v, q) => `Let ${n} = ${v}. What is ${q}?`,
  calculate: (n, v, q) => `Let ${n} = ${v}. Calculate ${q}.`,
  value_of: (n, v, q) => `Given ${n} = ${v}, find the value of ${q}.`,
  compute: (n, v, q) => `Set ${n} = ${v}. Compute ${q}.`,
  evaluate: (n, v, q) => `Take ${n} = ${v}. Use Python to evaluate ${q}.`,
  result_of: (n, v, q) => `With ${n} = ${v}, what does ${q} give?`,
};
/** Templates trained on, and templates held out (the held-out file phrases the trained operations these ways). */
export const TRAIN_TEMPLATES = ['what_is', 'calculate', 'value_of'];
export const HELD_OUT_TEMPLATES = ['compute', 'evaluate', 'result_of'];

/**
 * `perKind` tasks of each of `kinds`, each phrased by one of `templates` in turn, from one seed (the same seed, kinds
 * and templates give the same tasks), answers unset.
 */
export function generateToolTasks(kinds: readonly string[], perKind: number, seed: number | string, templates: readonly string[] = TRAIN_TEMPLATES): Omit<ToolTask, 'answer'>[] {
  for (const t of templates) if (!(t in EXPR_TEMPLATES)) throw new Error(`tool tasks: unknown template "${t}" (known: ${Object.keys(EXPR_TEMPLATES).join(', ')})`);
  const out: Omit<ToolTask, 'answer'>[] = [];
  for (const kind of kinds) {
    const make = TOOL_TASK_KINDS[kind];
    if (!make) throw new Error(`tool tasks: unknown kind "${kind}" (known: ${Object.keys(TOOL_TASK_KINDS).join(', ')})`);
    const rng = resumableRng(`tool-tasks:${seed}:${kind}`);
    for (let i = 0; i < perKind; i++) {
      const c = make(rng);
      const template = templates[i % templates.length];
      const phrased =
        'expr' in c
          ? { question: EXPR_TEMPLATES[template](c.expr), calls: [`print(${c.expr})`] }
          : { question: STEP_TEMPLATES[template](c.name, c.value, c.query), calls: [`${c.name} = ${c.value}`, `print(${c.query})`] };
      out.push({ id: `${kind}-${seed}-${i}`, kind, template, ...phrased });
    }
  }
  return out;
}

/**
 * The answers: each task's reference calls run in order in a fresh stateful interpreter (`interpreter()`), the last
 * one's output, trimmed. A call that fails (an exception, a timeout) is an error naming the task: the generator is wrong.
 */
export async function solveToolTasks(tasks: readonly Omit<ToolTask, 'answer'>[], interpreter: () => PythonInterpreter): Promise<ToolTask[]> {
  return Promise.all(
    tasks.map(async (t) => {
      const py = interpreter();
      try {
        let output = '';
        for (const code of t.calls) {
          const r = await py.run(code);
          if (r.timedOut || /Traceback|Error:/.test(r.output)) throw new Error(`tool tasks: ${t.id}: its reference call failed: ${r.output.trim().split('\n').pop()}`);
          output = r.output;
        }
        return { ...t, answer: output.trim() };
      } finally {
        await py.close();
      }
    }),
  );
}

/** An MBPP problem as a tool task judged by its tests: the problem and its first test, the function asked for in a fenced block. */
function mbppToolTask(row: { prompt: string; tests: string[]; setup?: string; task_id: number }) {
  return { id: `mbpp-${row.task_id}`, kind: 'mbpp', question: codeQuestion(row.prompt), tests: row.tests, ...(row.setup ? { setup: row.setup } : {}) };
}

type Split = { kinds: readonly string[]; newOps: readonly string[]; trainTemplates: readonly string[]; heldTemplates: readonly string[] };
const README = (s: PrepToolsSettings, x: Split, mbpp: boolean) => `# Tool-use tasks

Written by \`npx nx run prep:tools\` (seed ${s.seed}); \`bash run_tools.sh\` makes them when missing.

- \`train.jsonl\`: ${s.perKind} tasks of each training operation (${x.kinds.join(', ')}), phrased by the training
  templates (${x.trainTemplates.join(', ')}).
- \`heldout.jsonl\`: ${s.heldoutPerKind} tasks of each training operation phrased by templates never trained on
  (${x.heldTemplates.join(', ')}), with new values: the held-out measure of \`run_tools.sh\`.
- \`heldout_new_ops.jsonl\`: ${s.heldoutPerKind} tasks of each operation never trained on (${x.newOps.join(', ')}): a
  harder transfer test.
- The programming tasks of \`run_tools.sh\` are not here: \`tool-rl\` reads the task suite (\`data/suite/*.jsonl\`, MBPP's
  schema) as it is, and any other file of problems in MBPP's schema the same way.
${mbpp ? '- `mbpp_train.jsonl`, `mbpp_validation.jsonl`: MBPP\'s train (601-974) and validation (511-600) problems, judged by their\n  tests, for real models (the test split 11-510 is never used here).\n' : ''}
Each line: \`{"id", "kind", "template", "question", "answer", "calls"}\`: the answer is what the reference calls print,
run in the interpreter; \`calls\` are the tool calls of the SFT warm-start's traces. MBPP lines have \`"tests"\` (and
\`"setup"\`) instead of an answer.

License: the generated tasks are this project's (same license as the code). The MBPP problems are from Austin et al.
2021, "Program Synthesis with Large Language Models", released under CC BY 4.0.
`;

/** `prep tools`: the generated task files (and MBPP's as tool tasks); returns one summary line. */
export async function writeToolTasks(s: PrepToolsSettings): Promise<string> {
  const kinds = s.trainKinds ?? TRAIN_KINDS;
  const newOps = s.newOperationKinds ?? NEW_OPERATION_KINDS;
  const trainTemplates = s.trainTemplates ?? TRAIN_TEMPLATES;
  const heldTemplates = s.heldoutTemplates ?? HELD_OUT_TEMPLATES;
  const overlap = (a: readonly string[], b: readonly string[], what: string) => {
    const both = a.filter((k) => b.includes(k));
    if (both.length > 0) throw new Error(`${what} share ${both.join(', ')}: what is held out must never be trained on`);
  };
  overlap(kinds, newOps, '--train-kinds and --new-operation-kinds');
  overlap(trainTemplates, heldTemplates, '--train-templates and --heldout-templates');
  const pool = new SandboxPool({ concurrency: 2, python: s.python });
  const interpreter = () => new PythonInterpreter({ stateful: true, timeoutMs: 30_000, python: s.python }, pool);
  const sets = {
    train: await solveToolTasks(generateToolTasks(kinds, s.perKind, `train-${s.seed}`, trainTemplates), interpreter),
    heldout: await solveToolTasks(generateToolTasks(kinds, s.heldoutPerKind, `heldout-${s.seed}`, heldTemplates), interpreter),
    heldout_new_ops: await solveToolTasks(generateToolTasks(newOps, s.heldoutPerKind, `new-ops-${s.seed}`, [...trainTemplates, ...heldTemplates]), interpreter),
  };
  for (const [name, tasks] of Object.entries(sets)) await writeJsonl(path.join(s.outDir, `${name}.jsonl`), tasks);
  let mbppLine = '';
  if (s.mbpp !== 'none') {
    const d = mbppDatasets(await readMbpp(s.mbpp));
    await writeJsonl(path.join(s.outDir, 'mbpp_train.jsonl'), d.ppo.map(mbppToolTask));
    await writeJsonl(path.join(s.outDir, 'mbpp_validation.jsonl'), d.validation.map(mbppToolTask));
    mbppLine = `, MBPP ${d.ppo.length} training / ${d.validation.length} validation problems`;
  }
  await fs.writeFile(path.join(s.outDir, 'README.md'), README(s, { kinds, newOps, trainTemplates, heldTemplates }, s.mbpp !== 'none'));
  return `${s.outDir}: train ${sets.train.length}, heldout ${sets.heldout.length} (unseen templates), heldout_new_ops ${sets.heldout_new_ops.length} (unseen operations)${mbppLine}`;
}
