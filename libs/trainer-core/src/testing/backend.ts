// The backend the tests run on: whatever @rlhf-code/backend's initBackend picks, as the apps do (wasm with 2 threads
// and the extra kernels here); RLHF_BACKEND=cpu runs them on tfjs's pure-JS reference backend instead.
import { initBackend, shutdownBackend } from '@rlhf-code/backend';

/** Call at the top of a test file. */
export function useTestBackend(): void {
  beforeAll(() => initBackend({ quiet: true }));
  afterAll(shutdownBackend); // terminates the wasm pthread workers so that jest can exit
}
