// The `--models name=DIR,name=DIR` flag: which checkpoints to compare, and under which names they appear
// in eval.json and the table. Errors name the flag and the offending entry. A folder is a checkpoint or a LoRA adapter
// folder (its base plus the adapter), as every command that takes a model reads it (@rlhf-code/model checkpointOr):
// checked here once, the evaluation opens the Checkpoint the check returned.
import { checkpointOr, type Checkpoint } from '@rlhf-code/model';

export interface NamedModel {
  name: string;
  dir: string;
  /** `dir` as checkModelDirs checked it (absent: the evaluation checks it when it opens it). */
  checkpoint?: Checkpoint<'causal-lm'>;
}

/** Names are JSON keys, table headers and chart labels: keep them simple. */
const NAME = /^[A-Za-z0-9_.-]+$/;

export class ModelsFlagError extends Error {}

/** "base=models/base,sft=results/sft" -> [{name: 'base', dir: 'models/base'}, ...] (order kept). */
export function parseModelsFlag(text: string, flag = '--models'): NamedModel[] {
  const entries = text.split(',').map((e) => e.trim());
  if (text.trim() === '' || entries.every((e) => e === '')) throw new ModelsFlagError(`${flag}: expected name=DIR[,name=DIR...], got nothing`);
  const out: NamedModel[] = [];
  for (const entry of entries) {
    if (entry === '') throw new ModelsFlagError(`${flag}: empty entry in "${text}" (a stray comma?)`);
    const eq = entry.indexOf('=');
    if (eq < 0) throw new ModelsFlagError(`${flag}: "${entry}" is not name=DIR (e.g. sft=results/sft)`);
    const name = entry.slice(0, eq).trim();
    const dir = entry.slice(eq + 1).trim();
    if (!NAME.test(name)) throw new ModelsFlagError(`${flag}: model name "${name}" in "${entry}" must be letters, digits, _ . or -`);
    if (dir === '') throw new ModelsFlagError(`${flag}: "${entry}" has no folder after "="`);
    if (out.some((m) => m.name === name)) throw new ModelsFlagError(`${flag}: model name "${name}" is given twice`);
    out.push({ name, dir });
  }
  return out;
}

/**
 * Every folder must be a causal LM's checkpoint or LoRA adapter folder; one message lists all that are not. Returns the
 * models with their checked Checkpoints.
 */
export function checkModelDirs(models: readonly NamedModel[], flag = '--models'): NamedModel[] {
  const checked = models.map((m) => ({ m, r: checkpointOr(m.dir, `${flag} ${m.name}`) }));
  const bad = checked.flatMap(({ m, r }) => ('problem' in r ? [`${flag}: ${m.name}=${m.dir}: ${r.problem}`] : []));
  if (bad.length > 0) throw new ModelsFlagError(bad.join('\n'));
  return checked.map(({ m, r }) => ({ ...m, checkpoint: 'problem' in r ? undefined : r }));
}

/** The model KL is measured against: `dir`, and `name` when it is one of the evaluated models (its own KL is null). */
export interface KlReference {
  dir: string;
  name: string | null;
  /** `dir` checked (absent: the evaluation checks it when it opens it). */
  checkpoint?: Checkpoint<'causal-lm'>;
}

/**
 * `--sft-ref`: a model name from --models, a checkpoint or LoRA adapter folder, or "none". Without it the model named
 * "sft" is the reference, and KL is skipped (null) when there is none.
 */
export function resolveKlReference(models: readonly NamedModel[], sftRef: string | undefined, flag = '--sft-ref'): KlReference | null {
  if (sftRef === undefined) {
    const sft = models.find((m) => m.name === 'sft');
    return sft ? { dir: sft.dir, name: sft.name, checkpoint: sft.checkpoint } : null;
  }
  if (sftRef === 'none') return null;
  const named = models.find((m) => m.name === sftRef);
  if (named) return { dir: named.dir, name: named.name, checkpoint: named.checkpoint };
  const r = checkpointOr(sftRef, flag);
  if ('problem' in r) {
    const names = models.map((m) => m.name).join(', ');
    throw new ModelsFlagError(`${flag}: "${sftRef}" is not a model name from --models (${names}), and as a folder: ${r.problem}`);
  }
  return { dir: sftRef, name: null, checkpoint: r };
}
