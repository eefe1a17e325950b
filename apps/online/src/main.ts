// online: online RL behind Continue. `serve` runs the completion and feedback servers with live policy updates,
// `prep-fim` builds a FIM dataset from a folder of .py files, `simulate` is a simulated Continue user.
import * as fs from 'fs';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import { readFimData, writeJsonl } from '@rlhf-code/data';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { buildFimDataset, ConfigError, fimSftRecords, formatSummary, loadOnlineConfig, runSimulation, startOnlineService } from '@rlhf-code/online';
import { corpusDirs, loadTokenizer } from '@rlhf-code/tokenizer';

const int = z.coerce.number().int();
const num = z.coerce.number();

// ---------------------------------------------------------------------------------------------- serve

const ServeFlags = z.object({
  model: z.string().optional(),
  config: z.string().optional(),
  stateDir: z.string().optional(),
  completionPort: int.min(0).max(65535).optional(),
  feedbackPort: int.min(0).max(65535).optional(),
  host: z.string().optional(),
  batchSize: int.positive().optional(),
  lr: num.positive().optional(),
  abFraction: num.min(0).max(1).optional(),
  printConfig: z.boolean().optional(),
  backend: backendSchema,
});

async function serveCommand(opts: unknown): Promise<void> {
  const f = parseFlags(ServeFlags, opts);
  let config;
  try {
    config = loadOnlineConfig({
      file: f.config,
      overrides: {
        model: f.model,
        stateDir: f.stateDir,
        abFraction: f.abFraction,
        completion: { port: f.completionPort, host: f.host },
        feedback: { port: f.feedbackPort, host: f.host },
        training: { batchSize: f.batchSize, lr: f.lr },
      },
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (f.printConfig) {
    process.stdout.write(JSON.stringify(config, null, 2) + '\n');
    return;
  }
  if (!fs.existsSync(config.model)) {
    throw new UsageError(`--model: ${config.model} does not exist (train the base model first, or pass --model / MODEL_PATH)`);
  }
  await initBackend({ backend: f.backend });
  const service = await startOnlineService(config);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`[online] ${signal}: stopping (finishing the running update, writing a checkpoint)\n`);
      service.close().then(resolve, (e) => {
        process.stderr.write(`[online] error while stopping: ${(e as Error).message}\n`);
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

// ---------------------------------------------------------------------------------------------- prep-fim

const PrepFlags = z.object({
  src: z.string(),
  out: z.string(),
  format: z.enum(['fim', 'sft']),
  perFile: int.positive(),
  seed: int,
  maxPrefixChars: int.positive(),
  maxSuffixChars: int.positive(),
});

async function prepCommand(opts: unknown): Promise<void> {
  const f = parseFlags(PrepFlags, opts);
  let built;
  try {
    built = buildFimDataset(corpusDirs(f.src), { perFile: f.perFile, seed: f.seed, maxPrefixChars: f.maxPrefixChars, maxSuffixChars: f.maxSuffixChars });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { examples, files } = built;
  const test = examples.filter((e) => e.split === 'test').length;
  const rows = f.format === 'sft' ? fimSftRecords(examples) : examples;
  await writeJsonl(f.out, rows);
  process.stdout.write(
    `${f.out}: ${examples.length} examples (${examples.length - test} train from ${files.train} files, ${test} test from ${files.test} files)` +
      (f.format === 'sft' ? `; wrote the ${rows.length} train examples as sft records\n` : '\n'),
  );
}

// ---------------------------------------------------------------------------------------------- simulate

const SimFlags = z.object({
  data: z.string(),
  events: int.positive(),
  split: z.enum(['train', 'test', 'all']),
  completionUrl: z.url(),
  feedbackUrl: z.url(),
  feedback: z.boolean(),
  token: z.string().min(1),
  project: z.string().min(1),
  apiKey: z.string().min(1),
  model: z.string().min(1),
  tokenizer: z.string(),
  maxPromptTokens: int.positive(),
  seed: int,
  reportEvery: int.min(0),
  json: z.string().optional(),
});

async function simulateCommand(opts: unknown): Promise<void> {
  const f = parseFlags(SimFlags, opts);
  const all = await readFimData(f.data);
  const examples = f.split === 'all' ? all : all.filter((e) => e.split === f.split);
  if (examples.length === 0) throw new UsageError(`--split: ${f.data} has no "${f.split}" examples`);
  const tok = loadTokenizer(f.tokenizer);
  process.stdout.write(`[sim] ${examples.length} ${f.split} examples from ${f.data}; ${f.events} requests to ${f.completionUrl}\n`);
  const summary = await runSimulation({
    examples,
    events: f.events,
    completionUrl: f.completionUrl,
    feedbackUrl: f.feedback ? f.feedbackUrl : null,
    token: f.token,
    project: f.project,
    apiKey: f.apiKey,
    model: f.model,
    maxPromptTokens: f.maxPromptTokens,
    countTokens: (text) => tok.encode(text, { parseSpecialTokens: false }).length,
    seed: f.seed,
    reportEvery: f.reportEvery,
  });
  process.stdout.write(formatSummary(summary) + '\n');
  if (f.json) {
    await writeJsonl(f.json, [summary]);
    process.stdout.write(`[sim] summary written to ${f.json}\n`);
  }
}

// ---------------------------------------------------------------------------------------------- program

const program = new Command('online').description('Online RL behind Continue: completion server, feedback server, live policy updates, simulated user.');
program
  .command('serve')
  .description('run the completion server (OpenAI /v1/completions) and the feedback server (/api/training/submit) with live updates')
  .option('--model <dir>', 'starting model folder (Hugging Face layout with tokenizer.json); default models/base (env MODEL_PATH)')
  .option('--config <file>', 'JSON config file (see apps/online/README.md for every key and its default)')
  .option('--state-dir <dir>', 'feedback log, request log, checkpoints and metrics of this server (default online-state)')
  .option('--completion-port <n>', 'completion server port (default 8081)')
  .option('--feedback-port <n>', 'feedback server port (default 8082)')
  .option('--host <addr>', 'interface both servers listen on (default 127.0.0.1; 0.0.0.0 for other machines)')
  .option('--batch-size <n>', 'feedback events per update (default 16)')
  .option('--lr <x>', 'AdamW learning rate (default 1e-5)')
  .option('--ab-fraction <x>', 'share of requests served by the frozen starting model (default 0.1)')
  .option('--print-config', 'print the effective config (defaults < --config file < env < flags) as JSON and exit')
  .addOption(backendOption())
  .action(serveCommand);
program
  .command('prep-fim')
  .description('build {prefix, suffix, middle} examples from a folder of .py files, split train/test by file')
  .requiredOption('--src <dirs>', 'folder searched recursively for .py files, or several separated by commas (paths then start with the folder\'s name)')
  .requiredOption('--out <file>', 'output JSONL (fields prefix, suffix, middle, path, split, kind)')
  .addOption(new Option('--format <kind>', 'fim: every example {prefix, suffix, middle, path, split, kind}; sft: only the train split, as sft train\'s fill-in-the-middle records {prompt, suffix, response, path, kind}').choices(['fim', 'sft']).default('fim'))
  .option('--per-file <n>', 'examples per file', '4')
  .option('--seed <n>', 'seed of the cursor positions', '0')
  .option('--max-prefix-chars <n>', 'keep at most this much text before the cursor', '2000')
  .option('--max-suffix-chars <n>', 'keep at most this much text after the middle', '1000')
  .action(prepCommand);
program
  .command('simulate')
  .description('replay FIM examples exactly as Continue does and post accept/reject outcomes')
  .requiredOption('--data <file>', 'FIM JSONL from prep-fim (e.g. data/fim/fim.jsonl)')
  .requiredOption('--events <n>', 'completion requests to make')
  .option('--split <name>', 'which examples: train, test or all', 'train')
  .option('--completion-url <url>', 'completions endpoint', 'http://127.0.0.1:8081/v1/completions')
  .option('--feedback-url <url>', 'feedback endpoint', 'http://127.0.0.1:8082/api/training/submit')
  .option('--no-feedback', 'do not post outcomes (measure only)')
  .option('--token <t>', 'bearer token for the feedback server', 'test-token')
  .option('--project <p>', 'X-Project-ID for the feedback server', 'test-project')
  .option('--api-key <k>', 'API key sent to the completion server, as Continue does', 'xxx')
  .option('--model <name>', 'model name sent in requests (Continue sends its configured name)', 'Qwen2.5-Coder-1.5B')
  .option('--tokenizer <dir>', 'tokenizer used to apply Continue\'s prompt budgets', 'models/tokenizer-code16k')
  .option('--max-prompt-tokens <n>', "Continue's maxPromptTokens (prefix <= 30%, suffix <= 20%)", '1024')
  .option('--seed <n>', 'order of the examples', '0')
  .option('--report-every <n>', 'print acceptance every n requests (0 = only the final table)', '10')
  .option('--json <file>', 'also write the summary (per version, per arm, timeline) as one JSON line')
  .action(simulateCommand);

void runCli(program, shutdownBackend);
