// Test helper shared by the libs' tests: make a chosen token the model's greedy choice where another one was.
import type { Qwen2Model } from '../model';
import type { HostTensor } from '../safetensors';

/**
 * Give `token` 1.5 x the output-embedding row of `like` (lm_head, or embed_tokens when tied), so that wherever `like`
 * is the greedy choice with a positive logit, `token` now is. Returns the original weights: pass them to
 * `model.assignWeights` to undo.
 */
export function promoteToken(model: Qwen2Model, token: number, like: number): Map<string, HostTensor> {
  const original = model.hostWeights();
  const name = model.config.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
  const head = original.get(name)!;
  const D = head.shape[1];
  const data = Float32Array.from(head.data);
  for (let d = 0; d < D; d++) data[token * D + d] = 1.5 * head.data[like * D + d];
  model.assignWeights(new Map(original).set(name, { shape: head.shape, data }));
  return original;
}
