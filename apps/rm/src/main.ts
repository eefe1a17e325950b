// rm: train a reward model on {prompt, response, score} jsonl. The backbone starts from the SFT checkpoint,
// the scalar head `score` is new; MSE on the scores; held-out MSE, Pearson correlation and the pairwise accuracy
// (each held-out prompt's "reference" row scored above its "mutant:*" rows), split by prompt.
import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import { readRmData, splitHeldOut, type RmRecord } from '@rlhf-code/data';
import { checkModelFolder, checkResumedRank, parameterCount, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { encodePair, loadTokenizer } from '@rlhf-code/tokenizer';
import { loraConfigOf, RmExample, RmSettings, RunDir, runRmStage } from '@rlhf-code/train';

async function train(f: RmSettings): Promise<void> {
  checkModelFolder(f.model, '--model');
  const tok = loadTokenizer(f.model);
  const records = await readRmData(f.data);
  // Hold out whole prompts: every response to a held-out prompt is unseen in training.
  const split = splitHeldOut(records, { fraction: f.heldoutFraction, seed: f.seed });
  const toExample = (r: RmRecord): RmExample => ({
    ids: encodePair(tok, r.prompt, r.response, { template: f.template, maxLen: f.maxLen }).ids,
    score: r.score,
    group: r.prompt, // the split's key: a group is held out whole
    source: r.source,
  });
  const trainRecords = f.maxExamples > 0 ? split.train.slice(0, f.maxExamples) : split.train;
  const backend = await initBackend({ backend: f.backend });
  console.error(`rm train: backend ${backend.name}; ${trainRecords.length} training / ${split.heldOut.length} held-out pairs from ${f.data}`);

  const resuming = new RunDir(f.out).resumeFrom(f.resume) !== undefined;
  const rm = resuming ? await RewardModel.load(f.out) : await RewardModel.fromCausalLM(f.model, { padTokenId: tok.padId, seed: f.seed });
  rm.backbone.gradCheckpointing = f.gradCheckpointing;
  const lora = loraConfigOf(f);
  if (resuming) checkResumedRank(f.out, rm.backbone.lora, f.loraRank);
  if (lora && !resuming) rm.addLora(lora, f.seed);
  if (lora) {
    const trainable = parameterCount(rm.trainableParams()).toLocaleString('en-US');
    console.error(`rm train: LoRA r=${lora.r} alpha=${lora.alpha} on ${lora.targets.join(', ')} + the score head: ${trainable} trainable parameters`);
  }
  const result = await runRmStage({
    rm,
    padId: tok.padId,
    tokenizerDir: f.model,
    outDir: f.out,
    train: trainRecords.map(toExample),
    heldOut: split.heldOut.map(toExample),
    epochs: f.epochs,
    batchSize: f.batchSize,
    gradAccum: f.gradAccum,
    maxSteps: f.maxSteps,
    optim: f,
    saveEvery: f.saveEvery,
    seed: f.seed,
    resume: resuming,
    quiet: f.quiet,
    pairLoss: f.pairLoss,
    pairCoef: f.pairCoef,
    extraFiles: { 'training_args.json': { stage: 'rm', base_model: f.model, ...f } },
  });
  if (f.mergeExport && !result.interrupted) {
    await saveCheckpoint(f.mergeExport, { config: rm.config, weights: rm.backbone.mergedWeights(), tokenizerDir: f.model, extraFiles: { 'training_args.json': { stage: 'rm', base_model: f.model, ...f } } });
    console.error(`rm train: merged the adapter into ${f.mergeExport}`);
  }
  console.log(JSON.stringify({ stage: 'rm', out: f.out, step: result.position.step, interrupted: result.interrupted, heldout: result.heldout }));
  if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
}

const program = new Command('rm').description('Reward model: Qwen2 backbone + scalar head, regression on {prompt, response, score}.');
settingsCommand(
  program
    .command('train')
    .description('Train from a causal-LM checkpoint (the SFT model); saves a Qwen2ForSequenceClassification checkpoint with score.weight and heldout.json.'),
  RmSettings,
  train,
);

runCli(program, shutdownBackend);
