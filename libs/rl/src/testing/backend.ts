// The backend the rl tests run on: the one initBackend picks, as the apps do (RLHF_BACKEND=cpu for tfjs's
// pure-JS reference backend). jest.config.js's teardown shuts it down after each file.
import { initBackend } from '@rlhf-code/backend';

/** Call at the top of a test file that uses tfjs. */
export function useTestBackend(): void {
  beforeAll(() => initBackend({ quiet: true }));
}
