// eval: compare checkpoints (e.g. base, SFT, PPO) on held-out coding problems and write eval.json, eval.md,
// eval.svg, per_problem.json and samples.jsonl (`run`); average the runs of several seeds (`seeds`); measure the pretrained base model's held-out loss and FIM quality (`base`);
// compare two such measurements, paired (`base-compare`).
// The commands live in libs/eval; this file turns flags into their settings.
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import {
  BASE_METRIC_DESCRIPTIONS,
  EvalBaseCompareSettings,
  EvalBaseSettings,
  EvalRunSettings,
  EvalSeedsSettings,
  METRIC_DESCRIPTIONS,
  runBaseCompare,
  runBaseEval,
  runEval,
  runSeeds,
} from '@rlhf-code/eval';
import { shutdownBackend } from '@rlhf-code/backend';

/** The --help section after the flags: what each figure in the command's output means. */
const figures = (title: string, descriptions: Record<string, string>) => `\n${title}:\n` + Object.entries(descriptions).map(([k, d]) => `  ${k}: ${d}`).join('\n');

const program = new Command('eval').description('Evaluate Qwen2 checkpoints on coding problems: pass@1, pass@k, syntax, tests passed, reward, diversity, length, KL to SFT.');
settingsCommand(
  program
    .command('run')
    .description(
      'sample --samples responses per problem at --temperature (and one greedy) with each model (or at its best temperature on --dev-data), run the tests, score, score trivial programs beside them (--stubs), compare with the SFT model per problem, and write <out>/eval.{json,md,svg} + samples.jsonl',
    ),
  EvalRunSettings,
  runEval,
).addHelpText('after', figures('Metrics (eval.json / eval.md)', METRIC_DESCRIPTIONS));
settingsCommand(
  program
    .command('seeds')
    .description(
      'average eval:run output folders of the same problems and models, one per seed: pass@1 the mean of the runs (pass_at_1_by_seed, seed_sd), vs_sft and flips on the per-problem outcomes averaged over the runs; writes <out>/eval.{json,md} + per_problem.json',
    ),
  EvalSeedsSettings,
  runSeeds,
);
settingsCommand(
  program
    .command('base')
    .description(
      'the pretrained base model: held-out LM loss on the corpus test files, FIM first-line exact match and syntax-valid rate, syntax-valid rate of function bodies it writes; writes <out>/base_eval.json + fim_samples.jsonl + function_samples.jsonl',
    ),
  EvalBaseSettings,
  runBaseEval,
).addHelpText('after', figures('Figures (base_eval.json)', BASE_METRIC_DESCRIPTIONS));
settingsCommand(
  program
    .command('base-compare')
    .description(
      'two eval base outputs of the same settings (e.g. models/base v1 and v2): each figure of both, candidate - baseline paired over the same held-out windows, FIM examples and functions, with its SE and 95% interval; a markdown table on stdout',
    ),
  EvalBaseCompareSettings,
  runBaseCompare,
);

void runCli(program, shutdownBackend);
