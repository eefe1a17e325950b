module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'model',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/src/backend/jest-teardown.ts'],
};
