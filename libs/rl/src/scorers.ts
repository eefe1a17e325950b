// Where the score of a response comes from: a reward model, running the code, or a weighted sum of both.
// A scorer sees whole rollout samples (token ids) and returns one number per sample.
import type { RewardModel } from '@rlhf-code/model';

export interface RolloutSample {
  /** Index of the prompt in the caller's prompt list (e.g. to find its tests). */
  promptIndex: number;
  promptIds: number[];
  /** Generated ids, the stop token included when there was one. */
  responseIds: number[];
  endedWithEos: boolean;
}

/** The rollout samples of `rows` (prompt index and ids) and their generated responses, row for row. */
export function rolloutSamples(
  rows: readonly { index: number; ids: number[] }[],
  gen: { responseIds: number[][]; endedWithEos: boolean[] },
): RolloutSample[] {
  return rows.map((p, i) => ({ promptIndex: p.index, promptIds: p.ids, responseIds: gen.responseIds[i], endedWithEos: gen.endedWithEos[i] }));
}

export type Scorer = (samples: readonly RolloutSample[]) => Promise<number[]> | number[];

export interface ScoreResult {
  /** [N] the weighted sum. */
  scores: number[];
  /** [N] each source's own scores, by name (logged as env/<name>_mean). */
  parts: Record<string, number[]>;
}

export type CombinedScorer = (samples: readonly RolloutSample[]) => Promise<ScoreResult>;

/**
 * The reward model's score of prompt + response, read at the end token: appended when the response was cut
 * at the length limit, since the reward model was trained with it (encodePair adds it) and reads its score there.
 */
export function rewardModelScorer(rm: RewardModel, opts: { padId: number; endId: number; batchSize?: number }): Scorer {
  return (samples) =>
    rm.score(
      samples.map((s) => [...s.promptIds, ...s.responseIds, ...(s.endedWithEos ? [] : [opts.endId])]),
      opts.padId,
      opts.batchSize ?? 8,
    );
}

/** score = sum of weight * source score, sources run one after the other. */
export function combineScorers(sources: readonly { name: string; weight: number; scorer: Scorer }[]): CombinedScorer {
  if (sources.length === 0) throw new Error('combineScorers: no score source (need a reward model or an execution reward)');
  return async (samples) => {
    const scores = new Array<number>(samples.length).fill(0);
    const parts: Record<string, number[]> = {};
    for (const { name, weight, scorer } of sources) {
      const s = await scorer(samples);
      if (s.length !== samples.length) throw new Error(`score source "${name}" returned ${s.length} scores for ${samples.length} samples`);
      const bad = s.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0) throw new Error(`score source "${name}" returned ${s[bad]} for sample ${bad}`);
      parts[name] = s;
      s.forEach((x, i) => (scores[i] += weight * x));
    }
    return { scores, parts };
  };
}
