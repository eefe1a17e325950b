// rm: train a reward model on {prompt, response, score} jsonl. The backbone starts from the SFT checkpoint,
// the scalar head `score` is new; MSE on the scores; held-out MSE, Pearson correlation and the pairwise accuracy
// (each held-out prompt's "reference" row scored above its "mutant:*" rows), split by prompt. The stage lives in
// libs/train (runRm); this file turns flags into its settings and prints one JSON line per run.
import { Command } from 'commander';
import { printStageResult, runCli, settingsCommand } from '@rlhf-code/cli';
import { shutdownBackend } from '@rlhf-code/backend';
import { RmSettings, runRm } from '@rlhf-code/train';

const program = new Command('rm').description('Reward model: Qwen2 backbone + scalar head, regression on {prompt, response, score}.');
settingsCommand(
  program
    .command('train')
    .description('Train from a causal-LM checkpoint (the SFT model); saves a Qwen2ForSequenceClassification checkpoint with score.weight and heldout.json.'),
  RmSettings,
  async (f) => printStageResult(await runRm(f)),
);

runCli(program, shutdownBackend);
