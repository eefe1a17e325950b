// The commands `online latency`, `online load` and `online experiment`, from their settings (settings.ts): the data
// they read and check, the backend, and what they print. The measurements themselves are latency.ts, load.ts and
// experiment.ts.
import * as fs from 'fs';
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { markdownTable, readSettingsFile, UsageError } from '@rlhf-code/cli';
import { corpusFiles, readFimData, writeJsonl } from '@rlhf-code/data';
import { EXPERIMENT_ARMS, OnlineConfigSchema, type OnlineConfigInput } from '@rlhf-code/online-core';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { formatExperiment, runOnlineExperiment } from './experiment';
import { measureLatency, measureTyping } from './latency';
import { runLoad } from './load';
import type { FimCase } from './prompts';
import type { ExperimentSettings, LatencySettings, LoadSettings } from './settings';

/** A --service-config file (JSON or YAML, checked as online:serve's --config) as given; {} without one. */
const serviceConfigFile = (file: string | undefined): OnlineConfigInput => (file ? readSettingsFile(OnlineConfigSchema, file, '--service-config') : {});

/** The held-out ("test") FIM cases of --data the benches send (at least 2: each is the other file of the next). */
async function testCases(data: string): Promise<FimCase[]> {
  const cases = (await readFimData(data)).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, path: e.path ?? 'untitled.py' }));
  if (cases.length < 2) throw new UsageError(`--data: ${data} has fewer than 2 "test" examples`);
  return cases;
}

/**
 * `online latency`: a table of the answer times per prompt form and number of clients (and the rows as JSON lines);
 * with --typing, one JSON line of a typing session's times and prefix cache figures.
 */
export async function runLatencyBench(f: LatencySettings): Promise<void> {
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  const service = serviceConfigFile(f.serviceConfig);
  if (f.typing) {
    const cases = (await readFimData(f.data)).filter((e) => e.split === 'test').map((e) => ({ prefix: e.prefix, suffix: e.suffix, middle: e.middle, path: e.path ?? 'untitled.py' }));
    await initBackend({ quiet: true });
    const row = await measureTyping({ ...f, cases, form: f.forms[0], completion: service.completion, gate: service.gate, training: service.training });
    process.stdout.write(JSON.stringify(row) + '\n');
    if (f.json) await writeJsonl(f.json, [row]);
    return;
  }
  const cases = await testCases(f.data);
  const backend = await initBackend();
  process.stdout.write(`[latency] backend ${backend.name}; ${f.requests} requests per setting, ${cases.length} held-out FIM cases from ${f.data}\n`);
  const rows = await measureLatency({ ...f, cases, completion: service.completion, gate: service.gate, training: service.training }, (line) => process.stdout.write(line + '\n'));
  const ms = (x: number | null) => (x === null ? '-' : x.toFixed(0));
  const table = markdownTable(
    ['form', 'clients', 'requests', 'failed', 'first chunk p50', 'answer p50', 'answer p95', 'within 375 ms', 'chunks', 'status p50 / p95 (calls)'],
    rows.map((r) => [
      r.form,
      String(r.concurrency),
      String(r.requests),
      String(r.failed),
      `${ms(r.first_chunk_p50_ms)} ms`,
      `${ms(r.total_p50_ms)} ms`,
      `${ms(r.total_p95_ms)} ms`,
      `${(100 * r.within_375ms).toFixed(0)}%`,
      r.chunks_mean.toFixed(1),
      `${ms(r.status_p50_ms)} / ${ms(r.status_p95_ms)} ms (${r.status_calls})`,
    ]),
  );
  process.stdout.write(`\n${table}\n`);
  if (f.json) await writeJsonl(f.json, rows);
}

/** `online load`: Continue's mixed load against `online serve`, one JSON line on stdout (progress on stderr). */
export async function runLoadBench(f: LoadSettings): Promise<void> {
  if (!fs.existsSync(f.model)) throw new UsageError(`--model: ${f.model} does not exist`);
  if (f.serviceConfig && !fs.existsSync(f.serviceConfig)) throw new UsageError(`--service-config: ${f.serviceConfig} does not exist`);
  const cases = await testCases(f.data);
  const result = await runLoad(
    {
      ...f,
      cases,
      durationMs: f.seconds * 1000,
      serveArgs: [...(f.serviceConfig ? ['--config', f.serviceConfig] : []), '--engine', f.engine, '--engine-weights', f.engineWeights],
    },
    (line) => process.stderr.write(line + '\n'),
  );
  process.stdout.write(JSON.stringify(result) + '\n');
}

/** `online experiment`: one simulated user's learning run and its held-out comparison of the arms, into --out/<user>/. */
export async function runExperiment(f: ExperimentSettings): Promise<void> {
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
  const backend = await initBackend();
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
