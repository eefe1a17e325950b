// A BatchMatMul gradient that is right under batch broadcasting (all backends).
//
// tfjs 4.22's gradient returns the raw matmuls: for a [B,T,C] x W [C,D] the gradient of W comes
// out as [B,C,D] (tfjs then throws a shape error), and for [B,H,T,D] x [1,H,D,S] likewise. The
// gradient of an input that was broadcast must be summed over the broadcast batch axes.
import * as tf from '@tensorflow/tfjs';
import type { BatchMatMulAttrs, GradConfig, NamedAttrMap, Tensor } from '@tensorflow/tfjs';

/** Sums g over the batch axes along which `shape` was broadcast, giving a tensor of `shape`. */
function sumToShape(g: Tensor, shape: number[]): Tensor {
  const lead = g.rank - shape.length; // axes `shape` lacks entirely
  const axes: number[] = [];
  for (let axis = 0; axis < g.rank - 2; axis++) {
    if (axis < lead || (shape[axis - lead] === 1 && g.shape[axis] !== 1)) axes.push(axis);
  }
  return axes.length === 0 ? g : tf.reshape(tf.sum(g, axes), shape);
}

export const batchMatMulGradConfig: GradConfig = {
  kernelName: tf.BatchMatMul,
  inputsToSave: ['a', 'b'],
  gradFunc: (dy: Tensor | Tensor[], saved: Tensor[], attrs: NamedAttrMap) => {
    const d = dy as Tensor;
    const [a, b] = saved;
    const { transposeA, transposeB } = attrs as unknown as BatchMatMulAttrs;
    // Same products as tfjs (out = op(a) op(b)), then reduced to each input's shape.
    let da: () => Tensor;
    let db: () => Tensor;
    if (!transposeA && !transposeB) {
      da = () => tf.matMul(d, b, false, true);
      db = () => tf.matMul(a, d, true, false);
    } else if (!transposeA && transposeB) {
      da = () => tf.matMul(d, b, false, false);
      db = () => tf.matMul(d, a, true, false);
    } else if (transposeA && !transposeB) {
      da = () => tf.matMul(b, d, false, true);
      db = () => tf.matMul(a, d, false, false);
    } else {
      da = () => tf.matMul(b, d, true, true);
      db = () => tf.matMul(d, a, true, true);
    }
    return { a: () => sumToShape(da(), a.shape), b: () => sumToShape(db(), b.shape) };
  },
};
