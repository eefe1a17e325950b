// Policy checkpoints of the online service: <stateDir>/checkpoints/v000012/ is policy version 12 in Hugging Face
// layout (config.json, model.safetensors, tokenizer files; with LoRA PEFT's adapter files instead) plus
// optimizer.safetensors and trainer_state.json
// ({position, policy_version, updates, baseline, ...}): a run directory (libs/train RunDir) that loads in transformers
// as is and that the service resumes from. Only the newest `keep` are kept.
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import type { CheckpointContent, HostTensor } from '@rlhf-code/model';
import { RunDir, type Trainer } from '@rlhf-code/trainer-core';

export interface OnlineTrainerState {
  policy_version: number;
  /** Updates kept so far (the version counts them too; kept separately for clarity). */
  updates: number;
  /** Running reward baseline of the binary scheme. */
  baseline: number | null;
  /** The starting model this policy was trained from. */
  start_model: string;
}

const NAME = /^v(\d{6,})$/;

export const checkpointRoot = (stateDir: string) => path.join(stateDir, 'checkpoints');
export const checkpointDir = (stateDir: string, version: number) => path.join(checkpointRoot(stateDir), `v${String(version).padStart(6, '0')}`);

/** Saved checkpoints, newest first. */
export function listCheckpoints(stateDir: string): { dir: string; version: number }[] {
  const root = checkpointRoot(stateDir);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .map((name) => ({ name, m: NAME.exec(name) }))
    .filter((x) => x.m && ['config.json', 'adapter_config.json'].some((f) => fs.existsSync(path.join(root, x.name, f))))
    .map((x) => ({ dir: path.join(root, x.name), version: Number(x.m![1]) }))
    .sort((a, b) => b.version - a.version);
}

export async function saveOnlineCheckpoint(
  stateDir: string,
  opts: {
    content: CheckpointContent;
    trainer: Trainer;
    state: OnlineTrainerState;
    tokenizerDir: string;
    keep: number;
  },
): Promise<string> {
  const dir = checkpointDir(stateDir, opts.state.policy_version);
  await fs.promises.mkdir(checkpointRoot(stateDir), { recursive: true });
  // The position counts optimizer steps (the online run has no epochs); the rest is the service's own state.
  const steps = opts.trainer.stepCount;
  const state = RunDir.stateOf(opts.trainer, { step: steps, epoch: 0, stepInEpoch: steps }, { ...opts.state });
  await new RunDir(dir).save({ ...opts.content, tokenizerDir: opts.tokenizerDir, state });
  for (const old of listCheckpoints(stateDir).slice(opts.keep)) await fs.promises.rm(old.dir, { recursive: true, force: true });
  return dir;
}

const OnlineStateSchema = z.object({
  policy_version: z.number().int().nonnegative(),
  updates: z.number().int().nonnegative().optional(),
  baseline: z.number().nullable().default(null),
  start_model: z.string().default(''),
});

/** The trainer state and optimizer moments saved beside a checkpoint's weights. */
export async function loadOnlineState(dir: string): Promise<{ state: OnlineTrainerState; optimizer: Map<string, HostTensor> }> {
  const { optimizer, extra } = await new RunDir(dir).load();
  const r = OnlineStateSchema.safeParse(extra);
  if (!r.success) throw new Error(`${dir}/trainer_state.json: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { state: { ...r.data, updates: r.data.updates ?? r.data.policy_version }, optimizer };
}
