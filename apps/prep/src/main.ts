// prep: build the pipeline's datasets from MBPP.
//   data  sft_data.jsonl, ppo_prompts.jsonl, mbpp_validation.jsonl, eval_mbpp_test.jsonl and a copy of MBPP with its README
//   rm    rm_data.jsonl: reference solutions, mutated variants (and optionally SFT samples), each scored by
//         running it against the task's tests in the sandbox
//   syntax  {prompt, response} lines for `sft train`: function bodies a model wrote for the corpus's training files
//         that compile (rejection sampling on the compiler's verdict; libs/eval/src/syntax-data.ts)
import { promises as fs } from 'fs';
import * as path from 'path';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli } from '@rlhf-code/cli';
import { MbppLeakGuard, mbppDatasets, mbppReadme, normalizeCode, readMbpp, writeJsonl } from '@rlhf-code/data';
import { mutants, resolvePython, SandboxPool, scoreAll } from '@rlhf-code/sandbox';

// All defaults live here; --help shows them.
const DEFAULTS = {
  mbpp: 'data/mbpp/mbpp.jsonl',
  outDir: 'data',
  rmOut: 'data/rm_data.jsonl',
  seed: 0,
  mutantsPerKind: 1,
  samples: 4,
  maxNewTokens: 256,
  temperature: 0.8,
  template: 'raw' as const,
  syntax: {
    model: 'models/base',
    corpus: 'data/corpus/python-stdlib,data/corpus/python-stdlib-extra',
    out: 'results/syntax/syntax_data.jsonl',
    source: 'functions' as const,
    fimData: 'data/fim/fim.jsonl',
    fimCases: 0,
    functions: 1200,
    samples: 2,
    temperature: 0.6,
    maxNewTokens: { functions: 128, fim: 64 },
    maxPromptTokens: 256,
    batchSize: 16,
    maxLineRepeats: 2,
    fimRate: 0.5,
    maxSuffixTokens: 128,
  },
  timeoutMs: 3000,
  memoryMb: 512,
  concurrency: 2,
};

const int = (min: number) => z.coerce.number().int().min(min);

const DataFlags = z.object({
  mbpp: z.string().default(DEFAULTS.mbpp),
  outDir: z.string().default(DEFAULTS.outDir),
});

const RmFlags = z
  .object({
    mbpp: z.string().default(DEFAULTS.mbpp),
    out: z.string().default(DEFAULTS.rmOut),
    seed: int(0).default(DEFAULTS.seed),
    mutantsPerKind: int(0).default(DEFAULTS.mutantsPerKind),
    sftModel: z.string().optional(),
    samples: int(1).default(DEFAULTS.samples),
    maxNewTokens: int(1).default(DEFAULTS.maxNewTokens),
    temperature: z.coerce.number().positive().default(DEFAULTS.temperature),
    template: z.enum(['raw', 'chat']).default(DEFAULTS.template),
    limit: int(1).optional(),
    timeoutMs: int(100).default(DEFAULTS.timeoutMs),
    memoryMb: int(0).default(DEFAULTS.memoryMb),
    concurrency: int(1).default(DEFAULTS.concurrency),
    python: z.string().optional(),
    backend: backendSchema,
  });

const S = DEFAULTS.syntax;
const SyntaxFlags = z.object({
  model: z.string().default(S.model),
  corpus: z.string().default(S.corpus),
  out: z.string().default(S.out),
  source: z.enum(['functions', 'fim']).default(S.source),
  fimData: z.string().default(S.fimData),
  fimCases: int(0).default(S.fimCases),
  functions: int(0).default(S.functions),
  samples: int(1).default(S.samples),
  temperature: z.coerce.number().positive().default(S.temperature),
  maxNewTokens: int(1).optional(), // default S.maxNewTokens[source]
  maxPromptTokens: int(1).default(S.maxPromptTokens),
  batchSize: int(1).default(S.batchSize),
  maxLineRepeats: int(1).default(S.maxLineRepeats),
  fimRate: z.coerce.number().min(0).max(1).default(S.fimRate),
  maxSuffixTokens: int(0).default(S.maxSuffixTokens),
  seed: int(0).default(DEFAULTS.seed),
  python: z.string().optional(),
  backend: backendSchema,
});

function progressBar(label: string, unit: string): SingleBar {
  return new SingleBar({
    format: `${label} [{bar}] {value}/{total} ${unit} | eta {eta_formatted}`,
    barsize: 24,
    hideCursor: false,
    stream: process.stderr,
    noTTYOutput: true, // still print (every notTTYSchedule ms) when stderr is a log file
    notTTYSchedule: 15000,
  });
}

const seconds = (t0: number) => ((Date.now() - t0) / 1000).toFixed(1);

async function dataCommand(opts: unknown): Promise<void> {
  const t0 = Date.now();
  const flags = parseFlags(DataFlags, opts);
  const tasks = await readMbpp(flags.mbpp);
  const d = mbppDatasets(tasks); // refuses test-split tasks in the training sets
  const files = {
    sft: path.join(flags.outDir, 'sft_data.jsonl'),
    ppo: path.join(flags.outDir, 'ppo_prompts.jsonl'),
    validation: path.join(flags.outDir, 'mbpp_validation.jsonl'),
    eval: path.join(flags.outDir, 'eval_mbpp_test.jsonl'),
  };
  await writeJsonl(files.sft, d.sft);
  await writeJsonl(files.ppo, d.ppo);
  await writeJsonl(files.validation, d.validation);
  await writeJsonl(files.eval, d.eval);

  const mbppDir = path.join(flags.outDir, 'mbpp');
  const copy = path.join(mbppDir, 'mbpp.jsonl');
  await fs.mkdir(mbppDir, { recursive: true });
  if (path.resolve(copy) !== path.resolve(flags.mbpp)) {
    await fs.rm(copy, { force: true }); // the source may be read-only, and copyFile keeps its mode
    await fs.copyFile(flags.mbpp, copy);
    await fs.chmod(copy, 0o644);
  }
  await fs.writeFile(path.join(mbppDir, 'README.md'), mbppReadme(d.excluded));

  const left = d.excluded.length ? `; left out ${d.excluded.map((e) => `${e.task_id} (repeats test task ${e.duplicates})`).join(', ')}` : '';
  process.stdout.write(
    `prep data: ${files.sft} ${d.sft.length}, ${files.ppo} ${d.ppo.length}, ${files.validation} ${d.validation.length}, ${files.eval} ${d.eval.length}, ${copy} ${tasks.length} tasks${left} (${seconds(t0)} s)\n`,
  );
}

interface Candidate {
  prompt: string;
  response: string;
  source: string;
  task_id: number;
  tests: string[];
  setup?: string;
}

async function rmCommand(opts: unknown): Promise<void> {
  const t0 = Date.now();
  const flags = parseFlags(RmFlags, opts);
  resolvePython(flags.python); // fail before any work when there is no interpreter
  const tasks = await readMbpp(flags.mbpp);
  const d = mbppDatasets(tasks);
  const training = [...d.validation, ...d.ppo].slice(0, flags.limit); // 511-974 in task order
  const reference = new Map(tasks.map((t) => [t.task_id, normalizeCode(t.code)]));

  let samples: string[][] | undefined;
  if (flags.sftModel) {
    // Loaded only when asked for: importing tfjs costs seconds.
    const { sampleResponses } = await import('./sample');
    const bar = progressBar('sample', 'prompts');
    bar.start(training.length, 0);
    samples = await sampleResponses(
      { ...flags, modelDir: flags.sftModel, prompts: training.map((t) => t.prompt) },
      (done) => bar.update(done),
    );
    bar.stop();
  }

  const candidates: Candidate[] = [];
  training.forEach((t, i) => {
    const ref = reference.get(t.task_id)!;
    const row = (response: string, source: string): Candidate => ({ prompt: t.prompt, response, source, task_id: t.task_id, tests: t.tests, setup: t.setup });
    const ms = mutants(ref, `${flags.seed}:${t.task_id}`, { perKind: flags.mutantsPerKind });
    candidates.push(row(ref, 'reference'), ...ms.map((m) => row(m.code, `mutant:${m.kind}`)));
    const seen = new Set([ref, ...ms.map((m) => m.code)]); // a sample equal to one of these adds nothing
    for (const s of samples?.[i] ?? []) {
      if (seen.has(s)) continue;
      seen.add(s);
      candidates.push(row(s, 'sft'));
    }
  });

  const pool = new SandboxPool({ timeoutMs: flags.timeoutMs, memoryMb: flags.memoryMb, concurrency: flags.concurrency, python: flags.python });
  const bar = progressBar('rm', 'runs');
  bar.start(candidates.length, 0);
  const scored = await scoreAll(
    pool,
    candidates.map((c) => ({ code: c.response, tests: c.tests, setup: c.setup })),
    (done) => bar.update(done),
  );
  bar.stop();

  const rows = candidates.map((c, i) => ({
    prompt: c.prompt,
    response: c.response,
    score: Math.round(scored[i].score * 1e4) / 1e4,
    task_id: c.task_id,
    source: c.source,
  }));
  new MbppLeakGuard(tasks).check(rows, flags.out);
  await writeJsonl(flags.out, rows);

  const scores = rows.map((r) => r.score);
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const share = (f: (s: number) => boolean) => ((100 * scores.filter(f).length) / scores.length).toFixed(1) + '%';
  const refsOk = rows.filter((r) => r.source === 'reference' && r.score === 1).length;
  const timeouts = scored.filter((s) => s.result.timedOut).length;
  process.stdout.write(
    `prep rm: ${flags.out} ${rows.length} rows for ${training.length} prompts; score mean ${mean.toFixed(3)}, ` +
      `=1.0 ${share((s) => s === 1)}, <0.3 ${share((s) => s < 0.3)}; references at 1.0: ${refsOk}/${training.length}; ` +
      `timeouts ${timeouts} (${seconds(t0)} s)\n`,
  );
}

async function syntaxCommand(opts: unknown): Promise<void> {
  const t0 = Date.now();
  const parsed = parseFlags(SyntaxFlags, opts);
  const flags = { ...parsed, maxNewTokens: parsed.maxNewTokens ?? S.maxNewTokens[parsed.source] };
  resolvePython(flags.python); // fail before any work when there is no interpreter
  // Loaded only here: importing tfjs costs seconds.
  const { runFimSyntaxData, runSyntaxData } = await import('./syntax');
  const bar = progressBar('syntax', 'samples');
  let started = false;
  const onProgress = (done: number, total: number) => {
    if (!started) bar.start(total, 0);
    started = true;
    bar.update(done);
  };
  const fim = flags.source === 'fim';
  const r = fim ? await runFimSyntaxData(flags, onProgress) : await runSyntaxData(flags, onProgress);
  if (started) bar.stop();
  const s = r.stats;
  const figures =
    `${s.samples} samples: ended ${s.ended_rate.toFixed(3)}, compile ${s.syntax_valid_rate.toFixed(3)}, kept ${s.kept_rate.toFixed(3)}`;
  if (r.examples.length === 0) {
    const more = fim ? '--fim-cases, --samples or --max-new-tokens' : '--functions, --samples or --max-new-tokens';
    throw new Error(`no ${fim ? 'middle' : 'body'} of ${flags.model} was kept (${figures}); nothing written to ${flags.out}. Try more ${more}`);
  }
  await writeJsonl(flags.out, r.examples);
  const from =
    'cases' in r.stats
      ? `${r.stats.cases} FIM examples of ${flags.fimData} (train split, cursor in code; ${figures}; mean ${r.stats.mean_middle_chars.toFixed(0)} characters per middle)`
      : `${r.stats.functions} functions of ${(r as { trainFiles: number }).trainFiles} training files (${figures}; mean ${r.stats.mean_body_lines.toFixed(1)} lines per example)`;
  process.stdout.write(`prep syntax: ${flags.out} ${r.examples.length} examples from ${from} (${seconds(t0)} s)\n`);
}

const program = new Command('prep').description(
  'Build the datasets in data/ from MBPP (Austin et al. 2021, CC BY 4.0), and syntax training data from a model and the Python corpus.',
);
program
  .command('data')
  .description('write sft_data.jsonl (MBPP 511-974), ppo_prompts.jsonl (601-974), mbpp_validation.jsonl (511-600, to measure PPO) and eval_mbpp_test.jsonl (11-510), and copy MBPP with its README')
  .option('--mbpp <file>', 'MBPP JSONL file', DEFAULTS.mbpp)
  .option('--out-dir <dir>', 'output folder', DEFAULTS.outDir)
  .action(dataCommand);
program
  .command('rm')
  .description('write reward-model data: per MBPP 511-974 prompt, the reference, mutated variants and optional SFT samples, each scored in the sandbox')
  .option('--mbpp <file>', 'MBPP JSONL file', DEFAULTS.mbpp)
  .option('--out <file>', 'output JSONL file ({prompt, response, score, task_id, source} lines)', DEFAULTS.rmOut)
  .option('--seed <n>', 'seed for the mutations (and sampling)', String(DEFAULTS.seed))
  .option('--mutants-per-kind <n>', 'mutated variants per mutation kind and prompt (9 kinds)', String(DEFAULTS.mutantsPerKind))
  .option('--sft-model <dir>', 'also score samples from this checkpoint folder (config.json, model.safetensors, tokenizer.json)')
  .option('--samples <k>', 'samples per prompt with --sft-model', String(DEFAULTS.samples))
  .option('--max-new-tokens <n>', 'longest sample with --sft-model', String(DEFAULTS.maxNewTokens))
  .option('--temperature <t>', 'sampling temperature with --sft-model', String(DEFAULTS.temperature))
  .addOption(new Option('--template <name>', 'prompt format for --sft-model: raw text, or a ChatML turn for instruct checkpoints').choices(['raw', 'chat']).default(DEFAULTS.template))
  .option('--limit <n>', 'only the first n prompts (quick runs)')
  .option('--timeout-ms <ms>', 'wall-clock limit per run', String(DEFAULTS.timeoutMs))
  .option('--memory-mb <mb>', 'memory limit per run (0 = none)', String(DEFAULTS.memoryMb))
  .option('--concurrency <n>', 'python processes at once', String(DEFAULTS.concurrency))
  .option('--python <path>', 'Python 3 interpreter (env RLHF_PYTHON, default python3 on PATH)')
  .addOption(backendOption())
  .action(rmCommand);
program
  .command('syntax')
  .description(
    'write {prompt, response} lines for `sft train` from the compiler\'s verdict: a model writes bodies for documented functions of the ' +
      'corpus\'s training files (never its held-out files); the bodies it ended itself that compile and repeat no line more than ' +
      '--max-line-repeats times are kept, the one closest to the true body per function. With --source fim it fills the train-split ' +
      'examples of --fim-data instead, and keeps the middles that it ended itself and that compile in their whole source file',
  )
  .addOption(new Option('--model <dir>', 'checkpoint folder that writes the bodies').env('MODEL_PATH').default(S.model))
  .option('--corpus <dirs>', 'corpus folder(s), comma separated; the functions come from their training files (path-hash split)', S.corpus)
  .option('--out <file>', 'output JSONL file ({prompt, suffix?, response, path, name, similarity} lines)', S.out)
  .addOption(new Option('--source <kind>', 'what the model writes: "functions" (bodies of documented functions) or "fim" (middles of --fim-data)').choices(['functions', 'fim']).default(S.source))
  .option('--functions <n>', 'documented functions sampled (a seeded subset of those whose true body compiles; 0 = all)', String(S.functions))
  .option('--fim-data <file>', '--source fim: FIM examples {prefix, suffix, middle, path, split} from `online prep-fim`; only split "train" is used, and each must come from a training file of --corpus', S.fimData)
  .option('--fim-cases <n>', '--source fim: FIM examples sampled (a seeded subset of the train split; 0 = all)', String(S.fimCases))
  .option('--samples <k>', 'bodies sampled per function', String(S.samples))
  .option('--temperature <t>', 'sampling temperature (top-k 0, top-p 1)', String(S.temperature))
  .option('--max-new-tokens <n>', `longest body (middle) in tokens; one not ended by then is not kept (default ${S.maxNewTokens.functions}; ${S.maxNewTokens.fim} with --source fim)`)
  .option('--max-prompt-tokens <n>', 'prompts (the file up to the docstring) are cut from the left to this many tokens (--source fim: the FIM prompt is cut to the window as the online server does)', String(S.maxPromptTokens))
  .option('--batch-size <n>', 'sequences generated together', String(S.batchSize))
  .option('--max-line-repeats <n>', 'a body whose most frequent line occurs more often than this is not kept', String(S.maxLineRepeats))
  .option('--fim-rate <x>', '--source functions: share of examples written in fill-in-the-middle form ({prompt, suffix, response}: the file after the body as suffix)', String(S.fimRate))
  .option('--max-suffix-tokens <n>', 'fill-in-the-middle examples: the suffix is cut to this many tokens', String(S.maxSuffixTokens))
  .option('--seed <n>', 'seed of the function subset, of sampling and of the example forms', String(DEFAULTS.seed))
  .option('--python <path>', 'Python 3 interpreter for the syntax check (env RLHF_PYTHON, default python3 on PATH)')
  .addOption(backendOption())
  .action(syntaxCommand);

void runCli(program);
