// Opening a checkpoint: how every stage, the server and the tools get a model and its tokenizer from a folder.
// A checkpoint is a Hugging Face model folder (config.json, the weights, the tokenizer files) or a LoRA adapter folder
// (PEFT's adapter_config.json and adapter weights, on the base its base_model_name_or_path names).
//   checkpointAt(dir, flag, kind)   what a flag names, checked from config files alone (no weights) before anything slow:
//                                   one error naming the flag and the folder. Returns the Checkpoint, checked once
//                                   (checkpointOr: the Checkpoint or the problem, for a command that words it itself).
//   openCheckpoint(at, options)     the model (a causal LM; a reward model for a Checkpoint of that kind) and the
//                                   folder's tokenizer, checked to fit each other: every token id the tokenizer can
//                                   produce must have a row in the model's embedding (the model may have more rows: Qwen
//                                   pads its vocabulary). `at` is a Checkpoint, or a folder checked here.
// "Checkpoint" means this folder only. Recomputing activations in the backward pass is layer recomputation
// (recompute.ts, the --recompute-layers flag; Hugging Face's "gradient checkpointing"); what --resume continues is a
// run's training state (trainer-state.ts, trainer-core's RunDir), which a checkpoint folder may carry beside its
// weights.
import * as fs from 'fs';
import * as path from 'path';
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { modelConfigOf } from './checkpoint-folder';
import { isSequenceClassifier, type Qwen2Config } from './config';
import { ADAPTER_CONFIG_FILE, isAdapterFolder } from './lora';
import { Qwen2Model, type LoadOptions } from './model';
import { RewardModel } from './reward';

/** Throws, naming `where`, when the tokenizer has more tokens than the model has embedding rows. */
export function checkVocabulary(tokenizer: Tokenizer, vocabSize: number, where: string, whose = "the model's"): void {
  if (tokenizer.vocabSize > vocabSize) throw new Error(`${where}: its tokenizer has ${tokenizer.vocabSize} tokens, more than ${whose} ${vocabSize}`);
}

/** What a command needs a checkpoint to be: a causal LM (a policy, an SFT model, a KL reference) or a reward model. */
export type CheckpointKind = 'causal-lm' | 'reward-model';

/** adapter_config.json's task_type (CAUSAL_LM, SEQ_CLS, ...), or null when it has none or cannot be read. */
function adapterTaskType(dir: string): string | null {
  try {
    const t = (JSON.parse(fs.readFileSync(path.join(dir, ADAPTER_CONFIG_FILE), 'utf8')) as { task_type?: unknown }).task_type;
    return typeof t === 'string' ? t : null;
  } catch {
    return null; // an unreadable adapter_config.json is reported by the loader, naming the file
  }
}

/**
 * The folder's config and whether it holds an adapter, or why `dir` cannot be a `kind` checkpoint of a command: it must
 * be a Hugging Face checkpoint folder (config.json) or a LoRA adapter folder (PEFT's adapter_config.json) whose base
 * resolves (base_model_name_or_path, an adapter on an adapter included), and a reward model
 * (Qwen2ForSequenceClassification, an adapter of task SEQ_CLS) for the reward-model kind, a causal LM otherwise. Reads
 * config files only, no weights.
 */
function inspect(dir: string, kind: CheckpointKind): { problem: string } | { config: Qwen2Config; adapter: boolean } {
  if (!fs.existsSync(dir)) return { problem: 'folder not found' };
  if (!fs.statSync(dir).isDirectory()) return { problem: 'not a folder' };
  const adapter = isAdapterFolder(dir);
  if (!adapter && !fs.existsSync(path.join(dir, 'config.json'))) {
    return { problem: 'neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)' };
  }
  let config: Qwen2Config;
  let classifier: boolean;
  try {
    config = modelConfigOf(dir); // an adapter folder: its base's, which must be there
    classifier = adapter ? adapterTaskType(dir) === 'SEQ_CLS' : isSequenceClassifier(config);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  const what = adapter ? 'a LoRA adapter' : 'a checkpoint';
  if (kind === 'reward-model' && !classifier) {
    return { problem: `${what} of a causal LM, not a reward model (${adapter ? 'task_type SEQ_CLS' : 'Qwen2ForSequenceClassification'}); train one with \`rm train\`` };
  }
  if (kind === 'causal-lm' && classifier) return { problem: `${what} of a reward model (${adapter ? 'task_type SEQ_CLS' : 'Qwen2ForSequenceClassification'}), not a causal LM` };
  return { config, adapter };
}

/** A checkpoint folder that a flag names, checked (checkpointAt): what openCheckpoint opens. */
export class Checkpoint<K extends CheckpointKind = CheckpointKind> {
  private tok: Tokenizer | undefined;

  /** @internal use checkpointAt */
  constructor(
    readonly dir: string,
    /** The flag (or label) that named it, in errors; '' for none. */
    readonly flag: string,
    readonly kind: K,
    /** Its model config (an adapter folder: its base's). */
    readonly config: Qwen2Config,
    /** A LoRA adapter folder (its base plus the adapter) rather than a full checkpoint. */
    readonly isAdapter: boolean,
  ) {}

  /** How errors name it: `--model: results/sft`, or the folder alone without a flag. */
  get where(): string {
    return this.flag ? `${this.flag}: ${this.dir}` : this.dir;
  }

  /** The folder's tokenizer, read once. */
  tokenizer(): Tokenizer {
    return (this.tok ??= loadTokenizer(this.dir));
  }
}

/**
 * The checkpoint in `dir` that `flag` names, checked as a `kind` checkpoint (inspect); otherwise one error
 * naming the flag and the folder, e.g. `--model: results/sft: folder not found`.
 */
export function checkpointAt<K extends CheckpointKind = 'causal-lm'>(dir: string, flag: string, kind: K = 'causal-lm' as K): Checkpoint<K> {
  const r = checkpointOr(dir, flag, kind);
  if ('problem' in r) throw new Error(`${flag ? `${flag}: ${dir}` : dir}: ${r.problem}`);
  return r;
}

/** checkpointAt without the throw, for a command that words the error itself: the Checkpoint, or why `dir` is none. */
export function checkpointOr<K extends CheckpointKind = 'causal-lm'>(dir: string, flag: string, kind: K = 'causal-lm' as K): Checkpoint<K> | { problem: string } {
  const r = inspect(dir, kind);
  return 'problem' in r ? r : new Checkpoint(dir, flag, kind, r.config, r.adapter);
}

export interface OpenCheckpointOptions extends LoadOptions {
  /** With a folder for `at`: the flag that named it, for errors (`--model: results/sft: ...`). */
  flag?: string;
  /**
   * The weights from this folder instead (a run folder being resumed: its own weights, or its adapter on the
   * checkpoint's base); the check and the tokenizer stay the checkpoint's.
   */
  weightsDir?: string;
}

/** An open checkpoint: the model in memory (the caller disposes it), its tokenizer, and what it was opened from. */
export interface OpenedCheckpoint<M = Qwen2Model, K extends CheckpointKind = 'causal-lm'> {
  model: M;
  tokenizer: Tokenizer;
  checkpoint: Checkpoint<K>;
}

/**
 * The model and tokenizer of a checkpoint: `at` is a Checkpoint (checkpointAt), or a folder checked here (naming
 * options.flag). A causal LM loads as Qwen2Model.load does (an adapter folder: its base with the adapter active, or
 * folded in with `merge`); a Checkpoint of kind reward-model as RewardModel.load does. `tokenizer: false`: the model
 * alone, for a command that needs no text (the folder need not have a tokenizer then).
 */
export function openCheckpoint(at: Checkpoint<'reward-model'>, opts?: Pick<OpenCheckpointOptions, 'trainable' | 'baseDtype'>): Promise<OpenedCheckpoint<RewardModel, 'reward-model'>>;
export function openCheckpoint(at: string | Checkpoint<'causal-lm'>, opts: OpenCheckpointOptions & { tokenizer: false }): Promise<Omit<OpenedCheckpoint, 'tokenizer'>>;
export function openCheckpoint(at: string | Checkpoint<'causal-lm'>, opts?: OpenCheckpointOptions): Promise<OpenedCheckpoint>;
export async function openCheckpoint(
  at: string | Checkpoint,
  opts: OpenCheckpointOptions & { tokenizer?: false } = {},
): Promise<{ model: Qwen2Model | RewardModel; tokenizer?: Tokenizer; checkpoint: Checkpoint }> {
  const checkpoint = typeof at === 'string' ? checkpointAt(at, opts.flag ?? '') : at;
  const tokenizer = opts.tokenizer === false ? undefined : checkpoint.tokenizer();
  const from = opts.weightsDir ?? checkpoint.dir;
  const model =
    checkpoint.kind === 'reward-model'
      ? await RewardModel.load(from, { trainable: opts.trainable, baseDtype: opts.baseDtype })
      : await Qwen2Model.load(from, { trainable: opts.trainable, merge: opts.merge, baseDtype: opts.baseDtype });
  if (tokenizer) {
    try {
      checkVocabulary(tokenizer, model.config.vocab_size, checkpoint.where);
    } catch (e) {
      model.dispose();
      throw e;
    }
  }
  return { model, tokenizer, checkpoint };
}
