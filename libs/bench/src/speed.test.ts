// trainStepFlops: the matrix FLOPs that bench train divides by the step time, counted by hand for a small shape.
import { trainStepFlops } from './speed';

test('a training step counts 3 x (2 per weight + attention) per token, 2 x with LoRA', () => {
  // hidden 8, 2 heads of 4, 1 KV head, MLP 16, vocabulary 10: per layer q 8x8, k and v 8x4 each, o 8x8, gate/up/down
  // 8x16 each = 64 + 64 + 64 + 384 = 576 weights, the LM head 80: 656; forward 2 x 656 + attention 4 x 4 x 8 = 1,440.
  const shape = { hidden: 8, layers: 1, heads: 2, kv: 1, ffn: 16, vocab: 10, seq: 4, batch: 1, loraRank: 0 };
  expect(trainStepFlops(shape)).toBe(3 * 1440 * 4);
  expect(trainStepFlops({ ...shape, loraRank: 2 })).toBe(2 * 1440 * 4);
  expect(trainStepFlops({ ...shape, batch: 3 })).toBe(3 * 3 * 1440 * 4);
});
