// online: online RL behind Continue. `serve` runs the completion and feedback servers with live policy updates,
// `prep-fim` builds a FIM dataset from a folder of .py files, `simulate` is a simulated Continue user, `latency` times
// Continue-shaped requests, `load` runs Continue's mixed load against `online serve` and prints one JSON line.
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { readSettingsFile, runCli, settingsCommand, UsageError } from '@rlhf-code/cli';
import { buildFimDataset, fimSftRecords, PrepFimSettings } from '@rlhf-code/datagen';
import { corpusDirs, type FimRecord, readFimData, writeJsonl } from '@rlhf-code/data';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { checkModelFolder } from '@rlhf-code/model';
import { startOnlineService } from '@rlhf-code/online';
import { EXPERIMENT_ARMS, OnlineConfigSchema, ServeSettings, type OnlineConfigInput } from '@rlhf-code/online-core';
import { ExperimentSettings, formatExperiment, LatencySettings, LoadSettings, measureLatency, runLoad, runOnlineExperiment } from '@rlhf-code/online-bench';
import { formatSummary, runSimulation, SimulateSettings, simUser } from '@rlhf-code/continue';
import { loadTokenizer } from '@rlhf-code/tokenizer';

// ---------------------------------------------------------------------------------------------- serve

async function serveCommand({ backend, ...config }: ServeSettings): Promise<void> {
  checkModelFolder(config.model, '--model'); // a checkpoint or a LoRA adapter folder (its base plus the adapter)
  await initBackend({ backend });
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

async function prepCommand(f: PrepFimSettings): Promise<void> {
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

async function simulateCommand(f: SimulateSettings): Promise<void> {
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
    clock: f.clock,
  });
  process.stdout.write(formatSummary(summary) + '\n');
  if (f.json) {
    await writeJsonl(f.json, [summary]);
    process.stdout.write(`[sim] summary written to ${f.json}\n`);
  }
}

// ---------------------------------------------------------------------------------------------- latency

/** A --service-config file (JSON or YAML, checked as online:serve's --config) as given; {} without one. */
const serviceConfigFile = (file: string | undefined): OnlineConfigInput => (file ? readSettingsFile(OnlineConfigSchema, file, '--service-config') : {});

async function latencyCommand(f: LatencySettings): Promise<void> {
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  const cases = (await readFimData(f.data)).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, path: e.path ?? 'untitled.py' }));
  if (cases.length < 2) throw new UsageError(`--data: ${f.data} has fewer than 2 "test" examples`);
  const service = serviceConfigFile(f.serviceConfig);
  const backend = await initBackend({ backend: f.backend });
  process.stdout.write(`[latency] backend ${backend.name}; ${f.requests} requests per setting, ${cases.length} held-out FIM cases from ${f.data}\n`);
  const rows = await measureLatency({ ...f, cases, completion: service.completion, gate: service.gate, training: service.training }, (line) => process.stdout.write(line + '\n'));
  const ms = (x: number | null) => (x === null ? '-' : x.toFixed(0));
  process.stdout.write('\n| form | clients | requests | failed | first chunk p50 | answer p50 | answer p95 | within 375 ms | chunks | status p50 / p95 (calls) |\n');
  process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
  for (const r of rows) {
    process.stdout.write(
      `| ${r.form} | ${r.concurrency} | ${r.requests} | ${r.failed} | ${ms(r.first_chunk_p50_ms)} ms | ${ms(r.total_p50_ms)} ms | ${ms(r.total_p95_ms)} ms | ` +
        `${(100 * r.within_375ms).toFixed(0)}% | ${r.chunks_mean.toFixed(1)} | ${ms(r.status_p50_ms)} / ${ms(r.status_p95_ms)} ms (${r.status_calls}) |\n`,
    );
  }
  if (f.json) await writeJsonl(f.json, rows);
}

// ---------------------------------------------------------------------------------------------- load

async function loadCommand(f: LoadSettings): Promise<void> {
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  if (f.serviceConfig && !fs.existsSync(f.serviceConfig)) throw new UsageError(`--service-config: ${f.serviceConfig} does not exist`);
  const cases = (await readFimData(f.data)).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, path: e.path ?? 'untitled.py' }));
  if (cases.length < 2) throw new UsageError(`--data: ${f.data} has fewer than 2 "test" examples`);
  const result = await runLoad(
    {
      ...f,
      cases,
      durationMs: f.seconds * 1000,
      serveArgs: f.serviceConfig ? ['--config', f.serviceConfig] : [],
    },
    (line) => process.stderr.write(line + '\n'),
  );
  process.stdout.write(JSON.stringify(result) + '\n');
}

// ---------------------------------------------------------------------------------------------- experiment

async function experimentCommand(f: ExperimentSettings): Promise<void> {
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  if (!fs.existsSync(f.heldout)) throw new UsageError(`--heldout: ${f.heldout} does not exist`);
  const train = (await readFimData(f.data)).filter((e) => e.split === 'train');
  const heldOut = await readFimData(f.heldout); // every record: the file holds held-out positions only
  if (train.length === 0) throw new UsageError(`--data: ${f.data} has no "train" examples`);
  if (heldOut.length === 0) throw new UsageError(`--heldout: ${f.heldout} has no examples`);
  const trainFiles = new Set(train.map((e) => e.path));
  const shared = heldOut.find((e) => trainFiles.has(e.path));
  if (shared) throw new UsageError(`--heldout: ${shared.path} is also a training file of --data; held-out files must be unseen`);
  // The training service's settings: the --config file (checked like online:serve's), then the flags above it.
  const fileConfig = serviceConfigFile(f.serviceConfig);
  const backend = await initBackend({ backend: f.backend });
  const tok = loadTokenizer(f.tokenizer);
  const stateDir = path.join(f.out, f.user, 'state');
  if (fs.existsSync(stateDir)) throw new UsageError(`--out: ${stateDir} exists; remove it or choose another --out (an experiment starts from the starting model)`);
  const positions = Math.min(heldOut.length, f.limitPositions ?? heldOut.length);
  process.stdout.write(
    `[experiment] backend ${backend.name}; user ${f.user}; ${f.events} training requests (pace ${f.pace}) on ${train.length} train examples, ` +
      `then ${positions} held-out positions x ${EXPERIMENT_ARMS.length} arms\n`,
  );
  const result = await runOnlineExperiment({
    model: f.model,
    train,
    heldOut,
    user: f.user,
    form: f.form,
    events: f.events,
    pace: f.pace,
    stateDir,
    countTokens: (t) => tok.encode(t, { parseSpecialTokens: false }).length,
    fileOf: corpusFiles(f.corpus),
    config: {
      ...fileConfig,
      training: { ...fileConfig.training, ...(f.lr ? { lr: f.lr } : {}), ...(f.batchSize ? { batchSize: f.batchSize } : {}) },
      completion: { ...fileConfig.completion, ...(f.temperatureFloor === undefined ? {} : { temperatureFloor: f.temperatureFloor }) },
    },
    limitPositions: f.limitPositions,
    resamples: f.resamples,
    seed: f.seed,
    log: (l) => process.stdout.write(l + '\n'),
  });
  process.stdout.write('\n' + formatExperiment(result) + '\n');
  const file = path.join(f.out, f.user, 'result.json');
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(`[experiment] ${file}\n`);
}

// ---------------------------------------------------------------------------------------------- program

const program = new Command('online').description('Online RL behind Continue: completion server, feedback server, live policy updates, simulated user.');
settingsCommand(
  program.command('serve').description('run the completion server (OpenAI /v1/completions) and the feedback server (/api/training/submit) with live updates'),
  ServeSettings,
  serveCommand,
);
settingsCommand(program.command('prep-fim').description('build {prefix, suffix, middle} examples from a folder of .py files, split train/test by file'), PrepFimSettings, prepCommand);
settingsCommand(program.command('simulate').description('replay FIM examples exactly as Continue does and post accept/reject outcomes'), SimulateSettings, simulateCommand);
settingsCommand(
  program
    .command('experiment')
    .description(
      'online learning for one simulated user: train on the train files through the servers, then serve every held-out position once per arm (start model and trained policy, each gate mechanism alone) on a simulated clock, and compare the arms as paired differences (bootstrap over files, sign-flip test)',
    ),
  ExperimentSettings,
  experimentCommand,
);
settingsCommand(
  program
    .command('latency')
    .description(
      'time Continue-shaped requests (both prompt forms) against a running service, alone and concurrent, with the status endpoint polled meanwhile; prints p50/p95 and one JSON line per setting',
    ),
  LatencySettings,
  latencyCommand,
);

settingsCommand(
  program
    .command('load')
    .description(
      "Continue's mixed load against `online serve` (started here on free ports): completion clients, feedback clients posting an outcome every 50 ms, status polls; prints one JSON line (answers, failures, p50/p95/p99, acknowledged outcomes missing from the log, updates); --kill adds a kill -9 and a restart half way",
    ),
  LoadSettings,
  loadCommand,
);

void runCli(program, shutdownBackend);
