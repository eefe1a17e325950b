// prep: build the pipeline's datasets. The commands live in libs/datagen; this file turns flags into their settings.
//   data    sft_data.jsonl, ppo_prompts.jsonl, mbpp_validation.jsonl, eval_mbpp_test.jsonl and a copy of MBPP with its README
//   rm      rm_data.jsonl: reference solutions, mutated variants, stubs (and optionally SFT samples), each scored by
//           running it against the problem's tests in the sandbox (MBPP's training split, or --problems)
//   syntax  {prompt, response} lines for `sft train`: function bodies a model wrote for the corpus's training files
//           that compile (rejection sampling on the compiler's verdict)
//   suite   the task suite (data/suite): small problems in MBPP's schema at the shipped model's scale, split sft / rl / dev / test
//   tools   tool-use tasks (data/tools): generated questions whose answer needs running code, split by kind, and MBPP
//           problems as tool tasks with tests
//   corpus  the pretraining corpus (data/corpus/cache): the pinned Debian packages of data/corpus/manifest.json and the
//           vendored standard library, filtered and deduplicated against held-out material, as a token cache
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import {
  PrepCorpusSettings,
  PrepDataSettings,
  PrepRmSettings,
  PrepSuiteSettings,
  PrepSyntaxSettings,
  PrepToolsSettings,
  runPrepCorpus,
  runPrepData,
  runPrepRm,
  runPrepSuite,
  runPrepSyntax,
  runPrepTools,
} from '@rlhf-code/datagen';
import { shutdownBackend } from '@rlhf-code/backend';

const program = new Command('prep').description(
  'Build the datasets in data/ from MBPP (Austin et al. 2021, CC BY 4.0), and syntax training data from a model and the Python corpus.',
);
settingsCommand(
  program
    .command('data')
    .description('write sft_data.jsonl (MBPP 511-974), ppo_prompts.jsonl (601-974), mbpp_validation.jsonl (511-600, to measure PPO) and eval_mbpp_test.jsonl (11-510), and copy MBPP with its README'),
  PrepDataSettings,
  runPrepData,
);
settingsCommand(
  program
    .command('rm')
    .description('write reward-model data: per training problem (MBPP 511-974, or those of --problems with a reference), the reference, mutated variants, the trivial answers (stubs) and optional SFT samples, each scored in the sandbox'),
  PrepRmSettings,
  runPrepRm,
);
settingsCommand(
  program
    .command('suite')
    .description(
      'write the task suite to data/suite: small problems in MBPP\'s schema generated (seeded) from operations on ints, strings, lists and dicts, ' +
        'split into sft (with references), rl (prompts and tests; some operations only here), dev (settings) and test (reported; unseen instances and unseen operations)',
    ),
  PrepSuiteSettings,
  runPrepSuite,
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
  runPrepSyntax,
);

settingsCommand(
  program
    .command('tools')
    .description(
      'write tool-use tasks to data/tools: generated questions whose answer is a computed value (each answer what its reference calls print in the ' +
        'interpreter), training and held-out files split by kind, and MBPP train/validation problems as tool tasks judged by their tests',
    ),
  PrepToolsSettings,
  runPrepTools,
);

settingsCommand(
  program
    .command('corpus')
    .description(
      'write the pretraining token cache (data/corpus/cache, splits train and heldout by path hash): the Debian packages of --manifest ' +
        '(apt-get download, sha256-checked, dpkg-deb -x) and the training files of --stdlib, without files over --max-file-kb, non-UTF-8, ' +
        'generated or minified files, vendored paths, exact and near duplicates, near-duplicates of held-out material (the reserved packages, ' +
        'stdlib held-out files, MBPP test, --held-out-problems) and bytes over a package\'s max_mb; prints the corpus table',
    ),
  PrepCorpusSettings,
  runPrepCorpus,
);

void runCli(program, shutdownBackend);
