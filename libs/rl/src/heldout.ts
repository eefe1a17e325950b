// RL's held-out measurement: every few iterations, sample K responses for each of a fixed set of prompts that
// RL never trains on, score them with the same sources as the rollouts (reward model, execution), and report
// per source the mean over prompts of the per-prompt mean, with its standard error across prompts, plus the
// paired difference from the first measurement (same prompts: the gain since the start, with its SE and 95% CI).
//
// The sampling seed is the same at every measurement (common random numbers): two measurements differ because
// the policy changed, not because the dice did. The trainer's own RNG is not touched, so --resume and the
// rollouts are the same with or without these measurements.
import type { RolloutEngine } from '@rlhf-code/engine';
import { resumableRng } from '@rlhf-code/model';
import { meanSe, paired, type MeanSe, type PairedDiff } from '@rlhf-code/stats';
import { sampleResponses } from './rollout';
import type { RlPrompt } from './rl-trainer';
import { rolloutSamples, type CombinedScorer } from './scorers';

/** Files of the RL output folder: the measurements (one JSON line each) and their plot (drawn by the app). */
export const HELDOUT_FILE = 'heldout.jsonl';
export const HELDOUT_SVG = 'heldout.svg';

export interface HeldOutOptions {
  /** Prompts RL never trains on; `index` is their index in the scorer's prompt list. */
  prompts: readonly RlPrompt[];
  /** Scores with named parts (e.g. rm_score, exec_score), as for the rollouts. */
  scorer: CombinedScorer;
  /** Responses sampled per prompt. */
  samples: number;
  maxNewTokens: number;
  temperature: number;
  stopTokenIds: number[];
  /** Ids at or past it (a checkpoint's padding rows past the tokenizer's ids) are never sampled. */
  vocabSize: number;
  seed: number;
  /** Prompts generated together. */
  batchSize?: number;
}

export interface HeldOutRecord {
  /** Iterations done when measured (0 = the starting policy). */
  step: number;
  prompts: number;
  samples_per_prompt: number;
  temperature: number;
  /** Per score source (and `score`, their weighted sum) and per response statistic: mean and SE across prompts. */
  metrics: Record<string, MeanSe>;
  /** Paired with the first measurement on the same prompts (absent on the first one). */
  vs_start?: Record<string, PairedDiff>;
  /** Per-prompt means, in prompt order: what the paired differences of later measurements are computed from. */
  per_prompt: Record<string, number[]>;
}

export class HeldOutProbe {
  private start: HeldOutRecord | null = null;

  constructor(readonly options: HeldOutOptions) {
    if (options.prompts.length < 2) throw new Error(`held-out measurement: need at least 2 prompts, got ${options.prompts.length}`);
    if (!(Number.isInteger(options.samples) && options.samples >= 1)) throw new Error(`held-out measurement: samples must be an integer >= 1, got ${options.samples}`);
  }

  /** The first measurement of this run (read back from heldout.jsonl on --resume). */
  setStart(record: HeldOutRecord): void {
    if (record.prompts !== this.options.prompts.length) {
      throw new Error(`held-out measurement: the first record has ${record.prompts} prompts, this run ${this.options.prompts.length}`);
    }
    this.start = record;
  }

  /** Sample the prompts on `engine` (the run's, at the policy version just published). */
  async measure(engine: RolloutEngine, step: number): Promise<HeldOutRecord> {
    const o = this.options;
    const K = o.samples;
    const rows = o.prompts.flatMap((p) => new Array<RlPrompt>(K).fill(p)); // [P * K], each prompt's K samples together
    const gen = await sampleResponses(
      engine,
      rows.map((p) => p.ids),
      {
        maxNewTokens: o.maxNewTokens,
        temperature: o.temperature,
        stopTokenIds: o.stopTokenIds,
        vocabSize: o.vocabSize,
        rng: resumableRng(`heldout:${o.seed}`),
        batchSize: o.batchSize,
      },
    );
    const samples = rolloutSamples(rows, gen);
    const scored = await o.scorer(samples);
    const perSample: Record<string, number[]> = {
      score: scored.scores,
      ...scored.parts,
      missing_eos: gen.endedWithEos.map((e) => (e ? 0 : 1)),
      response_len: gen.responseIds.map((r) => r.length),
    };
    const perPrompt: Record<string, number[]> = {};
    for (const [name, values] of Object.entries(perSample)) {
      perPrompt[name] = o.prompts.map((_, p) => values.slice(p * K, (p + 1) * K).reduce((s, x) => s + x, 0) / K);
    }
    const metrics = Object.fromEntries(Object.entries(perPrompt).map(([name, v]) => [name, meanSe(v)]));
    const record: HeldOutRecord = { step, prompts: o.prompts.length, samples_per_prompt: K, temperature: o.temperature, metrics, per_prompt: perPrompt };
    if (this.start) {
      const start = this.start;
      record.vs_start = Object.fromEntries(
        Object.keys(perPrompt)
          .filter((name) => start.per_prompt[name]?.length === o.prompts.length)
          .map((name) => [name, paired(perPrompt[name], start.per_prompt[name])]),
      );
    } else {
      this.start = record;
    }
    return record;
  }
}

/** One line for the log: `held-out @ 20: exec_score 0.412 ± 0.013 (+0.031 ± 0.009 [0.013, 0.049] since start), ...`. */
export function formatHeldOut(r: HeldOutRecord, names: readonly string[]): string {
  const f = (x: number) => x.toFixed(3);
  const sign = (x: number) => (x >= 0 ? '+' : '') + f(x);
  const parts = names
    .filter((n) => r.metrics[n])
    .map((n) => {
      const m = r.metrics[n];
      const d = r.vs_start?.[n];
      const since = d ? ` (${sign(d.diff)}${d.se !== null ? ` ± ${f(d.se)}` : ''}${d.ci95 ? ` [${f(d.ci95[0])}, ${f(d.ci95[1])}]` : ''} since start)` : '';
      return `${n} ${f(m.mean)}${m.se !== null ? ` ± ${f(m.se)}` : ''}${since}`;
    });
  return `held-out @ ${r.step} (${r.prompts} prompts x ${r.samples_per_prompt}): ${parts.join(', ')}`;
}
