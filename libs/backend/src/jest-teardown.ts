// Jest setup (setupFilesAfterEnv): after each test file, release the backend so the wasm pthread
// workers are terminated and jest exits without --forceExit.
import { shutdownBackend } from './select';

afterAll(async () => {
  await shutdownBackend();
});
