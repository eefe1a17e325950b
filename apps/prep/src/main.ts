// prep: build the pipeline's datasets. The builders live in libs/datagen; this file reads the settings and prints.
//   data    sft_data.jsonl, ppo_prompts.jsonl, mbpp_validation.jsonl, eval_mbpp_test.jsonl and a copy of MBPP with its README
//   rm      rm_data.jsonl: reference solutions, mutated variants, stubs (and optionally SFT samples), each scored by
//           running it against the problem's tests in the sandbox (MBPP's training split, or --problems)
//   syntax  {prompt, response} lines for `sft train`: function bodies a model wrote for the corpus's training files
//           that compile (rejection sampling on the compiler's verdict)
//   suite   the task suite (data/suite): small problems in MBPP's schema at the shipped model's scale, split sft / rl / dev / test
//   tools   tool-use tasks (data/tools): generated questions whose answer needs running code, split by kind, and MBPP
//           problems as tool tasks with tests
import { Command } from 'commander';
import { runCli, settingsCommand, stagedProgress } from '@rlhf-code/cli';
import { writeJsonl } from '@rlhf-code/data';
import {
  buildRmData,
  PrepDataSettings,
  PrepRmSettings,
  PrepSuiteSettings,
  PrepSyntaxSettings,
  PrepToolsSettings,
  runFimSyntaxData,
  runSyntaxData,
  writeMbppData,
  writeSuite,
  writeToolTasks,
} from '@rlhf-code/datagen';
import { shutdownBackend } from '@rlhf-code/backend';
import { checkModelFolder } from '@rlhf-code/model';

const seconds = (t0: number) => ((Date.now() - t0) / 1000).toFixed(1);

async function dataCommand(s: PrepDataSettings): Promise<void> {
  const t0 = Date.now();
  const summary = await writeMbppData(s);
  process.stdout.write(`prep data: ${summary} (${seconds(t0)} s)\n`);
}

async function rmCommand(s: PrepRmSettings): Promise<void> {
  if (s.sftModel) checkModelFolder(s.sftModel, '--sft-model');
  const t0 = Date.now();
  const bars = stagedProgress((stage) => (stage === 'sample' ? 'prompts' : 'runs'), 6);
  let r;
  try {
    r = await buildRmData(s, { sampling: (done, total) => bars.update('sample', done, total), scoring: (done, total) => bars.update('rm', done, total) });
  } finally {
    bars.stop();
  }
  await writeJsonl(s.out, r.rows);
  const scores = r.rows.map((x) => x.score);
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const share = (f: (x: number) => boolean) => ((100 * scores.filter(f).length) / scores.length).toFixed(1) + '%';
  const refsOk = r.rows.filter((x) => x.source === 'reference' && x.score === 1).length;
  process.stdout.write(
    `prep rm: ${s.out} ${r.rows.length} rows for ${r.prompts} prompts; score mean ${mean.toFixed(3)}, ` +
      `=1.0 ${share((x) => x === 1)}, <0.3 ${share((x) => x < 0.3)}; references at 1.0: ${refsOk}/${r.prompts}; ` +
      `timeouts ${r.timeouts} (${seconds(t0)} s)\n`,
  );
}

async function syntaxCommand(s: PrepSyntaxSettings): Promise<void> {
  checkModelFolder(s.model, '--model');
  const t0 = Date.now();
  const bars = stagedProgress(() => 'samples', 6);
  const onProgress = (done: number, total: number) => bars.update('syntax', done, total);
  let r;
  try {
    r = s.source === 'fim' ? await runFimSyntaxData(s, onProgress) : await runSyntaxData(s, onProgress);
  } finally {
    bars.stop();
  }
  const st = r.stats;
  const figures = `${st.samples} samples: ended ${st.ended_rate.toFixed(3)}, compile ${st.syntax_valid_rate.toFixed(3)}, kept ${st.kept_rate.toFixed(3)}`;
  if (r.examples.length === 0) {
    const more = s.source === 'fim' ? '--fim-cases, --samples or --max-new-tokens' : '--functions, --samples or --max-new-tokens';
    throw new Error(`no ${s.source === 'fim' ? 'middle' : 'body'} of ${s.model} was kept (${figures}); nothing written to ${s.out}. Try more ${more}`);
  }
  await writeJsonl(s.out, r.examples);
  const from =
    s.source === 'fim' && 'cases' in r.stats
      ? `${r.stats.cases} FIM examples of ${s.fimData} (train split, cursor in code; ${figures}; mean ${r.stats.mean_middle_chars.toFixed(0)} characters per middle)`
      : 'functions' in r.stats
        ? `${r.stats.functions} functions of ${(r as { trainFiles: number }).trainFiles} training files (${figures}; mean ${r.stats.mean_body_lines.toFixed(1)} lines per example)`
        : figures;
  process.stdout.write(`prep syntax: ${s.out} ${r.examples.length} examples from ${from} (${seconds(t0)} s)\n`);
}

async function suiteCommand(s: PrepSuiteSettings): Promise<void> {
  const t0 = Date.now();
  const summary = await writeSuite(s);
  process.stdout.write(`prep suite: ${summary} (${seconds(t0)} s)\n`);
}

async function toolsCommand(s: PrepToolsSettings): Promise<void> {
  const t0 = Date.now();
  const summary = await writeToolTasks(s);
  process.stdout.write(`prep tools: ${summary} (${seconds(t0)} s)\n`);
}

const program = new Command('prep').description(
  'Build the datasets in data/ from MBPP (Austin et al. 2021, CC BY 4.0), and syntax training data from a model and the Python corpus.',
);
settingsCommand(
  program
    .command('data')
    .description('write sft_data.jsonl (MBPP 511-974), ppo_prompts.jsonl (601-974), mbpp_validation.jsonl (511-600, to measure PPO) and eval_mbpp_test.jsonl (11-510), and copy MBPP with its README'),
  PrepDataSettings,
  dataCommand,
);
settingsCommand(
  program
    .command('rm')
    .description('write reward-model data: per training problem (MBPP 511-974, or those of --problems with a reference), the reference, mutated variants, the trivial answers (stubs) and optional SFT samples, each scored in the sandbox'),
  PrepRmSettings,
  rmCommand,
);
settingsCommand(
  program
    .command('suite')
    .description(
      'write the task suite to data/suite: small problems in MBPP\'s schema generated (seeded) from operations on ints, strings, lists and dicts, ' +
        'split into sft (with references), rl (prompts and tests; some operations only here), dev (settings) and test (reported; unseen instances and unseen operations)',
    ),
  PrepSuiteSettings,
  suiteCommand,
);
settingsCommand(
  program
    .command('syntax')
    .description(
      "write {prompt, response} lines for `sft train` from the compiler's verdict: a model writes bodies for documented functions of the " +
        "corpus's training files (never its held-out files); the bodies it ended itself that compile and repeat no line more than " +
        '--max-line-repeats times are kept, the one closest to the true body per function. With --source fim it fills the train-split ' +
        'examples of --fim-data instead, and keeps the middles that it ended itself and that compile in their whole source file',
    ),
  PrepSyntaxSettings,
  syntaxCommand,
);

settingsCommand(
  program
    .command('tools')
    .description(
      'write tool-use tasks to data/tools: generated questions whose answer is a computed value (each answer what its reference calls print in the ' +
        'interpreter), training and held-out files split by kind, and MBPP train/validation problems as tool tasks judged by their tests',
    ),
  PrepToolsSettings,
  toolsCommand,
);

void runCli(program, shutdownBackend);
