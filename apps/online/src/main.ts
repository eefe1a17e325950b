// online: online RL behind Continue. `serve` runs the completion and feedback servers with live policy updates,
// `prep-fim` builds a FIM dataset from a folder of .py files, `simulate` is a simulated Continue user, `latency` times
// Continue-shaped requests.
import * as fs from 'fs';
import * as path from 'path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli, UsageError } from '@rlhf-code/cli';
import { readFimData, writeJsonl, type FimRecord } from '@rlhf-code/data';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import {
  buildFimDataset,
  ConfigError,
  fimSftRecords,
  loadOnlineConfig,
  measureLatency,
  runOnlineExperiment,
  startOnlineService,
  type OnlineConfigInput,
} from '@rlhf-code/online';
import { formatSummary, PROMPT_FORMS, runSimulation, SIM_USERS, simUser, type PromptForm } from '@rlhf-code/continue';
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
  user: z.enum(SIM_USERS),
  form: z.enum(PROMPT_FORMS),
  corpus: z.string(),
  rejectDelay: int.min(0),
});

/** The whole source file of a FIM example, from the corpus folder it was cut from (null when it is not there). */
function corpusFiles(dir: string): (e: FimRecord) => string | null {
  const cache = new Map<string, string | null>();
  return (e) => {
    const rel = typeof e.path === 'string' ? e.path : null;
    if (rel === null) return null;
    if (!cache.has(rel)) {
      const file = path.join(dir, rel);
      cache.set(rel, fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n') : null);
    }
    return cache.get(rel)!;
  };
}

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
    user: simUser(f.user),
    form: f.form,
    fileOf: corpusFiles(f.corpus),
    rejectDelay: f.rejectDelay,
  });
  process.stdout.write(formatSummary(summary) + '\n');
  if (f.json) {
    await writeJsonl(f.json, [summary]);
    process.stdout.write(`[sim] summary written to ${f.json}\n`);
  }
}

// ---------------------------------------------------------------------------------------------- latency

const LatencyFlags = z.object({
  model: z.string(),
  data: z.string(),
  requests: int.positive(),
  concurrency: z.string().transform((v, ctx) => {
    const xs = v.split(',').map((x) => Number(x.trim()));
    if (xs.some((x) => !Number.isInteger(x) || x < 1)) ctx.addIssue({ code: 'custom', message: `expected positive integers separated by commas, got "${v}"` });
    return xs;
  }),
  forms: z.string().transform((v, ctx) => {
    const xs = v.split(',').map((x) => x.trim());
    const bad = xs.filter((x) => !(PROMPT_FORMS as readonly string[]).includes(x));
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `unknown form "${bad[0]}" (use ${PROMPT_FORMS.join(', ')})` });
    return xs as PromptForm[];
  }),
  maxPromptTokens: int.positive(),
  statusEveryMs: int.positive(),
  warmup: int.min(0),
  json: z.string().optional(),
  backend: backendSchema,
});

async function latencyCommand(opts: unknown): Promise<void> {
  const f = parseFlags(LatencyFlags, opts);
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  const cases = (await readFimData(f.data)).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, path: e.path ?? 'untitled.py' }));
  if (cases.length < 2) throw new UsageError(`--data: ${f.data} has fewer than 2 "test" examples`);
  const backend = await initBackend({ backend: f.backend });
  process.stdout.write(`[latency] backend ${backend.name}; ${f.requests} requests per setting, ${cases.length} held-out FIM cases from ${f.data}\n`);
  const rows = await measureLatency({ ...f, cases }, (line) => process.stdout.write(line + '\n'));
  const ms = (x: number | null) => (x === null ? '-' : x.toFixed(0));
  process.stdout.write('\n| form | clients | requests | first chunk p50 | answer p50 | answer p95 | within 375 ms | chunks | status p50 / p95 (calls) |\n');
  process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
  for (const r of rows) {
    process.stdout.write(
      `| ${r.form} | ${r.concurrency} | ${r.requests} | ${ms(r.first_chunk_p50_ms)} ms | ${ms(r.total_p50_ms)} ms | ${ms(r.total_p95_ms)} ms | ` +
        `${(100 * r.within_375ms).toFixed(0)}% | ${r.chunks_mean.toFixed(1)} | ${ms(r.status_p50_ms)} / ${ms(r.status_p95_ms)} ms (${r.status_calls}) |\n`,
    );
  }
  if (f.json) await writeJsonl(f.json, rows);
}

// ---------------------------------------------------------------------------------------------- experiment

const ExperimentFlags = z.object({
  model: z.string(),
  data: z.string(),
  heldout: z.string(),
  user: z.enum(SIM_USERS),
  form: z.enum(PROMPT_FORMS),
  events: int.positive(),
  out: z.string(),
  corpus: z.string(),
  tokenizer: z.string(),
  lr: num.positive().optional(),
  batchSize: int.positive().optional(),
  temperatureFloor: num.min(0).max(2).optional(),
  config: z.string().optional(),
  seed: int,
  backend: backendSchema,
});

async function experimentCommand(opts: unknown): Promise<void> {
  const f = parseFlags(ExperimentFlags, opts);
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  const train = (await readFimData(f.data)).filter((e) => e.split === 'train');
  const heldOut = (await readFimData(f.heldout)).filter((e) => e.split === 'test');
  if (train.length === 0) throw new UsageError(`--data: ${f.data} has no "train" examples`);
  if (heldOut.length === 0) throw new UsageError(`--heldout: ${f.heldout} has no "test" examples`);
  const trainFiles = new Set(train.map((e) => e.path));
  const shared = heldOut.find((e) => trainFiles.has(e.path));
  if (shared) throw new UsageError(`--heldout: ${shared.path} is also a training file of --data; held-out files must be unseen`);
  // The training service's settings: the --config file (checked like online:serve's), then the flags above it.
  let fileConfig: OnlineConfigInput = {};
  if (f.config) {
    try {
      loadOnlineConfig({ file: f.config, env: {} });
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    fileConfig = JSON.parse(fs.readFileSync(f.config, 'utf8')) as OnlineConfigInput;
  }
  const backend = await initBackend({ backend: f.backend });
  const tok = loadTokenizer(f.tokenizer);
  const stateDir = path.join(f.out, f.user, 'state');
  if (fs.existsSync(stateDir)) throw new UsageError(`--out: ${stateDir} exists; remove it or choose another --out (an experiment starts from the starting model)`);
  process.stdout.write(`[experiment] backend ${backend.name}; user ${f.user}; ${f.events} training requests on ${train.length} train examples, then ${heldOut.length} held-out examples per model\n`);
  const result = await runOnlineExperiment({
    model: f.model,
    train,
    heldOut,
    user: f.user,
    form: f.form,
    events: f.events,
    stateDir,
    countTokens: (t) => tok.encode(t, { parseSpecialTokens: false }).length,
    fileOf: corpusFiles(f.corpus),
    config: {
      ...fileConfig,
      training: { ...fileConfig.training, ...(f.lr ? { lr: f.lr } : {}), ...(f.batchSize ? { batchSize: f.batchSize } : {}) },
      completion: { ...fileConfig.completion, ...(f.temperatureFloor === undefined ? {} : { temperatureFloor: f.temperatureFloor }) },
    },
    seed: f.seed,
    log: (l) => process.stdout.write(l + '\n'),
  });
  const h = result.heldout;
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
  const ci = (c: typeof h.start) => (c.acceptance_ci95 ? `[${pct(c.acceptance_ci95[0])}, ${pct(c.acceptance_ci95[1])}]` : '');
  process.stdout.write(`\nHeld out (${heldOut.length} examples, each model once; trained = policy v${h.trained_version}):\n`);
  process.stdout.write('| model | requests | shown | accepted | accepted / shown (95% CI) | accepted / request |\n| --- | ---: | ---: | ---: | ---: | ---: |\n');
  for (const [name, c] of [['start', h.start], ['trained', h.trained]] as const) {
    process.stdout.write(`| ${name} | ${c.requests} | ${c.shown} | ${c.accepted} | ${pct(c.acceptance_rate)} ${ci(c)} | ${pct(c.accepted_per_request)} |\n`);
  }
  const x = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(2)}x`);
  process.stdout.write(
    `trained / start: accepted of shown ${x(h.acceptance_ratio)} (Fisher p = ${h.acceptance_fisher_p.toPrecision(3)}), ` +
      `accepted per request ${x(h.accepted_per_request_ratio)} (Fisher p = ${h.accepted_per_request_fisher_p.toPrecision(3)})\n`,
  );
  const file = path.join(f.out, f.user, 'result.json');
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(`[experiment] ${file}\n`);
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
  .addOption(new Option('--user <name>', 'who judges: exact (first line = what they were about to type), compiles (one line, the file still compiles), no-comment (as compiles, never a comment)').choices([...SIM_USERS]).default('exact'))
  .addOption(new Option('--form <name>', "Continue's prompt form: v139 (RLinf's 1.3.9, commented context) or head (upstream, <|repo_name|> header)").choices([...PROMPT_FORMS]).default('v139'))
  .option('--corpus <dir>', 'folder the examples were cut from (the user judges the suggestion in its whole file)', 'data/corpus/python-stdlib')
  .option('--reject-delay <n>', 'requests after which a rejection is posted (Continue rejects after 10 s without Tab)', '5')
  .action(simulateCommand);

program
  .command('experiment')
  .description('online learning for one simulated user: train on the train files through the servers, then compare the starting model and the trained policy on held-out files (acceptance, Fisher tests)')
  .option('--model <dir>', 'starting model folder', 'models/base')
  .option('--data <file>', 'FIM JSONL whose "train" split is served during training', 'data/fim/fim.jsonl')
  .option('--heldout <file>', 'FIM JSONL whose "test" split is the held-out evaluation (files never trained on)', 'data/fim/fim_heldout.jsonl')
  .addOption(new Option('--user <name>', 'simulated user (see simulate --help)').choices([...SIM_USERS]).default('exact'))
  .addOption(new Option('--form <name>', "Continue's prompt form").choices([...PROMPT_FORMS]).default('v139'))
  .option('--events <n>', 'training requests', '400')
  .option('--out <dir>', 'results: <out>/<user>/state (the service state) and <out>/<user>/result.json', 'results/online-experiment')
  .option('--corpus <dir>', 'folder the examples were cut from', 'data/corpus/python-stdlib')
  .option('--tokenizer <dir>', "tokenizer used to apply Continue's prompt budgets", 'models/tokenizer-code16k')
  .option('--lr <x>', 'online learning rate (default: the config default)')
  .option('--batch-size <n>', 'feedback events per update (default: the config default)')
  .option('--temperature-floor <x>', 'during training, serve at least this temperature (exploration; the held-out comparison serves as Continue asks)')
  .option('--config <file>', "online config JSON for the training service (as online:serve's --config; the flags above override it)")
  .option('--seed <n>', 'order of the examples', '0')
  .addOption(backendOption())
  .action(experimentCommand);
program
  .command('latency')
  .description("time Continue-shaped requests (both prompt forms) against a running service, alone and concurrent, with the status endpoint polled meanwhile; prints p50/p95 and one JSON line per setting")
  .option('--model <dir>', 'model folder to serve', 'models/base')
  .option('--data <file>', 'FIM JSONL (its "test" split is used)', 'data/fim/fim.jsonl')
  .option('--requests <n>', 'requests per setting', '40')
  .option('--concurrency <list>', 'numbers of concurrent clients, comma-separated', '1,8')
  .option('--forms <list>', 'prompt forms: v139 (1.3.9, commented context) and/or head (upstream, <|repo_name|> header)', 'v139,head')
  .option('--max-prompt-tokens <n>', "Continue's maxPromptTokens", '1024')
  .option('--status-every-ms <n>', 'poll the status endpoint this often while requests are in flight', '25')
  .option('--warmup <n>', 'requests sent first and not measured', '3')
  .option('--json <file>', 'also write the rows as JSON lines')
  .addOption(backendOption())
  .action(latencyCommand);

void runCli(program, shutdownBackend);
