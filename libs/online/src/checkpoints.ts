// Policy checkpoints of the online service: <stateDir>/checkpoints/v000012/ is policy version 12 in Hugging Face
// layout (config.json, model.safetensors, tokenizer files) plus optimizer.safetensors and trainer_state.json
// ({policy_version, updates, baseline, ...}), so it loads in transformers as is and the service resumes from it.
// Written atomically by saveCheckpoint; only the newest `keep` are kept.
import * as fs from 'fs';
import * as path from 'path';
import { loadTrainingState, saveCheckpoint, type HostTensor, type Qwen2Config } from '@rlhf-code/model';

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
    .filter((x) => x.m && fs.existsSync(path.join(root, x.name, 'config.json')))
    .map((x) => ({ dir: path.join(root, x.name), version: Number(x.m![1]) }))
    .sort((a, b) => b.version - a.version);
}

export async function saveOnlineCheckpoint(
  stateDir: string,
  opts: {
    config: Qwen2Config;
    weights: Map<string, HostTensor>;
    optimizer: Map<string, HostTensor>;
    state: OnlineTrainerState;
    tokenizerDir: string;
    keep: number;
  },
): Promise<string> {
  const dir = checkpointDir(stateDir, opts.state.policy_version);
  await fs.promises.mkdir(checkpointRoot(stateDir), { recursive: true });
  await saveCheckpoint(dir, {
    config: opts.config,
    weights: opts.weights,
    tokenizerDir: opts.tokenizerDir,
    trainingState: { tensors: opts.optimizer, state: { ...opts.state } },
  });
  for (const old of listCheckpoints(stateDir).slice(opts.keep)) await fs.promises.rm(old.dir, { recursive: true, force: true });
  return dir;
}

/** The trainer state and optimizer moments saved beside a checkpoint's weights. */
export async function loadOnlineState(dir: string): Promise<{ state: OnlineTrainerState; optimizer: Map<string, HostTensor> }> {
  const { tensors, state } = await loadTrainingState(dir);
  const s = state as Partial<OnlineTrainerState>;
  if (!Number.isInteger(s.policy_version)) throw new Error(`${dir}/trainer_state.json: policy_version must be an integer`);
  return {
    state: { policy_version: s.policy_version!, updates: s.updates ?? s.policy_version!, baseline: s.baseline ?? null, start_model: s.start_model ?? '' },
    optimizer: tensors,
  };
}
