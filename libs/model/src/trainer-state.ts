// The training state beside a checkpoint's weights, what resuming a run reads (libs/train RunDir is how the stages
// use it): the optimizer's tensors and a JSON object of the rest.
//   optimizer.safetensors   tensors, e.g. the Adam moments (F32: moments need full precision)
//   trainer_state.json      step, RNG state, the stage's own state
// saveCheckpoint({ trainingState }) writes it with the weights in one atomic swap; saveTrainingState replaces it alone
// (both in checkpoint-folder.ts).
import { existsSync, promises as fs } from 'fs';
import * as path from 'path';
import { readSafetensors, writeFileAtomic, writeSafetensors, type HostTensor } from './safetensors';

export const OPTIMIZER_FILE = 'optimizer.safetensors';
export const TRAINER_STATE_FILE = 'trainer_state.json';

/** Everything needed to resume training: tensors (e.g. Adam moments) and JSON-able state. */
export type TrainingState = { tensors: Map<string, HostTensor>; state: Record<string, unknown> };

/** Load what saveTrainingState / saveCheckpoint({trainingState}) wrote into `dir`. */
export async function loadTrainingState(dir: string): Promise<TrainingState> {
  const stateFile = path.join(dir, TRAINER_STATE_FILE);
  const optimizerFile = path.join(dir, OPTIMIZER_FILE);
  for (const f of [stateFile, optimizerFile]) {
    if (!existsSync(f)) throw new Error(`${dir}: no training state to resume from (missing ${path.basename(f)})`);
  }
  let state: unknown;
  try {
    state = JSON.parse(await fs.readFile(stateFile, 'utf8'));
  } catch (e) {
    throw new Error(`${stateFile}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new Error(`${stateFile}: must hold a JSON object`);
  }
  return { tensors: await readSafetensors(optimizerFile), state: state as Record<string, unknown> };
}

export function checkTrainingState(ts: TrainingState, where: string): void {
  if (!(ts.tensors instanceof Map)) throw new Error(`${where}: trainingState.tensors must be a Map`);
  if (typeof ts.state !== 'object' || ts.state === null || Array.isArray(ts.state)) {
    throw new Error(`${where}: trainingState.state must be a JSON object`);
  }
}

/** Write the two files into `dir` (a checkpoint folder being built). */
export async function writeTrainingState(dir: string, ts: TrainingState): Promise<void> {
  await writeSafetensors(path.join(dir, OPTIMIZER_FILE), ts.tensors);
  await writeFileAtomic(path.join(dir, TRAINER_STATE_FILE), JSON.stringify(ts.state, null, 2) + '\n');
}
