// Child process of heap-guard.test.ts: fill the wasm heap with 1 GiB tensors until it is full, print what happened,
// then check that the backend still computes once they are freed. (A child, so the 4 GB heap dies with it.)
import * as tf from '@tensorflow/tfjs';
import { initBackend } from './index';

async function main(): Promise<void> {
  await initBackend({ backend: 'wasm', quiet: true });
  const kept: tf.Tensor[] = [];
  try {
    for (let i = 0; i < 6; i++) kept.push(tf.fill([2 ** 28], 1)); // 1 GiB of float32 each
    console.log('no error after 6 GiB');
  } catch (e) {
    console.log(`${(e as Error).name}: ${(e as Error).message}`);
  }
  console.log(`kept ${kept.length}`);
  kept.forEach((t) => t.dispose());
  console.log(`sum ${tf.ones([4]).sum().dataSync()[0]}`);
  process.exit(0); // the wasm worker threads would keep the process alive
}

void main();
