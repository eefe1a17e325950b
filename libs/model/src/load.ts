// A checkpoint folder's model and tokenizer together, checked to fit each other: every token id the tokenizer can
// produce must have a row in the model's embedding (the model may have more rows: Qwen pads its vocabulary). And what a
// model flag may name, checked before anything loads: a checkpoint folder or a LoRA adapter folder (its base plus the
// adapter), for the role the command gives it.
import * as fs from 'fs';
import * as path from 'path';
import { loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { modelConfigOf } from './checkpoint-folder';
import { isSequenceClassifier } from './config';
import { ADAPTER_CONFIG_FILE, isAdapterFolder } from './lora';
import { Qwen2Model, type LoadOptions } from './model';

/** Throws, naming `where`, when the tokenizer has more tokens than the model has embedding rows. */
export function checkVocabulary(tokenizer: Tokenizer, vocabSize: number, where: string, whose = "the model's"): void {
  if (tokenizer.vocabSize > vocabSize) throw new Error(`${where}: its tokenizer has ${tokenizer.vocabSize} tokens, more than ${whose} ${vocabSize}`);
}

/** The model in `weightsDir` (default `dir`) with the tokenizer of `dir`. */
export async function loadModelAndTokenizer(dir: string, opts: LoadOptions & { weightsDir?: string } = {}): Promise<{ model: Qwen2Model; tokenizer: Tokenizer }> {
  const tokenizer = loadTokenizer(dir);
  const model = await Qwen2Model.load(opts.weightsDir ?? dir, opts);
  try {
    checkVocabulary(tokenizer, model.config.vocab_size, dir);
  } catch (e) {
    model.dispose();
    throw e;
  }
  return { model, tokenizer };
}

/** What a model flag asks for: a causal LM (a policy, an SFT model, a KL reference) or a reward model. */
export type ModelRole = 'causal-lm' | 'reward-model';

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
 * Why `dir` cannot be the `role` model of a command, or null when it can: it must be a Hugging Face checkpoint folder
 * (config.json) or a LoRA adapter folder (PEFT's adapter_config.json) whose base resolves (base_model_name_or_path, an
 * adapter on an adapter included), and a reward model (Qwen2ForSequenceClassification, an adapter of task SEQ_CLS) for
 * the reward-model role, a causal LM otherwise. Reads config files only, no weights.
 */
export function modelFolderProblem(dir: string, role: ModelRole = 'causal-lm'): string | null {
  if (!fs.existsSync(dir)) return 'folder not found';
  if (!fs.statSync(dir).isDirectory()) return 'not a folder';
  const adapter = isAdapterFolder(dir);
  if (!adapter && !fs.existsSync(path.join(dir, 'config.json'))) {
    return 'neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)';
  }
  let classifier: boolean;
  try {
    const config = modelConfigOf(dir); // an adapter folder: its base's, which must be there
    classifier = adapter ? adapterTaskType(dir) === 'SEQ_CLS' : isSequenceClassifier(config);
  } catch (e) {
    return (e as Error).message;
  }
  const what = adapter ? 'a LoRA adapter' : 'a checkpoint';
  if (role === 'reward-model' && !classifier) {
    return `${what} of a causal LM, not a reward model (${adapter ? 'task_type SEQ_CLS' : 'Qwen2ForSequenceClassification'}); train one with \`rm train\``;
  }
  if (role === 'causal-lm' && classifier) return `${what} of a reward model (${adapter ? 'task_type SEQ_CLS' : 'Qwen2ForSequenceClassification'}), not a causal LM`;
  return null;
}

/** modelFolderProblem as an error naming the flag and the folder, e.g. `--model: results/sft: folder not found`. */
export function checkModelFolder(dir: string, flag: string, role: ModelRole = 'causal-lm'): void {
  const problem = modelFolderProblem(dir, role);
  if (problem !== null) throw new Error(`${flag}: ${dir}: ${problem}`);
}
