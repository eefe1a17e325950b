// online: online RL behind Continue. The commands live in the libs; this file turns flags into their settings.
//   serve       the completion and feedback servers with live policy updates (@rlhf-code/online)
//   prep-fim    a FIM dataset from a folder of .py files (@rlhf-code/datagen)
//   simulate    a simulated Continue user (@rlhf-code/continue)
//   experiment, latency, load   the service measured from outside (@rlhf-code/online-bench)
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import { shutdownBackend } from '@rlhf-code/backend';
import { runSimulate, SimulateSettings } from '@rlhf-code/continue';
import { PrepFimSettings, runPrepFim } from '@rlhf-code/datagen';
import { runServe } from '@rlhf-code/online';
import { ServeSettings } from '@rlhf-code/online-core';
import { ExperimentSettings, LatencySettings, LoadSettings, runExperiment, runLatencyBench, runLoadBench } from '@rlhf-code/online-bench';

const program = new Command('online').description('Online RL behind Continue: completion server, feedback server, live policy updates, simulated user.');
settingsCommand(
  program.command('serve').description('run the completion server (OpenAI /v1/completions) and the feedback server (/api/training/submit) with live updates'),
  ServeSettings,
  runServe,
);
settingsCommand(program.command('prep-fim').description('build {prefix, suffix, middle} examples from a folder of .py files, split train/test by file'), PrepFimSettings, runPrepFim);
settingsCommand(program.command('simulate').description('replay FIM examples exactly as Continue does and post accept/reject outcomes'), SimulateSettings, runSimulate);
settingsCommand(
  program
    .command('experiment')
    .description(
      'online learning for one simulated user: train on the train files through the servers, then serve every held-out position once per arm (start model and trained policy, each gate mechanism alone) on a simulated clock, and compare the arms as paired differences (bootstrap over files, sign-flip test)',
    ),
  ExperimentSettings,
  runExperiment,
);
settingsCommand(
  program
    .command('latency')
    .description(
      'time Continue-shaped requests (both prompt forms) against a running service, alone and concurrent, with the status endpoint polled meanwhile; prints p50/p95 and one JSON line per setting; --typing: replay one user typing in one file instead (one JSON line: first_line_ms p50/p95, prefix cache hit rate, tokens prefilled per request)',
    ),
  LatencySettings,
  runLatencyBench,
);
settingsCommand(
  program
    .command('load')
    .description(
      "Continue's mixed load against `online serve` (started here on free ports): completion clients, feedback clients posting an outcome every 50 ms, status polls; prints one JSON line (answers, failures, p50/p95/p99, acknowledged outcomes missing from the log, updates); --kill adds a kill -9 and a restart half way",
    ),
  LoadSettings,
  runLoadBench,
);

void runCli(program, shutdownBackend);
