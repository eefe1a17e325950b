// tf.cumsum / tf.cumprod fixes: negative axes (cpu and wasm kernels) and the cumsum gradient.
//
// tfjs 4.22 hands the axis to these kernels unnormalised and neither handles a negative one:
// the cpu backend returns an empty tensor, the wasm backend reads out of bounds, which corrupts the
// module and can hang later calls. The wrappers map axis -1 to rank - 1 etc. and reject
// out-of-range axes. Separately, tfjs's cumsum gradient transposes its result whenever the axis
// is not the last one (a shape error); the gradient is just the cumsum of dy in the other direction.
import * as tf from '@tensorflow/tfjs';
import type { CumsumAttrs, GradConfig, KernelConfig, KernelFunc, NamedAttrMap, Tensor, TensorInfo } from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm'; // registers the wasm kernels wrapped here

const KERNELS = [tf.Cumsum, tf.Cumprod];
const BACKENDS = ['cpu', 'wasm'];
const wrappers = new WeakSet<KernelFunc>();

function wrap(stock: KernelConfig): KernelConfig {
  const kernelFunc: KernelFunc = (args) => {
    const rank = (args.inputs.x as TensorInfo).shape.length;
    const axis = args.attrs?.axis as number;
    if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
      throw new Error(`${stock.kernelName}: axis ${axis} is out of range for a tensor of rank ${rank}`);
    }
    return stock.kernelFunc({ ...args, attrs: { ...args.attrs, axis: axis < 0 ? axis + rank : axis } });
  };
  wrappers.add(kernelFunc);
  return { ...stock, kernelFunc };
}

const cumsumGradConfig: GradConfig = {
  kernelName: tf.Cumsum,
  gradFunc: (dy: Tensor | Tensor[], _saved: Tensor[], attrs: NamedAttrMap) => {
    const { axis, exclusive, reverse } = attrs as unknown as CumsumAttrs;
    return { x: () => tf.cumsum(dy as Tensor, axis, exclusive, !reverse) };
  },
};

/**
 * Wraps the cpu and wasm Cumsum/Cumprod kernels (once) so that negative axes work, and replaces
 * the cumsum gradient.
 */
export function registerCumulativeFixes(): void {
  tf.registerGradient(cumsumGradConfig);
  for (const backendName of BACKENDS) {
    for (const kernelName of KERNELS) {
      const stock = tf.getKernel(kernelName, backendName);
      if (stock == null) throw new Error(`registerCumulativeAxisFix: no ${kernelName} kernel registered for ${backendName}`);
      if (wrappers.has(stock.kernelFunc)) continue; // already wrapped
      tf.unregisterKernel(kernelName, backendName);
      tf.registerKernel(wrap(stock));
    }
  }
}
