// Gradient accumulation: several micro-batches make one optimizer step when a whole batch does not fit.
// Each micro-batch's gradient is added, times its weight, into a persistent buffer per parameter name;
// take() returns sum(weight_i * grad_i) / sum(weight_i). A step of one micro-batch returns its gradient as it is (the
// buffer holds it unweighted until a second one comes): no multiply and divide per parameter, and no rounding by them.
//   - weight = number of tokens the micro-batch loss averaged over: the result is exactly the gradient of the
//     mean loss over all tokens of the big batch (micro-batches may hold different numbers of tokens);
//   - weight = 1 (the default): the mean of the micro-batch gradients, the same thing when all micro-batches
//     count the same number of tokens (or when the loss is a mean over sequences of equal-sized micro-batches).
import * as tf from '@tensorflow/tfjs';

export class GradAccumulator {
  private buffers = new Map<string, tf.Variable>(); // name -> running weighted sum, shape of the gradient
  private names: string[] = []; // gradient names of the current accumulation
  totalWeight = 0; // 0 when nothing is accumulated
  microBatches = 0;

  add(grads: Record<string, tf.Tensor>, weight = 1): void {
    if (!(weight > 0) || !Number.isFinite(weight)) throw new Error(`GradAccumulator.add: invalid weight ${weight}`);
    const names = Object.keys(grads);
    const first = this.totalWeight === 0;
    if (!first) {
      const missing = this.names.find((name) => !(name in grads)) ?? names.find((name) => !this.names.includes(name));
      if (missing !== undefined) {
        throw new Error(`GradAccumulator.add: gradient "${missing}" is in only some of the micro-batches`);
      }
    }
    for (const name of names) {
      const buffer = this.buffers.get(name);
      if (buffer && !tf.util.arraysEqual(buffer.shape, grads[name].shape)) {
        throw new Error(`GradAccumulator.add: gradient "${name}" has shape [${grads[name].shape}], expected [${buffer.shape}]`);
      }
    }
    const second = this.microBatches === 1; // the buffer holds the first gradient unweighted: weigh it now
    tf.tidy(() => {
      for (const name of names) {
        const buffer = this.buffers.get(name);
        // Variables are not tracked by tidy: a buffer created here stays.
        if (first) {
          if (!buffer) this.buffers.set(name, tf.variable(grads[name], false)); // a copy: the caller keeps its tensor
          else buffer.assign(grads[name]);
          continue;
        }
        const sum = second ? tf.mul(buffer!, this.totalWeight) : buffer!;
        buffer!.assign(tf.add(sum, tf.mul(grads[name], weight)));
      }
    });
    if (first) this.names = names;
    this.totalWeight += weight;
    this.microBatches++;
  }

  /** The weighted mean of the gradients added since the last take()/reset() (new tensors, the caller's), then reset. */
  take(): Record<string, tf.Tensor> {
    if (this.totalWeight === 0) throw new Error('GradAccumulator.take: no gradient was added');
    const total = this.totalWeight;
    const single = this.microBatches === 1;
    const mean = tf.tidy(() => {
      const out: Record<string, tf.Tensor> = {};
      for (const name of this.names) out[name] = single ? tf.clone(this.buffers.get(name)!) : tf.div(this.buffers.get(name)!, total);
      return out;
    });
    this.reset();
    return mean;
  }

  /** Drops what was accumulated (e.g. after a non-finite gradient); the buffers are kept for reuse. */
  reset(): void {
    this.names = [];
    this.totalWeight = 0;
    this.microBatches = 0;
  }

  dispose(): void {
    for (const buffer of this.buffers.values()) buffer.dispose();
    this.buffers.clear();
    this.reset();
  }
}
