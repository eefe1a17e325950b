// The model an LM stage (sft, the tool warm-start) trains: the checkpoint it resumes from or its --model, with
// layer recomputation as set, and a new LoRA adapter when the settings ask for one (a resumed adapter folder
// brings its own, which must have the requested rank).
import type { WeightDtype } from '@rlhf-code/backend';
import { checkpointAt, checkResumedRank, openCheckpoint, parameterCount, type Checkpoint, type Qwen2Model } from '@rlhf-code/model';
import { loraConfigOf } from '@rlhf-code/trainer-core';

export interface LmModelSettings {
  model: string;
  loraRank: number;
  loraAlpha: number;
  loraDropout: number;
  loraTargets: Parameters<typeof loraConfigOf>[0]['loraTargets'];
  recomputeLayers: boolean;
  seed: number;
  /** The frozen base's matrices (default fp32; bf16 / int8 need an adapter). */
  baseDtype?: WeightDtype;
}

/**
 * `from`: the run folder to resume (undefined: start from f.model). `log` gets one line about the adapter. `checkpoint`:
 * f.model as the caller checked it (checkpointAt), whose tokenizer the model is checked against.
 */
export async function loadLmStageModel(
  f: LmModelSettings,
  from: string | undefined,
  log: (line: string) => void,
  checkpoint: Checkpoint<'causal-lm'> = checkpointAt(f.model, '--model'),
): Promise<Qwen2Model> {
  // A LoRA run's checkpoint is an adapter folder: loading it gives the base (--model) with the saved adapters. A fresh
  // run starts from --model with any adapter it is folded in: the run then trains every weight, or a new adapter on it.
  const { model } = await openCheckpoint(checkpoint, { weightsDir: from, merge: from === undefined, baseDtype: f.baseDtype });
  try {
    model.recomputeLayers = f.recomputeLayers;
    const lora = loraConfigOf(f);
    if (from) checkResumedRank(from, model.lora, f.loraRank);
    if (lora && !from) model.addLora(lora, { seed: f.seed });
    if (lora) {
      const trainable = parameterCount(model.trainableParams()).toLocaleString('en-US');
      log(`LoRA r=${lora.r} alpha=${lora.alpha} on ${lora.targets.join(', ')}: ${trainable} trainable of ${model.numParams.toLocaleString('en-US')} parameters`);
    }
    return model;
  } catch (e) {
    model.dispose();
    throw e;
  }
}
