// sft: supervised training of a Qwen2 code model. The stages live in libs/train (libs/model: init); this file turns
// flags into their settings and prints one JSON line per run.
//   pretrain  from scratch on a folder of Python files or a token cache (next-token + fill-in-the-middle): makes
//             models/base; from a cache it streams, and runs in chunks (--max-minutes, --resume, --init)
//   init      a randomly initialised checkpoint of any Qwen2 config.json
//   train     fine-tune on {prompt, response} jsonl with the loss on the response only
import { Command } from 'commander';
import { printStageResult, runCli, settingsCommand } from '@rlhf-code/cli';
import { InitSettings, runInit } from '@rlhf-code/model';
import { shutdownBackend } from '@rlhf-code/backend';
import { PretrainSettings, runPretrain, runSft, SftSettings } from '@rlhf-code/train';

const program = new Command('sft').description('Supervised training of a Qwen2 code model: pretraining with FIM, and SFT on {prompt, response} data.');
settingsCommand(
  program
    .command('pretrain')
    .description(
      'Train a model from scratch on a folder of .py files (held-out files: 1 in 10 by path hash), or on a token cache (--cache: windows streamed from its train split, ' +
        'resumable in chunks with --max-minutes, --resume and --init), next-token and fill-in-the-middle.',
    ),
  PretrainSettings,
  async (f) => printStageResult(await runPretrain(f)),
);
settingsCommand(
  program
    .command('init')
    .description(
      'Write a randomly initialised checkpoint (config.json, model.safetensors, tokenizer) of any Qwen2 config.json, in the layout of a real one: ' +
        'to run a real model\'s shape here before its weights are available. --tokenizer qwen copies the full Qwen tokenizer.',
    ),
  InitSettings,
  async (f) => printStageResult(await runInit(f)),
);
settingsCommand(program.command('train').description('Fine-tune on {prompt, response} jsonl; the loss covers the response and EOS only.'), SftSettings, async (f) =>
  printStageResult(await runSft(f)),
);

runCli(program, shutdownBackend);
