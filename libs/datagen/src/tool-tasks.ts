// Tasks that need execution (issue 18): questions whose answer is a computed value the shipped model cannot work out
// in its head (24-digit products, modular powers, counts over long strings, small simulations), but can get by
// running the right code. Each kind is a question template with a seeded generator and its reference tool calls;
// the answer is what those calls print, run in the interpreter (solveToolTasks), so it is Python's own result.
//
// Most kinds ask for the value of a Python expression ("What is pow(417, 9021, 7919)?"): a model of the shipped
// size can learn to copy an expression into a call and read the result back, and that skill carries to expressions
// it never saw. Two-step kinds first define a variable, then ask about it: their reference traces make two calls
// (define, then query), which only a stateful interpreter answers. Splits are by kind: held-out tasks are of kinds
// never trained on.
import { promises as fs } from 'fs';
import * as path from 'path';
import { mbppDatasets, readMbpp, writeJsonl } from '@rlhf-code/data';
import { createRng, type Rng } from '@rlhf-code/model';
import { PythonInterpreter, SandboxPool } from '@rlhf-code/sandbox';
import type { PrepToolsSettings } from './settings';

export interface ToolTask {
  id: string;
  kind: string;
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

type Template = (rng: Rng) => { question: string; calls: string[] };
/** "What is <expr>?", answered by printing it. */
const expr = (e: string) => ({ question: `What is ${e}?`, calls: [`print(${e})`] });
/** "Let <name> = <value>. What is <query>?", answered by defining the name in one call and printing the query in the next. */
const twoStep = (name: string, value: string, query: string) => ({ question: `Let ${name} = ${value}. What is ${query}?`, calls: [`${name} = ${value}`, `print(${query})`] });

/** Every kind of task, by name. Expressions and answers are kept short: the model copies both, token by token. */
export const TOOL_TASK_KINDS: Record<string, Template> = {
  product: (rng) => expr(`${digits(rng, int(rng, 4, 5))} * ${digits(rng, int(rng, 4, 5))}`),
  power_mod: (rng) => expr(`pow(${int(rng, 2, 999)}, ${int(rng, 100, 9999)}, ${int(rng, 100, 9999)})`),
  floor_mod: (rng) => expr(`${digits(rng, 6)} // ${int(rng, 7, 99)} + ${digits(rng, 5)} % ${int(rng, 7, 99)}`),
  digit_sum: (rng) => expr(`sum(int(d) for d in str(${int(rng, 2, 99)} ** ${int(rng, 20, 80)}))`),
  count_letter: (rng) => expr(`'${letters(rng, int(rng, 20, 30))}'.count('${letters(rng, 1)}')`),
  kth_smallest: (rng) => expr(`sorted(${list(rng, 8, -99, 99)})[${int(rng, 1, 7)}]`),
  sum_of_squares: (rng) => expr(`sum(x * x for x in ${list(rng, 8, -99, 99)})`),
  divisor_count: (rng) => {
    const n = int(rng, 1000, 99999);
    return expr(`len([d for d in range(1, ${n} + 1) if ${n} % d == 0])`);
  },
  two_step_list: (rng) => twoStep('xs', list(rng, 6, -99, 99), `sum(xs) * max(xs)`),
  two_step_text: (rng) => twoStep('s', `'${letters(rng, int(rng, 15, 25))}'`, `s.count('${letters(rng, 1)}') * len(s)`),
  // Held out by default (HELD_OUT_KINDS): expressions of other shapes, and a two-step kind with other names.
  digit_count: (rng) => expr(`len(str(${int(rng, 2, 99)} ** ${int(rng, 100, 900)}))`),
  reverse_words: (rng) => expr(`' '.join(reversed('${Array.from({ length: int(rng, 3, 5) }, () => word(rng)).join(' ')}'.split()))`),
  multiples_sum: (rng) => expr(`sum(i for i in range(1, ${int(rng, 500, 5000)}) if i % ${int(rng, 3, 13)} == 0)`),
  two_step_range: (rng) => twoStep('ys', list(rng, 6, -999, 999), `max(ys) - min(ys) + len(ys)`),
};

/** Kinds held out for evaluation by default: never trained on. */
export const HELD_OUT_KINDS = ['digit_count', 'reverse_words', 'multiples_sum', 'two_step_range'];
/** The kinds trained on by default: the others. */
export const TRAIN_KINDS = Object.keys(TOOL_TASK_KINDS).filter((k) => !HELD_OUT_KINDS.includes(k));

/** `perKind` tasks of each of `kinds`, from one seed (the same seed and kinds give the same tasks), answers unset. */
export function generateToolTasks(kinds: readonly string[], perKind: number, seed: number | string): Omit<ToolTask, 'answer'>[] {
  const out: Omit<ToolTask, 'answer'>[] = [];
  for (const kind of kinds) {
    const make = TOOL_TASK_KINDS[kind];
    if (!make) throw new Error(`tool tasks: unknown kind "${kind}" (known: ${Object.keys(TOOL_TASK_KINDS).join(', ')})`);
    const rng = createRng(`tool-tasks:${seed}:${kind}`);
    for (let i = 0; i < perKind; i++) out.push({ id: `${kind}-${seed}-${i}`, kind, ...make(rng) });
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
  const text = row.prompt.trimEnd().split('\n').map((line) => line.replace(/^# ?/, '')).join('\n');
  return { id: `mbpp-${row.task_id}`, kind: 'mbpp', question: `${text}\nReply with the function in a \`\`\`python block.`, tests: row.tests, ...(row.setup ? { setup: row.setup } : {}) };
}

const README = (s: PrepToolsSettings, train: readonly string[], heldOut: readonly string[], mbpp: boolean) => `# Tool-use tasks (issue 18)

Written by \`npx nx run prep:tools\` (seed ${s.seed}); \`bash run_tools.sh\` makes them when missing.

- \`train.jsonl\`: ${s.perKind} tasks of each training kind (${train.join(', ')}).
- \`heldout.jsonl\`: ${s.heldoutPerKind} tasks of each held-out kind (${heldOut.join(', ')}): kinds never trained on.
${mbpp ? '- `mbpp_train.jsonl`, `mbpp_validation.jsonl`: MBPP\'s train (601-974) and validation (511-600) problems, judged by their\n  tests, for real models (the test split 11-510 is never used here).\n' : ''}
Each line: \`{"id", "kind", "question", "answer", "calls"}\`: the answer is what the reference calls print, run in the
interpreter; \`calls\` are the tool calls of the SFT warm-start's traces. MBPP lines have \`"tests"\` (and \`"setup"\`)
instead of an answer.

License: the generated tasks are this project's (same license as the code). The MBPP problems are from Austin et al.
2021, "Program Synthesis with Large Language Models", released under CC BY 4.0.
`;

/** `prep tools`: the generated task files (and MBPP's as tool tasks); returns one summary line. */
export async function writeToolTasks(s: PrepToolsSettings): Promise<string> {
  const heldOut = s.heldoutKinds ?? HELD_OUT_KINDS;
  const train = s.trainKinds ?? Object.keys(TOOL_TASK_KINDS).filter((k) => !heldOut.includes(k));
  const both = train.filter((k) => heldOut.includes(k));
  if (both.length > 0) throw new Error(`--train-kinds and --heldout-kinds share ${both.join(', ')}: held-out kinds must never be trained on`);
  const pool = new SandboxPool({ concurrency: 2, python: s.python });
  const interpreter = () => new PythonInterpreter({ stateful: true, timeoutMs: 30_000, python: s.python }, pool);
  const trainTasks = await solveToolTasks(generateToolTasks(train, s.perKind, `train-${s.seed}`), interpreter);
  const heldTasks = await solveToolTasks(generateToolTasks(heldOut, s.heldoutPerKind, `heldout-${s.seed}`), interpreter);
  const files = { train: path.join(s.outDir, 'train.jsonl'), heldout: path.join(s.outDir, 'heldout.jsonl') };
  await writeJsonl(files.train, trainTasks);
  await writeJsonl(files.heldout, heldTasks);
  let mbppLine = '';
  if (s.mbpp !== 'none') {
    const d = mbppDatasets(await readMbpp(s.mbpp));
    await writeJsonl(path.join(s.outDir, 'mbpp_train.jsonl'), d.ppo.map(mbppToolTask));
    await writeJsonl(path.join(s.outDir, 'mbpp_validation.jsonl'), d.validation.map(mbppToolTask));
    mbppLine = `, MBPP ${d.ppo.length} training / ${d.validation.length} validation problems`;
  }
  await fs.writeFile(path.join(s.outDir, 'README.md'), README(s, train, heldOut, s.mbpp !== 'none'));
  return `${files.train} ${trainTasks.length} tasks (${train.length} kinds), ${files.heldout} ${heldTasks.length} tasks (${heldOut.length} kinds)${mbppLine}`;
}
