// A linear layer with Hugging Face's weight layout: W is [out, in], y = x W^T + b.
import * as tf from '@tensorflow/tfjs';
import { LowPrecisionMatrix, lowPrecisionMatMul, type Weight } from '@rlhf-code/backend';
import { loraDelta, type LoraWeights } from './lora';

/**
 * Up to this many rows, y = (W x^T)^T is computed instead of x W^T. Same result; but x W^T makes the wasm
 * backend transpose and re-pack the whole weight on every call, which dominates decoding (one row per
 * step: a 16384 x 256 LM head took 30 ms that way, against about 1 ms for W x^T, where only x is transposed).
 */
const FEW_ROWS = 16;

/**
 * x: [N, in] (callers flatten batch and time first: tfjs 4.22 computes a wrongly shaped gradient for
 * matMul(3-D, 2-D), and the 2-D case is also the fast path), weight: [out, in] (float32, or a frozen bf16 / int8
 * matrix: gradients still reach x and the LoRA term), bias: [out] -> [N, out]; with a LoRA adapter, + its low-rank
 * term (lora.ts).
 */
export function linear(x: tf.Tensor2D, weight: Weight, bias?: tf.Tensor1D, lora?: LoraWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const N = x.shape[0];
    const y: tf.Tensor2D = weight instanceof LowPrecisionMatrix
      ? lowPrecisionMatMul(x, weight) // [N, out]
      : N <= FEW_ROWS
        ? N === 1
          ? tf.reshape<tf.Rank.R2>(tf.matMul(weight, x, false, true), [1, -1]) // [out, 1] -> [1, out]
          : tf.transpose(tf.matMul(weight, x, false, true) as tf.Tensor2D) // [out, N] -> [N, out]
        : tf.matMul(x, weight, false, true); // [N, out]
    const yb = bias ? tf.add(y, bias) : y;
    return lora ? tf.add(yb, loraDelta(x, lora)) : yb;
  }) as tf.Tensor2D;
}
