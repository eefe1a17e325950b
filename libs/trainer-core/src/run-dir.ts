// One run directory: the checkpoint folder a stage writes (Hugging Face layout: config.json, model.safetensors, the
// tokenizer files, plus the stage's own files) and, beside the weights, what --resume needs:
//   optimizer.safetensors   the optimizer moments (F32)
//   trainer_state.json      {"position": {step, epoch, stepInEpoch}, ...the stage's extra state}
// Every stage (pretrain, sft, rm, ppo/grpo, the online service's checkpoints) detects, reads and writes its training
// state through this one object: what trainer_state.json holds is checked here once; the two files are read and
// written by libs/model (trainer-state.ts), with the weights in one atomic swap.
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { loadTrainingState, saveCheckpoint, TRAINER_STATE_FILE, type AdapterFiles, type HostTensor, type Qwen2Config, type TrainingState } from '@rlhf-code/model';
import type { RunPosition } from './run';
import type { Trainer } from './trainer';

const count = z.number().int().nonnegative();
/** trainer_state.json: the position of the run and whatever else the stage keeps (its KL controller, baseline...). */
export const TrainerStateSchema = z.looseObject({ position: z.strictObject({ step: count, epoch: count, stepInEpoch: count }) });

export interface SavedState {
  optimizer: Map<string, HostTensor>;
  position: RunPosition;
  /** The stage's own state (trainer_state.json without "position"). */
  extra: Record<string, unknown>;
}

export interface SaveOptions {
  config: Qwen2Config;
  weights: Map<string, HostTensor>;
  /** A LoRA run: PEFT's adapter files in place of the full weights. */
  adapter?: AdapterFiles;
  /** Copied into the folder so that it is self-contained. */
  tokenizerDir?: string;
  tokenizerConfig?: Record<string, unknown>;
  /** What --resume needs (RunDir.stateOf); none: a folder with weights only. */
  state?: TrainingState;
  extraFiles?: Record<string, string | object>;
  /** Files of the previous save carried over (the run's logs: metrics.jsonl, ...). */
  keepFiles?: string[];
  /** More safetensors files (e.g. a LoRA run's value head). */
  extraTensors?: Record<string, Map<string, HostTensor>>;
}

export class RunDir {
  constructor(readonly dir: string) {}

  /** The folder holds a training state to resume from (not only weights). */
  get resumable(): boolean {
    return fs.existsSync(path.join(this.dir, TRAINER_STATE_FILE));
  }

  /** The folder a run continues from: this one when --resume is asked and it holds a training state, else none. */
  resumeFrom(resume: boolean): string | undefined {
    return resume && this.resumable ? this.dir : undefined;
  }

  /** The saved training state, checked against TrainerStateSchema; errors name the file. */
  async load(): Promise<SavedState> {
    const { tensors, state } = await loadTrainingState(this.dir);
    const r = TrainerStateSchema.safeParse(state);
    if (!r.success) {
      const where = path.join(this.dir, TRAINER_STATE_FILE);
      throw new Error(`${where}: cannot resume: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    }
    const { position, ...extra } = r.data;
    return { optimizer: tensors, position, extra };
  }

  /** The training state of `trainer` at `position`, with the stage's extra state, as save() writes it. */
  static stateOf(trainer: Trainer, position: RunPosition, extra: Record<string, unknown> = {}): TrainingState {
    return { tensors: trainer.optimizer.getState(), state: { ...extra, position } };
  }

  /**
   * Load the state (or take `loaded`, from an earlier load(): a stage that needs its own state before building the
   * trainer) and put the optimizer moments into `trainer`; its step count must match the position.
   */
  async restore(trainer: Trainer, loaded?: SavedState): Promise<{ position: RunPosition; extra: Record<string, unknown> }> {
    const s = loaded ?? (await this.load());
    trainer.optimizer.setState(s.optimizer, trainer.params);
    if (trainer.stepCount !== s.position.step) {
      throw new Error(`${this.dir}: cannot resume: the optimizer has ${trainer.stepCount} steps but the position is step ${s.position.step}`);
    }
    return { position: s.position, extra: s.extra };
  }

  /** Write the checkpoint (weights, tokenizer, files) and the state to resume from, in one atomic swap. */
  async save(o: SaveOptions): Promise<void> {
    await saveCheckpoint(this.dir, {
      config: o.config,
      weights: o.weights,
      adapter: o.adapter,
      tokenizerDir: o.tokenizerDir,
      tokenizerConfig: o.tokenizerConfig,
      extraFiles: o.extraFiles,
      keepFiles: o.keepFiles,
      extraTensors: o.extraTensors,
      trainingState: o.state,
    });
  }
}
