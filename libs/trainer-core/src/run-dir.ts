// One run directory: the checkpoint folder a stage writes (Hugging Face layout: config.json, model.safetensors, the
// tokenizer files, plus the stage's own files) and, beside the weights, what --resume needs:
//   optimizer.safetensors   the optimizer moments (F32)
//   trainer_state.json      {"position": {step, epoch, stepInEpoch}, optimizerStart?, ...the stage's extra state}
// An export of a run meant to be continued elsewhere (pretrain --export of a token-cache run: weights committed per
// chunk) carries what --init needs to go on from the same place, in files --resume never reads:
//   position.json                the run's trainer_state.json as it was saved
//   optimizer.bf16.safetensors   optionally, the AdamW moments rounded to bf16 (half the F32 file; no step count:
//                                position.json has it)
// Every stage (pretrain, sft, rm, ppo/grpo, the online service's checkpoints) detects, reads and writes its training
// state through this one object: what trainer_state.json holds is checked here once; the two files are read and
// written by libs/model (trainer-state.ts), with the weights in one atomic swap.
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { loadTrainingState, OPTIMIZER_FILE, readSafetensors, saveCheckpoint, TRAINER_STATE_FILE, type AdapterFiles, type HostTensor, type Qwen2Config, type TrainingState } from '@rlhf-code/model';
import type { RunPosition } from './run';
import type { Trainer } from './trainer';

const count = z.number().int().nonnegative();
/**
 * trainer_state.json: the position of the run, the step its optimizer started at when not 0 (Trainer.optimizerStart),
 * and whatever else the stage keeps (its KL controller, baseline, data stream...).
 */
export const TrainerStateSchema = z.looseObject({ position: z.strictObject({ step: count, epoch: count, stepInEpoch: count }), optimizerStart: count.optional() });

/** An export's copy of the run's trainer_state.json (what --init continues from). */
export const POSITION_FILE = 'position.json';
/** An export's AdamW moments in bf16 (pretrain --export-moments). */
export const BF16_MOMENTS_FILE = 'optimizer.bf16.safetensors';

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
    const { position, extra } = checkedState(state, path.join(this.dir, TRAINER_STATE_FILE));
    return { optimizer: tensors, position, extra };
  }

  /**
   * The position and stage state this folder records, without the optimizer: an export's position.json, else a run
   * folder's trainer_state.json; undefined when it has neither (e.g. models/base).
   */
  readState(): { position: RunPosition; extra: Record<string, unknown>; file: string } | undefined {
    for (const name of [POSITION_FILE, TRAINER_STATE_FILE]) {
      const file = path.join(this.dir, name);
      if (!fs.existsSync(file)) continue;
      let state: unknown;
      try {
        state = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (e) {
        throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
      }
      return { ...checkedState(state, file), file };
    }
    return undefined;
  }

  /**
   * What a run started from this folder's weights (--init) continues with, as restore() takes it: the recorded position
   * and stage state, and either (`carry`) the optimizer's moments (optimizer.bf16.safetensors of an export, else a run
   * folder's optimizer.safetensors) or (restart) none: a fresh optimizer that starts at this position's step, with its
   * warmup again from there. Undefined when the folder records no position.
   */
  async startState(carry: boolean): Promise<SavedState | undefined> {
    const s = this.readState();
    if (!s) return undefined;
    const { step } = s.position;
    if (!carry) return { optimizer: new Map([['step', { shape: [], data: Float32Array.of(0) }]]), position: s.position, extra: { ...s.extra, optimizerStart: step } };
    const file = [BF16_MOMENTS_FILE, OPTIMIZER_FILE].map((f) => path.join(this.dir, f)).find((f) => fs.existsSync(f));
    if (!file) throw new Error(`${this.dir}: no optimizer moments to carry (${BF16_MOMENTS_FILE} or ${OPTIMIZER_FILE}); restart the optimizer instead, or export with the moments`);
    const optimizer = await readSafetensors(file);
    const optimizerSteps = step - ((s.extra.optimizerStart as number | undefined) ?? 0);
    const saved = optimizer.get('step')?.data[0];
    if (saved !== undefined && saved !== optimizerSteps) throw new Error(`${file}: its optimizer took ${saved} steps, ${s.file} says ${optimizerSteps}`);
    optimizer.set('step', { shape: [], data: Float32Array.of(optimizerSteps) });
    return { optimizer, position: s.position, extra: s.extra };
  }

  /**
   * The files an export of this run folder's last save carries so that --init can continue from it: position.json
   * (its trainer_state.json) and, with `moments`, the optimizer's moments in bf16.
   */
  async exportFiles(moments: boolean): Promise<{ extraFiles: Record<string, object>; extraTensors: Record<string, Map<string, HostTensor>>; extraTensorsDtype: 'BF16' }> {
    const s = this.readState();
    if (!s || path.basename(s.file) !== TRAINER_STATE_FILE) throw new Error(`${this.dir}: no ${TRAINER_STATE_FILE} to export the position from`);
    const extraFiles = { [POSITION_FILE]: JSON.parse(fs.readFileSync(s.file, 'utf8')) as object };
    if (!moments) return { extraFiles, extraTensors: {}, extraTensorsDtype: 'BF16' };
    const tensors = await readSafetensors(path.join(this.dir, OPTIMIZER_FILE));
    tensors.delete('step'); // bf16 cannot hold a count past 256 exactly; position.json has it
    return { extraFiles, extraTensors: { [BF16_MOMENTS_FILE]: tensors }, extraTensorsDtype: 'BF16' };
  }

  /** The training state of `trainer` at `position`, with the stage's extra state, as save() writes it. */
  static stateOf(trainer: Trainer, position: RunPosition, extra: Record<string, unknown> = {}): TrainingState {
    const start = trainer.optimizerStart > 0 ? { optimizerStart: trainer.optimizerStart } : {};
    return { tensors: trainer.optimizer.getState(), state: { ...extra, ...start, position } };
  }

  /** The run step a saved state's optimizer started at (Trainer's optimizerStart: build the Trainer with it, then restore). */
  static optimizerStartOf(s: SavedState): number {
    return (s.extra.optimizerStart as number | undefined) ?? 0;
  }

  /**
   * Load the state (or take `loaded`, from an earlier load(): a stage that needs its own state before building the
   * trainer) and put the optimizer moments into `trainer`; its step count must match the position.
   */
  async restore(trainer: Trainer, loaded?: SavedState): Promise<{ position: RunPosition; extra: Record<string, unknown> }> {
    const s = loaded ?? (await this.load());
    if (trainer.optimizerStart !== RunDir.optimizerStartOf(s)) {
      throw new Error(`${this.dir}: cannot resume: the optimizer started at step ${RunDir.optimizerStartOf(s)}, the trainer at ${trainer.optimizerStart} (build it with RunDir.optimizerStartOf)`);
    }
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

/** A trainer_state.json object checked against TrainerStateSchema; errors name `file`. */
function checkedState(state: unknown, file: string): { position: RunPosition; extra: Record<string, unknown> } {
  const r = TrainerStateSchema.safeParse(state);
  if (!r.success) throw new Error(`${file}: cannot resume: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const { position, ...extra } = r.data;
  return { position, extra };
}
