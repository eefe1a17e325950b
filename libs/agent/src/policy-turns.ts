// The policy as a TurnGenerator: one assistant turn per sequence through the stage's rollout engine (--engine: the
// local decoder, llama.cpp or a server), sampled at `temperature`, ending at the chat stop set (<|im_end|>, <|endoftext|>).
//
// Random numbers: each episode gets a seed from the root stream `rng` when it first appears (one draw, in the order
// episodes first appear: index order in runEpisodes), and its turn k is drawn from a stream of its own seeded by
// (that seed, k). So an episode's samples depend on the root seed, its index, its turn and the model only: not on the
// other episodes, nor on how long its earlier turns were. Two models evaluated with equal roots share their random
// numbers turn by turn (common random numbers): where their token distributions agree they choose the same tokens,
// and the noise of a paired comparison shrinks. One generator per runEpisodes call (its episode indices key the seeds).
import type { RolloutEngine } from '@rlhf-code/engine';
import { resumableRng, type Rng } from '@rlhf-code/model';
import { layoutSequences, type SequenceBatch } from '@rlhf-code/rl';
import { stopTokenIds, type Tokenizer } from '@rlhf-code/tokenizer';
import type { Episode, TurnGenerator } from './episode';

export function policyTurns(engine: RolloutEngine, o: { tokenizer: Tokenizer; temperature: number; rng: Rng; batchSize?: number }): TurnGenerator {
  const seen = new Map<number, { seed: number; turns: number }>();
  return async (sequences, maxNewTokens, episodes) => {
    const rngs = episodes.map((e) => {
      let s = seen.get(e);
      if (!s) seen.set(e, (s = { seed: o.rng.next(), turns: 0 }));
      return resumableRng(`${s.seed}:${s.turns++}`);
    });
    const longest = Math.max(...maxNewTokens);
    const out = await engine.sample(sequences, {
      maxNewTokens: longest,
      temperature: o.temperature,
      stopIds: stopTokenIds(o.tokenizer, 'chat'),
      vocabSize: o.tokenizer.vocabSize,
      rngs,
      batchSize: o.batchSize,
    });
    // One call serves turns with different budgets: a turn past its own is cut there, as if it had run out of tokens.
    return out.map((c, i) => {
      const cap = maxNewTokens[i];
      if (c.ids.length + (c.stopId === null ? 0 : 1) <= cap) return { ids: c.ids, stopId: c.stopId, logprobs: c.logprobs, policyVersion: c.policyVersion };
      return { ids: c.ids.slice(0, cap), stopId: null, logprobs: c.logprobs.slice(0, cap), policyVersion: c.policyVersion };
    });
  };
}

/**
 * Episodes as a batch for the policy's forward pass: the prompt, then everything after it as the "response", whose
 * mask is the episode's train mask (tool tokens are context, not targets).
 */
export function episodeBatch(episodes: readonly Episode[], padId: number): SequenceBatch {
  const batch = layoutSequences(
    episodes.map((e) => e.ids.slice(0, e.promptLength)),
    episodes.map((e) => e.ids.slice(e.promptLength)),
    padId,
  );
  batch.responseMask = episodes.map((e) => afterPrompt(e, e.trainMask, batch.responseWidth));
  return batch;
}

/** One of an episode's per-position arrays (`values`, as long as its ids) from the prompt's end, padded with 0 to `width`. */
export function afterPrompt(e: Episode, values: readonly number[], width: number): number[] {
  const row = values.slice(e.promptLength);
  return [...row, ...new Array<number>(width - row.length).fill(0)];
}
