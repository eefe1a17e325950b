// Test support of the training libs: the backend the tests run on.
export { useTestBackend } from './backend';
