// Rollouts: sample responses from the policy, and lay prompt + response out for the forward passes.
//
// Layout of a batch of B sequences (TRL's): prompts left padded to width P, responses right padded to R,
//   ids       [B, P + R]   pad ... pad p0 p1 p2 | r0 r1 r2 EOS pad pad
//   attention [B, P + R]    0  ...  0  1  1  1 |  1  1  1  1   0   0
// Position P - 1 + t predicts response token t, so the response's log-probs (and values) are read at
// positions P - 1 .. P + R - 2. Positions follow cumsum(attention) - 1, so padding shifts nothing.
// Responses come from the stage's rollout engine (@rlhf-code/engine: local, llamacpp or openai:URL).
import type { RolloutEngine } from '@rlhf-code/engine';
import { Rng, sampledIds } from '@rlhf-code/model';

export interface SequenceBatch {
  promptIds: number[][];
  responseIds: number[][];
  /** [B, P + R] token ids and attention mask (1 = real token). */
  ids: number[][];
  attention: number[][];
  /** [B, R] response ids padded with padId (the targets of the log-probs), and 1 = real response token. */
  targets: number[][];
  responseMask: number[][];
  promptWidth: number;
  responseWidth: number;
}

/** Prompt + response rows -> the padded layout above. Every prompt and every response needs >= 1 token. */
export function layoutSequences(promptIds: readonly number[][], responseIds: readonly number[][], padId: number): SequenceBatch {
  if (promptIds.length === 0 || promptIds.length !== responseIds.length) {
    throw new Error(`layoutSequences: need as many prompts as responses (>= 1), got ${promptIds.length} and ${responseIds.length}`);
  }
  promptIds.forEach((p, b) => {
    if (p.length === 0) throw new Error(`layoutSequences: prompt ${b} is empty`);
    if (responseIds[b].length === 0) throw new Error(`layoutSequences: response ${b} is empty`);
  });
  const P = Math.max(...promptIds.map((p) => p.length));
  const R = Math.max(...responseIds.map((r) => r.length));
  const fill = (n: number, v: number) => new Array<number>(n).fill(v);
  const ids: number[][] = [];
  const attention: number[][] = [];
  const targets: number[][] = [];
  const responseMask: number[][] = [];
  promptIds.forEach((p, b) => {
    const r = responseIds[b];
    ids.push([...fill(P - p.length, padId), ...p, ...r, ...fill(R - r.length, padId)]);
    attention.push([...fill(P - p.length, 0), ...fill(p.length + r.length, 1), ...fill(R - r.length, 0)]);
    targets.push([...r, ...fill(R - r.length, padId)]);
    responseMask.push([...fill(r.length, 1), ...fill(R - r.length, 0)]);
  });
  return {
    promptIds: promptIds.map((p) => [...p]),
    responseIds: responseIds.map((r) => [...r]),
    ids,
    attention,
    targets,
    responseMask,
    promptWidth: P,
    responseWidth: R,
  };
}

/** The rows `rows` of a batch, laid out again (narrower when they are shorter). */
export function selectRows(batch: SequenceBatch, rows: readonly number[], padId: number): SequenceBatch {
  const sub = layoutSequences(rows.map((i) => batch.promptIds[i]), rows.map((i) => batch.responseIds[i]), padId);
  // The rows keep their own response masks (a multi-turn episode's marks only the model's tokens), cut to the width.
  sub.responseMask = rows.map((i) => batch.responseMask[i].slice(0, sub.responseWidth));
  return sub;
}

/**
 * `rows` in chunks of at most `size`, rows of similar `length` together: a chunk laid out by selectRows is padded to
 * its longest row, so this pads least. Summed over chunks (gradient accumulation), the result does not depend on it.
 */
export function chunksByLength(rows: readonly number[], size: number, length: (row: number) => number): number[][] {
  const sorted = [...rows].sort((a, b) => length(a) - length(b));
  const out: number[][] = [];
  for (let i = 0; i < sorted.length; i += size) out.push(sorted.slice(i, i + size));
  return out;
}

/** Rows `rows` of a [B][T] host matrix, cut to `width` columns (to match selectRows' layout). */
export function takeRows(x: readonly (readonly number[])[], rows: readonly number[], width: number): number[][] {
  return rows.map((i) => x[i].slice(0, width));
}

export interface SampleOptions {
  maxNewTokens: number;
  temperature: number;
  /** Generation ends after one of these; a response that ends with one "ended with EOS". */
  stopTokenIds: number[];
  /** The root stream of generateBatch's seeding rule (one draw per prompt); caller-owned so a run can save it. */
  rng: Rng;
  /** Prompts generated together (memory of the KV cache); default all. */
  batchSize?: number;
  /** Ids at or past it (a checkpoint's padding rows past the tokenizer's ids, which are no text) are never sampled. */
  vocabSize: number;
}

export interface Responses {
  responseIds: number[][];
  endedWithEos: boolean[];
  /** The sampler's own log-probs (the engine's): the mismatch metric and the optional importance weight; PPO recomputes the old policy's. */
  samplerLogprobs: number[][];
  /** The policy version that sampled each response. */
  policyVersions: number[];
}

/**
 * Pure sampling from softmax(logits / temperature): no top-k, no top-p, so that the log-probs computed for
 * training describe the distribution the tokens were really drawn from (else the KL estimate turns negative).
 * `rng` is generateBatch's root stream: it moves on one draw per prompt, and each prompt samples from its own stream.
 */
export async function sampleResponses(engine: RolloutEngine, prompts: readonly number[][], o: SampleOptions): Promise<Responses> {
  if (!(o.maxNewTokens >= 1)) throw new Error(`sampleResponses: maxNewTokens must be >= 1, got ${o.maxNewTokens}`);
  const done = await engine.sample(prompts, {
    maxNewTokens: o.maxNewTokens,
    temperature: o.temperature,
    topK: 0,
    topP: 1,
    stopIds: o.stopTokenIds,
    vocabSize: o.vocabSize,
    rng: o.rng,
    batchSize: o.batchSize && o.batchSize > 0 ? o.batchSize : undefined,
  });
  return {
    responseIds: done.map(sampledIds),
    endedWithEos: done.map((c) => c.stopId !== null),
    samplerLogprobs: done.map((c) => c.logprobs),
    policyVersions: done.map((c) => c.policyVersion),
  };
}
