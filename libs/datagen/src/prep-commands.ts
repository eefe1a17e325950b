// The prep commands (apps/prep is their command line), each from its settings, printing one summary line:
//   runPrepData    `prep data`: the MBPP files
//   runPrepRm      `prep rm`: the reward model's scored rows (with progress bars)
//   runPrepSyntax  `prep syntax`: the bodies (or FIM middles) a model wrote that compile
//   runPrepSuite   `prep suite`: the task suite
//   runPrepTools   `prep tools`: the tool-use tasks
import { stagedProgress } from '@rlhf-code/cli';
import { writeJsonl } from '@rlhf-code/data';
import { writeMbppData } from './mbpp-data';
import { buildRmData } from './rm-data';
import type { PrepDataSettings, PrepRmSettings, PrepSuiteSettings, PrepSyntaxSettings, PrepToolsSettings } from './settings';
import { writeSuite } from './suite/generate';
import { runFimSyntaxData, runSyntaxData } from './syntax-prep';
import { writeToolTasks } from './tool-tasks';

const seconds = (t0: number) => ((Date.now() - t0) / 1000).toFixed(1);

/** A command that writes its files and prints `prep <name>: <the writer's summary> (<seconds> s)`. */
const summarised =
  <S>(name: string, write: (s: S) => Promise<string>) =>
  async (s: S): Promise<void> => {
    const t0 = Date.now();
    const summary = await write(s);
    process.stdout.write(`prep ${name}: ${summary} (${seconds(t0)} s)\n`);
  };

export const runPrepData = summarised<PrepDataSettings>('data', writeMbppData);

export async function runPrepRm(s: PrepRmSettings): Promise<void> {
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

export async function runPrepSyntax(s: PrepSyntaxSettings): Promise<void> {
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
        ? `${r.stats.functions} functions of ${(r as { trainFiles: number }).trainFiles} training files (${figures}; mean ${r.stats.mean_body_lines.toFixed(1)} lines per example${r.stats.references ? `; ${r.stats.references} of the examples true bodies` : ''})`
        : figures;
  process.stdout.write(`prep syntax: ${s.out} ${r.examples.length} examples from ${from} (${seconds(t0)} s)\n`);
}

export const runPrepSuite = summarised<PrepSuiteSettings>('suite', writeSuite);
export const runPrepTools = summarised<PrepToolsSettings>('tools', writeToolTasks);
