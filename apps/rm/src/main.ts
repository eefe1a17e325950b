// rm: train a reward model on {prompt, response, score} jsonl. The backbone starts from the SFT checkpoint,
// the scalar head `score` is new; MSE on the scores; held-out MSE, Pearson correlation and the pairwise accuracy
// (each held-out prompt's "reference" row scored above its "mutant:*" rows), split by prompt.
import * as fs from 'fs';
import * as path from 'path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { backendOption, backendSchema, parseFlags, runCli } from '@rlhf-code/cli';
import { readRmData, splitHeldOut, type RmRecord } from '@rlhf-code/data';
import { RewardModel, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { encodePair, loadTokenizer, PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { PAIR_LOSSES, RmExample, runRmStage } from '@rlhf-code/train';

const Flags = z.object({
  model: z.string(),
  data: z.string(),
  out: z.string(),
  template: z.enum(PROMPT_TEMPLATES as ['raw', 'chat']),
  maxLen: z.coerce.number().int().min(8),
  heldoutFraction: z.coerce.number().gt(0).lt(1),
  maxExamples: z.coerce.number().int().nonnegative(),
  epochs: z.coerce.number().int().positive(),
  maxSteps: z.coerce.number().int().nonnegative(),
  batchSize: z.coerce.number().int().positive(),
  gradAccum: z.coerce.number().int().positive(),
  lr: z.coerce.number().positive(),
  minLr: z.coerce.number().nonnegative().optional(),
  warmupSteps: z.coerce.number().int().nonnegative(),
  weightDecay: z.coerce.number().nonnegative(),
  maxGradNorm: z.coerce.number().nonnegative(),
  saveEvery: z.coerce.number().int().nonnegative(),
  seed: z.coerce.number().int(),
  pairLoss: z.enum(PAIR_LOSSES),
  pairCoef: z.coerce.number().nonnegative(),
  resume: z.boolean().default(false),
  quiet: z.boolean().default(false),
  backend: backendSchema,
});

async function train(opts: unknown): Promise<void> {
  const f = parseFlags(Flags, opts);
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

  const resuming = f.resume && fs.existsSync(path.join(f.out, TRAINER_STATE_FILE));
  const rm = resuming ? await RewardModel.load(f.out) : await RewardModel.fromCausalLM(f.model, { padTokenId: tok.padId, seed: f.seed });
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
    optim: { ...f, beta1: 0.9, beta2: 0.999, minLr: f.minLr ?? f.lr / 10 },
    saveEvery: f.saveEvery,
    seed: f.seed,
    resume: resuming,
    quiet: f.quiet,
    pairLoss: f.pairLoss,
    pairCoef: f.pairCoef,
    extraFiles: { 'training_args.json': { stage: 'rm', base_model: f.model, ...f } },
  });
  console.log(JSON.stringify({ stage: 'rm', out: f.out, step: result.position.step, interrupted: result.interrupted, heldout: result.heldout }));
  if (result.interrupted) process.exitCode = 130; // stopped by Ctrl-C / SIGTERM: a checkpoint, not a finished run
}

const program = new Command('rm').description('Reward model: Qwen2 backbone + scalar head, regression on {prompt, response, score}.');
program
  .command('train')
  .description('Train from a causal-LM checkpoint (the SFT model); saves a Qwen2ForSequenceClassification checkpoint with score.weight and heldout.json.')
  .addOption(new Option('--model <dir>', 'starting checkpoint (causal LM, Hugging Face folder)').env('MODEL_PATH').default('results/sft'))
  .option('--data <file>', 'one {"prompt", "response", "score"} per line (optional "source": "reference" / "mutant:<kind>" for the pairwise accuracy)', 'data/rm_data.jsonl')
  .option('--out <dir>', 'reward model folder (+ metrics.jsonl, heldout.json, optimizer state for --resume)', 'results/rm')
  .addOption(new Option('--template <name>', 'prompt format: raw text or ChatML').choices(['raw', 'chat']).default('raw'))
  .option('--max-len <n>', 'longest pair in tokens (the prompt is cut from the left first, then the response; the end token always stays)', '384')
  .option('--heldout-fraction <x>', 'share of prompts held out (all their responses) for MSE / Pearson / pairwise accuracy', '0.1')
  .option('--max-examples <n>', 'use only the first n training pairs (0 = all)', '0')
  .option('--epochs <n>', 'passes over the training pairs', '1')
  .option('--max-steps <n>', 'stop after this many optimizer steps; the warmup + cosine schedule then spans them, as in transformers (0 = all epochs)', '0')
  .option('--batch-size <n>', 'pairs per micro-batch', '8')
  .option('--grad-accum <n>', 'micro-batches per optimizer step', '1')
  .option('--lr <x>', 'peak learning rate (AdamW)', '1e-4')
  .option('--min-lr <x>', 'learning rate at the end of the cosine decay (default lr/10)')
  .option('--warmup-steps <n>', 'linear warmup steps', '10')
  .option('--weight-decay <x>', 'decoupled weight decay on matrices', '0.0')
  .option('--max-grad-norm <x>', 'clip the global gradient norm (0 = off)', '1')
  .option('--save-every <n>', 'also save (and evaluate) every n steps; 0 = at epoch ends only', '0')
  .option('--seed <n>', 'seed of the split, the head initialisation and the data order', '0')
  .addOption(new Option('--pair-loss <kind>', 'within-prompt term added to the MSE: diff = squared error of the predicted difference between two responses to one prompt against their score difference, bt = Bradley-Terry on the better/worse pairs, none = MSE alone (batches then sorted by length instead of holding whole prompts)').choices([...PAIR_LOSSES]).default('none'))
  .option('--pair-coef <x>', 'weight of the within-prompt term', '1')
  .option('--resume', 'continue from the checkpoint in --out')
  .option('--quiet', 'no progress bar')
  .addOption(backendOption())
  .action(train);

runCli(program, shutdownBackend);
